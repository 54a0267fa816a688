/*
 * Thread pools: the core under the Vista API (win32_pool.c), the legacy calls and the
 * timer queues (win32_legacy.c).
 *
 * WORKERS are made on demand: a submission wakes an idle worker if there is one (the
 * most recently idle: its cache is warm), else starts a thread if the pool is below its
 * maximum, else waits for a busy worker. A worker idle for TP_IDLE_MS retires unless the
 * pool would drop below its minimum. Each idle worker sleeps on a condition variable of
 * its own, so a submission wakes exactly one thread and counts it exactly.
 *
 * QUEUES: three FIFO lists (high, normal, low priority of the callback environment); an
 * object is linked once however many submissions it has (`pending`), so submitting never
 * allocates. A worker takes one submission of the first object, leaving the object
 * linked while it has more.
 *
 * LOCKING: one lock per pool (a CRITICAL_SECTION: priority-inheriting in RT mode),
 * held for queue and counter steps only, never across a callback. Completion waits
 * (WaitFor*Callbacks, deletes that wait) sleep on the pool's `done` condition variable.
 *
 * AFTER EACH CALLBACK the worker performs the instance's *WhenCallbackReturns actions
 * and, if the callback changed its thread's priority through NSPA (SetThreadPriority,
 * MMCSS: nspa_sched_self_gen moved), sets it back to NORMAL, the priority of every pool
 * thread, as Windows does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "common/platform.h"
#include "common/export.h"
#include "sched/sched_internal.h"
#include "time/time_internal.h"

/* pending is changed under the pool lock, and also by tp_submit's lock-free fast path */
#define PENDING(o) __atomic_load_n(&(o)->pending, __ATOMIC_ACQUIRE)
#define TP_BATCH 16                      /* submissions of one work object taken at once */

struct tp_worker {
    struct tp_worker *next;
    CONDITION_VARIABLE cv;
    int signaled;
};

struct tp_pool {
    CRITICAL_SECTION cs;
    CONDITION_VARIABLE done;
    struct tp_obj *qh[3], *qt[3];
    struct tp_worker *idle;              /* idle workers, most recent first */
    uint32_t nthreads, max, min;
    uint32_t refs;                       /* atomic: 1 until closed, + each worker thread,
                                          * + each object; the last one out frees it */
    uint32_t nstarting;                  /* started, not yet at their first look */
    int closed, is_default;
};

struct tp_group {
    CRITICAL_SECTION cs;
    struct tp_obj *head;
};

static struct tp_pool default_pool;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static __thread struct tp_obj *cur_obj;

static void pool_init(struct tp_pool *p)
{
    InitializeCriticalSection(&p->cs);
    InitializeConditionVariable(&p->done);
    p->max = 500;                        /* Windows' default pool allows 512 */
    p->refs = 1;
    p->min = 0;
}

static void default_init(void)
{
    pool_init(&default_pool);
    default_pool.is_default = 1;
}

NSPA_HIDDEN struct tp_pool *tp_default_pool(void)
{
    pthread_once(&default_once, default_init);
    return &default_pool;
}

NSPA_HIDDEN struct tp_pool *tp_pool_new(void)
{
    struct tp_pool *p = calloc(1, sizeof(*p));
    if (p) pool_init(p);
    return p;
}

/* Drop a reference, after the caller's last touch of the pool (its LeaveCriticalSection
 * included: a priority-inheriting section is still read by its leaver after the lock
 * word is free, so nobody may free it on seeing it unlocked). */
static void pool_unref(struct tp_pool *p)
{
    if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        DeleteCriticalSection(&p->cs);
        free(p);
    }
}

/* ---- the queue (cs held) -------------------------------------------------------- */

static void q_push(struct tp_pool *p, struct tp_obj *o)
{
    o->qnext = NULL;
    if (p->qt[o->prio]) p->qt[o->prio]->qnext = o;
    else __atomic_store_n(&p->qh[o->prio], o, __ATOMIC_RELAXED);   /* read racily by spinners */
    p->qt[o->prio] = o;
    o->queued = 1;
}

