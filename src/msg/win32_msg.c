/*
 * Win32 names of the message queues: posting, getting, peeking, waiting, sending,
 * queue status, registered messages. Over queue.c, get.c, send.c, atom.c.
 */
#include <errno.h>
#include <stdlib.h>
#include "msg/msg_internal.h"
#include "win32/win32_private.h"

/* a post's failure (mq_post: -ENOSPC the queue's limit, -ENOMEM, -ESRCH the queue died);
 * @call: WIN32_ERR_WINDOW when it went to a window (gone: ERROR_INVALID_WINDOW_HANDLE) */
static BOOL post_error(int r, unsigned call)
{
    SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT | WIN32_ERR_MESSAGE | call));
    return FALSE;
}

/* messages whose parameters point at data: they cannot wait in a queue (Windows fails
 * them with ERROR_MESSAGE_SYNC_ONLY) */
static int sync_only(UINT m)
{
    return m == WM_CREATE || m == WM_NCCREATE || m == WM_SETTEXT || m == WM_GETTEXT;
}

static BOOL post_thread(DWORD tid, UINT m, WPARAM wp, LPARAM lp)
{
    if (sync_only(m)) {
        SetLastError(ERROR_MESSAGE_SYNC_ONLY);
        return FALSE;
    }
    struct mq *q = mq_get(tid);
    if (!q) {
        SetLastError(ERROR_INVALID_THREAD_ID);
        return FALSE;
    }
    int r = mq_post(q, NULL, m, wp, lp);
    mq_unref(q);
    return r ? post_error(r, 0) : TRUE;
}

NSPA_EXPORT BOOL WINAPI PostThreadMessageW(DWORD tid, UINT m, WPARAM wp, LPARAM lp)
{
    return post_thread(tid, m, wp, lp);
}

NSPA_EXPORT BOOL WINAPI PostThreadMessageA(DWORD tid, UINT m, WPARAM wp, LPARAM lp)
{
    return post_thread(tid, m, wp, lp);
}

static BOOL post(HWND hwnd, UINT m, WPARAM wp, LPARAM lp)
{
    if (!hwnd) {
        /* PostThreadMessage to the calling thread (its queue is made if needed) */
        if (!mq_self()) {
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return FALSE;
        }
        return post_thread(nspa_thread_id(), m, wp, lp);
    }
    if (hwnd == HWND_BROADCAST) return TRUE;       /* no top-level windows to reach */
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return FALSE;
    }
    if (sync_only(m)) {
        SetLastError(ERROR_MESSAGE_SYNC_ONLY);
        return FALSE;
    }
    struct mq *q = wnd_q(w);
    int r = -EBADF;
    if (mq_tryref(q)) {                   /* w may be destroyed under us: see msg_send */
        if (atomic_load(&w->hwnd) == (uintptr_t)hwnd) r = mq_post(q, hwnd, m, wp, lp);
        mq_unref(q);
    }
    return r ? post_error(r, WIN32_ERR_WINDOW) : TRUE;
}

NSPA_EXPORT BOOL WINAPI PostMessageW(HWND hwnd, UINT m, WPARAM wp, LPARAM lp) { return post(hwnd, m, wp, lp); }
NSPA_EXPORT BOOL WINAPI PostMessageA(HWND hwnd, UINT m, WPARAM wp, LPARAM lp) { return post(hwnd, m, wp, lp); }

NSPA_EXPORT void WINAPI PostQuitMessage(int code)
{
    struct mq *q = mq_self();
    if (!q) return;
    mq_lock(q);
    q->quit = 1;
    q->quit_code = code;
    q->wake_bits |= QS_POSTMESSAGE | QS_ALLPOSTMESSAGE;
    q->changed_bits |= QS_POSTMESSAGE | QS_ALLPOSTMESSAGE;
    mq_unlock(q);
}

/* ---- getting ---------------------------------------------------------------------- */

static int filter_valid(HWND hwnd)
{
    if (!hwnd || hwnd == (HWND)(LONG_PTR)-1 || wnd_get(hwnd)) return 1;
    SetLastError(ERROR_INVALID_WINDOW_HANDLE);
    return 0;
}

