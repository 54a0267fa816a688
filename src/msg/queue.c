/*
 * Thread message queues: creation on a thread's first message call, lookup by thread
 * id, the node pools, posting, and the end of a queue when its thread exits.
 * Structures and locking rules: msg_internal.h and docs/msg.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "msg/msg_internal.h"
#include "win32/win32_private.h"

/* ---- the tid -> queue table ------------------------------------------------------
 * Linux thread ids are below /proc/sys/kernel/pid_max (at most 4M): one pointer per
 * possible id in a MAP_NORESERVE mapping (pages are touched only where threads have
 * queues). Read without a lock; entries are written by the owner thread only. */
static _Atomic(struct mq *) *tid_tab;
static uint32_t tid_max;
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void)
{
    unsigned long pm = 4194304;
    FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
    if (f) {
        if (fscanf(f, "%lu", &pm) != 1) pm = 4194304;
        fclose(f);
    }
    if (pm > 4194304 || pm < 301) pm = 4194304;
    void *p = mmap(NULL, pm * sizeof(*tid_tab), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    tid_tab = p;
    tid_max = (uint32_t)pm;
}

/* ---- recycled queues ----------------------------------------------------------------
 * Queue memory is never given back: a dead queue whose last reference is gone goes on
 * this list with its node chunks and its event. Taken only when a thread makes its
 * queue and when a queue's last reference goes (never on a post/get/wait path). */
static pthread_mutex_t recycle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mq *recycled;


NSPA_HIDDEN void mq_ref(struct mq *q) { atomic_fetch_add_explicit(&q->refs, 1, memory_order_relaxed); }

static void mq_recycle(struct mq *q)
{
    pthread_mutex_lock(&recycle_lock);
    q->next_free = recycled;
    recycled = q;
    pthread_mutex_unlock(&recycle_lock);
}

NSPA_HIDDEN void mq_unref(struct mq *q)
{
    if (atomic_fetch_sub_explicit(&q->refs, 1, memory_order_acq_rel) == 1) mq_recycle(q);
}

/* A reference to @q unless its count is already zero (it is being recycled): for a
 * queue pointer read without holding a reference (a window's owner queue). */
NSPA_HIDDEN int mq_tryref(struct mq *q)
{
    uint32_t r = atomic_load_explicit(&q->refs, memory_order_relaxed);
    do {
        if (r == 0) return 0;
    } while (!atomic_compare_exchange_weak_explicit(&q->refs, &r, r + 1, memory_order_acquire,
                                                    memory_order_relaxed));
    return 1;
}

/* A reference to the live queue of thread @tid, or NULL. The queue found may be dying
 * or recycled for another thread under us: the reference is taken only while the
 * count is not zero, and the owner is checked again after it. */
NSPA_HIDDEN struct mq *mq_get(uint32_t tid)
{
    if (!tid_tab || tid == 0 || tid >= tid_max) return NULL;
    struct mq *q = atomic_load_explicit(&tid_tab[tid], memory_order_acquire);
    if (!q || !mq_tryref(q)) return NULL;
    if (atomic_load_explicit(&q->tid, memory_order_acquire) != tid ||
        atomic_load_explicit(&q->dead, memory_order_acquire)) {
        mq_unref(q);
        return NULL;
    }
    return q;
}

/* ---- node pools ------------------------------------------------------------------ */

static int pool_grow_locked(struct mq *q)
{
    /* the limit counts posted messages; sent ones come from the sender's pool, so a
     * pool never needs more than the limit plus the sends in flight from its thread */
    if (q->nnodes >= MSG_POST_LIMIT + MSG_RECV_DEPTH * 2) return -ENOSPC;
    struct msg_chunk *c = malloc(sizeof(*c));
    if (!c) return -ENOMEM;
    c->next = q->chunks;
    q->chunks = c;
    for (int i = MSG_CHUNK - 1; i >= 0; i--) {
        c->nodes[i].next = q->free_nodes;
        q->free_nodes = &c->nodes[i];
    }
    q->nnodes += MSG_CHUNK;
    return 0;
}

NSPA_HIDDEN struct msg_node *node_alloc_locked(struct mq *q)
{
    if (!q->free_nodes && pool_grow_locked(q) < 0) return NULL;
    struct msg_node *n = q->free_nodes;
    q->free_nodes = n->next;
    n->next = NULL;
    n->pool = q;
    n->sender = NULL;
    node_set_state(n, NS_QUEUED);
    n->result = 0;
    return n;
}

NSPA_HIDDEN void node_free_locked(struct mq *q, struct msg_node *n)
{
    n->next = q->free_nodes;
    q->free_nodes = n;
}

NSPA_HIDDEN void node_free(struct msg_node *n)
{
    struct mq *p = n->pool;
    mq_lock(p);
    node_free_locked(p, n);
    mq_unlock(p);
}

/* ---- the owner's queue --------------------------------------------------------------- */

static __thread struct mq *self_q;
static pthread_key_t q_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static void mq_thread_exit(void *arg);

/* fork child: only the forking thread exists, with a new thread id; the parent's queues
 * are not its own (their memory stays, unreachable). The tid table goes back to zero
 * pages (a private mapping), and the thread makes a new queue on its next message call. */
static void mq_atfork_child(void)
{
    self_q = NULL;
    if (tid_tab) madvise(tid_tab, (size_t)tid_max * sizeof(*tid_tab), MADV_DONTNEED);
}

static void key_init(void)
{
    pthread_key_create(&q_key, mq_thread_exit);
    pthread_atfork(NULL, NULL, mq_atfork_child);
}

static struct mq *mq_new(void)
{
    pthread_mutex_lock(&recycle_lock);
    struct mq *q = recycled;
    if (q) recycled = q->next_free;
    pthread_mutex_unlock(&recycle_lock);
    if (q) {
        /* a recycled queue keeps its lock, event, chunks and timer array */
        memset((char *)q + offsetof(struct mq, refs), 0, sizeof(*q) - offsetof(struct mq, refs));
        nspa_event_reset(q->event, NULL);
        nspa_event_reset(q->event_all, NULL);
        return q;
    }
    q = calloc(1, sizeof(*q));
    if (!q) return NULL;
    struct nspa_event_args ea = { 0, 0 };
    if (nspa_create_event(&ea, NULL, &q->event) < 0 || nspa_create_event(&ea, NULL, &q->event_all) < 0 ||
        pool_grow_locked(q) < 0) {
        if (q->event) nspa_close(q->event);
        if (q->event_all) nspa_close(q->event_all);
        free(q->chunks);
        free(q);
        return NULL;
    }
    return q;
}

NSPA_HIDDEN struct mq *mq_self_peek(void) { return self_q; }

NSPA_HIDDEN struct mq *mq_self(void)
{
    struct mq *q = self_q;
    if (__builtin_expect(q != NULL, 1)) return q;
    pthread_once(&tab_once, tab_init);
    pthread_once(&key_once, key_init);
    uint32_t tid = nspa_thread_id();
    if (!tid_tab || tid >= tid_max) return NULL;
    q = mq_new();
    if (!q) return NULL;
    atomic_store(&q->refs, 1);                  /* the owner's reference */
    atomic_store(&q->dead, 0);
    atomic_store_explicit(&q->tid, tid, memory_order_release);
    self_q = q;
    pthread_setspecific(q_key, q);
    atomic_store_explicit(&tid_tab[tid], q, memory_order_release);
    return q;
}

/* The thread is gone (pthread key destructor, also after ExitThread): its windows are
 * destroyed, every message sent to it and not answered is answered 0 (SendMessage
 * callers return), posted messages and timers are dropped. */
static void mq_thread_exit(void *arg)
{
    struct mq *q = arg;
    uint32_t tid = atomic_load(&q->tid);
    wnd_destroy_thread(tid);
    atomic_store_explicit(&tid_tab[tid], NULL, memory_order_release);
    mq_lock(q);
    atomic_store_explicit(&q->dead, 1, memory_order_release);
    struct msg_node *sent = q->sent_head;
    q->sent_head = q->sent_tail = NULL;
    for (struct msg_node *n = q->post_head, *nx; n; n = nx) {
        nx = n->next;
        node_free_locked(q, n);
    }
    q->post_head = q->post_tail = NULL;
    q->nposted = 0;
    q->ntimers = 0;
    for (uint32_t i = 0; i < q->timer_cap; i++) q->timers[i].used = 0;
    mq_unlock(q);
    timers_stop(q);                  /* no expiry of the queue's timer runs after this */
    /* messages received and being processed when the thread ended (ExitThread inside a
     * window procedure): their senders are answered too */
    for (uint32_t i = q->recv_depth < MSG_RECV_DEPTH ? q->recv_depth : MSG_RECV_DEPTH; i-- > 0;)
        if (q->recv[i].node) send_reply(q->recv[i].node, 0);
    q->recv_depth = 0;
    send_queue_dead(sent);
    self_q = NULL;
    mq_unref(q);
}

/* ---- posting --------------------------------------------------------------------- */

NSPA_HIDDEN DWORD msg_tick(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (DWORD)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

/* Wake the owner if it is armed and what it armed for holds now. Queue lock held.
 * The owner is disarmed here; the event to set is returned, to be set by the caller
 * once it has let go of the lock (mq_signal), except for a wait-all, whose event is set
 * here, under the lock (msg_internal.h: why). */
NSPA_HIDDEN nspa_obj_t mq_wake_locked(struct mq *q)
{
    if (q->waiting && ((q->wake_bits & q->wake_mask) || (q->changed_bits & q->changed_mask))) {
        q->waiting = 0;
        if (!q->armed_all) return q->event;
        nspa_event_set(q->event_all, NULL);
    }
    return 0;
}

NSPA_HIDDEN void mq_signal(nspa_obj_t ev)
{
    if (ev) nspa_event_set(ev, NULL);
}

/* Post to queue @q (a reference held by the caller). Returns 0, -ENOSPC (the limit of
 * posted messages), -ENOMEM, -ESRCH (the queue died). */
NSPA_HIDDEN int mq_post(struct mq *q, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp)
{
    mq_lock(q);
    if (atomic_load_explicit(&q->dead, memory_order_relaxed)) {
        mq_unlock(q);
        return -ESRCH;
    }
    if (q->nposted >= MSG_POST_LIMIT) {
        mq_unlock(q);
        return -ENOSPC;
    }
    struct msg_node *n = node_alloc_locked(q);
    if (!n) {
        mq_unlock(q);
        return -ENOMEM;
    }
    n->kind = NODE_POST;
    n->hwnd = hwnd;
    n->message = msg;
    n->wparam = wp;
    n->lparam = lp;
    n->time = msg_tick();
    if (q->post_tail) q->post_tail->next = n;
    else q->post_head = n;
    q->post_tail = n;
    q->nposted++;
    q->wake_bits |= QS_POSTMESSAGE | QS_ALLPOSTMESSAGE;
    q->changed_bits |= QS_POSTMESSAGE | QS_ALLPOSTMESSAGE;
    nspa_obj_t ev = mq_wake_locked(q);
    mq_unlock(q);
    mq_signal(ev);     /* the caller's reference keeps q (and its event) alive */
    return 0;
}

/* Win32 thread end (thread_finish): the queue goes before the thread's handle is
 * signaled, so a thread waiting for the handle sees its windows gone. Threads that end
 * otherwise (pthread_exit of a foreign thread) lose it in the key destructor. */
NSPA_HIDDEN void nspa__msg_thread_exit(void)
{
    struct mq *q = self_q;
    if (!q) return;
    pthread_setspecific(q_key, NULL);
    mq_thread_exit(q);
}
