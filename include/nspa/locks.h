/* NSPA user-mode locks: critical sections, SRW locks, condition variables, one-time
 * initialisation and address waits, with real-time behaviour.
 *
 * These are the native (nspa_*) forms of the Win32 functions declared in
 * <windows.h> (include/nspa/win32/synchapi_locks.h); the objects have the same size and
 * layout as their Win32 twins (nspa_cs_t is a RTL_CRITICAL_SECTION, nspa_srw_t a
 * SRWLOCK, ...), so either API may be used on one object.
 *
 * Real-time behaviour (see include/nspa/rt.h and docs/locks.md):
 *  - in RT mode (NSPA_RT_PRIO=1..98, NSPA_PI not 0) a critical section is a PI futex
 *    (FUTEX_LOCK_PI): a waiter boosts the owner through the kernel's rt_mutex,
 *    transitively; a condition variable used with it hands woken waiters to the lock by
 *    requeue-PI (FUTEX_WAIT_REQUEUE_PI / FUTEX_CMP_REQUEUE_PI), in priority order;
 *  - a thread at real-time priority never spins (decided per thread);
 *  - uncontended operations make no system call; no operation allocates memory except
 *    nspa_cs_init(), which may extend the requeue-PI registry.
 *
 * Timeouts are absolute CLOCK_MONOTONIC times (NULL = wait forever); functions that
 * can fail return 0 or a negative errno value. */
#ifndef NSPA_LOCKS_H
#define NSPA_LOCKS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- critical sections */

/* Layout-compatible with RTL_CRITICAL_SECTION (x64, 40 bytes). */
typedef struct nspa_cs {
    void     *debug_info;     /* (void *)-1: no debug information, as on Windows 7+ */
    int32_t   lock_count;     /* the futex word; see docs/locks.md */
    int32_t   recursion;      /* recursion depth of the owner, 0 when free */
    uintptr_t owner;          /* owner's thread id (Linux tid), 0 when free */
    uintptr_t mode;           /* bit 0: PI lock; bits 32..47: requeue-PI registry id */
    uintptr_t spin_count;     /* spin iterations (low 24 bits) | Windows flag bits */
} nspa_cs_t;

/* Flags for nspa_cs_init(): the RTL_CRITICAL_SECTION_FLAG_* values. */
#define NSPA_CS_NO_DEBUG_INFO    0x01000000u
#define NSPA_CS_DYNAMIC_SPIN     0x02000000u
#define NSPA_CS_STATIC_INIT      0x04000000u
#define NSPA_CS_RESOURCE_TYPE    0x08000000u
#define NSPA_CS_FORCE_DEBUG_INFO 0x10000000u
#define NSPA_CS_DEFAULT_SPIN     2000u

/* nspa_cs_init - initialise a critical section.
 *
 * spin: spin iterations before sleeping (only the low 24 bits may be set; 0 selects
 * the default, 2000, stored with the dynamic-spin flag as Windows does). flags: any of
 * NSPA_CS_* (only NSPA_CS_DYNAMIC_SPIN and NSPA_CS_RESOURCE_TYPE are recorded in
 * spin_count; debug information is never allocated). The lock is a PI futex when
 * nspa_pi_enabled(), else a plain futex lock. Returns 0, or -EINVAL when spin has any of
 * the top 8 bits set or flags has a bit outside 0x1FFFFFFF (the object is then not
 * initialised). Not thread-safe with respect to other uses of the same object. */
int nspa_cs_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags);

/* nspa_cs_enter - acquire, waiting as long as needed; recursive for the owner.
 * Uncontended: one compare-and-swap. Contended: a bounded spin (skipped by RT threads),
 * then the kernel (FUTEX_LOCK_PI in PI mode, boosting the owner). Thread-safe. */
void nspa_cs_enter(nspa_cs_t *cs);

/* nspa_cs_try_enter - acquire without waiting. Returns 1 when the caller now owns the
 * section (recursion included), 0 when another thread owns it. Thread-safe. */
