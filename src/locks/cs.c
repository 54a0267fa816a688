/* CRITICAL_SECTION: a PI futex in RT mode, a three-state futex lock otherwise.
 * See cs_impl.h for the word encoding and docs/locks.md for the design. */
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "locks/cs_impl.h"
#include "locks/locks_internal.h"
#include "sched/sched_internal.h"

_Static_assert(sizeof(nspa_cs_t) == sizeof(RTL_CRITICAL_SECTION), "cs size");
_Static_assert(offsetof(nspa_cs_t, lock_count) == offsetof(RTL_CRITICAL_SECTION, LockCount), "cs");
_Static_assert(offsetof(nspa_cs_t, recursion) == offsetof(RTL_CRITICAL_SECTION, RecursionCount), "cs");
_Static_assert(offsetof(nspa_cs_t, owner) == offsetof(RTL_CRITICAL_SECTION, OwningThread), "cs");
_Static_assert(offsetof(nspa_cs_t, mode) == offsetof(RTL_CRITICAL_SECTION, LockSemaphore), "cs");
_Static_assert(offsetof(nspa_cs_t, spin_count) == offsetof(RTL_CRITICAL_SECTION, SpinCount), "cs");

#define SPIN_MASK 0x00ffffffu
#define CS_SPIN_CAP 2048u
#define KEPT_FLAGS (NSPA_CS_DYNAMIC_SPIN | NSPA_CS_RESOURCE_TYPE)

/* ---- the requeue-PI registry: id -> PI futex word, so that a condition variable
 * (one pointer wide) can name the lock its waiters are requeued to ---- */
#define REG_SIZE 65536
static _Atomic(int32_t *) reg_words[REG_SIZE];
static uint16_t reg_free[REG_SIZE];
static unsigned reg_nfree, reg_next = 1;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned reg_add(int32_t *word)
{
    unsigned id = 0;
    pthread_mutex_lock(&reg_lock);
    if (reg_nfree)
        id = reg_free[--reg_nfree];
    else if (reg_next < REG_SIZE)
        id = reg_next++;
    if (id)
        atomic_store_explicit(&reg_words[id], word, memory_order_release);
    pthread_mutex_unlock(&reg_lock);
    return id;
}

static void reg_del(unsigned id)
{
    if (!id || id >= REG_SIZE)
        return;
    pthread_mutex_lock(&reg_lock);
    if (atomic_load_explicit(&reg_words[id], memory_order_relaxed)) {
        atomic_store_explicit(&reg_words[id], NULL, memory_order_release);
        reg_free[reg_nfree++] = (uint16_t)id;
    }
    pthread_mutex_unlock(&reg_lock);
}

NSPA_HIDDEN int32_t *nspa_cs_registry_word(unsigned id)
{
    return id && id < REG_SIZE ? atomic_load_explicit(&reg_words[id], memory_order_acquire) : NULL;
}

/* ---- slow paths ---- */

/* The scheduling priority of thread `tid` as the PI decision needs it: 1..99 for
 * SCHED_FIFO/RR, 100 for SCHED_DEADLINE (above every RT priority), 0 for the rest.
 * -1 if the thread cannot be asked (gone): the caller then lets the kernel decide. */
static int thread_prio(uint32_t tid)
{
    struct nspa_sched_attr a;
    if (nspa_sched_getattr(tid, &a) != 0)
        return -1;
    switch (a.sched_policy & ~(uint32_t)SCHED_RESET_ON_FORK) {
    case SCHED_FIFO:
    case SCHED_RR:
        return a.sched_priority ? (int)a.sched_priority : 1;
    case 6: /* SCHED_DEADLINE */
        return 100;
    default:
        return 0;
    }
}

