/*
 * Waitable timers as a kind of the sync core (docs/sync.md, "Adding a kind").
 *
 * A timer object is an event-shaped word (EVT_SIGNALED, EVT_MANUAL: a notification
 * timer is a manual event, a synchronization timer an auto-reset one), so waits,
 * wait-all, queue order, recovery and handles come with the kind. What makes it a
 * timer lives outside the object: the timer service of a process (src/time/) holds
 * the due time and fires it. The object keeps one more thing, in `max`: the arm
 * generation. Set and cancel bump it under the object lock; an expiry carries the
 * generation it was armed at and is ignored when it no longer matches. That is what
 * makes a cancel or a re-arm from any process (named timers) win over an expiry
 * pending in another process's service, without any cross-process message.
 *
 * A timer in the namespace region (named, or made shared) also has a record there
 * (struct ns_timer, types.h; at the object's index): the arm's generation, due time,
 * period and the process that serves it, written under the object lock by the arm and
 * advanced by each expiry. When that process is gone, another process that holds a
 * handle takes the timer over (nspa__timer_adopt, called when it waits for the timer):
 * the timer keeps firing as long as a handle is open somewhere, as on Windows.
 */
#include <errno.h>
#include "sync/internal.h"

static int tmr_signaled(const struct sobj *o, uint64_t w, uint32_t owner) { return (w & EVT_SIGNALED) != 0; }
static int tmr_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    *nw = (w & EVT_MANUAL) ? w : (w & ~EVT_SIGNALED);
    return 0;
}

static const struct sync_kind k_timer = { tmr_signaled, tmr_consume };

__attribute__((constructor)) static void timer_kind_init(void)
{
    sync_kind_register(NSPA_TYPE_TIMER, &k_timer);
}

static struct sobj *timer_of(nspa_obj_t h, int *err)
{
    struct sobj *o = h_lookup(h);
    if (!o) { *err = -EBADF; return NULL; }
    if (o->type != NSPA_TYPE_TIMER) { *err = -EINVAL; return NULL; }
    return o;
}

NSPA_HIDDEN int nspa__timer_create(int manual, const char *name, nspa_obj_t *out)
{
    if (!out) return -EFAULT;
    return obj_create(NSPA_TYPE_TIMER, manual ? EVT_MANUAL : 0, 0, 0, name, 0, out);
}

/* the region record of @o, or NULL (a timer of the process arena) */
static struct ns_timer *rec_of(const struct sobj *o)
{
    return o->in_region ? &nspa_ns->timers[o - nspa_ns->objs] : NULL;
}

static void rec_read(const struct ns_timer *t, struct nspa__timer_sched *s)
{
    s->due = t->due;
    s->period = t->period;
    s->realtime = (t->flags & TMR_REALTIME) != 0;
}

NSPA_HIDDEN int nspa__timer_arm(nspa_obj_t h, const struct nspa__timer_sched *s, uint32_t *gen)
{
    int r = 0;
    struct sobj *o = timer_of(h, &r);
    if (!o) return r;
    obj_lock(o);
    uint64_t w = obj_claim(o);
    uint32_t g = __atomic_load_n(&o->max, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&o->max, g, __ATOMIC_RELEASE);
    if (s) atomic_store_explicit(&o->word, w & ~EVT_SIGNALED, memory_order_release);
    struct ns_timer *t = rec_of(o);
    if (t) {                         /* flags and owner are also looked at without the lock */
        t->gen = g;
        t->due = s ? s->due : 0;
        t->period = s ? s->period : 0;
        __atomic_store_n(&t->owner_slot, nspa_ns->proc, __ATOMIC_RELAXED);
        __atomic_store_n(&t->owner_pid, nspa_ns->procs[nspa_ns->proc].pid, __ATOMIC_RELAXED);
        __atomic_store_n(&t->flags, s ? TMR_ARMED | (s->realtime ? TMR_REALTIME : 0) : 0, __ATOMIC_RELEASE);
    }
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    if (gen) *gen = g;
    return 0;
}

