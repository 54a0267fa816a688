/* Condition variables, one 64-bit word in CONDITION_VARIABLE.Ptr:
 *   bits  0..31  sequence (the futex word waiters sleep on; every wake bumps it)
 *   bits 32..47  waiters (registered before the lock is released, so a wake with
 *                nobody waiting costs no system call)
 *   bits 48..63  requeue-PI registry id of the PI critical section the waiters use
 *                (0: plain futex waits, e.g. SRW locks or a non-PI section)
 * With a PI section, waiters sleep in FUTEX_WAIT_REQUEUE_PI and wakers use
 * FUTEX_CMP_REQUEUE_PI: the kernel moves woken waiters onto the section's PI futex in
 * priority order (the highest one takes the lock if it is free), so nobody stampedes
 * and a waiter blocked there boosts the section's owner.
 *
 * A condition variable at an address that is not 8-byte aligned (Windows accepts any
 * address; Wine's conformance test uses one at offset 1 of a packed struct) cannot be
 * its own futex word: the futex call wants 4-byte alignment, and a 64-bit atomic on
 * such an address may straddle a cache line (a split lock: slow, and trapped by
 * kernels with split_lock_detect). Its state lives in a parking word picked by hashing
 * the address (cv_park); its own memory is never written. Several such variables may
 * share a parking word, so every wake of one wakes all the parking word's sleepers (a
 * spurious wake is allowed, a lost one is not), and they never requeue (one futex must
 * not mix requeue-PI and plain waiters). */
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "locks/cs_impl.h"
#include "locks/srw_impl.h"
#include "locks/locks_internal.h"

_Static_assert(sizeof(nspa_cond_t) == sizeof(CONDITION_VARIABLE), "cond size");

#define CV_SEQ      0xffffffffull
#define CV_WAITER   (1ull << 32)
#define CV_WAITERS  (0xffffull << 32)
#define CV_ID_SHIFT 48

static inline _Atomic uint64_t *cv_word(nspa_cond_t *c) { return (_Atomic uint64_t *)&c->ptr; }

#define CV_PARKS 64
static struct { nspa_cond_t c; char pad[56]; } cv_park[CV_PARKS] __attribute__((aligned(64)));

static inline int cv_unaligned(const void *p) { return ((uintptr_t)p & 7) != 0; }

/* The word a condition variable really uses: itself, or its parking word. */
static inline nspa_cond_t *cv_of(void *p)
{
    if (__builtin_expect(!cv_unaligned(p), 1))
        return p;
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return &cv_park[h >> 58].c;
}

/* Registers a waiter; returns the sequence to sleep on. */
static uint32_t cv_register(nspa_cond_t *c, unsigned id)
{
    uint64_t v = atomic_load_explicit(cv_word(c), memory_order_relaxed), n;
    do {
        n = v + CV_WAITER;
        if (!(v & CV_WAITERS))
            n = (n & ~(0xffffull << CV_ID_SHIFT)) | ((uint64_t)id << CV_ID_SHIFT);
    } while (!atomic_compare_exchange_weak_explicit(cv_word(c), &v, n, memory_order_seq_cst,
                                                    memory_order_relaxed));
    return (uint32_t)v;
}

/* A waiter that is not real-time polls the sequence for up to CV_SPIN_NS before it
 * sleeps. A partner that answers within microseconds (a hand-off through a condition
 * variable) then costs no sleep and no wake-up latency: on these VMs a hand-off that
 * sleeps is bound by the idle CPU's wake-up, 20-50K round trips/s, against 1.5M when both
 * sides poll. Measured: 1 us of polling gave 60-300K, 3 us 0.6-1M, 5 us and more 1.5M;
 * 10 us leaves a margin for a noisy host and costs a long wait less CPU than a
 * sleep/wake cycle does. Real-time threads never poll (their CPU may be the one the
 * partner needs; the same rule as the SRW spin). Returns 1 if woken meanwhile. */
#define CV_SPIN_NS 10000
/* Polls that came to nothing in a row, per thread. A poll pays only while the partner is
 * on a CPU; on a loaded machine (the partner preempted) every poll fails and costs its
 * 10 us, so after 4 failures a thread polls only on every 16th wait, as a probe, until a
 * poll succeeds again. Measured under load: 40K round trips/s polling every time, against
 * 133K for glibc's sleeping wait. */
static __thread unsigned cv_misses __attribute__((tls_model("initial-exec")));

static int cv_spin(nspa_cond_t *c, uint32_t seq)
{
    if (nspa_rt_self_is_rt())
        return 0;
    unsigned m = cv_misses;
    if (m >= 4 && (m & 15)) {
        cv_misses = m + 1;
        return 0;
    }
    uint64_t end = nspa_time_ns() + CV_SPIN_NS;
    for (;;) {
        for (int i = 0; i < 32; i++) {
            if ((uint32_t)atomic_load_explicit(cv_word(c), memory_order_acquire) != seq) {
                cv_misses = 0;
                return 1;
            }
            nspa_cpu_relax();
        }
        if (nspa_time_ns() > end) {
            cv_misses = m + 1;
            return 0;
        }
    }
}

