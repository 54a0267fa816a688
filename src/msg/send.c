/*
 * SendMessage across threads, SendNotifyMessage, ReplyMessage, InSendMessage(Ex).
 *
 * A message sent to a window of another thread is a node from the *sender's* pool,
 * linked into the receiver's sent list (QS_SENDMESSAGE). The sender then waits on its
 * own queue for QS_SENDMESSAGE (messages sent to it are processed meanwhile, so two
 * threads sending to each other never deadlock, as on Windows) and QS_SMRESULT (the
 * reply). The receiver processes sent messages inside its PeekMessage/GetMessage and
 * inside its own SendMessage waits.
 *
 * Node states, and who changes them under which lock:
 *   QUEUED -> PROCESSING   the receiver, under the receiver's lock (it unlinks it)
 *   QUEUED -> (freed)      a timed-out sender, under the receiver's lock (it unlinks it)
 *   PROCESSING -> REPLIED  the receiver (ReplyMessage, the procedure's return, or its
 *                          thread's end), under the sender's lock; the sender frees it
 *   PROCESSING -> ABANDONED  a timed-out sender, under its own lock; the receiver then
 *                          frees it instead of replying
 * A notification (SendNotifyMessage) has no sender waiting: the receiver frees it.
 */
#include <errno.h>
#include "msg/msg_internal.h"

/* Answer @n (PROCESSING or QUEUED off a dead queue) with @result. */
NSPA_HIDDEN void send_reply(struct msg_node *n, LRESULT result)
{
    struct mq *s = n->sender;
    if (n->kind != NODE_SEND || !s) {
        struct mq *pool = n->pool;
        node_free(n);
        mq_unref(pool);                 /* a notification held its pool queue */
        return;
    }
    mq_lock(s);
    if (node_state(n) == NS_ABANDONED) {
        node_free_locked(s, n);         /* the pool is the sender's own */
        mq_unlock(s);
        mq_unref(s);
        return;
    }
    n->result = result;
    node_set_state(n, NS_REPLIED);
    s->wake_bits |= QS_SMRESULT;
    s->changed_bits |= QS_SMRESULT;
    nspa_obj_t ev = mq_wake_locked(s);
    mq_unlock(s);
    mq_signal(ev);
    /* the sender's reference: the sender itself is alive (it waits for this) until it
     * sees REPLIED; drop ours after the unlock */
    mq_unref(s);
}

NSPA_HIDDEN void send_queue_dead(struct msg_node *sent)
{
    for (struct msg_node *n = sent, *nx; n; n = nx) {
        nx = n->next;
        n->next = NULL;
        send_reply(n, 0);
    }
}

/* Process the first message sent to the caller's queue @q. Returns 1 if one was. */
NSPA_HIDDEN int send_process_one(struct mq *q)
{
    mq_lock(q);
    struct msg_node *n = q->sent_head;
    if (!n) {
        mq_unlock(q);
        return 0;
    }
    q->sent_head = n->next;
    if (!q->sent_head) {
        q->sent_tail = NULL;
        q->wake_bits &= ~QS_SENDMESSAGE;
        q->changed_bits &= ~QS_SENDMESSAGE;
    }
    n->next = NULL;
    node_set_state(n, NS_PROCESSING);
    mq_unlock(q);
    uint32_t d = q->recv_depth++;
    struct recv_frame *f = d < MSG_RECV_DEPTH ? &q->recv[d] : NULL;
    if (f) {
        f->node = n;
        f->flags = n->kind == NODE_SEND ? ISMEX_SEND : ISMEX_NOTIFY;
    }
    HWND hwnd = n->hwnd;
    UINT m = n->message;
    WPARAM wp = n->wparam;
    LPARAM lp = n->lparam;
    int uni = n->unicode;
    LRESULT res = wnd_call_hwnd(hwnd, m, wp, lp, uni);
    q->recv_depth--;
    if (f) {
        if (f->node) send_reply(f->node, res);   /* not yet replied (ReplyMessage) */
        f->node = NULL;
    } else {
        send_reply(n, res);
    }
    return 1;
}

/* The calling thread's innermost frame, or NULL. */
static struct recv_frame *cur_frame(void)
{
    struct mq *q = mq_self_peek();
    if (!q || !q->recv_depth || q->recv_depth > MSG_RECV_DEPTH) return NULL;
    return &q->recv[q->recv_depth - 1];
}

NSPA_EXPORT BOOL WINAPI ReplyMessage(LRESULT result)
{
    struct recv_frame *f = cur_frame();
    if (!f || !f->node || f->node->kind != NODE_SEND) return FALSE;
    struct msg_node *n = f->node;
    f->node = NULL;
    f->flags |= ISMEX_REPLIED;
    send_reply(n, result);
    return TRUE;
}