static BOOL peek(LPMSG msg, HWND hwnd, UINT first, UINT last, UINT flags, int unicode)
{
    if (!msg) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    if (!filter_valid(hwnd)) return FALSE;
    int r = msg_peek(msg, hwnd, first, last, flags, unicode, NULL);
    if (r < 0) SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));   /* -ENOMEM */
    return r > 0;
}

NSPA_EXPORT BOOL WINAPI PeekMessageW(LPMSG msg, HWND hwnd, UINT first, UINT last, UINT flags)
{
    return peek(msg, hwnd, first, last, flags, 1);
}

NSPA_EXPORT BOOL WINAPI PeekMessageA(LPMSG msg, HWND hwnd, UINT first, UINT last, UINT flags)
{
    return peek(msg, hwnd, first, last, flags, 0);
}

static BOOL get(LPMSG msg, HWND hwnd, UINT first, UINT last, int unicode)
{
    if (!msg) {
        SetLastError(ERROR_NOACCESS);
        return -1;
    }
    if (!filter_valid(hwnd)) return -1;
    struct mq *q = mq_self();
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return -1;
    }
    for (;;) {
        struct msg_arm arm;
        int r = msg_peek(msg, hwnd, first, last, PM_REMOVE, unicode, &arm);
        if (r < 0) {
            SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
            return -1;
        }
        if (r) return msg->message != WM_QUIT;
        msg_get_wait(q, &arm);        /* armed by the peek */
    }
}

NSPA_EXPORT BOOL WINAPI GetMessageW(LPMSG msg, HWND hwnd, UINT first, UINT last)
{
    return get(msg, hwnd, first, last, 1);
}

NSPA_EXPORT BOOL WINAPI GetMessageA(LPMSG msg, HWND hwnd, UINT first, UINT last)
{
    return get(msg, hwnd, first, last, 0);
}

NSPA_EXPORT BOOL WINAPI WaitMessage(void)
{
    struct mq *q = mq_self();
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return FALSE;
    }
    msg_wait(q, 0, NULL, NSPA_TIMEOUT_INFINITE, 0, QS_ALLINPUT, 0);
    return TRUE;
}

NSPA_EXPORT DWORD WINAPI GetQueueStatus(UINT flags)
{
    if (flags & ~(QS_ALLINPUT | QS_ALLPOSTMESSAGE)) {
        SetLastError(ERROR_INVALID_FLAGS);
        return 0;
    }
    struct mq *q = mq_self();
    if (!q) return 0;
    mq_lock(q);
    if (q->ntimers) timers_update_locked(q, nspa_time_ns());
    DWORD r = MAKELONG(q->changed_bits & flags, q->wake_bits & flags);
    q->changed_bits &= ~flags;
    mq_unlock(q);
    return r;
}

NSPA_EXPORT LONG WINAPI GetMessageTime(void)
{
    struct mq *q = mq_self_peek();
    return q ? (LONG)q->msg_time : 0;
}

/* no pointer device: the position is always (0, 0) */
NSPA_EXPORT DWORD WINAPI GetMessagePos(void) { return 0; }

NSPA_EXPORT DWORD WINAPI MsgWaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, DWORD ms, DWORD mask,
                                                     DWORD flags)
{
    if ((flags & ~(MWMO_WAITALL | MWMO_ALERTABLE | MWMO_INPUTAVAILABLE)) || count > MAXIMUM_WAIT_OBJECTS - 1) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return WAIT_FAILED;
    }
    if (count && !handles) {
        SetLastError(ERROR_NOACCESS);
        return WAIT_FAILED;
    }
    struct mq *q = mq_self();
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return WAIT_FAILED;
    }
    nspa_obj_t objs[MAXIMUM_WAIT_OBJECTS];
    for (DWORD i = 0; i < count; i++) objs[i] = nspa__win32_wait_handle(handles[i]);
    mask &= 0xffff;
    return msg_wait(q, count, objs, msg_deadline(ms), (flags & MWMO_INPUTAVAILABLE) ? mask : 0, mask, flags);
}

