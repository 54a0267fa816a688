/*
 * The legacy thread pool over pool.c: QueueUserWorkItem, RegisterWaitForSingleObject /
 * UnregisterWait(Ex), and timer queues (CreateTimerQueue, CreateTimerQueueTimer,
 * ChangeTimerQueueTimer, DeleteTimerQueueTimer, DeleteTimerQueue(Ex), the default queue).
 *
 * Handles of waits, queues and queue timers are entries of a small table with a
 * generation (never multiples of 4, so never an object handle): a stale or twice-deleted
 * one is ERROR_INVALID_HANDLE, never a use of freed memory.
 *
 * Timer-queue timers are entries of the timer service; an expiry is one submission to
 * the default pool, or, WT_EXECUTEINTIMERTHREAD, to the "timer thread" (a pool of one
 * thread: those callbacks run one at a time, in order, as in Windows' timer thread).
 * No user callback ever runs on the timer service itself.
 *
 * Deletes (timer, queue, wait) with their three completion modes: NULL returns at once
 * (FALSE with ERROR_IO_PENDING while callbacks are outstanding), an event is set when
 * the last callback has returned, INVALID_HANDLE_VALUE waits for them (never for the
 * caller's own callback: deleting a timer from its own callback cannot deadlock).
 * Callbacks not yet started when the delete comes are cancelled, except a timer-queue
 * timer's under NULL or an event: as on Windows, a callback already handed to the pool
 * still runs and counts as outstanding (Wine's test_timer_queue: a timer due at 0,
 * deleted at once, reports ERROR_IO_PENDING and runs once). A timer due at 0 is handed
 * to the pool by CreateTimerQueueTimer itself, as on Windows.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "time/time_internal.h"

/* ---- the handle table ------------------------------------------------------------- */

enum { LH_WAIT = 1, LH_QUEUE, LH_TIMER };
struct lh_slot { void *p; uint32_t gen; uint32_t kind; };
static struct lh_slot *lh;
static uint32_t lh_n, lh_cap, lh_free = UINT32_MAX;
static pthread_mutex_t lh_lock = PTHREAD_MUTEX_INITIALIZER;

static HANDLE lh_alloc(void *p, uint32_t kind)
{
    pthread_mutex_lock(&lh_lock);
    uint32_t i;
    if (lh_free != UINT32_MAX) {
        i = lh_free;
        lh_free = (uint32_t)(uintptr_t)lh[i].p;
    } else {
        if (lh_n == lh_cap) {
            uint32_t cap = lh_cap ? lh_cap * 2 : 64;
            struct lh_slot *n = cap <= (1u << 22) ? realloc(lh, sizeof(*n) * cap) : NULL;
            if (!n) {
                pthread_mutex_unlock(&lh_lock);
                return NULL;
            }
            lh = n;
            lh_cap = cap;
        }
        i = lh_n++;
        lh[i].gen = 0;
    }
    lh[i].p = p;
    lh[i].kind = kind;
    lh[i].gen = (lh[i].gen + 1) & 0xffff;
    uint64_t v = (((uint64_t)lh[i].gen << 24 | (i + 1)) << 2) | 2;
    pthread_mutex_unlock(&lh_lock);
    return (HANDLE)(uintptr_t)v;
}

/* lh_lock held */
static void lh_release(uint32_t i)
{
    lh[i].kind = 0;
    lh[i].p = (void *)(uintptr_t)lh_free;
    lh_free = i;
}

/* the object of @h if it is a live handle of @kind; @take: free the handle */
static void *lh_get(HANDLE h, uint32_t kind, int take)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    if ((v & 3) != 2) return NULL;
    v >>= 2;
    uint32_t i = (uint32_t)(v & 0xffffff) - 1, gen = (uint32_t)(v >> 24);
    void *p = NULL;
    pthread_mutex_lock(&lh_lock);
    if (i < lh_n && lh[i].kind == kind && lh[i].gen == gen) {
        p = lh[i].p;
        if (take) lh_release(i);
    }
    pthread_mutex_unlock(&lh_lock);
    return p;
}

static BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

/* the end of every delete: see the header comment. @keep_queued: callbacks handed to
 * the pool run (NULL and event modes of a timer-queue timer) */
static BOOL finish_delete(struct tp_obj *o, HANDLE ev, int keep_queued)
{
    int queued = 0;
    if (keep_queued && ev != INVALID_HANDLE_VALUE) queued = tp_pending(o) != 0;
    else tp_cancel_pending(o);
    int busy = tp_busy(o, 1) || queued;   /* the caller's own callback is outstanding too */
    if (ev == INVALID_HANDLE_VALUE) {
        tp_wait_callbacks(o, 0);
        tp_obj_close(o, NULL);
        return TRUE;
    }
    tp_obj_close(o, ev);
    if (busy) return fail(ERROR_IO_PENDING);
    return TRUE;
}