NSPA_EXPORT DWORD WINAPI InSendMessageEx(LPVOID reserved)
{
    struct recv_frame *f = cur_frame();
    return f ? f->flags : ISMEX_NOSEND;
}

NSPA_EXPORT BOOL WINAPI InSendMessage(void)
{
    /* as Wine: a SendMessage not yet answered (ReplyMessage ends it) */
    struct recv_frame *f = cur_frame();
    return f && (f->flags & (ISMEX_SEND | ISMEX_REPLIED)) == ISMEX_SEND;
}

/* Withdraw a send that timed out. Returns 1 when the reply came after all (use it). */
static int send_withdraw(struct mq *me, struct mq *r, struct msg_node *n, LRESULT *result)
{
    mq_lock(r);
    if (node_state(n) == NS_QUEUED) {
        struct msg_node *prev = NULL;
        for (struct msg_node *x = r->sent_head; x; prev = x, x = x->next) {
            if (x != n) continue;
            if (prev) prev->next = n->next;
            else r->sent_head = n->next;
            if (r->sent_tail == n) r->sent_tail = prev;
            if (!r->sent_head) r->wake_bits &= ~QS_SENDMESSAGE;
            break;
        }
        mq_unlock(r);
        node_free(n);
        mq_unref(me);                   /* the node's reference to its sender */
        return 0;
    }
    mq_unlock(r);
    mq_lock(me);
    if (node_state(n) == NS_REPLIED) {
        *result = n->result;
        node_free_locked(me, n);
        mq_unlock(me);
        return 1;
    }
    node_set_state(n, NS_ABANDONED);            /* the receiver frees it when it answers */
    mq_unlock(me);
    return 0;
}

/*
 * Send to a window of another thread. @flags/@ms: SendMessageTimeout's (ms INFINITE for
 * SendMessage). @notify: SendNotifyMessage (no wait). Returns 1 with *result, 0 on a
 * timeout (ERROR_TIMEOUT), -1 on an error (last error set).
 */
NSPA_HIDDEN int msg_send(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                         LRESULT *result, int unicode, int notify)
{
    struct wnd *w = wnd_get(hwnd);
    if (!w) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return -1;
    }
    struct mq *r = wnd_q(w);
    struct mq *me = mq_self();
    if (!me) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return -1;
    }
    /* w may be destroyed (and its queue recycled) under us: keep r only if it still
     * counts, then check that w is still the window */
    if (!mq_tryref(r)) {
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return -1;
    }
    if (atomic_load(&w->hwnd) != (uintptr_t)hwnd) {
        mq_unref(r);
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return -1;
    }
    mq_lock(me);
    struct msg_node *n = node_alloc_locked(me);
    mq_unlock(me);
    if (!n) {
        mq_unref(r);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return -1;
    }
    n->kind = notify ? NODE_NOTIFY : NODE_SEND;
    n->hwnd = hwnd;
    n->message = msg;
    n->wparam = wp;
    n->lparam = lp;
    n->time = msg_tick();
    n->unicode = (uint8_t)unicode;
    n->sender = notify ? NULL : me;
    mq_ref(me);                         /* the node's reference to its pool/sender */
    mq_lock(r);
    if (atomic_load_explicit(&r->dead, memory_order_relaxed)) {
        mq_unlock(r);
        mq_unref(r);
        node_free(n);
        mq_unref(me);
        SetLastError(ERROR_INVALID_WINDOW_HANDLE);
        return -1;
    }
    if (r->sent_tail) r->sent_tail->next = n;
    else r->sent_head = n;
    r->sent_tail = n;
    r->wake_bits |= QS_SENDMESSAGE;
    r->changed_bits |= QS_SENDMESSAGE;
    nspa_obj_t ev = mq_wake_locked(r);
    mq_unlock(r);
    mq_signal(ev);
    if (notify) {
        mq_unref(r);
        return 1;
    }
    uint64_t deadline = msg_deadline(ms);
    int block = (flags & SMTO_BLOCK) != 0;
    int ret = 1;
    for (;;) {
        mq_lock(me);
        me->wake_bits &= ~QS_SMRESULT;
        me->changed_bits &= ~QS_SMRESULT;
        if (node_state(n) == NS_REPLIED) {
            *result = n->result;
            node_free_locked(me, n);
            mq_unlock(me);
            break;
        }
        int incoming = !block && me->sent_head;
        mq_unlock(me);
        if (incoming) {
            send_process_one(me);
            continue;
        }
        uint32_t wm = QS_SMRESULT | (block ? 0 : QS_SENDMESSAGE);
        DWORD w8 = msg_wait(me, 0, NULL, deadline, wm, 0, 0);
        if (w8 == WAIT_TIMEOUT) {
            if (send_withdraw(me, r, n, result)) break;
            SetLastError(ERROR_TIMEOUT);
            ret = 0;
            break;
        }
    }
    mq_unref(r);
    return ret;
}
