/*
 * Taking messages off the caller's own queue (PeekMessage/GetMessage) and waiting for
 * the queue beside other objects (MsgWaitForMultipleObjectsEx, WaitMessage, the wait
 * of GetMessage and of a SendMessage caller).
 *
 * Windows' order: messages sent from other threads are processed first (they are
 * never returned), then posted messages (FIFO among those the filter takes), then
 * WM_QUIT, then WM_TIMER last. The QS_ bits follow Wine's server (which follows
 * Windows): wake_bits say what is in the queue, changed_bits what arrived since the
 * owner last looked; a Peek clears the changed bits of the kinds its filter covers.
 */
#include <errno.h>
#include <string.h>
#include "msg/msg_internal.h"
#include "win32/win32_private.h"

NSPA_HIDDEN uint64_t msg_deadline(DWORD ms)
{
    if (ms == INFINITE) return NSPA_TIMEOUT_INFINITE;
    if (ms == 0) return 0;
    return nspa_time_ns() + (uint64_t)ms * 1000000ull;
}

static int range_ok(UINT m, UINT first, UINT last)
{
    if (!first && !last) return 1;
    if (last < first) return 1;          /* as Wine's user32: an inverted range takes all */
    return m >= first && m <= last;
}

static int hwnd_ok(HWND m, HWND filter)
{
    if (!filter) return 1;
    if (filter == (HWND)(LONG_PTR)-1) return m == NULL;
    return m == filter;
}

static void fill(MSG *msg, HWND hwnd, UINT m, WPARAM wp, LPARAM lp, DWORD time)
{
    msg->hwnd = hwnd;
    msg->message = m;
    msg->wParam = wp;
    msg->lParam = lp;
    msg->time = time;
    msg->pt.x = msg->pt.y = 0;
}

/* Queue lock held: the posted-message bits after a removal. */
static void post_bits_locked(struct mq *q)
{
    if (!q->post_head && !q->quit) {
        q->wake_bits &= ~(QS_POSTMESSAGE | QS_ALLPOSTMESSAGE);
        q->changed_bits &= ~(QS_POSTMESSAGE | QS_ALLPOSTMESSAGE);
    }
}

/* PeekMessage on the caller's queue. @hwnd has been validated. Returns 1 with *msg
 * filled, 0 when nothing matched, -ENOMEM when the queue cannot be had.
 * @arm (GetMessage): when nothing matched, the owner is armed in the same locked section
 * for GetMessage's wait (sent messages, or anything new) and *@arm says when the next
 * timer is due (msg_get_wait); the next call disarms. One lock round per look instead
 * of three on the GetMessage path (peek, arm, disarm). */
NSPA_HIDDEN int msg_peek(MSG *msg, HWND hwnd, UINT first, UINT last, UINT flags, int unicode, struct msg_arm *arm)
{
    struct mq *q = mq_self();
    if (!q) return -ENOMEM;
    uint32_t qs = flags >> 16;
    if (!qs) qs = QS_ALLINPUT | QS_ALLPOSTMESSAGE;
    for (;;) {
        mq_lock(q);
        q->waiting = 0;          /* the owner looks: an arm of its last GetMessage ends */
        q->timer_waited = 0;
        if ((qs & QS_SENDMESSAGE) && q->sent_head) {
            mq_unlock(q);
            send_process_one(q);
            continue;
        }
        uint64_t now = 0;
        if (q->ntimers) {
            now = nspa_time_ns();
            timers_update_locked(q, now);
        }
        /* what the owner has now seen (Wine's get_message) */
        if (qs & QS_POSTMESSAGE) {
            q->changed_bits &= ~(QS_POSTMESSAGE | QS_HOTKEY | QS_TIMER);
            if (!first && !last && !hwnd) q->changed_bits &= ~QS_ALLPOSTMESSAGE;
        }
        if (qs & QS_INPUT) q->changed_bits &= ~QS_INPUT;
        if (qs & QS_PAINT) q->changed_bits &= ~QS_PAINT;
        if (qs & QS_SENDMESSAGE) q->changed_bits &= ~QS_SENDMESSAGE;
        if (qs & QS_POSTMESSAGE) {
            struct msg_node *prev = NULL;
            for (struct msg_node *n = q->post_head; n; prev = n, n = n->next) {
                if (!hwnd_ok(n->hwnd, hwnd) || !range_ok(n->message, first, last)) continue;
                fill(msg, n->hwnd, n->message, n->wparam, n->lparam, n->time);
                q->msg_time = n->time;
                if (flags & PM_REMOVE) {
                    if (prev) prev->next = n->next;
                    else q->post_head = n->next;
                    if (q->post_tail == n) q->post_tail = prev;
                    q->nposted--;
                    node_free_locked(q, n);
                    post_bits_locked(q);
                }
                mq_unlock(q);
                return 1;
            }
            if (q->quit) {
                fill(msg, NULL, WM_QUIT, (WPARAM)(LONG_PTR)q->quit_code, 0, msg_tick());
                q->msg_time = msg->time;
                if (flags & PM_REMOVE) {
                    q->quit = 0;
                    post_bits_locked(q);
                }
                mq_unlock(q);
                return 1;
            }
        }
        if ((qs & QS_TIMER) && q->ntimers && range_ok(WM_TIMER, first, last) &&
            timers_take_locked(q, hwnd, hwnd == NULL, hwnd == (HWND)(LONG_PTR)-1, flags & PM_REMOVE, now, msg)) {
            q->msg_time = msg->time;
            mq_unlock(q);
            return 1;
        }
        if (arm) {
            q->wake_mask = QS_SENDMESSAGE;
            q->changed_mask = QS_ALLINPUT;
            q->armed_all = 0;
            q->waiting = 1;
            arm->now = now;
            arm->period = 0;
            arm->np = UINT64_MAX;
            arm->want = q->ntimers ? timers_next_due_locked(q, now, &arm->period, &arm->np) : UINT64_MAX;
            q->timer_waited = arm->want != UINT64_MAX;
        }
        mq_unlock(q);
        return 0;
    }
}

