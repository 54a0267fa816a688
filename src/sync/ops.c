/*
 * The operations on semaphores, mutexes, events, thread and process objects (ntsync's
 * ioctls).
 *
 * Each first tries one compare-and-swap on the unclaimed word (no waiters: nobody to
 * wake, no system call); otherwise it takes the object's lock, changes the word and
 * serves the queue (wake.c). Nothing else is locked.
 */
#include <errno.h>
#include "sync/internal.h"

/* the object of @h if it has @type and the handle has the access @need (0: none); the
 * type is checked first, as NT's ObReferenceObjectByHandle does */
static inline __attribute__((always_inline)) struct sobj *typed_need(nspa_obj_t h, int type, uint32_t need, int *err)
{
    uint32_t acc = 0;
    struct sobj *o = h_lookup_acc(h, need ? &acc : NULL);
    if (__builtin_expect(!o, 0)) { *err = -EBADF; return NULL; }
    uint8_t t = __atomic_load_n(&o->type, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t == OBJ_FORWARD, 0)) {        /* grown into the region just now */
        o = obj_forward_target(o);
        t = __atomic_load_n(&o->type, __ATOMIC_ACQUIRE);
    }
    if (__builtin_expect(t != type, 0)) { *err = -EINVAL; return NULL; }
    if (need && __builtin_expect(!(acc & need), 0)) { *err = -EACCES; return NULL; }
    return o;
}

static inline struct sobj *typed(nspa_obj_t h, int type, int *err) { return typed_need(h, type, 0, err); }

/* 0 when @h names an object of @type whose handle was granted one of the bits of @need;
 * -EBADF (not a handle), -EINVAL (another type), -EACCES (none of @need): the check of
 * calls that are not on a hot path (queries, thread and timer calls), in NT's order */
NSPA_HIDDEN int nspa__handle_check(nspa_obj_t h, int type, uint32_t need)
{
    int r = 0;
    return typed_need(h, type, need, &r) ? 0 : r;
}

/* ---- creation ------------------------------------------------------------------------ */

static int create_sem(const struct nspa_sem_args *args, const char *name, int shared, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    if (args->count > args->max) return -EINVAL;
    return obj_create(NSPA_TYPE_SEM, args->count, args->max, 0, name, shared, out);
}

static int create_mutex(const struct nspa_mutex_args *args, const char *name, int shared, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    if (!args->owner != !args->count) return -EINVAL;
    if (name || shared) reaper_ensure();   /* waiters may come from other processes */
    uint64_t c = args->count;
    uint32_t ext = 0;
    if (args->count >= MTX_CNT_BIG) {
        ext = args->count;
        c = MTX_CNT_BIG;
    }
    uint64_t w = (c << MTX_CNT_SHIFT) | args->owner;
    if (c == MTX_CNT_BIG) w |= OBJ_CLAIMED;     /* BIG counts live under the lock */
    return obj_create(NSPA_TYPE_MUTEX, w, 0, ext, name, shared, out);
}

static int create_event(const struct nspa_event_args *args, const char *name, int shared, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    /* any non-zero value is true, as ntsync stores them (in bools) */
    return obj_create(NSPA_TYPE_EVENT, (args->manual ? EVT_MANUAL : 0) | (args->signaled ? EVT_SIGNALED : 0),
                      0, 0, name, shared, out);
}

NSPA_EXPORT int nspa_create_sem(const struct nspa_sem_args *args, const char *name, nspa_obj_t *out)
{
    return create_sem(args, name, 0, out);
}

NSPA_EXPORT int nspa_create_mutex(const struct nspa_mutex_args *args, const char *name, nspa_obj_t *out)
{
    return create_mutex(args, name, 0, out);
}

NSPA_EXPORT int nspa_create_event(const struct nspa_event_args *args, const char *name, nspa_obj_t *out)
{
    return create_event(args, name, 0, out);
}

NSPA_HIDDEN int nspa__create_obj(int type, const void *args, const char *name, int shared, nspa_obj_t *out)
{
    switch (type) {
    case NSPA_TYPE_SEM: return create_sem(args, name, shared, out);
    case NSPA_TYPE_MUTEX: return create_mutex(args, name, shared, out);
    case NSPA_TYPE_EVENT: return create_event(args, name, shared, out);
    default: return -EINVAL;
    }
}

/* ---- semaphores --------------------------------------------------------------------- */

