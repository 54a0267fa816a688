/* Internal: SRW lock state, one 64-bit word in SRWLOCK.Ptr, in Windows' layout
 * (ntdll's RTL_SRWLOCK bit fields: Locked, Waiting, Waking, MultipleShared, Shared):
 *   bit  0       Locked: held, exclusively or shared (a lock word of 1 is one writer)
 *   bit  1       Waiting: somebody waits (bits 32..63 are not zero)
 *   bit  2       (Windows' Waking) here: a writer may be asleep, so a release must
 *                wake one; set only while writers wait
 *   bit  3       MultipleShared: Windows' own wake protocol; always 0 here
 *   bits 4..31   Shared: the number of shared owners (0 with Locked set: exclusive)
 *   bits 32..61  writers waiting (registered sleepers/spinners)
 *   bit  62      a wake is on its way to a writer that has not looked again yet, so
 *                releases meanwhile wake nobody more; set only while writers wait
 *   bit  63      readers are (or may be) sleeping
 * Programs read the word (Wine's conformance test sets 1 and expects 0 after an
 * exclusive release, because an application checks it); with nobody waiting it is
 * exactly Windows' value: 0 free, 1 exclusive, 0x11, 0x21, ... shared by 1, 2, ...
 * Where Windows keeps a pointer to its wait blocks in bits 4..63 while Waiting is set,
 * NSPA keeps the shared count and its waiter counts (no allocation, no list).
 * Every sleeper sleeps on the high 32-bit half (x86-64 is little endian: byte offset 4),
 * writers and readers apart by their futex bitsets: that half changes when waiters come
 * and go and when a wake is sent, never when the owner takes and releases the lock, so
 * a writer that sleeps while another thread takes the lock over and over really sleeps
 * (on the low half, whose Locked bit flips with every acquisition, its FUTEX_WAIT
 * failed with EAGAIN nearly every time: a loop of system calls). A lock at an address that is not
 * 8-byte aligned (Windows allows it on x86; Wine's test_srwlock_base runs on one) cannot
 * be a futex word: its sleepers wait on a hashed parking word instead, and every wake
 * of such a lock bumps the parking word and wakes all its sleepers (srw.c). */
#ifndef NSPA_LOCKS_SRW_IMPL_H
#define NSPA_LOCKS_SRW_IMPL_H
#include "nspa/locks.h"
#include "locks/futex.h"

#define SRW_LOCKED      1ull
#define SRW_WAITING     2ull
#define SRW_WSLEEP      4ull
#define SRW_SHARED_ONE  0x10ull
#define SRW_SHARED_MASK 0xfffffff0ull
#define SRW_WWAIT_ONE   (1ull << 32)
#define SRW_WWAIT_MASK  (0x3fffffffull << 32)
#define SRW_WWAKING     (1ull << 62)
#define SRW_RSLEEP      (1ull << 63)

/* Waiting mirrors "anybody registered in the high half"; the writer bits cannot
 * outlive the writers */
static inline uint64_t srw_fix_waiting(uint64_t s)
{
    if (!(s & SRW_WWAIT_MASK))
        s &= ~(SRW_WSLEEP | SRW_WWAKING);
    return (s >> 32) ? s | SRW_WAITING : s & ~SRW_WAITING;
}

/* Who wakes a writer (the rules; docs/locks.md, "Who wakes a writer"):
 *   - a writer sets WSLEEP only when its spin is over, and never sleeps on a word with
 *     WWAKING set (it clears the bit and looks again instead);
 *   - a release that finds WSLEEP set and WWAKING clear sets WWAKING and wakes one; it
 *     clears WSLEEP too when at most one writer is registered (the one it wakes, which
 *     sets it again if it sleeps again), and leaves it while more may sleep;
 *   - a writer back from its sleep (woken or not) clears WWAKING.
 * So a writer that spins costs a release no system call, one wake at a time is in
 * flight however often the owner releases meanwhile, and no sleeper is left unwoken: it
 * slept on a word without WWAKING, and the release that sets it changes the word. */