/* ---- QueueUserWorkItem ------------------------------------------------------------- */

static void item_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((LPTHREAD_START_ROUTINE)o->fn)(o->ctx);
}

static void item_destroy(struct tp_obj *o)
{
    tp_obj_release(o);
    free(o);
}

NSPA_EXPORT BOOL WINAPI QueueUserWorkItem(LPTHREAD_START_ROUTINE fn, PVOID ctx, ULONG flags)
{
    if (!fn) return fail(ERROR_INVALID_PARAMETER);
    struct tp_obj *o = calloc(1, sizeof(*o));
    if (!o) return fail(ERROR_NOT_ENOUGH_MEMORY);
    o->kind = TPK_LEGACY;
    o->fn = (void *)fn;
    o->ctx = ctx;
    o->invoke = item_invoke;
    o->destroy = item_destroy;
    o->free_after_run = 1;
    tp_obj_init(o, tp_default_pool(), 1, !!(flags & WT_EXECUTELONGFUNCTION));
    tp_submit(o, 0);
    return TRUE;
}

/* ---- registered waits ------------------------------------------------------------ */

struct lwait {
    struct tp_obj o;
    struct wsvc_reg r;
};

static void lwait_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((WAITORTIMERCALLBACK)o->fn)(o->ctx, arg == WAIT_TIMEOUT);
}

static void lwait_stop(struct tp_obj *o) { wsvc_remove(&((struct lwait *)o)->r); }

NSPA_EXPORT BOOL WINAPI RegisterWaitForSingleObject(PHANDLE out, HANDLE h, WAITORTIMERCALLBACK fn, PVOID ctx, ULONG ms,
                                                    ULONG flags)
{
    if (!out || !fn) return fail(ERROR_INVALID_PARAMETER);
    struct lwait *w = calloc(1, sizeof(*w));
    if (!w) return fail(ERROR_NOT_ENOUGH_MEMORY);
    w->o.kind = TPK_LEGACY;
    w->o.fn = (void *)fn;
    w->o.ctx = ctx;
    w->o.invoke = lwait_invoke;
    w->o.destroy = item_destroy;
    w->o.stop = lwait_stop;
    w->r.obj = &w->o;
    w->r.h = h;
    w->r.once = !!(flags & WT_EXECUTEONLYONCE);
    w->r.in_wait_thread = !!(flags & WT_EXECUTEINWAITTHREAD);
    w->r.timeout_ms = ms;
    w->r.deadline = ms == INFINITE ? UINT64_MAX : nspa_clock_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000ull;
    tp_obj_init(&w->o, tp_default_pool(), 1, !!(flags & WT_EXECUTELONGFUNCTION));
    HANDLE wh = lh_alloc(w, LH_WAIT);
    if (!wh || wsvc_add(&w->r)) {
        if (wh) lh_get(wh, LH_WAIT, 1);
        item_destroy(&w->o);
        return fail(ERROR_NOT_ENOUGH_MEMORY);
    }
    *out = wh;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI UnregisterWaitEx(HANDLE wh, HANDLE ev)
{
    struct lwait *w = lh_get(wh, LH_WAIT, 1);
    if (!w) return fail(ERROR_INVALID_HANDLE);
    wsvc_remove(&w->r);
    return finish_delete(&w->o, ev, 0);
}

NSPA_EXPORT BOOL WINAPI UnregisterWait(HANDLE wh) { return UnregisterWaitEx(wh, NULL); }

/* ---- timer queues ---------------------------------------------------------------- */

struct tqueue {
    CRITICAL_SECTION cs;
    CONDITION_VARIABLE cv;               /* a timer of it was destroyed */
    struct qtimer *timers;
    uint32_t live;                       /* timers not destroyed yet */
    uint32_t refs;                       /* atomic: 1 until deleted + one per live timer;
                                          * the last one out frees it (after its unlock) */
    int deleted;
    HANDLE done;                         /* DeleteTimerQueueEx's event, set once */
};

struct qtimer {
    struct tp_obj o;
    struct tsvc_ent e;
    struct tqueue *q;
    struct qtimer *next, *prev;
    int spent;                           /* atomic: a one-shot timer that fired */
};

static struct tqueue default_queue;
static struct tp_pool *timer_thread;     /* WT_EXECUTEINTIMERTHREAD: a pool of one */
static pthread_once_t q_once = PTHREAD_ONCE_INIT;

static void q_init(void)
{
    InitializeCriticalSection(&default_queue.cs);
    InitializeConditionVariable(&default_queue.cv);
    default_queue.refs = 1;              /* never deleted */
    timer_thread = tp_pool_new();
    if (timer_thread) tp_pool_set_max(timer_thread, 1);
}

static void qtimer_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((WAITORTIMERCALLBACK)o->fn)(o->ctx, TRUE);
}