static void q_unlink(struct tp_pool *p, struct tp_obj *o)
{
    struct tp_obj **pp = &p->qh[o->prio], *prev = NULL;
    for (; *pp; prev = *pp, pp = &(*pp)->qnext) {
        if (*pp != o) continue;
        __atomic_store_n(pp, o->qnext, __ATOMIC_RELAXED);
        if (p->qt[o->prio] == o) p->qt[o->prio] = prev;
        break;
    }
    o->queued = 0;
}

/* ---- workers ------------------------------------------------------------------------ */

static void run_callback(struct tp_obj *o, uintptr_t arg);
static void finish(struct tp_pool *p, struct tp_obj *o, int *destroy);

static void wake_or_spawn(struct tp_pool *p);

#define TP_SPIN 2000                     /* pause rounds an idle worker looks before sleeping */

static int ncpu(void) { return nspa_ncpu_online(); }

static int multi_cpu(void) { return ncpu() > 1; }

/* a racy look (no lock): any queue non-empty? */
static int queue_nonempty(struct tp_pool *p)
{
    for (int k = 0; k < 3; k++)
        if (__atomic_load_n(&p->qh[k], __ATOMIC_RELAXED)) return 1;
    return 0;
}

static void *worker_main(void *arg)
{
    struct tp_pool *p = arg;
    struct tp_worker w = { 0 };
    InitializeConditionVariable(&w.cv);
    prctl(PR_SET_NAME, "nspa-tp", 0, 0, 0);
    int spun = 0;
    EnterCriticalSection(&p->cs);
    p->nstarting--;
    for (;;) {
        struct tp_obj *o = NULL;
        for (int k = 0; k < 3 && !o; k++) o = p->qh[k];
        if (o) {
            /* a work object submitted many times: take a share of its submissions (up
             * to TP_BATCH) and run them back to back, one lock round trip for all; the
             * other workers take the rest. Each still is one callback. */
            uint32_t take, cur = PENDING(o);
            do {                         /* racing only with tp_submit's fast path */
                take = 1;
                if (o->kind == TPK_WORK && cur > 1) {
                    /* a share for each thread the pool could run them on (at most 4 per
                     * CPU): a batch never takes work another allowed thread could do */
                    uint32_t target = p->max < 4 * (uint32_t)ncpu() ? p->max : 4 * (uint32_t)ncpu();
                    take = cur / (target ? target : 1);
                    take = take < 1 ? 1 : take > TP_BATCH ? TP_BATCH : take;
                }
            } while (!__atomic_compare_exchange_n(&o->pending, &cur, cur - take, 0, __ATOMIC_ACQ_REL,
                                                  __ATOMIC_ACQUIRE));
            if (cur == take) {
                __atomic_store_n(&p->qh[o->prio], o->qnext, __ATOMIC_RELAXED);
                if (!o->qnext) p->qt[o->prio] = NULL;
                o->queued = 0;
            }
            o->running += take;
            spun = 0;
            uintptr_t a = o->arg;
            /* more queued and nobody to take it: the next thread starts now */
            if (p->qh[0] || p->qh[1] || p->qh[2]) wake_or_spawn(p);
            LeaveCriticalSection(&p->cs);
            for (uint32_t k = 0; k < take; k++) run_callback(o, a);
            EnterCriticalSection(&p->cs);
            int destroy = 0;
            o->running -= take - 1;
            finish(p, o, &destroy);
            if (destroy) {
                LeaveCriticalSection(&p->cs);
                o->destroy(o);
                EnterCriticalSection(&p->cs);
            }
            continue;
        }
        if (p->closed) break;
        if (!spun && multi_cpu()) {
            /* a short spin before sleeping: a stream of small items finds this worker
             * awake, and the submitter then has no thread to wake (a system call each) */
            spun = 1;
            LeaveCriticalSection(&p->cs);
            for (int i = 0; i < TP_SPIN && !queue_nonempty(p); i++) nspa_cpu_relax();
            EnterCriticalSection(&p->cs);
            continue;
        }
        spun = 0;
        w.signaled = 0;
        w.next = p->idle;
        p->idle = &w;
        BOOL woke = SleepConditionVariableCS(&w.cv, &p->cs, TP_IDLE_MS);
        if (w.signaled) continue;
        /* timed out (or spurious): off the idle list; retire if above the minimum */
        for (struct tp_worker **pp = &p->idle; *pp; pp = &(*pp)->next)
            if (*pp == &w) { *pp = w.next; break; }
        if (!woke && p->nthreads > p->min && !p->qh[0] && !p->qh[1] && !p->qh[2]) break;
    }
    p->nthreads--;
    LeaveCriticalSection(&p->cs);
    pool_unref(p);
    return NULL;
}

