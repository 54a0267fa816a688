/*
 * Priority inheritance for NT mutexes, in user space, across processes.
 *
 * While a thread waits on a mutex (single wait, wait-any or wait-all), the mutex's
 * owner runs at no less than the highest effective priority among the waiters of all
 * the mutexes it owns; the rule applies again to the owner if it waits itself
 * (transitive, any depth up to PI_MAX_DEPTH). When the last boosting waiter leaves, the
 * owner gets back exactly its own setting (policy, priority, nice), including a
 * setting it changed while boosted through nspa_thread_set_sched().
 *
 * Keys: a real-time thread's key is 100 + its SCHED_FIFO/RR priority; SCHED_OTHER is 0
 * and boosts nobody. A boost is applied as SCHED_FIFO at the waiter's priority
 * (sched_setattr on the owner's tid, which may live in another process of the
 * namespace).
 *
 * LOCKING: everything here runs under the namespace lock (internal.h rule 1), which
 * makes the chain walk consistent; the walk is bounded (PI_MAX_DEPTH) so a deadlock
 * cycle cannot loop. Nothing allocates. The only system calls are sched_getattr /
 * sched_setattr on the threads whose boost changes. A process killed inside the lock
 * rolls back the bookkeeping (journal) but not a sched_setattr already made: that
 * thread keeps its boost until its next PI update (docs/rt.md).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
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
        const char *e = getenv("NSPA_PI");
        s = !(e && !strcmp(e, "0"));
        __atomic_store_n(&pi_state, s, __ATOMIC_RELAXED);
    }
    return s;
}

static uint32_t attr_key(const struct nspa_sched_attr *a)
{
    if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR)
        return 100 + a->sched_priority;
    return 0;
}

static int get_attr(uint32_t tid, struct nspa_sched_attr *a) { return nspa_sched_getattr(tid, a); }

static int set_attr(uint32_t tid, const struct nspa_sched_attr *a)
{
    struct nspa_sched_attr b = *a;
    b.size = sizeof(b);
    int r = (int)syscall(SYS_sched_setattr, (pid_t)tid, &b, 0);
    if (r && errno == EPERM) rt_note_denied();
    return r;
}

/* Lowering a thread's priority waits until the section's wakes are done: a releasing
 * owner restored to SCHED_OTHER before it wakes the real-time waiter it just granted
 * would be preempted by the very threads PI protects it from, with the wake still in
 * its hands. Raises apply at once. The deferred changes are applied by ns_unlock()
 * after the wakes, still under the lock (so a later section's boost cannot be undone
 * by a stale restore). */
#define PI_DEFER_MAX 16
static __thread struct { uint32_t tid; struct nspa_sched_attr a; } pi_deferred[PI_DEFER_MAX];
static __thread int pi_ndeferred;

static void set_attr_lower(uint32_t tid, const struct nspa_sched_attr *a)
{
    for (int i = 0; i < pi_ndeferred; i++)
        if (pi_deferred[i].tid == tid) { pi_deferred[i].a = *a; return; }
    if (pi_ndeferred == PI_DEFER_MAX) { set_attr(tid, a); return; }
    pi_deferred[pi_ndeferred].tid = tid;
    pi_deferred[pi_ndeferred].a = *a;
    pi_ndeferred++;
}

static void cancel_deferred(uint32_t tid)
{
    for (int i = 0; i < pi_ndeferred; i++)
        if (pi_deferred[i].tid == tid) pi_deferred[i] = pi_deferred[--pi_ndeferred];
}

NSPA_HIDDEN int pi_deferred_pending(void) { return pi_ndeferred != 0; }

NSPA_HIDDEN void pi_apply_deferred(void)
{
    for (int i = 0; i < pi_ndeferred; i++) set_attr(pi_deferred[i].tid, &pi_deferred[i].a);
    pi_ndeferred = 0;
}

/* A thread's effective key: its own, or its boost if higher. */
NSPA_HIDDEN uint32_t pi_eff_key(const struct ns_thread *t)
{
    return t->boost > t->prio ? t->boost : t->prio;
}

/* The own key of a thread about to queue: what the kernel reports, unless that is our
 * boost (then the saved setting is its own). */
NSPA_HIDDEN uint32_t pi_own_key(struct ns *ns, struct ns_thread *t, uint32_t current_key)
{
    (void)ns;
    return t->boost ? t->base_key : current_key;
}

