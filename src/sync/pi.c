/*
 * Priority inheritance for NT mutexes, in user space, across processes.
 *
 * While a thread waits on a mutex (single wait, wait-any or wait-all), the mutex's
 * owner runs at no less than the highest effective key among the waiters of all the
 * mutexes it owns; the rule applies again to the owner if it waits itself (transitive,
 * up to PI_MAX_DEPTH). When the last boosting waiter leaves, the owner gets back exactly
 * its own setting (policy, priority, nice), including one it set while boosted through
 * nspa_thread_set_sched().
 *
 * Keys: a real-time thread's key is 100 + its SCHED_FIFO/RR priority; SCHED_OTHER is 0
 * and boosts nobody. A boost is applied as SCHED_FIFO at the waiter's priority
 * (sched_setattr on the owner's tid, which may live in another process).
 *
 * LOCKING: a thread's boost fields are under its record's pi_lock (robust, PI). The
 * walk takes one pi_lock at a time, and under it the locks of the mutexes that thread
 * owns, one at a time: pi_lock, then an object lock; nobody takes a pi_lock while
 * holding an object lock. A change of a waiter's key moves its entries (object lock
 * by object lock) and then updates the owners. Every change of a queue head or of a
 * mutex owner is followed by an update of the owner's boost, and each update reads the
 * queues under their locks, so the last update wins with the true value.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "nspa/sched.h"
#include "sync/internal.h"
#include "sched/sched_internal.h"
#include "rt/rt_internal.h"

#define PI_MAX_DEPTH 64

static int pi_state = -1;

/* NSPA_PI=0 switches priority inheritance off: the experiment of docs/rt.md. */
NSPA_HIDDEN int pi_enabled(void)
{
    int s = __atomic_load_n(&pi_state, __ATOMIC_RELAXED);
    if (__builtin_expect(s < 0, 0)) {
        s = nspa_env_flag("NSPA_PI", 1);
        __atomic_store_n(&pi_state, s, __ATOMIC_RELAXED);
    }
    return s;
}

static uint32_t attr_key(const struct nspa_sched_attr *a)
{
    if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR) return 100 + a->sched_priority;
    return 0;
}

static int set_attr(uint32_t tid, const struct nspa_sched_attr *a)
{
    struct nspa_sched_attr b = *a;
    b.size = sizeof(b);
    int r = (int)syscall(SYS_sched_setattr, (pid_t)tid, &b, 0);
    if (r && errno == EPERM) rt_note_denied();
    return r;
}

static void pi_lock(struct thr *t)
{
    if (pthread_mutex_lock(&t->pi_lock) == EOWNERDEAD) pthread_mutex_consistent(&t->pi_lock);
}

static void pi_unlock(struct thr *t) { pthread_mutex_unlock(&t->pi_lock); }

NSPA_HIDDEN uint32_t pi_eff_key(const struct thr *t)
{
    uint32_t b = __atomic_load_n(&t->boost, __ATOMIC_RELAXED);
    uint32_t k = __atomic_load_n(&t->key, __ATOMIC_RELAXED);
    return b > k ? b : k;
}

/* The own key of a thread about to queue: what the kernel reports, unless that is our
 * boost (then the saved setting is its own). */
NSPA_HIDDEN uint32_t pi_own_key(struct thr *t, uint32_t current)
{
    return __atomic_load_n(&t->boost, __ATOMIC_RELAXED) ? t->base_key : current;
}

/* The highest key among the waiters of the mutexes @t owns (object locks in turn). */
static uint32_t wanted_boost(struct thr *t, uint32_t tid)
{
    uint32_t want = 0;
    int follow = thr_may_follow(t);
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_acquire);
    if (n > OWNED_MAX) n = OWNED_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ref = atomic_load_explicit(&t->owned[i], memory_order_relaxed);
        if (!ref || (!(ref & 1) && !follow)) continue;
        struct sobj *o = R(ref);
        if (!o || o->type != NSPA_TYPE_MUTEX) continue;
        obj_lock(o);
        if (o->type == NSPA_TYPE_MUTEX && mtx_owner(atomic_load(&o->word)) == tid) {
            uint32_t k = q_top_key(o);
            if (k > want) want = k;
        }
        obj_unlock(o);
    }
    return want;
}

static void propagate(struct thr *t, int depth);

/* Recompute @t's boost from the waiters of the mutexes it owns, apply it, and carry a
 * change along the chain if @t waits itself. No object lock may be held. */
