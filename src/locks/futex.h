/* Internal, locks-specific: the cached thread id, the Win32 timeout deadline and the
 * internal PI lock. The futex wrappers, cpu_relax and the TSan annotations for kernel
 * hand-offs come from the platform layer (common/platform.h). */
#ifndef NSPA_LOCKS_FUTEX_H
#define NSPA_LOCKS_FUTEX_H
#include <stdint.h>
#include "common/platform.h"

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

/* ---- spinning with backoff ----
 * A contended lock is looked at after NSPA_SPIN_FIRST pauses, then after twice as many,
 * at most NSPA_SPIN_BACKOFF_MAX apart, until @budget pauses are spent (or a deadline
 * passes). Every look pulls the lock's cache line away from the owner, whose next atomic
 * then has to fetch it back, and a look that lands between the owner's release and its
 * next acquisition takes the lock from it. With a look after every pause, two threads
 * that share a section of a few nanoseconds handed the line and the lock to each other
 * on nearly every acquisition (locks bench, CRITICAL_SECTION 4 threads on 2 CPUs: 7-18M
 * ops/s against glibc's 45-60M on these Intel VMs, where a pause is ~140 cycles); looks
 * after 1, 2, 4 ... pauses still gave the lock away every microsecond or so (45-50M);
 * starting at 64 the owner keeps it for long runs (80-86M; SRW exclusive 58-70M against
 * pthread_rwlock's 22-27M). The price: a waiter first looks ~3 us (at 140 cycles a pause;
 * ~1 us at 40) after it found the lock taken, then every ~12 us at most, still well
 * inside the time a sleeper needs to be woken. */
#define NSPA_SPIN_FIRST       64u
#define NSPA_SPIN_BACKOFF_MAX 256u

struct nspa_spin {
    unsigned budget;   /* pauses left */
    unsigned backoff;  /* pauses before the next look */
    uint64_t deadline; /* CLOCK_MONOTONIC ns after which it stops too (0: none) */
};

static inline struct nspa_spin nspa_spin_start(unsigned budget)
{
    return (struct nspa_spin){ budget, NSPA_SPIN_FIRST, 0 };
}

/* Pause before the next look; 0 when the budget is spent or the deadline passed (then
 * sleep). */
static inline int nspa_spin_pause(struct nspa_spin *sp)
{
    if (!sp->budget || (sp->deadline && nspa_clock_ns(CLOCK_MONOTONIC) > sp->deadline))
        return 0;
    unsigned k = sp->backoff < sp->budget ? sp->backoff : sp->budget;
    sp->budget -= k;
    if (sp->backoff < NSPA_SPIN_BACKOFF_MAX)
        sp->backoff *= 2;
    while (k--)
        nspa_cpu_relax();
    return 1;
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
