/* SRW locks: writer-preferring reader/writer lock on one 64-bit word in Windows' layout
 * (srw_impl.h).
 * A bounded, backed-off spin precedes sleeping: 1024 pauses by default (futex.h), or a
 * poll of at most 20 us in a thread at real-time priority (decided per thread from the
 * RT cache); none on one CPU. */
#include <string.h>
#include "nspa/win32/windows.h"
#include "locks/srw_impl.h"
#include "rt/rt_internal.h"

_Static_assert(sizeof(nspa_srw_t) == sizeof(SRWLOCK), "srw size");

static _Atomic unsigned srw_spin = NSPA_SRW_DEFAULT_SPIN;

/* A real-time thread polls for at most this long before it sleeps (on more than one
 * CPU, and unless spinning is off): between SCHED_FIFO threads, which never give way to
 * each other, sleeping at once made every contended acquisition a wake-up (srw-bench
 * exclusive in RT mode 9-12M ops/s, stock Wine's SCHED_OTHER threads 13-20M); polled,
 * 45-63M. An SRW lock has no owner to boost, so nothing waits for the poll's end but the
 * poller; a holder of lower priority on the poller's own CPU is delayed by 20 us at most,
 * the time the NT mutex waits before it boosts. */
#define SRW_RT_POLL_NS 20000

static struct nspa_spin srw_spin_start(void)
{
    unsigned budget = atomic_load_explicit(&srw_spin, memory_order_relaxed);
    if (!budget || nspa_ncpu_online() < 2)
        return nspa_spin_start(0);       /* on one CPU the owner cannot run meanwhile */
    if (!nspa_rt_self_is_rt())           /* decided per thread */
        return nspa_spin_start(budget);
    struct nspa_spin sp = nspa_spin_start(UINT_MAX);
    sp.deadline = nspa_clock_ns(CLOCK_MONOTONIC) + SRW_RT_POLL_NS;
    return sp;
}

/* the futex word of every sleeper (srw_impl.h), and the bitsets that keep writers and
 * readers apart on it */
static inline void *high_half(nspa_srw_t *l) { return (char *)l + 4; }
#define WRITERS 1u
#define READERS 2u

/* Parking words of unaligned locks (srw_impl.h): a sequence per cache line. */
#define SRW_PARKS 64
static struct { _Atomic uint32_t seq; char pad[60]; } srw_park[SRW_PARKS] __attribute__((aligned(64)));

static inline _Atomic uint32_t *park_of(nspa_srw_t *l)
{
    return &srw_park[((uint64_t)(uintptr_t)l * 0x9e3779b97f4a7c15ull) >> 58].seq;
}

NSPA_HIDDEN void nspa_srw_park_wake(nspa_srw_t *l)
{
    _Atomic uint32_t *p = park_of(l);
    /* the word's change is ordered before the bump by a sequentially consistent RMW on
     * the word (a fence would do, but TSan does not model fences) */
    atomic_fetch_or_explicit(srw_word(l), 0, memory_order_seq_cst);
    atomic_fetch_add_explicit(p, 1, memory_order_seq_cst);
    nspa_futex_wake_n(p, INT_MAX, 0);
}

/* Sleep until the lock word may have changed from @s: on the high half (aligned, as
 * one of @who), or on the parking word, whose sequence is read before the word is
 * looked at again (a waker changes the word, then bumps the sequence). */
static void srw_sleep(nspa_srw_t *l, unsigned who, uint64_t s)
{
    if (likely(!srw_unaligned(l))) {
        nspa_futex(high_half(l), FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, (uint32_t)(s >> 32),
                   NULL, NULL, who);
        return;
    }
    _Atomic uint32_t *p = park_of(l);
    uint32_t seq = atomic_load_explicit(p, memory_order_seq_cst);
    if (atomic_load_explicit(srw_word(l), memory_order_seq_cst) != s)
        return;
    nspa_futex_wait_abs(p, seq, NULL, CLOCK_MONOTONIC, 0);
}

