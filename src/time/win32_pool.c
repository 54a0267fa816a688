/*
 * The Vista thread-pool API over pool.c: pools, callback environments, work, simple
 * callbacks, timers (on the timer service), waits (on the wait threads), cleanup groups
 * and the callback instance calls. Objects are plain memory, as on Windows: a PTP_* is a
 * pointer, and a closed or garbage one is undefined behaviour there; here a wrong kind
 * is recognised (its tag) and ignored where the call cannot report an error.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "time/time_internal.h"

struct tp_timer_obj {
    struct tp_obj o;                     /* first: a PTP_TIMER is this */
    struct tsvc_ent e;
    int set;                             /* armed (IsThreadpoolTimerSet) */
    CRITICAL_SECTION cs;                 /* Set / Close against each other */
};

struct tp_wait_obj {
    struct tp_obj o;
    struct wsvc_reg r;
    CRITICAL_SECTION cs;
};

static struct tp_pool *env_pool(PTP_CALLBACK_ENVIRON env)
{
    return env && env->Pool ? (struct tp_pool *)env->Pool : tp_default_pool();
}

/* the common part of every Create*: pool, priority, group, callbacks of @env */
NSPA_HIDDEN void tp_env_setup(struct tp_obj *o, uint32_t kind, void *fn, void *ctx, void *env_)
{
    PTP_CALLBACK_ENVIRON env = env_;
    o->kind = kind;
    o->fn = fn;
    o->ctx = ctx;
    int prio = env && env->Version >= 3 ? (int)env->CallbackPriority : TP_CALLBACK_PRIORITY_NORMAL;
    tp_obj_init(o, env_pool(env), prio, env ? env->u.s.LongFunction : 0);
    if (env) {
        o->cancel_cb = (void (*)(void *, void *))env->CleanupGroupCancelCallback;
        o->fin_cb = (void (*)(void *, void *))env->FinalizationCallback;
        if (env->CleanupGroup) tp_group_add((struct tp_group *)env->CleanupGroup, o);
    }
}

/* a zeroed object of @size for callback @fn, or NULL with the last error set */
static void *obj_alloc(size_t size, const void *fn)
{
    if (!fn) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    void *p = calloc(1, size);
    if (!p) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return p;
}

static void obj_destroy_free(struct tp_obj *o)
{
    tp_obj_release(o);
    free(o);
}

/* ---- pools ------------------------------------------------------------------------- */

NSPA_EXPORT PTP_POOL WINAPI CreateThreadpool(PVOID reserved)
{
    struct tp_pool *p = tp_pool_new();
    if (!p) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return (PTP_POOL)p;
}

NSPA_EXPORT void WINAPI CloseThreadpool(PTP_POOL pool) { tp_pool_close((struct tp_pool *)pool); }

NSPA_EXPORT void WINAPI SetThreadpoolThreadMaximum(PTP_POOL pool, DWORD max)
{
    tp_pool_set_max((struct tp_pool *)pool, max);
}

NSPA_EXPORT BOOL WINAPI SetThreadpoolThreadMinimum(PTP_POOL pool, DWORD min)
{
    if (tp_pool_set_min((struct tp_pool *)pool, min)) return TRUE;
    SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return FALSE;
}

/* ---- work and simple callbacks --------------------------------------------------- */

static void work_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((PTP_WORK_CALLBACK)o->fn)((PTP_CALLBACK_INSTANCE)i, o->ctx, (PTP_WORK)o);
}

NSPA_EXPORT PTP_WORK WINAPI CreateThreadpoolWork(PTP_WORK_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env)
{
    struct tp_obj *o = obj_alloc(sizeof(*o), (const void *)fn);
    if (!o) return NULL;
    o->invoke = work_invoke;
    o->destroy = obj_destroy_free;
    tp_env_setup(o, TPK_WORK, (void *)fn, ctx, env);
    return (PTP_WORK)o;
}

static inline struct tp_obj *as(void *p, uint32_t kind)
{
    struct tp_obj *o = p;
    return o && o->kind == kind ? o : NULL;
}