NSPA_HIDDEN void pi_update_thread(struct thr *t, int depth)
{
    if (!pi_enabled() || !t || depth > PI_MAX_DEPTH) return;
    pi_lock(t);
    uint32_t tid = t->tid;
    if (!tid) {
        pi_unlock(t);
        return;
    }
    uint32_t want = wanted_boost(t, tid);
    uint32_t old_eff = pi_eff_key(t);
    if (want && !__atomic_load_n(&t->boost, __ATOMIC_RELAXED)) {
        /* first boost: learn the thread's own setting. The calling thread knows its own
         * key without a system call (current_key(): NSPA's priority calls refresh it,
         * and it is read again from the kernel every 50 ms); waiters that do not
         * outrank it need no boost. That is every grant of a mutex contended by
         * threads of one priority: the new owner looks at its waiters (boost_owners
         * after the wait), and a sched_getattr there cost a system call per hand-off
         * (measured: 407K of them in the suite's rapid kernel mutex in RT mode). */
        struct nspa_tls *me = self();
        if (me && me->tid == tid && current_key() >= want) {
            pi_unlock(t);
            return;
        }
        struct nspa_sched_attr a;
        if (nspa_sched_getattr(tid, &a) != 0 || attr_key(&a) >= want) {
            pi_unlock(t);
            return;
        }
        t->base_key = attr_key(&a);
        t->base_policy = (int32_t)a.sched_policy;
        t->base_prio = (int32_t)a.sched_priority;
        t->base_nice = a.sched_nice;
        t->base_flags = (uint32_t)a.sched_flags;
    }
    if (want && want > t->base_key) {
        if (__atomic_load_n(&t->boost, __ATOMIC_RELAXED) != want) {
            struct nspa_sched_attr a = { .sched_policy = SCHED_FIFO, .sched_priority = want - 100 };
            if (set_attr(tid, &a) == 0) __atomic_store_n(&t->boost, want, __ATOMIC_RELAXED);
        }
    } else if (__atomic_load_n(&t->boost, __ATOMIC_RELAXED)) {
        struct nspa_sched_attr a = { .sched_policy = (uint32_t)t->base_policy,
                                     .sched_priority = (uint32_t)t->base_prio,
                                     .sched_nice = t->base_nice,
                                     .sched_flags = t->base_flags };
        set_attr(tid, &a);
        __atomic_store_n(&t->boost, 0, __ATOMIC_RELAXED);
    }
    uint32_t new_eff = pi_eff_key(t);
    pi_unlock(t);
    if (new_eff != old_eff) propagate(t, depth);
}

/* @t's effective key changed: if it waits, its entries move and the owners of the
 * mutexes it waits for are updated. */
static void propagate(struct thr *t, int depth)
{
    if (__atomic_load_n(&t->kind, __ATOMIC_ACQUIRE) == WAIT_NONE) return;
    uint32_t key = pi_eff_key(t);
    uint32_t n = t->count + (t->has_alert ? 1 : 0);
    int follow = thr_may_follow(t);
    for (uint32_t i = 0; i < n && i < WAIT_SLOTS; i++) {
        uint64_t ref = __atomic_load_n(&t->ent[i].obj, __ATOMIC_ACQUIRE);
        if (!ref || (!(ref & 1) && !follow)) continue;
        struct sobj *o = R(ref);
        obj_lock(o);
        if (t->ent[i].obj == ref) q_requeue(o, &t->ent[i], key);
        obj_unlock(o);
        if (o->type == NSPA_TYPE_MUTEX) pi_update_owner_of(o, depth + 1);
    }
}

/* The owner of mutex @o may have gained or lost boosting waiters. */
NSPA_HIDDEN void pi_update_owner_of(struct sobj *o, int depth)
{
    if (!pi_enabled() || o->type != NSPA_TYPE_MUTEX) return;
    uint32_t owner = mtx_owner(atomic_load_explicit(&o->word, memory_order_acquire));
    if (owner) pi_update_thread(thr_by_tid(owner), depth);
}

/* A record is being freed: its boost is forgotten. */
NSPA_HIDDEN void pi_forget(struct thr *t)
{
    __atomic_store_n(&t->boost, 0, __ATOMIC_RELAXED);
}

/*
 * nspa_thread_set_sched - set a thread's own scheduling (policy, priority, nice), the
 * way NSPA's priority API does: if the thread is boosted by priority inheritance, the
 * setting is remembered as its own and applied when the boost ends (or at once, if it
 * is higher than the boost).
 */
NSPA_EXPORT int nspa_thread_set_sched(uint32_t tid, int policy, int prio, int nice)
{
    struct nspa_tls *me = self();
    uint32_t mine = me ? me->tid : (uint32_t)syscall(SYS_gettid);
    if (!tid) tid = mine;
    struct nspa_sched_attr a = { .sched_policy = (uint32_t)policy, .sched_priority = (uint32_t)prio,
                                 .sched_nice = nice };
    struct thr *t = thr_by_tid(tid);
    int r = 0;
    if (t) pi_lock(t);
    if (t && t->tid == tid && __atomic_load_n(&t->boost, __ATOMIC_RELAXED)) {
        uint32_t key = attr_key(&a);
        if (key >= __atomic_load_n(&t->boost, __ATOMIC_RELAXED)) {
            if (set_attr(tid, &a) != 0) r = -errno;
            else __atomic_store_n(&t->boost, 0, __ATOMIC_RELAXED);
        } else {
            struct nspa_sched_attr cur;        /* the caller must learn EPERM now */
            if (nspa_sched_getattr(tid, &cur) != 0) r = -errno;
        }
        if (!r) {
            t->base_key = key;
            t->base_policy = policy;
            t->base_prio = prio;
            t->base_nice = nice;
            t->base_flags = 0;
        }
    } else if (set_attr(tid, &a) != 0) {
        r = -errno;
    }
    uint32_t old_eff = t ? pi_eff_key(t) : 0;
    if (t && !r && t->tid == tid && __atomic_load_n(&t->kind, __ATOMIC_ACQUIRE) != WAIT_NONE)
        __atomic_store_n(&t->key, attr_key(&a), __ATOMIC_RELAXED);
    if (t) pi_unlock(t);
    if (!r && tid == mine) nspa_rt_thread_load();      /* the cached key follows */
    if (t && !r) {
        if (pi_eff_key(t) != old_eff) propagate(t, 0);
        pi_update_thread(t, 0);
    }
    return r;
}
