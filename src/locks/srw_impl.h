/* Internal: SRW lock state, one 64-bit word in SRWLOCK.Ptr.
 *   bits  0..30  active readers
 *   bit  31      a writer holds the lock
 *   bits 32..62  writers waiting (registered sleepers/spinners)
 *   bit  63      readers are (or may be) sleeping
 * Writers sleep on the low 32-bit half, readers on the high half (x86-64 is little
 * endian, so the halves are at byte offsets 0 and 4). */
#ifndef NSPA_LOCKS_SRW_IMPL_H
#define NSPA_LOCKS_SRW_IMPL_H
#include "nspa/locks.h"
#include "locks/futex.h"

#define SRW_READER      1ull
#define SRW_READERS     0x7fffffffull
#define SRW_WRITER      0x80000000ull
#define SRW_LOW         0xffffffffull
#define SRW_WWAIT_ONE   (1ull << 32)
#define SRW_WWAIT_MASK  (0x7fffffffull << 32)
#define SRW_RSLEEP      (1ull << 63)

NSPA_HIDDEN void nspa_srw_lock_exclusive_slow(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_lock_shared_slow(nspa_srw_t *l);
NSPA_HIDDEN void nspa_srw_wake_after_exclusive(nspa_srw_t *l, uint64_t old);

static inline _Atomic uint64_t *srw_word(nspa_srw_t *l) { return (_Atomic uint64_t *)&l->ptr; }

static inline int srw_try_exclusive_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    while (!(s & SRW_LOW)) {
        if (atomic_compare_exchange_weak_explicit(srw_word(l), &s, s | SRW_WRITER,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    }
    return 0;
}

static inline int srw_try_shared_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    while (!(s & (SRW_WRITER | SRW_WWAIT_MASK))) {
        if (atomic_compare_exchange_weak_explicit(srw_word(l), &s, s + SRW_READER,
                                                  memory_order_acquire, memory_order_relaxed))
            return 1;
    }
    return 0;
}

static inline void srw_lock_exclusive_inline(nspa_srw_t *l)
{
    uint64_t s = 0;
    if (likely(atomic_compare_exchange_strong_explicit(srw_word(l), &s, SRW_WRITER,
                                                       memory_order_acquire, memory_order_relaxed)))
        return;
    nspa_srw_lock_exclusive_slow(l);
}

static inline void srw_lock_shared_inline(nspa_srw_t *l)
{
    uint64_t s = atomic_load_explicit(srw_word(l), memory_order_relaxed);
    if (likely(!(s & (SRW_WRITER | SRW_WWAIT_MASK))) &&
        likely(atomic_compare_exchange_weak_explicit(srw_word(l), &s, s + SRW_READER,
                                                     memory_order_acquire, memory_order_relaxed)))
        return;
    nspa_srw_lock_shared_slow(l);
}

static inline void srw_unlock_exclusive_inline(nspa_srw_t *l)
{
    uint64_t s = SRW_WRITER;
    if (likely(atomic_compare_exchange_strong_explicit(srw_word(l), &s, 0, memory_order_release,
                                                       memory_order_relaxed)))
        return;
    nspa_srw_wake_after_exclusive(l, s);
}

static inline void srw_unlock_shared_inline(nspa_srw_t *l)
{
    uint64_t old = atomic_fetch_sub_explicit(srw_word(l), SRW_READER, memory_order_release);
    if (unlikely((old & SRW_LOW) == 1 && (old & SRW_WWAIT_MASK)))
        nspa_futex_wake_n(srw_word(l), 1, 0);
}
#endif