static int qtimer_fire(struct tsvc_ent *e, uint64_t now)
{
    struct qtimer *t = (struct qtimer *)((char *)e - offsetof(struct qtimer, e));
    if (!e->period) __atomic_store_n(&t->spent, 1, __ATOMIC_RELEASE);
    tp_submit(&t->o, 0);
    return 1;
}

static void qtimer_stop(struct tp_obj *o) { tsvc_remove(&((struct qtimer *)o)->e); }

static void queue_free(struct tqueue *q)
{
    DeleteCriticalSection(&q->cs);
    free(q);
}

static void queue_unref(struct tqueue *q)
{
    if (__atomic_sub_fetch(&q->refs, 1, __ATOMIC_ACQ_REL) == 0) queue_free(q);
}

/* q->cs held: the deleted queue's last timer is gone: its event, once */
static HANDLE queue_done_event(struct tqueue *q)
{
    HANDLE d = q->deleted && !q->live ? q->done : NULL;
    if (d) q->done = NULL;
    return d == INVALID_HANDLE_VALUE ? NULL : d;
}

static void qtimer_destroy(struct tp_obj *o)
{
    struct qtimer *t = (struct qtimer *)o;
    struct tqueue *q = t->q;
    tsvc_remove(&t->e);
    tp_obj_release(o);
    free(t);
    EnterCriticalSection(&q->cs);
    q->live--;
    WakeAllConditionVariable(&q->cv);
    HANDLE done = queue_done_event(q);
    LeaveCriticalSection(&q->cs);
    if (done) SetEvent(done);
    queue_unref(q);
}

static struct tqueue *queue_of(HANDLE h)
{
    pthread_once(&q_once, q_init);
    return h ? lh_get(h, LH_QUEUE, 0) : &default_queue;
}

NSPA_EXPORT HANDLE WINAPI CreateTimerQueue(void)
{
    pthread_once(&q_once, q_init);
    struct tqueue *q = calloc(1, sizeof(*q));
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    InitializeCriticalSection(&q->cs);
    InitializeConditionVariable(&q->cv);
    q->refs = 1;
    HANDLE h = lh_alloc(q, LH_QUEUE);
    if (!h) {
        queue_free(q);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    }
    return h;
}

static void set_due(struct qtimer *t, DWORD due_ms, DWORD period_ms, int once)
{
    t->e.clock = CLOCK_MONOTONIC;
    t->e.due = nspa_clock_ns(CLOCK_MONOTONIC) + (uint64_t)due_ms * 1000000ull;
    t->e.period = once ? 0 : (uint64_t)period_ms * 1000000ull;
}

NSPA_EXPORT BOOL WINAPI CreateTimerQueueTimer(PHANDLE out, HANDLE queue, WAITORTIMERCALLBACK fn, PVOID ctx,
                                              DWORD due_ms, DWORD period_ms, ULONG flags)
{
    if (!out || !fn) return fail(ERROR_INVALID_PARAMETER);
    struct tqueue *q = queue_of(queue);
    if (!q) return fail(ERROR_INVALID_HANDLE);
    struct qtimer *t = calloc(1, sizeof(*t));
    if (!t) return fail(ERROR_NOT_ENOUGH_MEMORY);
    struct tp_pool *pool = (flags & WT_EXECUTEINTIMERTHREAD) && timer_thread ? timer_thread : tp_default_pool();
    t->o.kind = TPK_LEGACY;
    t->o.fn = (void *)fn;
    t->o.ctx = ctx;
    t->o.invoke = qtimer_invoke;
    t->o.destroy = qtimer_destroy;
    t->o.stop = qtimer_stop;
    t->e.idx = -1;
    t->e.fire = qtimer_fire;
    t->q = q;
    tp_obj_init(&t->o, pool, 1, !!(flags & WT_EXECUTELONGFUNCTION));
    HANDLE h = lh_alloc(t, LH_TIMER);
    EnterCriticalSection(&q->cs);
    int dead = q->deleted;
    if (!dead && h) {
        t->next = q->timers;
        if (q->timers) q->timers->prev = t;
        q->timers = t;
        q->live++;
        __atomic_add_fetch(&q->refs, 1, __ATOMIC_ACQ_REL);
    }
    LeaveCriticalSection(&q->cs);
    if (dead || !h) {
        if (h) lh_get(h, LH_TIMER, 1);
        tp_obj_release(&t->o);
        free(t);
        return fail(dead ? ERROR_INVALID_HANDLE : ERROR_NOT_ENOUGH_MEMORY);
    }
    int once = !!(flags & WT_EXECUTEONLYONCE) || !period_ms;
    *out = h;
    if (!due_ms) {
        /* due now: handed to the pool here, as Windows does (a delete that follows at
         * once finds it outstanding); a one-shot timer is then done */
        if (once) __atomic_store_n(&t->spent, 1, __ATOMIC_RELEASE);
        tp_submit(&t->o, 0);
        if (once) return TRUE;
        due_ms = period_ms;
    }
    set_due(t, due_ms, period_ms, once);
    if (tsvc_add(&t->e)) {
        DeleteTimerQueueTimer(queue, h, INVALID_HANDLE_VALUE);
        return fail(ERROR_NOT_ENOUGH_MEMORY);
    }
    return TRUE;
}