/* WaitForThreadpool{Work,Timer,Wait}Callbacks and CloseThreadpool{Work,Timer,Wait}: the
 * same steps for each kind of pool object */
static void wait_callbacks_of(void *p, uint32_t kind, BOOL cancel)
{
    struct tp_obj *o = as(p, kind);
    if (o) tp_wait_callbacks(o, cancel);
}

static void close_of(void *p, uint32_t kind)
{
    struct tp_obj *o = as(p, kind);
    if (o) {
        tp_group_remove(o);
        tp_obj_close(o, NULL);
    }
}

NSPA_EXPORT void WINAPI SubmitThreadpoolWork(PTP_WORK work)
{
    struct tp_obj *o = as(work, TPK_WORK);
    if (o) tp_submit(o, 0);
}

NSPA_EXPORT void WINAPI WaitForThreadpoolWorkCallbacks(PTP_WORK work, BOOL cancel)
{
    wait_callbacks_of(work, TPK_WORK, cancel);
}

NSPA_EXPORT void WINAPI CloseThreadpoolWork(PTP_WORK work)
{
    close_of(work, TPK_WORK);
}

static void simple_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((PTP_SIMPLE_CALLBACK)o->fn)((PTP_CALLBACK_INSTANCE)i, o->ctx);
}

NSPA_EXPORT BOOL WINAPI TrySubmitThreadpoolCallback(PTP_SIMPLE_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env)
{
    struct tp_obj *o = obj_alloc(sizeof(*o), (const void *)fn);
    if (!o) return FALSE;
    o->invoke = simple_invoke;
    o->destroy = obj_destroy_free;
    o->free_after_run = 1;
    tp_env_setup(o, TPK_SIMPLE, (void *)fn, ctx, env);
    tp_submit(o, 0);
    return TRUE;
}

/* ---- timers -------------------------------------------------------------------------- */

static void timer_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((PTP_TIMER_CALLBACK)o->fn)((PTP_CALLBACK_INSTANCE)i, o->ctx, (PTP_TIMER)o);
}

static int timer_fire(struct tsvc_ent *e, uint64_t now)
{
    struct tp_timer_obj *t = (struct tp_timer_obj *)((char *)e - offsetof(struct tp_timer_obj, e));
    if (!e->period) __atomic_store_n(&t->set, 0, __ATOMIC_RELEASE);
    tp_submit(&t->o, 0);
    return 1;
}

static void timer_stop(struct tp_obj *o)
{
    struct tp_timer_obj *t = (struct tp_timer_obj *)o;
    EnterCriticalSection(&t->cs);
    tsvc_remove(&t->e);
    __atomic_store_n(&t->set, 0, __ATOMIC_RELEASE);
    LeaveCriticalSection(&t->cs);
}

static void timer_destroy(struct tp_obj *o)
{
    struct tp_timer_obj *t = (struct tp_timer_obj *)o;
    tp_obj_release(o);
    DeleteCriticalSection(&t->cs);
    free(t);
}

NSPA_EXPORT PTP_TIMER WINAPI CreateThreadpoolTimer(PTP_TIMER_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env)
{
    struct tp_timer_obj *t = obj_alloc(sizeof(*t), (const void *)fn);
    if (!t) return NULL;
    InitializeCriticalSection(&t->cs);
    t->e.idx = -1;
    t->e.fire = timer_fire;
    t->o.invoke = timer_invoke;
    t->o.destroy = timer_destroy;
    t->o.stop = timer_stop;
    tp_env_setup(&t->o, TPK_TIMER, (void *)fn, ctx, env);
    return (PTP_TIMER)t;
}

/* a FILETIME due time: negative relative (100 ns), else absolute UTC */
static void ft_due(const FILETIME *ft, uint64_t *due, clockid_t *clk)
{
    LONGLONG d = (LONGLONG)((ULONGLONG)ft->dwHighDateTime << 32 | ft->dwLowDateTime);
    if (d < 0) {
        uint64_t rel = (uint64_t)(-(d + 1)) + 1, now = nspa_clock_ns(CLOCK_MONOTONIC);
        *due = rel > (UINT64_MAX - now) / 100 ? UINT64_MAX : now + rel * 100;
        *clk = CLOCK_MONOTONIC;
    } else {
        uint64_t v = (uint64_t)d;
        *due = v <= FT_UNIX_EPOCH ? 0 : (v - FT_UNIX_EPOCH) * 100;
        *clk = CLOCK_REALTIME;
    }
}