/* cs held: a submission is queued; make sure a thread will take it. Threads start one
 * at a time: while one is starting, further submissions wait for it, and each new
 * thread starts the next if work is still queued when it takes its first item. A burst
 * of short items is thus served by the threads already running instead of a new thread
 * per item, and a burst of long ones still gets a thread each, up to the maximum. */
static void wake_or_spawn(struct tp_pool *p)
{
    struct tp_worker *w = p->idle;
    if (w) {
        p->idle = w->next;
        w->signaled = 1;
        WakeConditionVariable(&w->cv);
        return;
    }
    if (p->nthreads >= p->max || p->nstarting) return;   /* a busy or starting worker takes it */
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);     /* the thread's */
    if (nspa_thread_detached(worker_main, p, NULL) == 0) {
        p->nthreads++;
        p->nstarting++;
    } else {
        __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);  /* never the last: ours */
    }
    /* else: no thread now; the next submission or a busy worker takes the work */
}

NSPA_HIDDEN void tp_pool_set_max(struct tp_pool *p, uint32_t max)
{
    if (!max) max = 1;
    EnterCriticalSection(&p->cs);
    p->max = max;
    if (p->min > max) p->min = max;
    LeaveCriticalSection(&p->cs);
}

NSPA_HIDDEN int tp_pool_set_min(struct tp_pool *p, uint32_t min)
{
    int ok = 1;
    EnterCriticalSection(&p->cs);
    p->min = min;
    if (p->max < min) p->max = min;
    while (p->nthreads < min) {
        uint32_t n = p->nthreads;
        struct tp_worker *keep = p->idle;
        p->idle = NULL;                  /* force a new thread */
        uint32_t st = p->nstarting;
        p->nstarting = 0;
        wake_or_spawn(p);
        p->nstarting += st;
        p->idle = keep;
        if (p->nthreads == n) { ok = 0; break; }
    }
    LeaveCriticalSection(&p->cs);
    return ok;
}

NSPA_HIDDEN void tp_pool_close(struct tp_pool *p)
{
    if (!p || p->is_default) return;
    EnterCriticalSection(&p->cs);
    p->closed = 1;
    p->min = 0;
    for (struct tp_worker *w = p->idle; w; w = w->next) {
        w->signaled = 1;
        WakeConditionVariable(&w->cv);
    }
    p->idle = NULL;
    LeaveCriticalSection(&p->cs);
    pool_unref(p);                       /* the pool's own reference */
}

/* ---- objects ------------------------------------------------------------------------ */

NSPA_HIDDEN void tp_obj_init(struct tp_obj *o, struct tp_pool *p, int prio, int long_fn)
{
    o->pool = p;
    o->prio = (uint8_t)((unsigned)prio < 3 ? prio : 1);
    o->long_fn = (uint8_t)long_fn;
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_ACQ_REL);
}