NSPA_EXPORT int nspa_sem_release(nspa_obj_t h, uint32_t *count)
{
    if (!count) return -EFAULT;
    int r = 0;
    struct sobj *o = typed_need(h, NSPA_TYPE_SEM, H_NEED_MODIFY, &r);   /* SEMAPHORE_MODIFY_STATE */
    if (!o) return r;
    uint32_t n = *count;
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        uint32_t c = (uint32_t)w;
        if ((uint64_t)c + n > o->max) return -EOVERFLOW;
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, w + n, memory_order_acq_rel, memory_order_acquire)) {
            *count = c;
            return 0;
        }
    }
    o = obj_lock_live(o);
    w = obj_claim(o);
    uint32_t c = (uint32_t)w;
    if ((uint64_t)c + n > o->max) {
        r = -EOVERFLOW;
    } else {
        atomic_store_explicit(&o->word, w + n, memory_order_release);
        *count = c;
        if (n) sync_try_wake(o);
    }
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    return r;
}

/* ---- mutexes ----------------------------------------------------------------------- */

NSPA_EXPORT int nspa_mutex_unlock(nspa_obj_t h, struct nspa_mutex_args *args)
{
    if (!args) return -EFAULT;
    if (!args->owner) return -EINVAL;
    int r = 0;
    struct sobj *o = typed(h, NSPA_TYPE_MUTEX, &r);
    if (!o) return r;
    struct thr *me = nspa_self_tls.t;
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        if (mtx_owner(w) != args->owner) return -EPERM;
        uint32_t c = (uint32_t)(w >> MTX_CNT_SHIFT) & MTX_CNT_MASK;
        uint64_t nw = c > 1 ? w - (1ull << MTX_CNT_SHIFT) : 0;
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel, memory_order_acquire)) {
            if (c == 1 && me) owned_remove(me, o);
            args->count = c;
            return 0;
        }
    }
    int released = 0;
    o = obj_lock_live(o);
    w = obj_claim(o);
    if (mtx_owner(w) != args->owner) {
        r = -EPERM;
    } else {
        uint32_t c = mtx_count(o, w), ext;
        args->count = c;
        if (c > 1) {
            uint64_t nw = mtx_make_word(o, args->owner, c - 1, 0, &ext);
            __atomic_store_n(&o->ext, ext, __ATOMIC_RELAXED);
            atomic_store_explicit(&o->word, nw | OBJ_CLAIMED, memory_order_release);
        } else {
            atomic_store_explicit(&o->word, OBJ_CLAIMED, memory_order_release);
            released = 1;
            sync_try_wake(o);
        }
    }
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    /* after the release: a death before it leaves the mutex listed for abandonment */
    if (released && me) {
        owned_remove(me, o);
        if (__atomic_load_n(&me->boost, __ATOMIC_RELAXED)) pi_update_thread(me, 0);      /* its waiters no longer boost us */
    }
    return r;
}

NSPA_EXPORT int nspa_mutex_kill(nspa_obj_t h, uint32_t owner)
{
    if (!owner) return -EINVAL;
    int r = 0;
    struct sobj *o = typed(h, NSPA_TYPE_MUTEX, &r);
    if (!o) return r;
    o = obj_lock_live(o);
    uint64_t w = obj_claim(o);
    if (mtx_owner(w) != owner) r = -EPERM;
    else mtx_abandon(o);
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    if (!r && pi_enabled()) {
        struct thr *t = thr_by_tid(owner);
        if (t && __atomic_load_n(&t->boost, __ATOMIC_RELAXED)) pi_update_thread(t, 0);
    }
    return r;
}

/* ---- events ------------------------------------------------------------------------ */

enum { EV_SET, EV_RESET, EV_PULSE };

static __attribute__((noinline)) int event_op_slow(struct sobj *o, uint32_t *prev, int op)
{
    o = obj_lock_live(o);
    uint64_t w = obj_claim(o);
    if (prev) *prev = (uint32_t)(w & EVT_SIGNALED);
    if (op == EV_RESET) {
        atomic_store_explicit(&o->word, w & ~EVT_SIGNALED, memory_order_release);
    } else {
        atomic_store_explicit(&o->word, w | EVT_SIGNALED, memory_order_release);
        sync_try_wake(o);
        if (op == EV_PULSE)
            atomic_store_explicit(&o->word, atomic_load_explicit(&o->word, memory_order_relaxed) & ~EVT_SIGNALED,
                                  memory_order_release);
    }
    obj_unclaim_if_idle(o);
    obj_unlock(o);
    return 0;
}

