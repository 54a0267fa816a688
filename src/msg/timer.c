/*
 * SetTimer/KillTimer: WM_TIMER served by the timer service (src/time/, docs/time.md).
 *
 * As on Windows, a WM_TIMER is never queued: a timer that is due sets QS_TIMER, and the
 * message is synthesized when the owner looks at its queue and finds no sent or posted
 * message before it (so WM_TIMER comes last, and at most one is pending per timer:
 * coalesced). What makes a timer due is the queue's one NT timer object (q->timer, the
 * sync core's TIMER kind), armed on the timer service for the earliest due time of the
 * queue's timers that are not pending:
 *
 *  - the owner's waits (GetMessage, WaitMessage, MsgWaitForMultipleObjects with
 *    QS_TIMER) put that object in their wait set beside the queue event, so its expiry
 *    wakes the owner exactly as a waitable timer wakes its waiter: by the direct path
 *    (the waiting thread sleeps until the due time and runs the expiry itself) or by
 *    the service thread, whichever comes first;
 *  - every expiry also calls timer_fired() (the service's callback, on whichever thread
 *    ran the expiry), which marks the due timers and, when the owner's wait does not
 *    hold the timer object (MWMO_WAITALL, 63 handles), wakes it like a poster does.
 *
 * The object is armed periodically on the grid of the timer it is armed for, so a
 * single timer (the common case) is armed once by SetTimer and never again: taking its
 * WM_TIMER moves its due time to the next point of the same grid, where the object
 * fires anyway. It is re-armed only when the earliest timer changes (timers_arm).
 * Arming happens on the owner thread only (timers belong to it) and never under the
 * queue lock: the service waits for a running callback when it re-arms, and the
 * callback takes the queue lock.
 *
 * Periodic expiries are on the grid start + k * period: a late look does not shift the
 * later ones, and expiries missed while one WM_TIMER was pending are dropped
 * (coalesced), never delivered in a burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nspa/timer.h"
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

/* Queue lock held, timers updated at @now: when the queue's NT timer should fire next
 * (UINT64_MAX: no timer), and *@period the period to arm it with: the earliest due
 * time, a pending timer (its WM_TIMER not taken yet) counting at the next point of its
 * grid. Counting pending timers so keeps the arm where it is while a WM_TIMER waits to
 * be taken (taking it moves the timer to that same point), instead of moving it to
 * another timer and back for every WM_TIMER. *@np: the earliest due time of a timer
 * that is not pending (UINT64_MAX: none), the next time input can arrive; it may come
 * after the arm's first expiry and off its grid (msg_wait: who wakes the owner then). */
NSPA_HIDDEN uint64_t timers_next_due_locked(struct mq *q, uint64_t now, uint64_t *period, uint64_t *np)
{
    uint64_t best = UINT64_MAX, p = 0, fresh = UINT64_MAX;
    for (uint32_t i = 0, seen = 0; i < q->timer_cap && seen < q->ntimers; i++) {
        struct mtimer *t = &q->timers[i];
        if (!t->used) continue;
        seen++;
        uint64_t d = t->due_ns;
        if (t->signaled) d += ((now - d) / t->period_ns + 1) * t->period_ns;
        else if (d < fresh) fresh = d;
        if (d < best) {
            best = d;
            p = t->period_ns;
        }
    }
    if (period) *period = p;
    if (np) *np = fresh;
    return best;
}

/* ---- the queue's NT timer ------------------------------------------------------------ */

/* The timer service's callback, after each expiry of q->timer has signaled it: on the
 * service thread, or on the owner itself when its wait ran the expiry (the direct
 * path). No timer lock is held. The due timers are marked; the owner is woken through
 * its queue event only when its wait does not hold the timer object itself. */
static void timer_fired(void *ctx, uint64_t realtime_ns)
{
    (void)realtime_ns;
    struct mq *q = ctx;
    mq_lock(q);
    nspa_obj_t ev = 0;
    if (q->ntimers) {
        timers_update_locked(q, nspa_time_ns());
        if (!q->timer_waited || q->armed_all) ev = mq_wake_locked(q);
    }
    mq_unlock(q);
    mq_signal(ev);
}

/* When the object, armed at q->tmr_due every q->tmr_period, fires next after @now
 * (UINT64_MAX: not armed, or a one-shot arm that has fired). Owner thread. */
static uint64_t armed_next(const struct mq *q, uint64_t now)
{
    if (!q->tmr_armed) return UINT64_MAX;
    if (q->tmr_due > now) return q->tmr_due;
    if (!q->tmr_period) return UINT64_MAX;
    return q->tmr_due + ((now - q->tmr_due) / q->tmr_period + 1) * q->tmr_period;
}

/* Owner thread, queue lock NOT held: make q->timer fire at @want (> @now, from
 * timers_next_due_locked; UINT64_MAX: no timer left, it is cancelled) and then every
 * @period. Nothing is done when it fires there already: a single timer is armed once.
 * An arm that fails (no memory for the service) sets q->tmr_failed: the owner's waits
 * then bound their sleep by the next due time themselves, so no WM_TIMER is ever lost. */
NSPA_HIDDEN void timers_arm(struct mq *q, uint64_t want, uint64_t period, uint64_t now)
{
    if (want == UINT64_MAX) {
        if (!q->tmr_armed) return;
        nspa_timer_cancel(q->timer);
        q->tmr_armed = 0;
        return;
    }
    if (!q->tmr_failed && armed_next(q, now) == want && q->tmr_period == period) return;
    struct nspa_timer_args a = { .due = want, .period = period, .fn = timer_fired, .ctx = q };
    int r = q->timer ? nspa_timer_set(q->timer, &a) : -EBADF;
    q->tmr_failed = r != 0;
    q->tmr_armed = r == 0;
    q->tmr_due = want;
    q->tmr_period = period;
}

/* Owner thread, queue lock not held: bring q->timer up to date with the timers now. */
NSPA_HIDDEN void timers_sync(struct mq *q)
{
    uint64_t period = 0, now = nspa_time_ns();
    mq_lock(q);
    timers_update_locked(q, now);
    uint64_t want = timers_next_due_locked(q, now, &period, NULL);
    mq_unlock(q);
    timers_arm(q, want, period, now);
}

/* Thread end (owner, queue lock not held, timers already dropped): no expiry of the
 * queue's timer runs once this returns (the service waits for a running callback). */
NSPA_HIDDEN void timers_stop(struct mq *q)
{
    if (q->timer && q->tmr_armed) nspa_timer_cancel(q->timer);
    q->tmr_armed = q->tmr_failed = 0;
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
    /* the queue's NT timer: made with its first timer, kept while the queue is */
    if (!q->timer && nspa_create_timer(0, NULL, &q->timer) < 0) {
        q->timer = 0;
        /* the queue's own resource, not the caller's object: SetTimer's one failure */
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
    t->signaled = 0;                 /* a pending WM_TIMER of the replaced timer is gone */
    timers_update_locked(q, now);
    mq_unlock(q);
    timers_sync(q);
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
    if (t) timers_sync(q);
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
