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

NSPA_HIDDEN int nspa__timer_arm(nspa_obj_t h, int reset, uint32_t *gen)
{
    int r = 0;
    struct sobj *o = timer_of(h, &r);
    if (!o) return r;
    obj_lock(o);
    uint64_t w = obj_claim(o);
    uint32_t g = __atomic_load_n(&o->max, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&o->max, g, __ATOMIC_RELEASE);
    if (reset) atomic_store_explicit(&o->word, w & ~EVT_SIGNALED, memory_order_release);
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    if (gen) *gen = g;
    return 0;
}

NSPA_HIDDEN int nspa__timer_fire(nspa_obj_t h, uint32_t gen, uint32_t *refs)
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
        uint64_t w = obj_claim(o);
        atomic_store_explicit(&o->word, w | EVT_SIGNALED, memory_order_release);
        sync_try_wake(o);
        obj_unclaim_if_idle(o);
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