/* Re-sort a waiting thread's queue entries after its effective key changed. */
static void requeue(struct ns *ns, uint32_t slot);
static void propagate(struct ns *ns, uint32_t slot, int depth);

/* Recompute the boost of thread @slot from the waiters of the mutexes it owns, apply
 * it, and carry a change along the chain if the thread waits itself. */
NSPA_HIDDEN void pi_update_thread(struct ns *ns, uint32_t slot, int depth)
{
    if (!pi_enabled() || slot >= MAX_THREADS || depth > PI_MAX_DEPTH) return;
    struct ns_thread *t = &ns->threads[slot];
    if (!t->tid) return;
    uint32_t want = 0;
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_relaxed);
    if (n > OWNED_MAX) n = OWNED_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = atomic_load_explicit(&t->owned[i], memory_order_relaxed);
        if (!v || v - 1 >= ns->hdr->obj_hwm) continue;
        struct ns_obj *o = &ns->objs[v - 1];
        if (o->type != NSPA_TYPE_MUTEX || (uint32_t)atomic_load_explicit(&o->word, memory_order_relaxed) != t->tid)
            continue;
        for (uint32_t e = o->q_head; e; e = ns->threads[(e - 1) / WAIT_SLOTS].entries[(e - 1) % WAIT_SLOTS].next) {
            uint32_t k = pi_eff_key(&ns->threads[(e - 1) / WAIT_SLOTS]);
            if (k > want) want = k;
        }
    }
    uint32_t old_eff = pi_eff_key(t);
    if (want && !t->boost) {
        /* first boost: learn the thread's own setting */
        struct nspa_sched_attr a;
        if (get_attr(t->tid, &a) != 0) return;
        uint32_t own = attr_key(&a);
        if (own >= want) return;
        jset32(ns, &t->base_key, own);
        jset32(ns, (uint32_t *)&t->base_policy, a.sched_policy);
        jset32(ns, (uint32_t *)&t->base_prio, a.sched_priority);
        jset32(ns, (uint32_t *)&t->base_nice, (uint32_t)a.sched_nice);
        jset32(ns, &t->base_flags, (uint32_t)a.sched_flags);
    }
    if (want && want > t->base_key) {
        if (t->boost != want) {
            struct nspa_sched_attr a = { .sched_policy = SCHED_FIFO, .sched_priority = want - 100 };
            if (want > t->boost) {
                cancel_deferred(t->tid);
                if (set_attr(t->tid, &a) == 0) jset32(ns, &t->boost, want);
            } else {
                set_attr_lower(t->tid, &a);
                jset32(ns, &t->boost, want);
            }
        }
    } else if (t->boost) {
        struct nspa_sched_attr a = { .sched_policy = (uint32_t)t->base_policy,
                                   .sched_priority = (uint32_t)t->base_prio,
                                   .sched_nice = t->base_nice,
                                   .sched_flags = t->base_flags };
        set_attr_lower(t->tid, &a);
        jset32(ns, &t->boost, 0);
    }
    if (pi_eff_key(t) != old_eff)
        propagate(ns, slot, depth);
}

/* Thread @slot's effective key changed: if it waits, the change travels along the
 * chain: re-sort its place in the queues it is in, update the owners of the mutexes
 * it waits for. */
static void propagate(struct ns *ns, uint32_t slot, int depth)
{
    struct ns_thread *t = &ns->threads[slot];
    if (t->kind == WAIT_NONE) return;
    requeue(ns, slot);
    uint32_t m = t->count + (t->has_alert ? 1 : 0);
    for (uint32_t i = 0; i < m; i++) {
        struct ns_obj *o = &ns->objs[t->objs[i]];
        if (o->type != NSPA_TYPE_MUTEX) continue;
        uint32_t owner = (uint32_t)atomic_load_explicit(&o->word, memory_order_relaxed);
        if (owner) pi_update_thread(ns, ns_tid_slot(ns, owner), depth + 1);
    }
}

/* The owner of mutex @obj_idx may have gained or lost boosting waiters. */
NSPA_HIDDEN void pi_update_owner_of(struct ns *ns, uint32_t obj_idx)
{
    if (!pi_enabled()) return;
    struct ns_obj *o = &ns->objs[obj_idx];
    if (o->type != NSPA_TYPE_MUTEX) return;
    uint32_t owner = (uint32_t)atomic_load_explicit(&o->word, memory_order_relaxed);
    if (owner) pi_update_thread(ns, ns_tid_slot(ns, owner), 0);
}

