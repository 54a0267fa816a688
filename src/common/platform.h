/*
 * The platform layer: the few Linux facilities every module needs, in one place.
 *
 *  - futex / futex_waitv wrappers that return -errno (never set errno for the caller),
 *    private or shared by a flag;
 *  - the robust-mutex futex word (glibc's pthread_mutex_t keeps the owner tid, the
 *    FUTEX_WAITERS and FUTEX_OWNER_DIED bits there; the kernel writes it at a death);
 *  - cpu_relax for bounded spins;
 *  - NSPA_TSAN (1 in a ThreadSanitizer build) and the annotations for hand-offs the
 *    sanitizer cannot see;
 *  - the clock (CLOCK_MONOTONIC in ns, absolute deadlines);
 *  - environment options, parsed once (nspa_env_int, nspa_env_flag, nspa_env_is).
 *
 * Header-only and static inline: the hot paths inline it. Nothing here allocates.
 */
#ifndef NSPA_COMMON_PLATFORM_H
#define NSPA_COMMON_PLATFORM_H
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/export.h"

/* ---- CPU ------------------------------------------------------------------------ */

static inline void nspa_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* ---- TSan: the kernel hands a lock over behind the sanitizer's back ---------------- */

/* NSPA_TSAN: 1 in a ThreadSanitizer build (GCC's macro, or clang's feature test) */
#if defined(__SANITIZE_THREAD__)
#define NSPA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NSPA_TSAN 1
#endif
#endif
#ifndef NSPA_TSAN
#define NSPA_TSAN 0
#endif

#if NSPA_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define NSPA_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define NSPA_TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define NSPA_TSAN_ACQUIRE(p) ((void)0)
#define NSPA_TSAN_RELEASE(p) ((void)0)
#endif

/* ---- futexes ------------------------------------------------------------------- */

/* Returns the system call's result, or -errno. */
static inline long nspa_futex(void *uaddr, int op, uint32_t val, const struct timespec *ts,
                              void *uaddr2, uint32_t val3)
{
    long r = syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
    return r < 0 ? -errno : r;
}

/* Sleep while *uaddr == val, until the absolute @deadline on @clk (NULL: no limit).
 * @shared: the word may be woken from another process. Returns 0 or -errno
 * (-EAGAIN: the value differed, -ETIMEDOUT, -EINTR). */
static inline long nspa_futex_wait_abs(void *uaddr, uint32_t val, const struct timespec *deadline,
                                       clockid_t clk, int shared)
{
    int op = FUTEX_WAIT_BITSET | (shared ? 0 : FUTEX_PRIVATE_FLAG) |
             (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
    return nspa_futex(uaddr, op, val, deadline, NULL, FUTEX_BITSET_MATCH_ANY);
}

static inline long nspa_futex_wake_n(void *uaddr, int n, int shared)
{
    return nspa_futex(uaddr, FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG), (uint32_t)n, NULL, NULL, 0);
}

/* futex_waitv (Linux 5.16): sleep on several 32-bit words at once. */
struct nspa_futex_waitv {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define NSPA_FUTEX2_U32     0x02
#define NSPA_FUTEX2_PRIVATE 128

static inline void nspa_waitv_set(struct nspa_futex_waitv *v, void *uaddr, uint32_t val, int shared)
{
    v->val = val;
    v->uaddr = (uint64_t)(uintptr_t)uaddr;
    v->flags = NSPA_FUTEX2_U32 | (shared ? 0 : NSPA_FUTEX2_PRIVATE);
    v->reserved = 0;
}

/* Returns the index of the woken word, or -errno (-ENOSYS before Linux 5.16). */
static inline long nspa_futex_waitv(struct nspa_futex_waitv *v, unsigned n, const struct timespec *deadline,
                                    clockid_t clk)
{
    long r = syscall(SYS_futex_waitv, v, n, 0, deadline, clk);
    return r < 0 ? -errno : r;
}

/* ---- the robust-mutex word ---------------------------------------------------------
 * glibc keeps the kernel's robust futex word (owner tid | FUTEX_WAITERS |
 * FUTEX_OWNER_DIED) in __data.__lock; a thread that dies holding the mutex gets
 * FUTEX_OWNER_DIED set there by the kernel, which also wakes one waiter. Watching that
 * word is how a waiter learns of a death without polling. */
static inline _Atomic uint32_t *nspa_robust_word(pthread_mutex_t *m)
{
    return (_Atomic uint32_t *)(void *)&m->__data.__lock;
}

/* ---- clock ---------------------------------------------------------------------- */

static inline uint64_t nspa_clock_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline struct timespec nspa_ts_from_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    return ts;
}

