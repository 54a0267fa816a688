/*
 * SetTimer/KillTimer: WM_TIMER served by the queue itself.
 *
 * As on Windows, a WM_TIMER is never queued: a timer that is due sets QS_TIMER, and the
 * message is synthesized when the owner looks at its queue and finds no sent or posted
 * message before it (so WM_TIMER comes last, and at most one is pending per timer:
 * coalesced). The owner's waits (GetMessage, WaitMessage, MsgWaitForMultipleObjects with
 * QS_TIMER) use the nearest due time as their timeout, so the thread that owns the timer
 * notices the expiry itself, at its own priority, with no service thread and no hand-off
 * between threads in the way (docs/msg.md, "Timers"). Timers belong to the calling
 * thread's queue: SetTimer on a window of another thread fails, as on Windows.
 *
 * Periodic expiries are on the grid start + k * period: a late look does not shift the
 * later ones, and expiries missed while one WM_TIMER was pending are dropped
 * (coalesced), never delivered in a burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "msg/msg_internal.h"

#define TIMER_LIMIT 10000            /* Windows' per-process default quota (per thread here) */

/* Queue lock held: mark the timers due at @now, set QS_TIMER. */
NSPA_HIDDEN void timers_update_locked(struct mq *q, uint64_t now)
{
    int any = 0, fresh = 0;
    for (uint32_t i = 0, seen = 0; i < q->timer_cap && seen < q->ntimers; i++) {
        struct mtimer *t = &q->timers[i];
        if (!t->used) continue;
        seen++;
        if (!t->signaled && t->due_ns <= now) {
            t->signaled = 1;
            fresh = 1;
        }
        any |= t->signaled;
    }
    if (fresh) q->changed_bits |= QS_TIMER;
    if (any) q->wake_bits |= QS_TIMER;
    else q->wake_bits &= ~QS_TIMER;
}

/* Queue lock held: the earliest due time of a timer not yet signaled (UINT64_MAX: none). */
NSPA_HIDDEN uint64_t timers_next_due_locked(struct mq *q)
{
    uint64_t best = UINT64_MAX;
    for (uint32_t i = 0, seen = 0; i < q->timer_cap && seen < q->ntimers; i++) {
        struct mtimer *t = &q->timers[i];
        if (!t->used) continue;
        seen++;
        if (!t->signaled && t->due_ns < best) best = t->due_ns;
    }
    return best;
}

/* Queue lock held: synthesize the WM_TIMER of the signaled timer due first that the
 * filter takes; with @remove it is rearmed on its grid. Returns 1 with *msg. */
NSPA_HIDDEN int timers_take_locked(struct mq *q, HWND hwnd, int any_hwnd, int thread_only, int remove,
                                   uint64_t now, MSG *msg)
{
    struct mtimer *best = NULL;
    for (uint32_t i = 0, seen = 0; i < q->timer_cap && seen < q->ntimers; i++) {
        struct mtimer *t = &q->timers[i];
        if (!t->used) continue;
        seen++;
        if (!t->signaled) continue;
        if (!any_hwnd && (thread_only ? t->hwnd != NULL : t->hwnd != hwnd)) continue;
        if (!best || t->due_ns < best->due_ns) best = t;
    }
    if (!best) return 0;
    msg->hwnd = best->hwnd;
    msg->message = WM_TIMER;
    msg->wParam = best->id;
    msg->lParam = (LPARAM)best->proc;
    msg->time = msg_tick();
    msg->pt.x = msg->pt.y = 0;
    if (remove) {
        best->signaled = 0;
        uint64_t next = best->due_ns + best->period_ns;
        if (next <= now) /* missed expiries are coalesced: the next one on the grid */
            next += ((now - next) / best->period_ns + 1) * best->period_ns;
        best->due_ns = next;
        timers_update_locked(q, now);
    }
    return 1;
}

NSPA_HIDDEN void timers_kill_window_locked(struct mq *q, HWND hwnd)
{
    for (uint32_t i = 0; i < q->timer_cap; i++) {
        struct mtimer *t = &q->timers[i];
        if (t->used && t->hwnd == hwnd) {
            t->used = 0;
            q->ntimers--;
        }
    }
}

