/* Internal: the CRITICAL_SECTION fast paths, inlined into both the nspa_cs_* and the
 * Win32 entry points (and into the condition variable code).
 *
 * lock_count is the futex word:
 *   PI mode (mode bit 0):  0 free, else owner tid | FUTEX_WAITERS (kernel PI futex)
 *   plain mode:           -1 free, -2 held, -3 held and somebody may sleep on it
 * owner/recursion are written by the owner only; owner is read by other threads only to
 * see whether *they* own the section, so a relaxed load suffices.
 *
 * PI mode, the gate: the low 32 bits of LockSemaphore (`mode`) are a second futex word
 * for waiters that need no boost (their priority is not above the owner's), so that they
 * do not turn every release into a kernel hand-off (docs/locks.md, "PI sections"):
 *   bit 0 CS_MODE_PI (constant), bit 1 GATE_WAKING (a wake is on its way to a sleeper
 *   that has not yet looked again), bits 2..31 the number of registered gate waiters.
 * Rules (the proof is in docs/locks.md):
 *   - a waiter registers before it reads the lock word, and never sleeps on a gate value
 *     with GATE_WAKING set (it clears the bit and looks again instead);
 *   - a release that sees registered waiters and GATE_WAKING clear sets it and wakes
 *     one (the kernel wakes the highest-priority sleeper); a sleeper clears it on waking.
 *   So a higher-priority sleeper always looks again when ownership changes, and boosts
 *   a new owner of lower priority through FUTEX_LOCK_PI. */
#ifndef NSPA_LOCKS_CS_IMPL_H
#define NSPA_LOCKS_CS_IMPL_H
#include "nspa/locks.h"
#include "locks/futex.h"
#include "rt/rt_internal.h"

#define CS_FREE_PLAIN   (-1)
#define CS_HELD_PLAIN   (-2)
#define CS_WAITED_PLAIN (-3)
#define CS_MODE_PI      1u
#define GATE_WAKING     2u
#define GATE_ONE        4u

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the gate is the low half of mode");

NSPA_HIDDEN void nspa_cs_enter_slow(nspa_cs_t *cs, uint32_t tid, int spin_ok);
NSPA_HIDDEN void nspa_cs_gate_wake(nspa_cs_t *cs);

static inline _Atomic int32_t *cs_word(nspa_cs_t *cs) { return (_Atomic int32_t *)&cs->lock_count; }
static inline _Atomic uint32_t *cs_gate(nspa_cs_t *cs) { return (_Atomic uint32_t *)&cs->mode; }

/* The requeue-PI registry id: the high half of mode, written only at init and delete
 * (read on its own so that it never overlaps the gate's atomics). */
static inline unsigned cs_reg_id(const nspa_cs_t *cs)
{
    return ((const uint32_t *)&cs->mode)[1] & 0xffff;
}

/* PI section? (bit 0 of the gate never changes after initialisation, but the other
 * bits do, so the load is atomic) */
static inline int cs_is_pi(nspa_cs_t *cs)
{
    return atomic_load_explicit(cs_gate(cs), memory_order_relaxed) & CS_MODE_PI;
}

static inline uint32_t cs_owner_relaxed(const nspa_cs_t *cs)
{
    return (uint32_t)__atomic_load_n(&cs->owner, __ATOMIC_RELAXED);
}

static inline void cs_set_owned(nspa_cs_t *cs, uint32_t tid)
{
    __atomic_store_n(&cs->owner, (uintptr_t)tid, __ATOMIC_RELAXED);
    cs->recursion = 1;
}

static inline void cs_set_owned_pi(nspa_cs_t *cs, uint32_t tid)
{
    cs_set_owned(cs, tid);
    nspa_cs_pi_held++;
}

static inline void cs_enter_common(nspa_cs_t *cs, int spin_ok)
{
    uint32_t tid = nspa_self_tid();
    int32_t exp;
    if (cs_is_pi(cs)) {
        exp = 0;
        if (likely(atomic_compare_exchange_strong_explicit(cs_word(cs), &exp, (int32_t)tid,
                                                           memory_order_acquire,
                                                           memory_order_relaxed))) {
            cs_set_owned_pi(cs, tid);
            return;
        }
        if (((uint32_t)exp & FUTEX_TID_MASK) == tid) {
            cs->recursion++;
            return;
        }
    } else {
        exp = CS_FREE_PLAIN;
        /* a look before the CAS: after the inline fast path of <windows.h> failed, a
         * second CAS would only pull the line from the owner once more */
        if (likely(atomic_load_explicit(cs_word(cs), memory_order_relaxed) == CS_FREE_PLAIN) &&
            likely(atomic_compare_exchange_strong_explicit(cs_word(cs), &exp, CS_HELD_PLAIN,
                                                           memory_order_acquire,
                                                           memory_order_relaxed))) {
            cs_set_owned(cs, tid);
            return;
        }
        if (cs_owner_relaxed(cs) == tid) {
            cs->recursion++;
            return;
        }
    }
    nspa_cs_enter_slow(cs, tid, spin_ok);
}

static inline void cs_enter_inline(nspa_cs_t *cs) { cs_enter_common(cs, 1); }

static inline int cs_try_enter_inline(nspa_cs_t *cs)
{
    uint32_t tid = nspa_self_tid();
    int32_t exp, want;
    int pi = cs_is_pi(cs);
    if (pi) {
        exp = 0;
        want = (int32_t)tid;
    } else {
        exp = CS_FREE_PLAIN;
        want = CS_HELD_PLAIN;
    }
    if (atomic_compare_exchange_strong_explicit(cs_word(cs), &exp, want, memory_order_acquire,
                                                memory_order_relaxed)) {
        if (pi)
            cs_set_owned_pi(cs, tid);
        else
            cs_set_owned(cs, tid);
        return 1;
    }
    if (cs_owner_relaxed(cs) == tid) {
        cs->recursion++;
        return 1;
    }
    return 0;
}

/* Releases the section completely (one level must remain: recursion == 1). */
static inline void cs_release_inline(nspa_cs_t *cs)
{
    cs->recursion = 0;
    if (cs_is_pi(cs)) {
        int32_t exp = (int32_t)cs_owner_relaxed(cs);
        nspa_cs_pi_held--;
        __atomic_store_n(&cs->owner, (uintptr_t)0, __ATOMIC_RELAXED);
        NSPA_TSAN_RELEASE(cs_word(cs));
        /* seq_cst with the gate load: against a waiter that registers and then reads the
         * lock word, one of the two sees the other (a lock-prefixed op on x86 anyway) */
        if (unlikely(!atomic_compare_exchange_strong_explicit(cs_word(cs), &exp, 0,
                                                              memory_order_seq_cst,
                                                              memory_order_relaxed)))
            nspa_futex(cs_word(cs), FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
        if (unlikely(atomic_load_explicit(cs_gate(cs), memory_order_seq_cst) >= GATE_ONE))
            nspa_cs_gate_wake(cs);
    } else {
        __atomic_store_n(&cs->owner, (uintptr_t)0, __ATOMIC_RELAXED);
        if (unlikely(atomic_exchange_explicit(cs_word(cs), CS_FREE_PLAIN, memory_order_release)
                     == CS_WAITED_PLAIN))
            nspa_futex_wake_n(cs_word(cs), 1, 0);
    }
}

static inline void cs_leave_inline(nspa_cs_t *cs)
{
    if (cs->recursion > 1) {
        cs->recursion--;
        return;
    }
    cs_release_inline(cs);
}
#endif