/* The fast path is kept small (the slow path, with its locals, is out of line). */
static inline __attribute__((always_inline)) int event_op(nspa_obj_t h, uint32_t *prev, int op)
{
    int r = 0;
    struct sobj *o = typed_need(h, NSPA_TYPE_EVENT, H_NEED_MODIFY, &r);   /* EVENT_MODIFY_STATE */
    if (__builtin_expect(!o, 0)) return r;
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        /* no waiters: set and reset are plain changes of the bit; pulse is a reset */
        uint64_t nw = op == EV_SET ? (w | EVT_SIGNALED) : (w & ~EVT_SIGNALED);
        if (nw == w || atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel,
                                                             memory_order_acquire)) {
            if (prev) *prev = (uint32_t)(w & EVT_SIGNALED);
            return 0;
        }
    }
    return event_op_slow(o, prev, op);
}

NSPA_EXPORT int nspa_event_set(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_SET); }
NSPA_EXPORT int nspa_event_reset(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_RESET); }
NSPA_EXPORT int nspa_event_pulse(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_PULSE); }

/* ---- exit objects: threads and processes (a manual event set at the end; max = the
 * thread or process id, ext = the exit code) ------------------------------------------ */

static int exit_type_ok(int type) { return type == NSPA_TYPE_THREAD || type == NSPA_TYPE_PROCESS; }

NSPA_HIDDEN int nspa__create_exit_obj(int type, uint32_t id, nspa_obj_t *out)
{
    if (!exit_type_ok(type)) return -EINVAL;
    return obj_create(type, EVT_MANUAL, id, 0, NULL, 0, out);
}

NSPA_HIDDEN int nspa__exit_obj_signal(nspa_obj_t h, int type, uint32_t exit_code)
{
    int r = 0;
    struct sobj *o = typed(h, type, &r);
    if (!o) return r;
    o = obj_lock_live(o);
    uint64_t w = obj_claim(o);
    __atomic_store_n(&o->ext, exit_code, __ATOMIC_RELAXED);
    atomic_store_explicit(&o->word, w | EVT_SIGNALED, memory_order_release);
    sync_serve(o);
    obj_unlock(o);
    return 0;
}

NSPA_HIDDEN int nspa__exit_obj_set_id(nspa_obj_t h, int type, uint32_t id)
{
    int r = 0;
    struct sobj *o = typed(h, type, &r);
    if (!o) return r;
    __atomic_store_n(&o->max, id, __ATOMIC_RELEASE);
    return 0;
}

NSPA_HIDDEN int nspa__exit_obj_info(nspa_obj_t h, int type, uint32_t *id, uint32_t *exit_code, int *signaled)
{
    int r = 0;
    struct sobj *o = typed(h, type, &r);
    if (!o) return r;
    o = obj_lock_live(o);
    *id = __atomic_load_n(&o->max, __ATOMIC_ACQUIRE);
    *exit_code = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    *signaled = (atomic_load(&o->word) & EVT_SIGNALED) != 0;
    obj_unlock(o);
    return 0;
}

NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out) { return nspa__create_exit_obj(NSPA_TYPE_THREAD, 0, out); }
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code)
{
    return nspa__exit_obj_signal(h, NSPA_TYPE_THREAD, exit_code);
}
NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid) { return nspa__exit_obj_set_id(h, NSPA_TYPE_THREAD, tid); }
NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled)
{
    return nspa__exit_obj_info(h, NSPA_TYPE_THREAD, tid, exit_code, signaled);
}

/* ---- reads ------------------------------------------------------------------------- */

/* A consistent word: an unclaimed word is a stable snapshot; a claimed one (and a BIG
 * mutex count) is read under the lock. */
static uint64_t read_word(struct sobj *o, uint32_t *ext)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    *ext = 0;
    if (!(w & OBJ_CLAIMED)) return w;
    o = obj_lock_live(o);
    w = atomic_load_explicit(&o->word, memory_order_acquire);
    *ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    obj_unlock(o);
    return w;
}

NSPA_EXPORT int nspa_sem_read(nspa_obj_t h, struct nspa_sem_args *args)
{
    if (!args) return -EFAULT;
    int r = 0;
    struct sobj *o = typed(h, NSPA_TYPE_SEM, &r);
    if (!o) return r;
    uint32_t ext;
    args->count = (uint32_t)read_word(o, &ext);
    args->max = o->max;
    return 0;
}