NSPA_EXPORT BOOL WINAPI SetThreadpoolTimerEx(PTP_TIMER timer, PFILETIME due, DWORD period_ms, DWORD window_ms)
{
    struct tp_timer_obj *t = (struct tp_timer_obj *)as(timer, TPK_TIMER);
    if (!t) return FALSE;
    EnterCriticalSection(&t->cs);
    tsvc_remove(&t->e);
    BOOL was = __atomic_exchange_n(&t->set, 0, __ATOMIC_ACQ_REL);
    if (due) {
        /* the window (coalescing) is not used: every expiry is served at its due time */
        ft_due(due, &t->e.due, &t->e.clock);
        t->e.period = (uint64_t)period_ms * 1000000ull;
        __atomic_store_n(&t->set, 1, __ATOMIC_RELEASE);
        if (tsvc_add(&t->e)) __atomic_store_n(&t->set, 0, __ATOMIC_RELEASE);
    }
    LeaveCriticalSection(&t->cs);
    return was;
}

NSPA_EXPORT void WINAPI SetThreadpoolTimer(PTP_TIMER timer, PFILETIME due, DWORD period_ms, DWORD window_ms)
{
    SetThreadpoolTimerEx(timer, due, period_ms, window_ms);
}

NSPA_EXPORT BOOL WINAPI IsThreadpoolTimerSet(PTP_TIMER timer)
{
    struct tp_timer_obj *t = (struct tp_timer_obj *)as(timer, TPK_TIMER);
    return t && __atomic_load_n(&t->set, __ATOMIC_ACQUIRE);
}

NSPA_EXPORT void WINAPI WaitForThreadpoolTimerCallbacks(PTP_TIMER timer, BOOL cancel)
{
    wait_callbacks_of(timer, TPK_TIMER, cancel);
}

NSPA_EXPORT void WINAPI CloseThreadpoolTimer(PTP_TIMER timer)
{
    close_of(timer, TPK_TIMER);
}

/* ---- waits --------------------------------------------------------------------------- */

static void wait_invoke(struct tp_obj *o, struct tp_inst *i, uintptr_t arg)
{
    ((PTP_WAIT_CALLBACK)o->fn)((PTP_CALLBACK_INSTANCE)i, o->ctx, (PTP_WAIT)o, (TP_WAIT_RESULT)arg);
}

static void wait_stop(struct tp_obj *o)
{
    struct tp_wait_obj *w = (struct tp_wait_obj *)o;
    EnterCriticalSection(&w->cs);
    wsvc_remove(&w->r);
    LeaveCriticalSection(&w->cs);
}

static void wait_destroy(struct tp_obj *o)
{
    struct tp_wait_obj *w = (struct tp_wait_obj *)o;
    tp_obj_release(o);
    DeleteCriticalSection(&w->cs);
    free(w);
}

NSPA_EXPORT PTP_WAIT WINAPI CreateThreadpoolWait(PTP_WAIT_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env)
{
    struct tp_wait_obj *w = obj_alloc(sizeof(*w), (const void *)fn);
    if (!w) return NULL;
    InitializeCriticalSection(&w->cs);
    w->r.obj = &w->o;
    w->r.once = 1;
    w->o.invoke = wait_invoke;
    w->o.destroy = wait_destroy;
    w->o.stop = wait_stop;
    tp_env_setup(&w->o, TPK_WAIT, (void *)fn, ctx, env);
    return (PTP_WAIT)w;
}