NSPA_HIDDEN void tp_submit(struct tp_obj *o, uintptr_t arg)
{
    /* Fast path, work objects: while the object is queued with submissions pending (a
     * worker or a wake is already on its way to it), one more is one compare-and-swap,
     * no lock. Only a worker or a cancel, under the lock, takes pending to 0, and they
     * unlink it there; from 0 the slow path below queues it again. */
    if (o->kind == TPK_WORK) {
        uint32_t n = PENDING(o);
        while (n)
            if (__atomic_compare_exchange_n(&o->pending, &n, n + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) return;
    }
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    o->arg = arg;
    __atomic_add_fetch(&o->pending, 1, __ATOMIC_ACQ_REL);
    if (!o->queued) q_push(p, o);
    wake_or_spawn(p);
    LeaveCriticalSection(&p->cs);
}

/* cs held: a callback of @o ended. *destroy: the caller must destroy @o after the
 * unlock (closed and idle). */
static void finish(struct tp_pool *p, struct tp_obj *o, int *destroy)
{
    o->running--;
    if (o->running || PENDING(o)) return;
    if (o->waiters) WakeAllConditionVariable(&p->done);
    if (o->closed || o->free_after_run) {
        if (o->done_event) SetEvent(o->done_event);
        o->done_event = NULL;
        *destroy = !o->waiters;
    }
}

static void run_callback(struct tp_obj *o, uintptr_t arg)
{
    struct tp_inst inst = { .o = o };
    struct tp_obj *prev = cur_obj;
    uint32_t gen = nspa_sched_self_gen;
    cur_obj = o;
    o->invoke(o, &inst, arg);
    cur_obj = prev;
    if (inst.leave_cs) LeaveCriticalSection(inst.leave_cs);
    if (inst.rel_mutex) ReleaseMutex(inst.rel_mutex);
    if (inst.rel_sem) ReleaseSemaphore(inst.rel_sem, (LONG)inst.sem_count, NULL);
    if (inst.set_event) SetEvent(inst.set_event);
    /* last: the callback's code may be in it (the reason for the call) */
    if (inst.free_lib) FreeLibrary(inst.free_lib);
    if (nspa_sched_self_gen != gen) SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_NORMAL);
    if (inst.disassociated) o->running++;        /* finish() counts it off once more */
}

NSPA_HIDDEN void tp_run_inline(struct tp_obj *o, uintptr_t arg)
{
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    o->running++;
    LeaveCriticalSection(&p->cs);
    run_callback(o, arg);
    EnterCriticalSection(&p->cs);
    int destroy = 0;
    finish(p, o, &destroy);
    LeaveCriticalSection(&p->cs);
    if (destroy) o->destroy(o);
}

NSPA_HIDDEN uint32_t tp_cancel_pending(struct tp_obj *o)
{
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    uint32_t n = __atomic_exchange_n(&o->pending, 0, __ATOMIC_ACQ_REL);
    if (o->queued) q_unlink(p, o);
    if (n && !o->running && o->waiters) WakeAllConditionVariable(&p->done);
    LeaveCriticalSection(&p->cs);
    return n;
}

NSPA_HIDDEN uint32_t tp_pending(struct tp_obj *o)
{
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    uint32_t n = PENDING(o);
    LeaveCriticalSection(&p->cs);
    return n;
}

NSPA_HIDDEN int tp_busy(struct tp_obj *o, int count_self)
{
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    int n = (int)o->running - (!count_self && cur_obj == o);
    LeaveCriticalSection(&p->cs);
    return n > 0;
}

NSPA_HIDDEN void tp_wait_callbacks(struct tp_obj *o, int cancel)
{
    if (cancel) tp_cancel_pending(o);
    struct tp_pool *p = o->pool;
    EnterCriticalSection(&p->cs);
    uint32_t self = cur_obj == o;        /* never wait for the caller's own callback */
    o->waiters++;
    while (PENDING(o) || o->running > self) SleepConditionVariableCS(&p->done, &p->cs, INFINITE);
    o->waiters--;
    /* closed meanwhile (a close racing with this wait): the last one out destroys */
    int destroy = o->closed && !PENDING(o) && !o->running && !o->waiters;
    LeaveCriticalSection(&p->cs);
    if (destroy) o->destroy(o);
}

NSPA_HIDDEN void tp_obj_close(struct tp_obj *o, void *done)
{
    struct tp_pool *p = o->pool;
    if (o->stop) o->stop(o);
    EnterCriticalSection(&p->cs);
    o->closed = 1;
    int idle = !PENDING(o) && !o->running && !o->waiters;
    if (!idle) o->done_event = done;
    LeaveCriticalSection(&p->cs);
    if (idle) {
        if (done) SetEvent(done);
        o->destroy(o);
    }
}