static inline int srw_writer_wake_due(uint64_t s)
{
    return (s & (SRW_WSLEEP | SRW_WWAKING)) == SRW_WSLEEP;
}

static inline uint64_t srw_after_writer_wake(uint64_t s)
{
    s |= SRW_WWAKING;
    return (s & SRW_WWAIT_MASK) > SRW_WWAIT_ONE ? s : s & ~SRW_WSLEEP;
}

/* held exclusively: locked with no shared owner */
static inline int srw_exclusive(uint64_t s) { return (s & SRW_LOCKED) && !(s & SRW_SHARED_MASK); }

/* a shared acquisition may go: no writer holds it, none waits */
static inline int srw_shared_ok(uint64_t s) { return !srw_exclusive(s) && !(s & SRW_WWAIT_MASK); }

static inline uint64_t srw_add_shared(uint64_t s) { return (s + SRW_SHARED_ONE) | SRW_LOCKED; }

NSPA_HIDDEN void nspa_srw_lock_exclusive_slow(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_park_wake(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_wake_writer(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_lock_shared_slow(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_wake_after_exclusive(nspa_srw_t *l);

/* the word, without a member access (which would be undefined on an unaligned lock) */
static inline _Atomic uint64_t *srw_word(nspa_srw_t *l) { return (_Atomic uint64_t *)(void *)l; }
static inline int srw_unaligned(const nspa_srw_t *l) { return ((uintptr_t)l & 7) != 0; }

static inline int srw_try_exclusive_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    while (!(s & SRW_LOCKED)) {
        if (atomic_compare_exchange_weak_explicit(srw_word(l), &s, s | SRW_LOCKED,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    }
    return 0;
}

static inline int srw_try_shared_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    while (srw_shared_ok(s)) {
        if (atomic_compare_exchange_weak_explicit(srw_word(l), &s, srw_add_shared(s),
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    }
    return 0;
}

/* One atomic each way whatever the waiter bits say (a compare-and-swap against 0 and 1
 * would fail whenever a writer is registered, and then every acquisition and release of
 * the owner would take two more: with a writer spinning beside it, the owner ran at a
 * third of its uncontended speed). Locked set already (an owner, or shared owners):
 * nothing changed, the slow path waits. */
static inline void srw_lock_exclusive_inline(nspa_srw_t *l)
{
    if (likely(!(atomic_fetch_or_explicit(srw_word(l), SRW_LOCKED, memory_order_acquire) &
                 SRW_LOCKED)))
        return;
    nspa_srw_lock_exclusive_slow(l);
}

static inline void srw_lock_shared_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    if (likely(srw_shared_ok(s)) &&
        likely(atomic_compare_exchange_weak_explicit(srw_word(l), &s, srw_add_shared(s),
                                                     memory_order_acquire, memory_order_relaxed)))
        return;
    nspa_srw_lock_shared_slow(l);
}

/* Held exclusively: Locked is set and no shared owner counted, so subtracting it clears
 * it. A sleeper to wake goes to the slow path, after the release. */
static inline void srw_unlock_exclusive_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_fetch_sub_explicit(srw_word(l), SRW_LOCKED, memory_order_release);
    if (unlikely(srw_writer_wake_due(s) || (s & SRW_RSLEEP)))
        nspa_srw_wake_after_exclusive(l);
}

static inline void srw_unlock_shared_inline(nspa_srw_t *l)
{
    /* the last shared owner clears Locked too, so one CAS (a fetch-and-add could not) */
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed), n;
    do {
        n = s - SRW_SHARED_ONE;
        if (!(n & SRW_SHARED_MASK)) {
            n &= ~SRW_LOCKED;
            if (srw_writer_wake_due(n))
                n = srw_after_writer_wake(n);
        }
    } while (!atomic_compare_exchange_weak_explicit(srw_word(l), &s, n, memory_order_release,
                                                    memory_order_relaxed));
    if (unlikely(!(n & SRW_LOCKED) && srw_writer_wake_due(s)))
        nspa_srw_wake_writer(l);
}
#endif