/* A one-shot timer that fired is done: a change of it succeeds and does nothing, as on
 * Windows (Wine's test_timer_queue: a one-shot timer re-timing itself from its own
 * callback runs once; Wine's RtlUpdateTimer the same). */
NSPA_EXPORT BOOL WINAPI ChangeTimerQueueTimer(HANDLE queue, HANDLE timer, ULONG due_ms, ULONG period_ms)
{
    struct qtimer *t = lh_get(timer, LH_TIMER, 0);
    if (!t || (queue && !queue_of(queue))) return fail(ERROR_INVALID_HANDLE);
    tsvc_remove(&t->e);                  /* from here the service does not fire it */
    if (__atomic_load_n(&t->spent, __ATOMIC_ACQUIRE)) return TRUE;
    set_due(t, due_ms, period_ms, 0);
    if (tsvc_add(&t->e)) return fail(ERROR_NOT_ENOUGH_MEMORY);
    return TRUE;
}

static void queue_unlink(struct tqueue *q, struct qtimer *t)
{
    EnterCriticalSection(&q->cs);
    if (t->prev) t->prev->next = t->next;
    else if (q->timers == t) q->timers = t->next;
    if (t->next) t->next->prev = t->prev;
    t->next = t->prev = NULL;
    LeaveCriticalSection(&q->cs);
}

NSPA_EXPORT BOOL WINAPI DeleteTimerQueueTimer(HANDLE queue, HANDLE timer, HANDLE ev)
{
    if (queue && !queue_of(queue)) return fail(ERROR_INVALID_HANDLE);
    struct qtimer *t = lh_get(timer, LH_TIMER, 1);     /* a second delete fails here */
    if (!t) return fail(ERROR_INVALID_HANDLE);
    queue_unlink(t->q, t);
    tsvc_remove(&t->e);
    return finish_delete(&t->o, ev, 1);
}

NSPA_EXPORT BOOL WINAPI DeleteTimerQueueEx(HANDLE queue, HANDLE ev)
{
    struct tqueue *q = queue ? lh_get(queue, LH_QUEUE, 1) : NULL;
    if (!q) return fail(ERROR_INVALID_HANDLE);
    /* the timers' handles first (every timer of the queue is alive until it is closed
     * below): a racing DeleteTimerQueueTimer of one of them fails from now on */
    pthread_mutex_lock(&lh_lock);
    for (uint32_t i = 0; i < lh_n; i++)
        if (lh[i].kind == LH_TIMER && ((struct qtimer *)lh[i].p)->q == q) lh_release(i);
    pthread_mutex_unlock(&lh_lock);
    int busy = 0;
    EnterCriticalSection(&q->cs);
    q->deleted = 1;
    q->done = ev;
    for (struct qtimer *t; (t = q->timers);) {
        q->timers = t->next;
        t->next = t->prev = NULL;
        LeaveCriticalSection(&q->cs);
        tsvc_remove(&t->e);
        if (ev == INVALID_HANDLE_VALUE) tp_cancel_pending(&t->o);
        else busy |= tp_pending(&t->o) != 0;      /* handed to the pool: it runs */
        busy |= tp_busy(&t->o, 1);
        if (ev == INVALID_HANDLE_VALUE) tp_wait_callbacks(&t->o, 0);
        tp_obj_close(&t->o, NULL);
        EnterCriticalSection(&q->cs);
    }
    if (ev == INVALID_HANDLE_VALUE) {
        /* a callback of this queue deleting it does not wait for itself */
        struct tp_obj *cur = tp_current();
        uint32_t self = cur && cur->destroy == qtimer_destroy && ((struct qtimer *)cur)->q == q;
        while (q->live > self) SleepConditionVariableCS(&q->cv, &q->cs, INFINITE);
        LeaveCriticalSection(&q->cs);
        queue_unref(q);                  /* the queue's own reference */
        return TRUE;
    }
    int gone = !q->live;
    HANDLE done = queue_done_event(q);   /* else the last timer's destroy sets it */
    LeaveCriticalSection(&q->cs);
    if (done) SetEvent(done);
    queue_unref(q);
    return gone || !busy ? TRUE : fail(ERROR_IO_PENDING);
}

NSPA_EXPORT BOOL WINAPI DeleteTimerQueue(HANDLE queue) { return DeleteTimerQueueEx(queue, NULL); }