NSPA_EXPORT int nspa_mutex_read(nspa_obj_t h, struct nspa_mutex_args *args)
{
    if (!args) return -EFAULT;
    int r = 0;
    struct sobj *o = typed(h, NSPA_TYPE_MUTEX, &r);
    if (!o) return r;
    uint32_t ext;
    uint64_t w = read_word(o, &ext);
    uint32_t c = (uint32_t)(w >> MTX_CNT_SHIFT) & MTX_CNT_MASK;
    args->owner = mtx_owner(w);
    args->count = c == MTX_CNT_BIG ? ext : c;
    return (w & MTX_ABANDONED) ? -EOWNERDEAD : 0;
}

NSPA_EXPORT int nspa_event_read(nspa_obj_t h, struct nspa_event_args *args)
{
    if (!args) return -EFAULT;
    int r = 0;
    struct sobj *o = typed(h, NSPA_TYPE_EVENT, &r);
    if (!o) return r;
    uint32_t ext;
    uint64_t w = read_word(o, &ext);
    args->manual = (w & EVT_MANUAL) ? 1 : 0;
    args->signaled = (w & EVT_SIGNALED) ? 1 : 0;
    return 0;
}

NSPA_EXPORT int nspa_obj_waiters(nspa_obj_t h)
{
    struct sobj *o = h_lookup(h);
    if (!o) return -EBADF;
    int n = 0;
    o = obj_lock_live(o);
    for (uint64_t r = o->q_head; r; r = E(r)->next)      /* still waiting, not granted */
        if (!(atomic_load(&went_thr(E(r))->futex) & W_ENDED)) n++;
    obj_unlock(o);
    return n;
}

/* ---- kinds that carry data and are not waitable (sync_api.h) ------------------------------ */

NSPA_HIDDEN int nspa__obj_create_data(int type, uint64_t word, uint32_t max, uint32_t ext,
                                      const char *name, nspa_obj_t *out)
{
    if (!out) return -EFAULT;
    return obj_create(type, word, max, ext, name, 0, out);
}

NSPA_HIDDEN int nspa__obj_data(nspa_obj_t h, int type, uint64_t *word, uint32_t *max, uint32_t *ext)
{
    int r = 0;
    struct sobj *o = typed(h, type, &r);
    if (!o) return r;
    *word = atomic_load_explicit(&o->word, memory_order_acquire);
    *max = __atomic_load_n(&o->max, __ATOMIC_RELAXED);
    *ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    return 0;
}

NSPA_HIDDEN const char *nspa__ns_path(void)
{
    struct ns *ns = ns_get();
    return ns && ns->proc != UINT32_MAX ? ns->path : NULL;
}

/* ---- the interface for kinds of other modules (sync_api.h) -------------------------- */

NSPA_HIDDEN int nspa__obj_create(int type, uint64_t word, uint32_t max, uint32_t ext, nspa_obj_t *out)
{
    if (!sync_kind_of(type)) return -EINVAL;
    return obj_create(type, word, max, ext, NULL, 0, out);
}

NSPA_HIDDEN struct sobj *nspa__obj_lookup(nspa_obj_t h, int type)
{
    struct sobj *o = h_lookup(h);
    return o && __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) == type ? o : NULL;
}

NSPA_HIDDEN void nspa__obj_priv(const struct sobj *o, uint32_t *max, uint32_t *ext)
{
    *max = o->max;
    *ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
}

NSPA_HIDDEN uint64_t nspa__obj_word(const struct sobj *o)
{
    return atomic_load_explicit(&((struct sobj *)o)->word, memory_order_acquire) & ~OBJ_CLAIMED;
}

NSPA_HIDDEN uint64_t nspa__obj_update(struct sobj *o, uint64_t (*fn)(uint64_t w, void *arg), void *arg)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        uint64_t nw = fn(w, arg) & ~OBJ_CLAIMED;
        if (nw == w) return w;
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel, memory_order_acquire))
            return w;
    }
    obj_lock(o);
    w = obj_claim(o);
    uint64_t old = w & ~OBJ_CLAIMED;
    uint64_t nw = fn(old, arg) & ~OBJ_CLAIMED;
    if (nw != old) {
        atomic_store_explicit(&o->word, nw | OBJ_CLAIMED, memory_order_release);
        sync_try_wake(o);
    }
    obj_unclaim_if_idle(o);
    obj_unlock(o);                       /* flushes the wakes of the grants */
    return old;
}