int nspa_cs_try_enter(nspa_cs_t *cs);

/* nspa_cs_leave - release one level of recursion; the last one frees the section and
 * wakes the highest-priority waiter. The caller must be the owner (as on Windows, a
 * leave by another thread is undefined). Thread-safe. */
void nspa_cs_leave(nspa_cs_t *cs);

/* nspa_cs_wake_plain - wake one sleeper of a plain (non-PI) section. Called by the inline
 * LeaveCriticalSection of <windows.h> after it released a section with sleepers; not
 * useful otherwise. */
void nspa_cs_wake_plain(nspa_cs_t *cs);

/* nspa_cs_delete - destroy a section nobody owns or waits on. It may be initialised
 * again. Releases its requeue-PI registry id. */
void nspa_cs_delete(nspa_cs_t *cs);

/* nspa_cs_set_spin - set the spin count; returns the previous spin_count value. */
uint32_t nspa_cs_set_spin(nspa_cs_t *cs, uint32_t spin);

/* nspa_cs_owner - the owner's thread id, 0 when free (a racy snapshot for debugging). */
uint32_t nspa_cs_owner(const nspa_cs_t *cs);

/* ---------------------------------------------------------------- SRW locks */

/* Layout-compatible with SRWLOCK (one pointer). Zero is the unlocked state. */
typedef struct nspa_srw { void *ptr; } nspa_srw_t;
#define NSPA_SRW_INIT {0}
#define NSPA_SRW_DEFAULT_SPIN 1024

/* nspa_srw_lock_exclusive / nspa_srw_lock_shared - acquire, waiting as needed.
 * Writers are preferred: once a writer waits, new shared acquisitions wait too, so a
 * stream of readers cannot starve a writer. Before sleeping, a thread spins for up to
 * NSPA_SRW_DEFAULT_SPIN pause instructions (nspa_srw_set_spin), looking at the lock after
 * 64 of them, then 128, then every 256; a thread running at real-time priority polls
 * for at most 20 us instead (decided per thread, see nspa_thread_is_rt()); nobody spins
 * on one CPU. Not recursive: a second
 * acquisition by the owner deadlocks, as on Windows. Thread-safe. */
void nspa_srw_lock_exclusive(nspa_srw_t *l);
void nspa_srw_lock_shared(nspa_srw_t *l);

/* nspa_srw_try_exclusive / nspa_srw_try_shared - acquire without waiting: 1 on success,
 * 0 when it would have to wait (a try-shared fails while a writer holds or waits). */
int nspa_srw_try_exclusive(nspa_srw_t *l);
int nspa_srw_try_shared(nspa_srw_t *l);

/* nspa_srw_unlock_exclusive / nspa_srw_unlock_shared - release. A writer's release hands
 * over to the next writer if one waits, else wakes every waiting reader. */
void nspa_srw_unlock_exclusive(nspa_srw_t *l);
void nspa_srw_unlock_shared(nspa_srw_t *l);

/* nspa_srw_set_spin - process-wide spin budget of SRW acquisitions, in pause
 * instructions (0 disables spinning);
 * returns the previous value. Thread-safe. */
unsigned nspa_srw_set_spin(unsigned spin);

/* ---------------------------------------------------------------- condition variables */

/* Layout-compatible with CONDITION_VARIABLE (one pointer). Zero is the initial state. */
typedef struct nspa_cond { void *ptr; } nspa_cond_t;
#define NSPA_COND_INIT {0}

/* nspa_cond_wait_cs - release cs (entered exactly once by the caller), sleep until woken
 * or until abs_timeout (CLOCK_MONOTONIC; NULL = forever), then own cs again.
 * With a PI critical section the wait uses FUTEX_WAIT_REQUEUE_PI: a wake moves the
 * waiter onto the section's PI futex, where waiters queue in priority order and boost
 * the owner. Returns 0 when woken (spurious wakeups are possible, as on Windows),
 * -ETIMEDOUT on timeout; cs is owned again in both cases. A condition variable must not
 * be used by two different locks at the same time. Thread-safe. */