NSPA_EXPORT DWORD WINAPI MsgWaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms,
                                                   DWORD mask)
{
    return MsgWaitForMultipleObjectsEx(count, handles, ms, mask, wait_all ? MWMO_WAITALL : 0);
}

/* ---- sending ---------------------------------------------------------------------- */

/* 1: sent and *res set; 0: timed out; -1: error (last error set) */
static int send(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, UINT flags, UINT ms, LRESULT *res, int unicode,
                int notify)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return -1;
    }
    if (wnd_tid(w) == nspa_thread_id()) {               /* the own thread: a direct call */
        *res = wnd_call_hwnd(hwnd, m, wp, lp, unicode);
        return 1;
    }
    return msg_send(hwnd, m, wp, lp, flags, ms, res, unicode, notify);
}

NSPA_EXPORT LRESULT WINAPI SendMessageW(HWND hwnd, UINT m, WPARAM wp, LPARAM lp)
{
    LRESULT r = 0;
    if (hwnd == HWND_BROADCAST) return 0;
    return send(hwnd, m, wp, lp, SMTO_NORMAL, INFINITE, &r, 1, 0) == 1 ? r : 0;
}

NSPA_EXPORT LRESULT WINAPI SendMessageA(HWND hwnd, UINT m, WPARAM wp, LPARAM lp)
{
    LRESULT r = 0;
    if (hwnd == HWND_BROADCAST) return 0;
    return send(hwnd, m, wp, lp, SMTO_NORMAL, INFINITE, &r, 0, 0) == 1 ? r : 0;
}

static LRESULT send_timeout(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, UINT flags, UINT ms, PDWORD_PTR out,
                            int unicode)
{
    LRESULT r = 0;
    if (hwnd == HWND_BROADCAST) return TRUE;
    if (send(hwnd, m, wp, lp, flags, ms, &r, unicode, 0) != 1) return 0;
    if (out) *out = (DWORD_PTR)r;
    return TRUE;
}

NSPA_EXPORT LRESULT WINAPI SendMessageTimeoutW(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                                               PDWORD_PTR out)
{
    return send_timeout(hwnd, m, wp, lp, flags, ms, out, 1);
}

NSPA_EXPORT LRESULT WINAPI SendMessageTimeoutA(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                                               PDWORD_PTR out)
{
    return send_timeout(hwnd, m, wp, lp, flags, ms, out, 0);
}

static BOOL send_notify(HWND hwnd, UINT m, WPARAM wp, LPARAM lp, int unicode)
{
    LRESULT r;
    if (hwnd == HWND_BROADCAST) return TRUE;
    if (sync_only(m) && wnd_get(hwnd) && wnd_tid(wnd_get(hwnd)) != nspa_thread_id()) {
        SetLastError(ERROR_MESSAGE_SYNC_ONLY);   /* its pointer would outlive the call */
        return FALSE;
    }
    return send(hwnd, m, wp, lp, 0, INFINITE, &r, unicode, 1) == 1;
}

NSPA_EXPORT BOOL WINAPI SendNotifyMessageW(HWND hwnd, UINT m, WPARAM wp, LPARAM lp)
{
    return send_notify(hwnd, m, wp, lp, 1);
}

NSPA_EXPORT BOOL WINAPI SendNotifyMessageA(HWND hwnd, UINT m, WPARAM wp, LPARAM lp)
{
    return send_notify(hwnd, m, wp, lp, 0);
}

/* ---- registered messages ---------------------------------------------------------- */

NSPA_EXPORT UINT WINAPI RegisterWindowMessageW(LPCWSTR name)
{
    return atom_register(name);
}

NSPA_EXPORT UINT WINAPI RegisterWindowMessageA(LPCSTR name)
{
    if (!name) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    uint16_t *w = text_a_to_w(name);
    if (!w) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    UINT r = atom_register(w);
    free(w);
    return r;
}