static inline void cv_unregister(nspa_cond_t *c)
{
    atomic_fetch_sub_explicit(cv_word(c), CV_WAITER, memory_order_relaxed);
}

static inline int cv_result(nspa_cond_t *c, uint32_t seq, long r)
{
    /* a timeout that raced with a wake counts as a wake (a "spurious" success is
     * allowed; losing a wake-one is not) */
    if (r == -ETIMEDOUT &&
        (uint32_t)atomic_load_explicit(cv_word(c), memory_order_relaxed) == seq)
        return -ETIMEDOUT;
    return 0;
}

NSPA_EXPORT int nspa_cond_wait_cs(nspa_cond_t *cv, nspa_cs_t *cs, const struct timespec *abs)
{
    nspa_cond_t *c = cv_of(cv);
    unsigned id = cs_is_pi(cs) && c == cv ? cs_reg_id(cs) : 0;
    uint32_t seq = cv_register(c, id);
    long r;
    int32_t saved = cs->recursion;
    /* the section is entered once (Windows requires it); release it completely */
    cs->recursion = 1;
    cs_release_inline(cs);
    if (cv_spin(c, seq)) {
        r = 0;
        cs_enter_common(cs, 1); /* the waker is running and leaves soon: spin for it */
    } else if (id) {
        r = nspa_futex(c, FUTEX_WAIT_REQUEUE_PI | FUTEX_PRIVATE_FLAG, seq, abs,
                       &cs->lock_count, 0);
        if (r == 0) {
            /* requeued and woken as the owner of the PI futex */
            NSPA_TSAN_ACQUIRE(cs_word(cs));
            cs_set_owned_pi(cs, nspa_self_tid());
        } else {
            cs_enter_common(cs, 0);
        }
    } else {
        r = nspa_futex_wait_abs(c, seq, abs, CLOCK_MONOTONIC, 0);
        /* just woken, most likely by the owner: spinning for it only burns the CPU the
         * owner needs to get out (measured: 2-4x slower hand-offs with a spin) */
        cs_enter_common(cs, 0);
    }
    cs->recursion = saved > 0 ? saved : 1;
    cv_unregister(c);
    return cv_result(c, seq, r);
}

NSPA_EXPORT int nspa_cond_wait_srw(nspa_cond_t *cv, nspa_srw_t *l, int shared,
                                   const struct timespec *abs)
{
    nspa_cond_t *c = cv_of(cv);
    uint32_t seq = cv_register(c, 0);
    long r;
    if (shared)
        srw_unlock_shared_inline(l);
    else
        srw_unlock_exclusive_inline(l);
    r = cv_spin(c, seq) ? 0 : nspa_futex_wait_abs(c, seq, abs, CLOCK_MONOTONIC, 0);
    if (shared)
        srw_lock_shared_inline(l);
    else
        srw_lock_exclusive_inline(l);
    cv_unregister(c);
    return cv_result(c, seq, r);
}

static void cv_wake(nspa_cond_t *cv, int all)
{
    nspa_cond_t *c = cv_of(cv);
    all |= c != cv;                 /* a shared parking word: wake all its sleepers */
    _Atomic uint64_t *w = cv_word(c);
    uint64_t v = atomic_load_explicit(w, memory_order_seq_cst), n;
    if (!(v & CV_WAITERS))
        return;
    do {
        n = (v & ~CV_SEQ) | (uint32_t)(v + 1);
    } while (!atomic_compare_exchange_weak_explicit(w, &v, n, memory_order_seq_cst,
                                                    memory_order_relaxed));
    unsigned id = (unsigned)(n >> CV_ID_SHIFT);
    int32_t *pi = id ? nspa_cs_registry_word(id) : NULL;
    if (pi) {
        uint32_t seq = (uint32_t)n;
        for (;;) {
            long r = nspa_futex(c, FUTEX_CMP_REQUEUE_PI | FUTEX_PRIVATE_FLAG, 1,
                                (const struct timespec *)(uintptr_t)(all ? INT_MAX : 0), pi, seq);
            if (r != -EAGAIN && r != -EINTR)
                break;
            seq = (uint32_t)atomic_load_explicit(w, memory_order_relaxed);
        }
    } else {
        nspa_futex_wake_n(c, all ? INT_MAX : 1, 0);
    }
}

NSPA_EXPORT void nspa_cond_wake_one(nspa_cond_t *c) { cv_wake(c, 0); }
NSPA_EXPORT void nspa_cond_wake_all(nspa_cond_t *c) { cv_wake(c, 1); }