int nspa_cond_wait_cs(nspa_cond_t *c, nspa_cs_t *cs, const struct timespec *abs_timeout);

/* nspa_cond_wait_srw - the same with an SRW lock held exclusively (shared = 0) or shared
 * (shared = 1), reacquired in the same mode. */
int nspa_cond_wait_srw(nspa_cond_t *c, nspa_srw_t *l, int shared,
                       const struct timespec *abs_timeout);

/* nspa_cond_wake_one / nspa_cond_wake_all - wake one waiter (the highest-priority one in
 * PI mode) or all. No system call when nobody waits. Thread-safe; the caller need not
 * hold the lock. */
void nspa_cond_wake_one(nspa_cond_t *c);
void nspa_cond_wake_all(nspa_cond_t *c);

/* ---------------------------------------------------------------- one-time init */

/* Layout-compatible with INIT_ONCE (one pointer). Zero is the initial state. */
typedef struct nspa_once { void *ptr; } nspa_once_t;
#define NSPA_ONCE_INIT {0}
#define NSPA_ONCE_CHECK_ONLY  1u
#define NSPA_ONCE_ASYNC       2u
#define NSPA_ONCE_INIT_FAILED 4u

/* nspa_once_begin - start one-time initialisation (RtlRunOnceBeginInitialize).
 * Returns 0 with *context set when initialisation is complete; 1 ("pending") when the
 * caller must initialise and then call nspa_once_complete() (synchronous mode: others
 * wait meanwhile; NSPA_ONCE_ASYNC: others may initialise in parallel); -EAGAIN with
 * NSPA_ONCE_CHECK_ONLY when not yet complete; -EINVAL for CHECK_ONLY with ASYNC, or for
 * a mode that contradicts the one in progress. context may be NULL. Thread-safe. */
int nspa_once_begin(nspa_once_t *o, uint32_t flags, void **context);

/* nspa_once_complete - finish what nspa_once_begin() started: store context (its two low
 * bits must be 0) and wake the waiters, or with NSPA_ONCE_INIT_FAILED (context must be
 * NULL, not with ASYNC) return the object to its initial state so that the next caller
 * tries again. Returns 0; -EINVAL for bad arguments or a mode mismatch; -EAGAIN when
 * nothing is in progress (e.g. another ASYNC initialiser completed first). */
int nspa_once_complete(nspa_once_t *o, uint32_t flags, void *context);

/* nspa_once_execute - run fn(o, param, context) exactly once successfully; concurrent
 * callers wait for it. fn returns nonzero for success; on failure the object is reset
 * and -EAGAIN returned (a later call retries). Returns 0 on success with *context (if
 * not NULL) set to the stored context. */
int nspa_once_execute(nspa_once_t *o, int (*fn)(nspa_once_t *, void *, void **),
                      void *param, void **context);

/* ---------------------------------------------------------------- address waits */

/* nspa_wait_on_address - sleep while the size bytes (1, 2, 4 or 8) at addr equal those
 * at compare, until nspa_wake_address_*() for addr or abs_timeout (CLOCK_MONOTONIC;
 * NULL = forever). Returns 0 when the values differ at entry or when woken, -ETIMEDOUT,
 * or -EINVAL for another size. Waiters are woken in priority order (SCHED_FIFO/RR
 * priority first, FIFO among equals). addr needs no alignment beyond that of the size.
 * Thread-safe. */
int nspa_wait_on_address(volatile void *addr, const void *compare, size_t size,
                         const struct timespec *abs_timeout);

/* nspa_wake_address_single / nspa_wake_address_all - wake one (the highest-priority,
 * oldest among equals) or every thread waiting on addr. Thread-safe. */
void nspa_wake_address_single(const volatile void *addr);
void nspa_wake_address_all(const volatile void *addr);

#ifdef __cplusplus
}
#endif
#endif