/* Wakes one gate sleeper unless a wake is already on its way (cs_impl.h, the gate). */
NSPA_HIDDEN void nspa_cs_gate_wake(nspa_cs_t *cs)
{
    _Atomic uint32_t *g = cs_gate(cs);
    uint32_t v = atomic_load_explicit(g, memory_order_relaxed);
    while (v >= GATE_ONE && !(v & GATE_WAKING)) {
        if (atomic_compare_exchange_weak_explicit(g, &v, v | GATE_WAKING, memory_order_seq_cst,
                                                  memory_order_relaxed)) {
            nspa_futex_wake_n(g, 1, 0);
            return;
        }
    }
}

static void gate_leave(_Atomic uint32_t *g)
{
    uint32_t v = atomic_load_explicit(g, memory_order_relaxed), n;
    do {
        n = v - GATE_ONE;
        if (n < GATE_ONE)
            n &= ~GATE_WAKING; /* the last waiter: no wake can be meant for anybody */
    } while (!atomic_compare_exchange_weak_explicit(g, &v, n, memory_order_relaxed,
                                                    memory_order_relaxed));
}

/* How long a gate sleeper sleeps before it looks at the owner's priority again: an owner
 * that lowers its own priority while holding the section is noticed within this time
 * (the NT objects cache a waiter's priority just as long). NSPA_CS_GATE_RECHECK_MS
 * changes it, 0 = never: the tests use that to make a lost wake hang instead of being
 * rescued by the next look. */
