/* Internal: futex wrappers, the cached thread id, TSan annotations for kernel hand-offs. */
#ifndef NSPA_LOCKS_FUTEX_H
#define NSPA_LOCKS_FUTEX_H
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "common/export.h"

#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define NSPA_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define NSPA_TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define NSPA_TSAN_ACQUIRE(p) ((void)0)
#define NSPA_TSAN_RELEASE(p) ((void)0)
#endif

static inline void nspa_cpu_relax(void) { __builtin_ia32_pause(); }

/* Returns the syscall result, or -errno. */
static inline long nspa_futex(void *uaddr, int op, uint32_t val, const struct timespec *ts,
                              void *uaddr2, uint32_t val3)
{
    long r = syscall(SYS_futex, uaddr, op, val, ts, uaddr2, val3);
    return r < 0 ? -errno : r;
}

static inline long nspa_futex_wait(void *uaddr, uint32_t val, const struct timespec *abs_mono)
{
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time */
    return nspa_futex(uaddr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val, abs_mono, NULL,
                      FUTEX_BITSET_MATCH_ANY);
}

static inline long nspa_futex_wake(void *uaddr, int n)
{
    return nspa_futex(uaddr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, (uint32_t)n, NULL, NULL, 0);
}

/* The caller's Linux thread id, cached per thread (reset in a fork child); 0 until the
 * thread's first lock call. Exported: the inline CRITICAL_SECTION fast path of
 * <nspa/win32/synchapi_locks.h> reads it. */
extern __thread uint32_t nspa_tls_tid __attribute__((tls_model("initial-exec"))) NSPA_EXPORT;
NSPA_HIDDEN uint32_t nspa_locks_tid_load(void);
/* How many PI critical sections the calling thread owns (recursion counted once). A
 * thread that owns one waits for another through the kernel's PI queue whatever its
 * priority, so that a boost reaches the end of a chain (cs.c, cs_enter_slow_pi). */
extern __thread int nspa_cs_pi_held __attribute__((tls_model("initial-exec"))) NSPA_HIDDEN;

static inline uint32_t nspa_self_tid(void)
{
    uint32_t t = nspa_tls_tid;
    if (unlikely(!t))
        t = nspa_locks_tid_load();
    return t;
}

/* Absolute CLOCK_MONOTONIC deadline for a Win32 millisecond timeout; NULL for INFINITE. */
static inline const struct timespec *nspa_ms_deadline(uint32_t ms, struct timespec *ts)
{
    if (ms == 0xffffffffu)
        return NULL;
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_nsec -= 1000000000L;
        ts->tv_sec++;
    }
    return ts;
}

/* ---- internal PI lock (a 32-bit futex word: 0 or owner tid | FUTEX_WAITERS) ---- */
static inline void nspa_pilock_lock(_Atomic uint32_t *w)
{
    uint32_t exp = 0, tid = nspa_self_tid();
    if (likely(atomic_compare_exchange_strong_explicit(w, &exp, tid, memory_order_acquire,
                                                       memory_order_relaxed)))
        return;
    while (nspa_futex(w, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0) == -EINTR)
        ;
    NSPA_TSAN_ACQUIRE(w);
}

static inline void nspa_pilock_unlock(_Atomic uint32_t *w)
{
    uint32_t exp = nspa_self_tid();
    NSPA_TSAN_RELEASE(w);
    if (likely(atomic_compare_exchange_strong_explicit(w, &exp, 0, memory_order_release,
                                                       memory_order_relaxed)))
        return;
    nspa_futex(w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
}
#endif