/* Every destroy ends here: the object leaves its group and its pool. */
NSPA_HIDDEN void tp_obj_release(struct tp_obj *o)
{
    struct tp_pool *p = o->pool;
    tp_group_remove(o);
    if (o->fin_cb) {
        struct tp_inst inst = { .o = o };
        o->fin_cb(&inst, o->ctx);
    }
    pool_unref(p);
}

NSPA_HIDDEN struct tp_obj *tp_current(void) { return cur_obj; }

/* ---- instances -------------------------------------------------------------------- */

NSPA_HIDDEN int tp_inst_may_run_long(struct tp_inst *i)
{
    struct tp_pool *p = i->o->pool;
    EnterCriticalSection(&p->cs);
    int ok = p->idle != NULL || p->nthreads < p->max;
    LeaveCriticalSection(&p->cs);
    i->may_run_long = 1;
    return ok;
}

NSPA_HIDDEN void tp_inst_disassociate(struct tp_inst *i)
{
    if (i->disassociated) return;
    struct tp_pool *p = i->o->pool;
    EnterCriticalSection(&p->cs);
    i->o->running--;
    if (!i->o->running && !PENDING(i->o) && i->o->waiters) WakeAllConditionVariable(&p->done);
    LeaveCriticalSection(&p->cs);
    i->disassociated = 1;
    cur_obj = NULL;
}

/* ---- cleanup groups ----------------------------------------------------------------- */

NSPA_HIDDEN struct tp_group *tp_group_new(void)
{
    struct tp_group *g = calloc(1, sizeof(*g));
    if (g) InitializeCriticalSection(&g->cs);
    return g;
}

NSPA_HIDDEN void tp_group_add(struct tp_group *g, struct tp_obj *o)
{
    EnterCriticalSection(&g->cs);
    o->group = g;
    o->gprev = NULL;
    o->gnext = g->head;
    if (g->head) g->head->gprev = o;
    g->head = o;
    LeaveCriticalSection(&g->cs);
}

NSPA_HIDDEN void tp_group_remove(struct tp_obj *o)
{
    struct tp_group *g = o->group;
    if (!g) return;
    EnterCriticalSection(&g->cs);
    if (o->group == g) {
        if (o->gprev) o->gprev->gnext = o->gnext;
        else g->head = o->gnext;
        if (o->gnext) o->gnext->gprev = o->gprev;
        o->group = NULL;
    }
    LeaveCriticalSection(&g->cs);
}

/* Close every member: detach them all (each held by a waiter count, so that none is
 * destroyed under us, simple callbacks included), stop timers and waits, cancel pending
 * submissions if asked (the cancel callback for each object that had some), wait for
 * running callbacks, then close. */
NSPA_HIDDEN void tp_group_close_members(struct tp_group *g, int cancel, void *cleanup_ctx)
{
    EnterCriticalSection(&g->cs);
    struct tp_obj *l = g->head;
    g->head = NULL;
    for (struct tp_obj *o = l; o; o = o->gnext) {
        o->group = NULL;
        EnterCriticalSection(&o->pool->cs);
        o->waiters++;
        LeaveCriticalSection(&o->pool->cs);
    }
    LeaveCriticalSection(&g->cs);
    for (struct tp_obj *o = l; o; o = o->gnext) {
        if (o->stop) o->stop(o);
        if (cancel && tp_cancel_pending(o) && o->cancel_cb) o->cancel_cb(o->ctx, cleanup_ctx);
    }
    for (struct tp_obj *o = l, *next; o; o = next) {
        next = o->gnext;
        struct tp_pool *p = o->pool;
        uint32_t self = cur_obj == o;
        EnterCriticalSection(&p->cs);
        while (PENDING(o) || o->running > self) SleepConditionVariableCS(&p->done, &p->cs, INFINITE);
        o->waiters--;
        int simple = o->free_after_run;
        LeaveCriticalSection(&p->cs);
        if (simple) {
            if (!self) o->destroy(o);
        } else {
            tp_obj_close(o, NULL);
        }
    }
}

NSPA_HIDDEN void tp_group_free(struct tp_group *g)
{
    DeleteCriticalSection(&g->cs);
    free(g);
}