/* ---- the machine ------------------------------------------------------------------ */

/* The number of online CPUs (at least 1), read once per process: spins are pointless on
 * one CPU, where the owner cannot run while the waiter spins. */
NSPA_HIDDEN int nspa_ncpu_online(void);

/* The CPUs this process may run on (its affinity when first asked; at most the online
 * count): a process pinned to one CPU gains nothing by spinning either. */
NSPA_HIDDEN int nspa_ncpu_usable(void);

/* How many tasks the kernel has runnable (the running count of /proc/loadavg), read at
 * most once per millisecond for the whole process; -1 when unknown. A hint for spins:
 * with more runnable tasks than CPUs a spinner holds a CPU someone else needs. */
NSPA_HIDDEN int nspa_runnable_hint(void);

/* ---- environment options, parsed once ------------------------------------------- */

/* An integer option from the environment: @def when unset or not a number, clamped to
 * [@lo, @hi]. The caller caches the value (options are read once per process). */
NSPA_HIDDEN int nspa_env_int(const char *name, int def, int lo, int hi);
/* A boolean option: "0" is off, anything else set is on, unset is @def. */
NSPA_HIDDEN int nspa_env_flag(const char *name, int def);
/* A choice: 1 when the option is set to @value (ASCII case ignored), else 0. */
NSPA_HIDDEN int nspa_env_is(const char *name, const char *value);

/* A test point: the tests of races and of "a process killed at any instant" kill a
 * process (NSPA_TEST_DIE_AT=<name>) or pause a thread (NSPA_TEST_PAUSE_AT=<name>:<ms>)
 * at an exact instant (platform.c). Only on slow paths, never a fast path; a load and
 * a test when unset. */
NSPA_HIDDEN void nspa__test_point(const char *name);

/* The start time (clock ticks since boot, /proc stat field 22) of process @pid, or of
 * its thread @tid when not 0: with the pid, it names a task across pid reuse. 0: gone. */
NSPA_HIDDEN uint64_t nspa_task_start_time(int pid, int tid);
/* 1 when process @pid is gone, or exited and not yet reaped (kill(pid, 0) still
 * succeeds on it; a zombie main thread with other threads alive is not gone) */
NSPA_HIDDEN int nspa_task_exited(int pid);
/* Its user and system time and start time (clock ticks; /proc stat fields 14, 15, 22).
 * Returns 0 or -ESRCH; any pointer may be NULL. */
NSPA_HIDDEN int nspa_task_times(int pid, int tid, uint64_t *utime, uint64_t *stime, uint64_t *start);

/* ---- locks ---------------------------------------------------------------------- */

/* A process-private priority-inheriting mutex (every lock with an owner inherits
 * priority, docs/rt.md); also to make one anew in a fork child, where the parent's
 * owner tid means nothing. */
NSPA_HIDDEN void nspa_pi_mutex_init(pthread_mutex_t *m);
/* Start @fn(@arg) on a detached thread (the library's service threads), its id in
 * *@out if not NULL: 0 or pthread_create's error number. */
NSPA_HIDDEN int nspa_thread_detached(void *(*fn)(void *), void *arg, pthread_t *out);
/* A library service thread: detached, a 512 KiB stack (sanitizer runtimes need room),
 * every signal blocked (none meant for the program lands there), named @name. 0 or an
 * errno value. */
NSPA_HIDDEN int nspa_service_thread(void *(*fn)(void *), void *arg, const char *name);

#endif