NSPA_HIDDEN int nspa__timer_adopt(uintptr_t key, struct nspa__timer_sched *s, uint32_t *gen, nspa_obj_t *own)
{
    struct sobj *o = (struct sobj *)key;
    struct ns *ns = nspa_ns;
    if (!ns || !o->in_region || __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) != NSPA_TYPE_TIMER) return 0;
    struct ns_timer *t = rec_of(o);
    /* a look without the lock first: the common answers need none of it */
    if (!(__atomic_load_n(&t->flags, __ATOMIC_ACQUIRE) & TMR_ARMED)) return 0;
    uint32_t me = ns->procs[ns->proc].pid;      /* our pid, without a system call */
    if (__atomic_load_n(&t->owner_slot, __ATOMIC_RELAXED) == ns->proc &&
        __atomic_load_n(&t->owner_pid, __ATOMIC_RELAXED) == me)
        return 0;                                 /* ours (a racy look: ours stays ours) */
    obj_lock(o);
    int r = 0;
    uint32_t slot = t->owner_slot, pid = t->owner_pid;
    if ((t->flags & TMR_ARMED) && t->gen == __atomic_load_n(&o->max, __ATOMIC_RELAXED)) {
        rec_read(t, s);
        *gen = t->gen;
        r = (slot == ns->proc && pid == me) ? 0 : 2;
    }
    obj_unlock(o);
    /* armed by another process: is it still there? (its slot's liveness word, a load;
     * kill(pid, 0) when that thread is gone) */
    if (r != 2 || !proc_gone(ns, slot, pid)) return r;
    /* Gone: take it over with a handle of our own (the expiries need the object alive
     * whatever the program closes). The registry lock (a handle to a region object)
     * on a wait path: this is recovery from a dead process, once per orphaned arm, as
     * the reclaim of a dead mutex owner. */
    reg_lock(ns);
    obj_lock(o);
    r = 0;
    if (o->type == NSPA_TYPE_TIMER && (t->flags & TMR_ARMED) && t->gen == o->max && t->owner_slot == slot &&
        t->owner_pid == pid) {
        obj_ref(o);
        if (h_alloc(o, own)) {
            obj_unref(o);
        } else {
            __atomic_store_n(&t->owner_slot, ns->proc, __ATOMIC_RELAXED);
            __atomic_store_n(&t->owner_pid, me, __ATOMIC_RELAXED);
            rec_read(t, s);
            *gen = t->gen;
            r = 1;
        }
    }
    obj_unlock(o);
    reg_unlock(ns);
    return r;
}

NSPA_HIDDEN int nspa__timer_fire(nspa_obj_t h, uint32_t gen, uint64_t next_due, uint32_t *refs)
{
    int r = 0;
    struct sobj *o = timer_of(h, &r);
    if (!o) return r;
    obj_lock(o);
    if (refs) *refs = atomic_load_explicit(&o->refs, memory_order_relaxed);
    if (__atomic_load_n(&o->max, __ATOMIC_RELAXED) != gen) {
        r = -ESTALE;
    } else {
        /* the expiry: signal, and hand the timer to the first waiters in one step */
        struct ns_timer *t = rec_of(o);
        if (t && t->gen == gen) {        /* the next expiry, for whoever may adopt it */
            if (t->period) t->due = next_due;
            else __atomic_fetch_and(&t->flags, ~TMR_ARMED, __ATOMIC_RELEASE);
        }
        uint64_t w = obj_claim(o);
        atomic_store_explicit(&o->word, w | EVT_SIGNALED, memory_order_release);
        sync_serve(o);
    }
    obj_unlock(o);
    return r;
}

NSPA_HIDDEN int nspa__timer_read(nspa_obj_t h, int *manual, int *signaled, uint32_t *gen)
{
    int r = 0;
    struct sobj *o = timer_of(h, &r);
    if (!o) return r;
    obj_lock(o);
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    if (manual) *manual = (w & EVT_MANUAL) != 0;
    if (signaled) *signaled = (w & EVT_SIGNALED) != 0;
    if (gen) *gen = __atomic_load_n(&o->max, __ATOMIC_RELAXED);
    obj_unlock(o);
    return 0;
}

NSPA_HIDDEN uintptr_t nspa__obj_key(nspa_obj_t h)
{
    return (uintptr_t)h_lookup(h);
}