/* A wait holding the queue's timer object does not depend on the timer service alone:
 * it also times out MSG_TIMER_NET_NS after the next due time @np. The expiry normally
 * comes at the due time (the direct path: this thread runs it); but when the service
 * thread is running that expiry as the wait starts, the wait is woken by the service's
 * signal, and a service thread that is preempted meanwhile (a lower priority than a
 * TIME_CRITICAL owner in RT mode; any SCHED_OTHER load in the baseline) would hold the
 * owner up. The net caps that at 1 ms past the due time (the next look then finds the
 * timer due by the clock). */
#define MSG_TIMER_NET_NS 1000000ull
static inline uint64_t timer_net(uint64_t np)
{
    return np == UINT64_MAX ? UINT64_MAX : np + MSG_TIMER_NET_NS;
}

/* GetMessage's wait, after a msg_peek that armed: until a message is sent (processed by
 * the next peek) or something new arrives (q->event), or the queue's timer fires (its
 * NT timer object in the same wait: the timer service's direct path). Whatever woke
 * us, even a late signal of an earlier arm, the next peek looks and disarms. */
NSPA_HIDDEN void msg_get_wait(struct mq *q, const struct msg_arm *arm)
{
    nspa_obj_t objs[2] = { q->event, q->timer };
    struct nspa_wait_args a = { .timeout = NSPA_TIMEOUT_INFINITE, .objs = objs, .count = 1,
                                .owner = nspa_thread_id() };
    if (arm->want != UINT64_MAX) {
        timers_arm(q, arm->want, arm->period, arm->now);
        if (q->tmr_failed) {
            a.timeout = arm->np;                      /* no timer object: bound the sleep */
        } else {
            a.count = 2;
            a.timeout = timer_net(arm->np);
        }
    }
    nspa_wait_any(&a);
}

/*
 * Wait for the caller's queue (an armed QS_ rule: @wake_mask over what is in the queue,
 * @changed_mask over what arrived since it was last looked at) beside @count objects.
 * Returns WAIT_OBJECT_0 + i (object i), WAIT_OBJECT_0 + count (the queue; with
 * MWMO_WAITALL, WAIT_OBJECT_0: all objects and the queue), WAIT_ABANDONED_0 + i,
 * WAIT_IO_COMPLETION (MWMO_ALERTABLE: APCs ran), WAIT_TIMEOUT, or WAIT_FAILED with the
 * last error set. When QS_TIMER is asked for and the queue has timers, the queue's NT
 * timer (armed on the timer service for them) joins the wait set after the queue
 * event, so its expiry wakes this thread as a waitable timer's does (the direct path,
 * docs/time.md). A wait-all, or a wait with 63 objects (no slot left), leaves it
 * out: the expiry's callback then wakes us through the queue event (timer.c).
 */
static int rule_holds(struct mq *q, uint32_t wake_mask, uint32_t changed_mask)
{
    return (q->wake_bits & wake_mask) || (q->changed_bits & changed_mask);
}