NSPA_EXPORT BOOL WINAPI SetThreadpoolWaitEx(PTP_WAIT wait, HANDLE h, PFILETIME timeout, PVOID reserved)
{
    struct tp_wait_obj *w = (struct tp_wait_obj *)as(wait, TPK_WAIT);
    if (!w) return FALSE;
    EnterCriticalSection(&w->cs);
    BOOL was = wsvc_remove(&w->r);
    if (h) {
        w->r.h = h;
        w->r.deadline = UINT64_MAX;
        if (timeout) {
            uint64_t due;
            clockid_t clk;
            ft_due(timeout, &due, &clk);
            if (clk == CLOCK_REALTIME) {     /* the wait threads keep monotonic deadlines */
                uint64_t now_r = nspa_clock_ns(CLOCK_REALTIME), now_m = nspa_clock_ns(CLOCK_MONOTONIC);
                due = due <= now_r ? now_m : due - now_r + now_m;
            }
            w->r.deadline = due;
        }
        wsvc_add(&w->r);
    }
    LeaveCriticalSection(&w->cs);
    return was;
}

NSPA_EXPORT void WINAPI SetThreadpoolWait(PTP_WAIT wait, HANDLE h, PFILETIME timeout)
{
    SetThreadpoolWaitEx(wait, h, timeout, NULL);
}

NSPA_EXPORT void WINAPI WaitForThreadpoolWaitCallbacks(PTP_WAIT wait, BOOL cancel)
{
    wait_callbacks_of(wait, TPK_WAIT, cancel);
}

NSPA_EXPORT void WINAPI CloseThreadpoolWait(PTP_WAIT wait)
{
    close_of(wait, TPK_WAIT);
}

/* ---- cleanup groups -------------------------------------------------------------- */

NSPA_EXPORT PTP_CLEANUP_GROUP WINAPI CreateThreadpoolCleanupGroup(void)
{
    struct tp_group *g = tp_group_new();
    if (!g) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return (PTP_CLEANUP_GROUP)g;
}

NSPA_EXPORT void WINAPI CloseThreadpoolCleanupGroupMembers(PTP_CLEANUP_GROUP group, BOOL cancel, PVOID ctx)
{
    if (group) tp_group_close_members((struct tp_group *)group, cancel, ctx);
}

NSPA_EXPORT void WINAPI CloseThreadpoolCleanupGroup(PTP_CLEANUP_GROUP group)
{
    if (group) tp_group_free((struct tp_group *)group);
}

/* ---- callback instances ------------------------------------------------------------ */

#define INST(i) ((struct tp_inst *)(i))

NSPA_EXPORT BOOL WINAPI CallbackMayRunLong(PTP_CALLBACK_INSTANCE i) { return i && tp_inst_may_run_long(INST(i)); }
NSPA_EXPORT void WINAPI DisassociateCurrentThreadFromCallback(PTP_CALLBACK_INSTANCE i)
{
    if (i) tp_inst_disassociate(INST(i));
}
NSPA_EXPORT void WINAPI SetEventWhenCallbackReturns(PTP_CALLBACK_INSTANCE i, HANDLE ev)
{
    if (i) INST(i)->set_event = ev;
}
NSPA_EXPORT void WINAPI ReleaseSemaphoreWhenCallbackReturns(PTP_CALLBACK_INSTANCE i, HANDLE sem, DWORD count)
{
    if (i) {
        INST(i)->rel_sem = sem;
        INST(i)->sem_count = count;
    }
}
NSPA_EXPORT void WINAPI ReleaseMutexWhenCallbackReturns(PTP_CALLBACK_INSTANCE i, HANDLE m)
{
    if (i) INST(i)->rel_mutex = m;
}
NSPA_EXPORT void WINAPI LeaveCriticalSectionWhenCallbackReturns(PTP_CALLBACK_INSTANCE i, PCRITICAL_SECTION cs)
{
    if (i) INST(i)->leave_cs = cs;
}
/* FreeLibrary(mod) after the callback returned (pool.c, run_callback) */
NSPA_EXPORT void WINAPI FreeLibraryWhenCallbackReturns(PTP_CALLBACK_INSTANCE i, HMODULE mod)
{
    if (i) INST(i)->free_lib = mod;
}