static struct mtimer *find_locked(struct mq *q, HWND hwnd, UINT_PTR id)
{
    for (uint32_t i = 0; i < q->timer_cap; i++) {
        struct mtimer *t = &q->timers[i];
        if (t->used && t->hwnd == hwnd && t->id == id) return t;
    }
    return NULL;
}

/* the ids SetTimer picks for thread timers (hwnd NULL, id ignored), as Windows' counter */
static UINT_PTR next_thread_timer_id(struct mq *q)
{
    static _Atomic uint32_t counter = 0x7fff;
    for (;;) {
        UINT_PTR id = atomic_fetch_add(&counter, 1) + 1;
        if (id && !find_locked(q, NULL, id)) return id;
    }
}

NSPA_EXPORT UINT_PTR WINAPI SetTimer(HWND hwnd, UINT_PTR id, UINT ms, TIMERPROC proc)
{
    if (hwnd) {
        struct wnd *w = wnd_get(hwnd);
        if (!w) {
            SetLastError(ERROR_INVALID_WINDOW_HANDLE);
            return 0;
        }
        if (wnd_tid(w) != nspa_thread_id()) {
            SetLastError(ERROR_ACCESS_DENIED);
            return 0;
        }
    }
    struct mq *q = mq_self();
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    /* Windows clamps: below USER_TIMER_MINIMUM to it, above USER_TIMER_MAXIMUM to it */
    if (ms < USER_TIMER_MINIMUM) ms = USER_TIMER_MINIMUM;
    if (ms > USER_TIMER_MAXIMUM) ms = USER_TIMER_MAXIMUM;
    uint64_t now = nspa_time_ns();
    mq_lock(q);
    /* a thread timer keeps its id if it names one of ours, else gets a new one */
    if (!hwnd && (!id || !find_locked(q, NULL, id))) id = next_thread_timer_id(q);
    struct mtimer *t = find_locked(q, hwnd, id);   /* an existing timer is replaced */
    if (!t) {
        if (q->ntimers >= TIMER_LIMIT) {
            mq_unlock(q);
            SetLastError(ERROR_NO_SYSTEM_RESOURCES);
            return 0;
        }
        if (q->ntimers == q->timer_cap) {
            uint32_t cap = q->timer_cap ? q->timer_cap * 2 : 8;
            struct mtimer *nt = realloc(q->timers, cap * sizeof(*nt));
            if (!nt) {
                mq_unlock(q);
                SetLastError(ERROR_NOT_ENOUGH_MEMORY);
                return 0;
            }
            memset(nt + q->timer_cap, 0, (cap - q->timer_cap) * sizeof(*nt));
            q->timers = nt;
            q->timer_cap = cap;
        }
        for (uint32_t i = 0; i < q->timer_cap; i++)
            if (!q->timers[i].used) {
                t = &q->timers[i];
                break;
            }
        q->ntimers++;
    }
    t->used = 1;
    t->hwnd = hwnd;
    t->id = id;
    t->proc = proc;
    t->period_ns = (uint64_t)ms * 1000000ull;
    t->due_ns = now + t->period_ns;
    t->signaled = 0;
    timers_update_locked(q, now);
    mq_unlock(q);
    return hwnd ? (id ? id : 1) : id;
}

NSPA_EXPORT BOOL WINAPI KillTimer(HWND hwnd, UINT_PTR id)
{
    if (hwnd && !wnd_get(hwnd)) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return FALSE;
    }
    struct mq *q = mq_self_peek();
    if (!q) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    mq_lock(q);
    struct mtimer *t = find_locked(q, hwnd, id);
    if (t) {
        t->used = 0;
        q->ntimers--;
        timers_update_locked(q, nspa_time_ns());
    }
    mq_unlock(q);
    if (!t) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    return TRUE;
}

/* DispatchMessage's check: does a live timer of the caller's queue name this proc? */
NSPA_HIDDEN int timers_has_proc(HWND hwnd, UINT_PTR id, TIMERPROC proc)
{
    struct mq *q = mq_self_peek();
    if (!q) return 0;
    mq_lock(q);
    struct mtimer *t = find_locked(q, hwnd, id);
    int ok = t && t->proc == proc;
    mq_unlock(q);
    return ok;
}
