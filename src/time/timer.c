/*
 * Waitable timers: the records that arm timer objects on the timer service.
 *
 * Each (process, timer object) pair armed here has one record, found by the object's
 * address in a process-local table (`tl`, a PI mutex; never taken by an expiry). While
 * armed, the record holds a handle of its own to the object (so that the object cannot
 * be freed under a pending expiry) and the generation it armed (sync_api.h): an
 * expiry superseded by a set or cancel, from this process or another, finds the
 * generation changed and does nothing. An expiry that finds that only its own handle
 * is left (the program closed every handle) ends the timer, as NT deletes it.
 *
 * Records are never freed (a later timer at the same address reuses the record); the
 * memory is bounded by the timer objects a process ever had at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "nspa/timer.h"
#include "sync/sync_api.h"
#include "common/platform.h"
#include "time/time_internal.h"

struct trec {
    struct tsvc_ent e;
    struct trec *next;
    uintptr_t key;
    nspa_obj_t own;                  /* our handle while armed, else 0 */
    uint32_t gen;
    void (*fn)(void *, uint64_t);
    void *ctx;
    void (*release)(void *);
};

#define TBUCKETS 256
static struct trec *table[TBUCKETS];
static pthread_mutex_t tl = PTHREAD_MUTEX_INITIALIZER;

static struct trec *find(uintptr_t key, int make)
{
    struct trec **pp = &table[(key >> 7) % TBUCKETS];
    for (struct trec *t = *pp; t; t = t->next)
        if (t->key == key) return t;
    if (!make) return NULL;
    struct trec *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    t->key = key;
    t->e.idx = -1;
    t->next = *pp;
    __atomic_store_n(pp, t, __ATOMIC_RELEASE);     /* read without tl (find_nolock) */
    return t;
}

/* the record is neither queued nor running (tsvc_remove returned, or in its own fire) */
static void trec_drop(struct trec *t)
{
    if (t->own) nspa_close(t->own);
    t->own = 0;
    if (t->release) t->release(t->ctx);
    t->fn = NULL;
    t->release = NULL;
    t->ctx = NULL;
}

static int trec_fire(struct tsvc_ent *e, uint64_t now)
{
    struct trec *t = (struct trec *)e;
    uint32_t refs = 0;
    int r = nspa__timer_fire(t->own, t->gen, e->due + e->period, &refs);
    if (r == 0 && t->fn) t->fn(t->ctx, e->clock == CLOCK_REALTIME ? now : nspa_clock_ns(CLOCK_REALTIME));
    if (r == 0 && e->period && refs > 1) return 1;
    trec_drop(t);                    /* one-shot done, superseded, or nobody left */
    return 0;
}

/* ---- the direct path (sync_api.h): read without tl (records are never freed and
 * are published with a release store; their due time is read under the service's
 * lock) ----------------------------------------------------------------------------- */