NSPA_HIDDEN DWORD msg_wait(struct mq *q, DWORD count, const nspa_obj_t *objs, uint64_t deadline,
                           uint32_t wake_mask, uint32_t changed_mask, DWORD flags)
{
    nspa_obj_t arr[NSPA_MAX_WAIT_OBJECTS];
    for (DWORD i = 0; i < count; i++) arr[i] = objs[i];
    int all = (flags & MWMO_WAITALL) != 0;
    nspa_obj_t ev = all ? q->event_all : q->event;
    arr[count] = ev;
    nspa_obj_t alert = (flags & MWMO_ALERTABLE) ? nspa__win32_apc_event() : 0;
    int timer_slot = !all && count + 2 <= NSPA_MAX_WAIT_OBJECTS;
    for (;;) {
        mq_lock(q);
        uint64_t want = UINT64_MAX, np = UINT64_MAX, period = 0, now = 0;
        if (q->ntimers) {
            now = nspa_time_ns();
            timers_update_locked(q, now);
            if ((wake_mask | changed_mask) & QS_TIMER) want = timers_next_due_locked(q, now, &period, &np);
        }
        int ready = rule_holds(q, wake_mask, changed_mask);
        if (ready && count == 0 && !alert) {
            mq_unlock(q);
            return WAIT_OBJECT_0;
        }
        q->wake_mask = wake_mask;
        q->changed_mask = changed_mask;
        q->armed_all = all;
        q->timer_waited = want != UINT64_MAX && timer_slot;
        if (ready) {
            /* objects first (the lowest index wins), and a wait-all must take them
             * with the queue in one step: let the sync core decide, queue signaled */
            q->waiting = 0;
            nspa_event_set(ev, NULL);
        } else {
            q->waiting = 1;
        }
        mq_unlock(q);
        uint32_t n = count + 1;
        uint64_t dl = deadline;
        int timer_bound = 0;
        if (want != UINT64_MAX) {
            timers_arm(q, want, period, now);
            uint64_t bound = UINT64_MAX;
            if (q->tmr_failed)                          /* no timer object: bound the sleep */
                bound = np;
            else if (timer_slot)                        /* woken at each expiry: re-armed */
                arr[n++] = q->timer, bound = timer_net(np);
            else if (np != want)
                /* without the object, only an expiry that makes input wakes us (the
                 * callback); a pending timer's grid comes first and nobody re-arms the
                 * object for @np during this wait: its due time bounds the sleep */
                bound = np;
            if (bound < dl) dl = bound, timer_bound = 1;
        }
        struct nspa_wait_args a = {
            .timeout = dl, .objs = arr, .count = n, .owner = nspa_thread_id(), .alert = alert,
        };
        int r = all ? nspa_wait_all(&a) : nspa_wait_any(&a);
        int won = r == 0 || r == -EOWNERDEAD;
        int got_queue = won && (all ? a.index < count + 1 : a.index == count);
        int got_timer = won && !all && n > count + 1 && a.index == count + 1;
        mq_lock(q);
        q->timer_waited = 0;
        if (q->waiting) q->waiting = 0;               /* nobody set the event */
        else if (all && !got_queue) nspa_event_reset(ev, NULL);   /* set (under the lock), not taken */
        if (got_timer) timers_update_locked(q, nspa_time_ns());
        /* q->event may have been set late for an earlier arm, q->timer may have fired
         * while nobody waited for it: look again */
        int stale = (got_queue || got_timer) && !all && !rule_holds(q, wake_mask, changed_mask);
        mq_unlock(q);
        if (stale) continue;
        if (got_timer) return WAIT_OBJECT_0 + count;
        if (won && a.index == n) {                     /* the alert */
            if (nspa__win32_run_apcs()) return WAIT_IO_COMPLETION;
            continue;
        }
        if (won) {
            if (all) return r ? WAIT_ABANDONED_0 + a.index : WAIT_OBJECT_0;
            return (r ? WAIT_ABANDONED_0 : WAIT_OBJECT_0) + a.index;
        }
        if (r == -ETIMEDOUT) {
            if (timer_bound) continue;                 /* a timer is due: look again */
            return WAIT_TIMEOUT;
        }
        /* -EINVAL: a handle of a kind that cannot be waited on, in a wait-all also one
         * object twice; which handle argument is closed is checked after (a closed one
         * is ERROR_INVALID_HANDLE in either wait) */
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT | (all ? WIN32_ERR_WAIT_ALL : 0)));
        if (r == -EINVAL)
            for (DWORD i = 0; i < count; i++)
                if (nspa_obj_type(arr[i]) < 0) { SetLastError(ERROR_INVALID_HANDLE); break; }
        return WAIT_FAILED;
    }
}