NSPA_HIDDEN void nspa_srw_lock_exclusive_slow(nspa_srw_t *l)
{
    _Atomic uint64_t *w = srw_word(l);
    struct nspa_spin sp = srw_spin_start();
    int registered = 0;
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        if (!(s & SRW_LOCKED)) {
            uint64_t n = srw_fix_waiting((s | SRW_LOCKED) - (registered ? SRW_WWAIT_ONE : 0));
            if (atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_acquire,
                                                      memory_order_relaxed))
                return;
            continue;
        }
        if (!registered) {
            /* announce ourselves: from now on new readers wait */
            uint64_t n = (s + SRW_WWAIT_ONE) | SRW_WAITING;
            if (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                       memory_order_relaxed))
                continue;
            registered = 1;
            s = n;
            continue;
        }
        if (nspa_spin_pause(&sp)) {
            s = atomic_load_explicit(w, memory_order_relaxed);
            continue;
        }
        if ((s & (SRW_WSLEEP | SRW_WWAKING)) != SRW_WSLEEP) {
            /* about to sleep: from now on a release wakes a writer; a wake in flight is
             * not slept on but taken, and the lock looked at again (srw_impl.h) */
            uint64_t n = (s | SRW_WSLEEP) & ~SRW_WWAKING;
            if (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                       memory_order_relaxed))
                continue;
            s = n;
            if (s & SRW_WWAKING)
                continue;
        }
        srw_sleep(l, WRITERS, s);
        s = atomic_load_explicit(w, memory_order_relaxed);
        if (s & SRW_WWAKING)                          /* back: a new wake may be sent */
            s = atomic_fetch_and_explicit(w, ~SRW_WWAKING, memory_order_relaxed) & ~SRW_WWAKING;
    }
}

NSPA_HIDDEN void nspa_srw_lock_shared_slow(nspa_srw_t *l)
{
    _Atomic uint64_t *w = srw_word(l);
    struct nspa_spin sp = srw_spin_start();
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        if (srw_shared_ok(s)) {
            if (atomic_compare_exchange_weak_explicit(w, &s, srw_add_shared(s), memory_order_acquire,
                                                      memory_order_relaxed))
                return;
            continue;
        }
        if (nspa_spin_pause(&sp)) {
            s = atomic_load_explicit(w, memory_order_relaxed);
            continue;
        }
        if (!(s & SRW_RSLEEP)) {
            uint64_t n = s | SRW_RSLEEP | SRW_WAITING;
            if (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_relaxed,
                                                       memory_order_relaxed))
                continue;
            s = n;
        }
        srw_sleep(l, READERS, s);
        s = atomic_load_explicit(w, memory_order_relaxed);
    }
}

/* An exclusive release found a sleeper's bit (the lock is free already). The bits are
 * read again: a release since ours may have done the wake; one more wake than needed is
 * harmless, one less is not possible (a sleeper's bit stays until a wake is done). */
NSPA_HIDDEN void nspa_srw_wake_after_exclusive(nspa_srw_t *l)
{
    _Atomic uint64_t *w = srw_word(l);
    uint64_t s = atomic_load_explicit(w, memory_order_relaxed), n;
    int writer, readers;
    do {
        writer = srw_writer_wake_due(s);
        /* writers first: readers stay asleep while one is registered, spinning or not */
        readers = !writer && (s & SRW_RSLEEP) && !(s & SRW_WWAIT_MASK);
        n = writer ? srw_after_writer_wake(s) : readers ? s & ~SRW_RSLEEP : s;
        n = srw_fix_waiting(n);
        if (n == s)
            break;
    } while (!atomic_compare_exchange_weak_explicit(w, &s, n, memory_order_release,
                                                    memory_order_relaxed));
    if (!writer && !readers)
        return;
    if (writer)
        nspa_srw_wake_writer(l);                     /* hand over to the next writer */
    else if (unlikely(srw_unaligned(l)))
        nspa_srw_park_wake(l);                       /* all; they sort it out */
    else                                             /* let every reader in */
        nspa_futex(high_half(l), FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL,
                   READERS);
}

/* One sleeping writer (the release set the wake bit first: srw_impl.h). */
NSPA_HIDDEN void nspa_srw_wake_writer(nspa_srw_t *l)
{
    if (unlikely(srw_unaligned(l)))
        nspa_srw_park_wake(l);                       /* all; they sort it out */
    else
        nspa_futex(high_half(l), FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, WRITERS);
}

/* ---- nspa_* ---- */
NSPA_EXPORT void nspa_srw_lock_exclusive(nspa_srw_t *l) { srw_lock_exclusive_inline(l); }
NSPA_EXPORT void nspa_srw_lock_shared(nspa_srw_t *l) { srw_lock_shared_inline(l); }
NSPA_EXPORT int nspa_srw_try_exclusive(nspa_srw_t *l) { return srw_try_exclusive_inline(l); }
NSPA_EXPORT int nspa_srw_try_shared(nspa_srw_t *l) { return srw_try_shared_inline(l); }
NSPA_EXPORT void nspa_srw_unlock_exclusive(nspa_srw_t *l) { srw_unlock_exclusive_inline(l); }
NSPA_EXPORT void nspa_srw_unlock_shared(nspa_srw_t *l) { srw_unlock_shared_inline(l); }
NSPA_EXPORT unsigned nspa_srw_set_spin(unsigned spin)
{
    return atomic_exchange_explicit(&srw_spin, spin, memory_order_relaxed);
}