static long gate_recheck_ns(void)
{
    static _Atomic long cached = -1;
    long v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = nspa_env_int("NSPA_CS_GATE_RECHECK_MS", 50, 0, INT_MAX) * 1000000L;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

/* A real-time waiter polls a contended PI section for up to CS_RT_SPIN_NS before it
 * sleeps or boosts (never on one CPU, where the owner cannot run meanwhile). The section
 * is usually held for nanoseconds; going to sleep instead costs a wake-up of several
 * microseconds on both sides, and between equal SCHED_FIFO threads that do not yield it
 * turned rapidmutex_rt into a convoy or not by luck (3.7M or 32M ops/s); with the poll
 * it runs at 10-16M every time. The time is bounded, like the NT mutex's 20 us before a
 * boost, and much shorter than it (docs/locks.md). */
#define CS_RT_SPIN_NS 2000
static int rt_spin_ok(void) { return nspa_ncpu_online() > 1; }

/* One attempt at a free PI word (a plain load first, so a held word is not written). */
static inline int pi_try_take(_Atomic int32_t *w, uint32_t tid)
{
    int32_t exp = atomic_load_explicit(w, memory_order_relaxed);
    return exp == 0 && atomic_compare_exchange_weak_explicit(w, &exp, (int32_t)tid,
                                                             memory_order_acquire,
                                                             memory_order_relaxed);
}

static int cs_rt_spin(_Atomic int32_t *w, uint32_t tid)
{
    uint64_t end = nspa_time_ns() + CS_RT_SPIN_NS;
    for (;;) {
        for (int i = 0; i < 32; i++) {
            if (pi_try_take(w, tid))
                return 1;
            nspa_cpu_relax();
        }
        if (nspa_time_ns() > end)
            return 0;
    }
}

/* PI section, contended. A real-time waiter whose priority is above the owner's takes
 * FUTEX_LOCK_PI at once: the kernel queues it by priority and boosts the owner (and the
 * owner's owners). Every other waiter (same or lower priority, or not real-time: a boost
 * would change nothing) sleeps on the gate and competes for the free lock when woken,
 * so equal-priority threads pass the section without a kernel hand-off each time. */
static void cs_enter_slow_pi(nspa_cs_t *cs, uint32_t tid, unsigned spin, int spin_ok)
{
    _Atomic int32_t *w = cs_word(cs);
    _Atomic uint32_t *g = cs_gate(cs);
    for (struct nspa_spin sp = nspa_spin_start(spin);;) {
        if (pi_try_take(w, tid))
            return;
        if (!nspa_spin_pause(&sp))
            break;
    }
    nspa_rt_self_is_rt();
    int mine = nspa_rt_thread_state;
    int rt_spin = mine > 0 && spin_ok && rt_spin_ok();
    if (nspa_cs_pi_held > 0)
        goto pi_wait; /* a link of a chain: a boost must be able to pass through us */
    uint32_t known = 0;
    int known_prio = 0, registered = 0;
    for (;;) {
        int32_t cur = atomic_load_explicit(w, memory_order_seq_cst);
        if (cur == 0) {
            if (atomic_compare_exchange_strong_explicit(w, &cur, (int32_t)tid,
                                                        memory_order_seq_cst,
                                                        memory_order_relaxed)) {
                if (registered)
                    gate_leave(g);
                return;
            }
            continue;
        }
        uint32_t owner = (uint32_t)cur & FUTEX_TID_MASK;
        if (mine > 0) {
            if (owner != known) {
                known = owner;
                known_prio = thread_prio(owner);
            }
            if (known_prio < mine) {
                /* a boost is due, unless a short poll gets the lock first (below the
                 * waiter's priority the owner cannot hold it long without being
                 * preempted, so the poll only pays on another CPU) */
                if (rt_spin && cs_rt_spin(w, tid)) {
                    if (registered)
                        gate_leave(g);
                    return;
                }
                break; /* the kernel's PI queue */
            }
        }
        if (!registered) {
            atomic_fetch_add_explicit(g, GATE_ONE, memory_order_seq_cst);
            registered = 1;
            continue; /* read the lock word again, now that a release must see us */
        }
        uint32_t v = atomic_load_explicit(g, memory_order_seq_cst);
        if (v & GATE_WAKING) {
            /* a wake is in flight: never sleep on it, take it and look again */
            atomic_fetch_and_explicit(g, ~GATE_WAKING, memory_order_relaxed);
            continue;
        }
        long ns = gate_recheck_ns();
        struct timespec rel = { ns / 1000000000L, ns % 1000000000L };
        nspa_futex(g, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, v, ns ? &rel : NULL, NULL, 0);
        atomic_fetch_and_explicit(g, ~GATE_WAKING, memory_order_relaxed);
        /* priorities may have changed while we slept (a boost of ours through an NT
         * mutex, the owner's own change): ask again, ours too */
        known = 0;
        mine = thread_prio(tid);
    }
    if (registered)
        gate_leave(g);
pi_wait:
    for (;;) {
        long r = nspa_futex(w, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
        if (r == 0)
            break;
        if (r == -EINTR || r == -EAGAIN)
            continue;
        /* the owner is gone (ESRCH/EINVAL: a dead thread's tid): like Windows, an
         * orphaned section stays locked; sleep until the word changes */
        int32_t cur = atomic_load_explicit(w, memory_order_relaxed);
        if (cur != 0)
            nspa_futex_wait_abs(w, (uint32_t)cur, NULL, CLOCK_MONOTONIC, 0);
    }
    NSPA_TSAN_ACQUIRE(w);
}

NSPA_HIDDEN void nspa_cs_enter_slow(nspa_cs_t *cs, uint32_t tid, int spin_ok)
{
    _Atomic int32_t *w = cs_word(cs);
    unsigned spin = (!spin_ok || nspa_rt_self_is_rt()) ? 0 : (unsigned)(cs->spin_count & SPIN_MASK);
    /* SpinCount keeps the caller's value (Windows programs read it back); it is the
     * budget of pauses of a backed-off spin (futex.h), at most CS_SPIN_CAP: Windows'
     * default of 2000 is ~100 us at most on a CPU whose pause takes 140 cycles, short
     * beside the time slice a preempted owner needs on an overcommitted machine */
    if (spin > CS_SPIN_CAP)
        spin = CS_SPIN_CAP;
    if (cs_is_pi(cs)) {
        cs_enter_slow_pi(cs, tid, spin, spin_ok);
        cs_set_owned_pi(cs, tid);
        return;
    } else {
        for (struct nspa_spin sp = nspa_spin_start(spin);;) {
            int32_t exp = atomic_load_explicit(w, memory_order_relaxed);
            if (exp == CS_FREE_PLAIN &&
                atomic_compare_exchange_weak_explicit(w, &exp, CS_HELD_PLAIN, memory_order_acquire,
                                                      memory_order_relaxed))
                goto owned;
            if (!nspa_spin_pause(&sp))
                break;
        }
        /* as glibc: a word that says "sleepers" already is slept on before it is written
         * (an exchange would pull the line from the owner once more) */
        int sleep_first = atomic_load_explicit(w, memory_order_relaxed) == CS_WAITED_PLAIN;
        while (sleep_first ||
               atomic_exchange_explicit(w, CS_WAITED_PLAIN, memory_order_acquire) != CS_FREE_PLAIN) {
            sleep_first = 0;
            nspa_futex_wait_abs(w, (uint32_t)CS_WAITED_PLAIN, NULL, CLOCK_MONOTONIC, 0);
        }
    }
owned:
    cs_set_owned(cs, tid);
}

static uintptr_t default_spin(void)
{
    return nspa_ncpu_online() > 1 ? (NSPA_CS_DYNAMIC_SPIN | NSPA_CS_DEFAULT_SPIN) : 0;
}

NSPA_HIDDEN int nspa_cs_do_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags, int ex)
{
    if (ex) {
        if (spin & ~SPIN_MASK)
            return -EINVAL;
        if (flags & ~0x1fffffffu)
            return -EINVAL;
    }
    spin &= SPIN_MASK;
    cs->debug_info = (void *)(intptr_t)-1;
    cs->recursion = 0;
    cs->owner = 0;
    cs->mode = 0;
    cs->spin_count = (spin ? spin : default_spin()) | (flags & KEPT_FLAGS);
    if (nspa_pi_enabled()) {
        unsigned id = reg_add(&cs->lock_count);
        cs->mode = CS_MODE_PI | ((uintptr_t)id << 32);
        cs->lock_count = 0;
    } else {
        cs->lock_count = CS_FREE_PLAIN;
    }
    return 0;
}

/* ---- nspa_* API ---- */
NSPA_EXPORT int nspa_cs_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags)
{
    return nspa_cs_do_init(cs, spin, flags, 1);
}
NSPA_EXPORT void nspa_cs_enter(nspa_cs_t *cs) { cs_enter_inline(cs); }
NSPA_EXPORT int nspa_cs_try_enter(nspa_cs_t *cs) { return cs_try_enter_inline(cs); }
NSPA_EXPORT void nspa_cs_leave(nspa_cs_t *cs) { cs_leave_inline(cs); }
/* The inline Leave of <nspa/win32/synchapi_locks.h> found sleepers: wake one. */
NSPA_EXPORT void nspa_cs_wake_plain(nspa_cs_t *cs) { nspa_futex_wake_n(cs_word(cs), 1, 0); }
NSPA_EXPORT uint32_t nspa_cs_owner(const nspa_cs_t *cs) { return cs_owner_relaxed(cs); }

NSPA_EXPORT void nspa_cs_delete(nspa_cs_t *cs)
{
    if (cs_is_pi(cs))
        reg_del(cs_reg_id(cs));
    cs->mode = 0;
    cs->lock_count = CS_FREE_PLAIN;
    cs->recursion = 0;
    cs->owner = 0;
    cs->spin_count = 0;
    cs->debug_info = NULL;
}

NSPA_EXPORT uint32_t nspa_cs_set_spin(nspa_cs_t *cs, uint32_t spin)
{
    uint32_t old = (uint32_t)cs->spin_count;
    if (default_spin())
        __atomic_store_n(&cs->spin_count, (uintptr_t)spin, __ATOMIC_RELAXED);
    return old;
}