static struct trec *find_nolock(uintptr_t key)
{
    for (struct trec *t = __atomic_load_n(&table[(key >> 7) % TBUCKETS], __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
        if (t->key == key) return t;
    return NULL;
}

/* ---- adoption: a timer of the region whose arming process is gone (docs/time.md) --- */

/* How late an expiry of a timer armed by another, living process may be before a
 * waiter here looks whether that process is gone: a waiter sleeps until the due time
 * plus this, and is woken by the expiry well before when its process serves it. */
#define ADOPT_GRACE_NS 2000000ull

static uint64_t sched_mono(const struct nspa__timer_sched *s)
{
    if (!s->realtime) return s->due;
    uint64_t now_r = nspa_clock_ns(CLOCK_REALTIME), now_m = nspa_clock_ns(CLOCK_MONOTONIC);
    return s->due <= now_r ? now_m : s->due - now_r + now_m;
}

/* Arm the record of @key on our service with an arm taken over (nspa__timer_adopt:
 * @own is our new handle). Expiries missed while nobody served the timer are one
 * expiry, run now on the calling thread (the timer is signaled once, as they would
 * have left it); the period goes on from there on the original schedule. */
static void adopt_arm(uintptr_t key, const struct nspa__timer_sched *s, uint32_t gen, nspa_obj_t own)
{
    pthread_mutex_lock(&tl);
    struct trec *t = find(key, 1);
    if (!t) {
        pthread_mutex_unlock(&tl);
        nspa_close(own);           /* no memory: the next waiter tries again */
        return;
    }
    tsvc_remove(&t->e);
    trec_drop(t);
    t->own = own;
    t->gen = gen;
    t->e.clock = s->realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    t->e.due = s->due;
    t->e.period = s->period;
    t->e.fire = trec_fire;
    uint64_t now = nspa_clock_ns(t->e.clock);
    if (s->due <= now) {
        /* overdue: the expiry runs here, now (so that the caller's look sees it), the
         * missed periods merged into it; then the period goes on from the schedule */
        if (s->period) t->e.due += (now - s->due) / s->period * s->period;
        if (!trec_fire(&t->e, now)) {            /* one-shot, or nobody left: dropped */
            pthread_mutex_unlock(&tl);
            return;
        }
        t->e.due += t->e.period;
    }
    if (tsvc_add(&t->e)) trec_drop(t);
    pthread_mutex_unlock(&tl);
}

/* not armed here: another process's arm, taken over when that process is gone */
static int remote_due(uintptr_t key, uint64_t *mono)
{
    struct nspa__timer_sched s;
    uint32_t gen;
    nspa_obj_t own = 0;
    int r = nspa__timer_adopt(key, &s, &gen, &own);
    if (r == 1) {
        adopt_arm(key, &s, gen, own);
        struct trec *t = find_nolock(key);
        return t ? tsvc_due_mono(&t->e, mono) : 0;
    }
    if (r != 2) return 0;
    /* served by a living process: look again if it has not been by the due time plus
     * the grace (never in the past: a late server is looked at once per grace) */
    uint64_t d = sched_mono(&s), now = nspa_clock_ns(CLOCK_MONOTONIC);
    *mono = (d > now ? d : now) + ADOPT_GRACE_NS;
    return 1;
}

static int hook_due(uintptr_t key, uint64_t *mono)
{
    struct trec *t = find_nolock(key);
    if (t && tsvc_due_mono(&t->e, mono)) return 1;
    return remote_due(key, mono);
}

static void hook_expire(uintptr_t key)
{
    struct trec *t = find_nolock(key);
    if (t) tsvc_run_if_due(&t->e);
}

static void hook_uncommit(uintptr_t key)
{
    struct trec *t = find_nolock(key);
    if (t) tsvc_uncommit(&t->e);
}

static int hook_poll(uintptr_t key)
{
    struct nspa__timer_sched s;
    uint32_t gen;
    nspa_obj_t own = 0;
    if (nspa__timer_adopt(key, &s, &gen, &own) != 1) return 0;
    adopt_arm(key, &s, gen, own);    /* an overdue expiry ran in it */
    return 1;
}

static const struct nspa__timer_hooks hooks = { hook_due, hook_expire, hook_poll, hook_uncommit };

/* Installed at load: a process that only opened a timer (by name, inherited,
 * duplicated into it) must be able to take it over too. The sync core calls them only
 * for timer objects. */
__attribute__((constructor)) static void timer_hooks_init(void)
{
    nspa__set_timer_hooks(&hooks);
}

NSPA_EXPORT int nspa_create_timer(int manual, const char *name, nspa_obj_t *out)
{
    if ((unsigned)manual > 1) return -EINVAL;
    return nspa__timer_create(manual, name, out);
}

NSPA_EXPORT int nspa_timer_set(nspa_obj_t h, const struct nspa_timer_args *a)
{
    if (!a) return -EFAULT;
    if (a->flags & ~(uint32_t)NSPA_TIMER_REALTIME) return -EINVAL;
    uintptr_t key = nspa__obj_key(h);
    if (!key) return -EBADF;
    pthread_mutex_lock(&tl);
    struct trec *t = find(key, 1);
    nspa_obj_t own = 0;
    int r = t ? nspa_dup(h, &own) : -ENOMEM;
    uint32_t gen = 0;
    struct nspa__timer_sched sch = { a->due, a->period, (a->flags & NSPA_TIMER_REALTIME) != 0 };
    if (!r) r = nspa__timer_arm(h, &sch, &gen);   /* -EINVAL: not a timer */
    if (r) {
        if (own) nspa_close(own);
        pthread_mutex_unlock(&tl);
        return r;
    }
    tsvc_remove(&t->e);
    trec_drop(t);
    t->own = own;
    t->gen = gen;
    t->fn = a->fn;
    t->ctx = a->ctx;
    t->release = a->release;
    t->e.due = a->due;
    t->e.period = a->period;
    t->e.clock = (a->flags & NSPA_TIMER_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    t->e.fire = trec_fire;
    r = tsvc_add(&t->e);
    if (r) {
        t->release = NULL;           /* the caller keeps its context on failure */
        trec_drop(t);
    }
    pthread_mutex_unlock(&tl);
    return r;
}

NSPA_EXPORT int nspa_timer_cancel(nspa_obj_t h)
{
    int r = nspa__timer_arm(h, NULL, NULL);      /* supersedes arms of every process */
    if (r) return r;
    uintptr_t key = nspa__obj_key(h);
    pthread_mutex_lock(&tl);
    struct trec *t = key ? find(key, 0) : NULL;
    if (t) {
        tsvc_remove(&t->e);
        trec_drop(t);
    }
    pthread_mutex_unlock(&tl);
    return 0;
}

NSPA_EXPORT int nspa_timer_read(nspa_obj_t h, int *manual, int *signaled)
{
    if (!manual || !signaled) return -EFAULT;
    return nspa__timer_read(h, manual, signaled, NULL);
}