/* A thread slot is being freed: its boost (if its thread still runs, e.g. after a
 * normal exit path) is dropped. */
NSPA_HIDDEN void pi_forget(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    if (t->boost) jset32(ns, &t->boost, 0);
}

/* ---- queue order -------------------------------------------------------------- */

static inline struct ns_wait_entry *ent(struct ns *ns, uint32_t e)
{
    return &ns->threads[(e - 1) / WAIT_SLOTS].entries[(e - 1) % WAIT_SLOTS];
}

static void requeue(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    uint32_t key = pi_eff_key(t);
    uint32_t m = t->count + (t->has_alert ? 1 : 0);
    for (uint32_t i = 0; i < m; i++) {
        struct ns_obj *o = &ns->objs[t->objs[i]];
        uint32_t e = entry_id(slot, i);
        struct ns_wait_entry *x = ent(ns, e);
        /* unlink */
        if (x->prev) jset32(ns, &ent(ns, x->prev)->next, x->next);
        else jset32(ns, &o->q_head, x->next);
        if (x->next) jset32(ns, &ent(ns, x->next)->prev, x->prev);
        else jset32(ns, &o->q_tail, x->prev);
        /* insert after the last entry whose key is >= ours */
        uint32_t after = o->q_tail;
        while (after && pi_eff_key(&ns->threads[(after - 1) / WAIT_SLOTS]) < key)
            after = ent(ns, after)->prev;
        uint32_t before = after ? ent(ns, after)->next : o->q_head;
        jset32(ns, &x->prev, after);
        jset32(ns, &x->next, before);
        if (after) jset32(ns, &ent(ns, after)->next, e);
        else jset32(ns, &o->q_head, e);
        if (before) jset32(ns, &ent(ns, before)->prev, e);
        else jset32(ns, &o->q_tail, e);
    }
}

/* ---- a thread's own setting, PI-aware ---------------------------------------------- */

/*
 * nspa_thread_set_sched - set a thread's own scheduling (policy, priority, nice), the
 * way NSPA's priority API does: if the thread is boosted by priority inheritance, the
 * setting is remembered as its own and applied when the boost ends (or at once, if it
 * is higher than the boost).
 */
NSPA_EXPORT int nspa_thread_set_sched(uint32_t tid, int policy, int prio, int nice)
{
    uint32_t me = self()->tid;   /* registers the caller: before the lock */
    struct ns *ns = nspa_ns;
    if (!tid) tid = me;
    struct nspa_sched_attr a = { .sched_policy = (uint32_t)policy, .sched_priority = (uint32_t)prio,
                               .sched_nice = nice };
    ns_lock(ns);
    uint32_t slot = ns_tid_slot(ns, tid);
    int r = 0;
    struct ns_thread *t = slot < MAX_THREADS ? &ns->threads[slot] : NULL;
    if (t && t->boost) {
        uint32_t key = attr_key(&a);
        if (key >= t->boost) {
            if (set_attr(tid, &a) != 0) r = -errno;
            else jset32(ns, &t->boost, 0);
        } else {
            /* check it is allowed at all: the caller must learn EPERM now */
            struct nspa_sched_attr cur;
            if (get_attr(tid, &cur) != 0) r = -errno;
        }
        if (!r) {
            jset32(ns, &t->base_key, key);
            jset32(ns, (uint32_t *)&t->base_policy, (uint32_t)policy);
            jset32(ns, (uint32_t *)&t->base_prio, (uint32_t)prio);
            jset32(ns, (uint32_t *)&t->base_nice, (uint32_t)nice);
            jset32(ns, &t->base_flags, 0);
        }
    } else {
        if (set_attr(tid, &a) != 0) r = -errno;
    }
    if (!r && tid == me) nspa_rt_thread_load();   /* the cached key follows */
    if (t && !r) {
        uint32_t key = attr_key(&a);
        if (t->kind != WAIT_NONE && t->prio != key) {
            uint32_t old_eff = pi_eff_key(t);
            jset32(ns, &t->prio, key);
            if (pi_eff_key(t) != old_eff) propagate(ns, slot, 0);
        }
        pi_update_thread(ns, slot, 0);
    }
    ns_unlock(ns);
    return r;
}
