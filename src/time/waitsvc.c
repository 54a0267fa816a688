/*
 * The wait threads of the thread pools: RegisterWaitForSingleObject and thread-pool
 * waits (SetThreadpoolWait). A wait thread waits for up to 63 registered handles at
 * once (WaitForMultipleObjects, any) plus its control event, with the earliest of their
 * timeouts; a satisfied or timed-out registration is submitted to its pool with the
 * result (or, WT_EXECUTEINWAITTHREAD, run on the wait thread). Threads are added when
 * all are full. One lock (`wcs`, a CRITICAL_SECTION) covers the registrations; it is not
 * held across the wait or a callback.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "time/time_internal.h"

#define PER_THREAD 63

struct wthread {
    struct wthread *next;
    HANDLE ctl;                          /* auto-reset: the set changed, look again */
    struct wsvc_reg *regs[PER_THREAD];
    uint32_t n;
    struct wsvc_reg *busy;               /* its inline callback runs now */
};

static CRITICAL_SECTION wcs;
static CONDITION_VARIABLE wcv;           /* an inline callback ended */
static pthread_once_t wonce = PTHREAD_ONCE_INIT;
static struct wthread *threads;
static __thread struct wthread *self_thr;

static void winit(void)
{
    InitializeCriticalSection(&wcs);
    InitializeConditionVariable(&wcv);
}

static int reg_index(struct wthread *t, struct wsvc_reg *r)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->regs[i] == r) return (int)i;
    return -1;
}

static void reg_drop(struct wthread *t, int i)
{
    t->regs[i]->thr = NULL;
    t->regs[i] = t->regs[--t->n];
}

/* wcs held; drops it around an inline callback */
static void dispatch(struct wthread *t, struct wsvc_reg *r, DWORD result, uint64_t now)
{
    if (r->once) reg_drop(t, reg_index(t, r));
    else r->deadline = r->timeout_ms == INFINITE ? UINT64_MAX : now + (uint64_t)r->timeout_ms * 1000000ull;
    if (!r->in_wait_thread) {
        tp_submit(r->obj, result);
        return;
    }
    t->busy = r;
    LeaveCriticalSection(&wcs);
    tp_run_inline(r->obj, result);
    EnterCriticalSection(&wcs);
    t->busy = NULL;
    WakeAllConditionVariable(&wcv);
}

static void *wthread_main(void *arg)
{
    struct wthread *t = arg;
    self_thr = t;
    HANDLE hs[PER_THREAD + 1];
    struct wsvc_reg *snap[PER_THREAD];
    EnterCriticalSection(&wcs);
    for (;;) {
        uint32_t n = t->n;
        uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC), first = UINT64_MAX;
        hs[0] = t->ctl;
        for (uint32_t i = 0; i < n; i++) {
            snap[i] = t->regs[i];
            hs[i + 1] = snap[i]->h;
            if (snap[i]->deadline < first) first = snap[i]->deadline;
        }
        LeaveCriticalSection(&wcs);
        uint64_t left = first == UINT64_MAX ? UINT64_MAX : first <= now ? 0 : (first - now + 999999) / 1000000;
        DWORD ms = left == UINT64_MAX ? INFINITE : left >= INFINITE ? INFINITE - 1 : (DWORD)left;
        DWORD r = WaitForMultipleObjects(n + 1, hs, FALSE, ms);
        EnterCriticalSection(&wcs);
        now = nspa_clock_ns(CLOCK_MONOTONIC);
        if (r >= WAIT_OBJECT_0 + 1 && r <= WAIT_OBJECT_0 + n) {
            struct wsvc_reg *g = snap[r - 1];
            int i = reg_index(t, g);
            if (i >= 0 && g->h == hs[r]) dispatch(t, g, WAIT_OBJECT_0, now);   /* still registered */
        } else if (r >= WAIT_ABANDONED_0 + 1 && r <= WAIT_ABANDONED_0 + n) {
            struct wsvc_reg *g = snap[r - WAIT_ABANDONED_0 - 1];
            if (reg_index(t, g) >= 0) dispatch(t, g, WAIT_ABANDONED_0, now);
        } else if (r == WAIT_TIMEOUT) {
            for (uint32_t i = 0; i < t->n;) {
                struct wsvc_reg *g = t->regs[i];
                if (g->deadline <= now) {
                    dispatch(t, g, WAIT_TIMEOUT, now);
                    i = 0;               /* the set may have changed */
                    now = nspa_clock_ns(CLOCK_MONOTONIC);
                } else {
                    i++;
                }
            }
        } else if (r == WAIT_FAILED) {
            /* a handle closed under its registration: that registration ends */
            for (uint32_t i = 0; i < t->n;) {
                if (WaitForSingleObject(t->regs[i]->h, 0) == WAIT_FAILED) reg_drop(t, (int)i);
                else i++;
            }
        }
    }
    return NULL;
}

NSPA_HIDDEN int wsvc_add(struct wsvc_reg *r)
{
    pthread_once(&wonce, winit);
    EnterCriticalSection(&wcs);
    struct wthread *t = threads;
    while (t && t->n == PER_THREAD) t = t->next;
    if (!t) {
        t = calloc(1, sizeof(*t));
        HANDLE ctl = t ? CreateEventA(NULL, FALSE, FALSE, NULL) : NULL;
        int ok = ctl && (t->ctl = ctl, nspa_thread_detached(wthread_main, t, NULL) == 0);
        if (!ok) {
            if (ctl) CloseHandle(ctl);
            free(t);
            LeaveCriticalSection(&wcs);
            return -ENOMEM;
        }
        t->next = threads;
        threads = t;
    }
    t->regs[t->n++] = r;
    r->thr = t;
    LeaveCriticalSection(&wcs);
    SetEvent(t->ctl);
    return 0;
}

NSPA_HIDDEN int wsvc_remove(struct wsvc_reg *r)
{
    pthread_once(&wonce, winit);
    EnterCriticalSection(&wcs);
    struct wthread *t = r->thr;
    int was = 0;
    if (t) {
        int i = reg_index(t, r);
        if (i >= 0) reg_drop(t, i);
        was = 1;
    }
    /* an inline callback of it on some wait thread: wait, unless we are that callback */
    for (struct wthread *w = threads; w; w = w->next)
        while (w->busy == r && self_thr != w) SleepConditionVariableCS(&wcv, &wcs, INFINITE);
    LeaveCriticalSection(&wcs);
    if (t) SetEvent(t->ctl);
    return was;
}
