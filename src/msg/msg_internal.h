/*
 * Thread message queues, message-only windows, cross-thread SendMessage and WM_TIMER:
 * the structures and the private functions shared between src/msg/ files. The design
 * and its locking rules are in docs/msg.md; in short:
 *
 *  - Every queue has its own lock, a priority-inheriting futex word (q->lock: 0 or
 *    the owner's tid, FUTEX_LOCK_PI when contended: the kernel queues waiters by
 *    priority and boosts the owner; the locks module's internal PI lock). An
 *    uncontended lock and unlock are one compare-and-swap each (glibc's PI mutex spent
 *    ~120 instructions on a pair, 6 pairs per post round trip). There is no global lock on any post, get, send or wait path. Nobody
 *    holds two queue locks at once. A queue lock may be held while the queue's event
 *    is set (queue lock, then the sync core's object lock; never the other way).
 *  - Queues are found by thread id through a lock-free table (tid -> queue) and kept
 *    alive by a reference count; their memory is never given back to the system
 *    (a recycled queue keeps its node chunks and its event), so a racing lookup that
 *    loses to the owner's exit reads a valid queue and sees it dead or reused.
 *  - Message nodes come from per-queue pools filled in chunks; a post or a send takes a
 *    node off a free list (no allocation while the pool has nodes; the pool grows by one
 *    chunk when it runs dry, never beyond the 10,000-message limit).
 *  - The queue's "look at me" signal is an auto-reset NSPA event in the sync core's
 *    handle table, so that a wait can put it beside any other objects
 *    (MsgWaitForMultipleObjects) and be woken in one hand-off. A poster sets it only
 *    while the owner is armed (q->waiting) and the QS_ rule it armed with holds, and
 *    disarms it under the queue lock. Two events:
 *      q->event      for waits on the queue or any of several objects. The poster sets
 *                    it *after* unlocking (the woken owner would otherwise run into the
 *                    lock still held: a PI-futex sleep and wake per message), so a set
 *                    may land late, after the owner has moved on: such a stale signal
 *                    only ever makes the owner look again (msg_wait re-checks the rule
 *                    under the lock and waits again when it does not hold).
 *      q->event_all  for MWMO_WAITALL, where a stale signal would take the other
 *                    objects for nothing: set only under the queue lock, so it is
 *                    signaled exactly when an armed wait-all's rule held, and reset by
 *                    the owner when its wait ended otherwise.
 *  - WM_TIMER comes from one NT timer object per queue on the timer service (timer.c):
 *    armed by the owner only, never under the queue lock (the service waits for a
 *    running expiry callback when it re-arms, and the callback takes the queue lock).
 *    Order: timer module locks, then the queue lock, then sync object locks.
 */
#ifndef NSPA_MSG_INTERNAL_H
#define NSPA_MSG_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "locks/futex.h"        /* nspa_pilock_lock/unlock: the internal PI lock */
#include "common/platform.h"

#define MSG_POST_LIMIT   10000        /* Windows' USERPostMessageLimit default */
#define MSG_CHUNK        128          /* nodes per pool chunk */
#define MSG_RECV_DEPTH   64           /* nested received SendMessage calls tracked */
#define QS_SMRESULT      0x8000       /* internal: a reply to our SendMessage arrived */

enum node_kind { NODE_POST, NODE_SEND, NODE_NOTIFY };
enum node_state { NS_QUEUED, NS_PROCESSING, NS_REPLIED, NS_ABANDONED };

struct mq;

struct msg_node {
    struct msg_node *next;
    HWND hwnd;
    UINT message;
    WPARAM wparam;
    LPARAM lparam;
    DWORD time;
    uint8_t kind;                     /* node_kind */
    uint8_t unicode;                  /* sent: the sender called the W function */
    uint8_t state;                    /* sent: node_state (see send.c) */
    struct mq *pool;                  /* the queue whose pool it came from */
    struct mq *sender;                /* NODE_SEND: the waiting sender (a reference) */
    LRESULT result;
};

/* A sent node's state is changed under one of two locks (send.c: the receiver's, or the
 * sender's) and read under the other: relaxed atomics, the locks order the rest. */
static inline uint8_t node_state(const struct msg_node *n) { return __atomic_load_n(&n->state, __ATOMIC_RELAXED); }
static inline void node_set_state(struct msg_node *n, uint8_t s) { __atomic_store_n(&n->state, s, __ATOMIC_RELAXED); }

struct msg_chunk {
    struct msg_chunk *next;
    struct msg_node nodes[MSG_CHUNK];
};

struct mtimer {
    HWND hwnd;
    UINT_PTR id;
    TIMERPROC proc;
    uint64_t period_ns;
    uint64_t due_ns;                  /* next expiry (CLOCK_MONOTONIC) */
    int signaled;                     /* expired, WM_TIMER not yet removed (coalescing) */
    int used;
};

/* one received cross-thread SendMessage being processed by the owner (ReplyMessage,
 * InSendMessageEx) */
struct recv_frame {
    struct msg_node *node;            /* NULL once replied */
    DWORD flags;                      /* ISMEX_* */
};

struct mq {
    /* kept when the queue is recycled (queue.c) */
    _Atomic uint32_t lock;            /* PI futex word; everything marked (L) */
    nspa_obj_t event, event_all;      /* auto-reset, see the header comment */
    struct mq *next_free;             /* the recycled-queue list */
    struct msg_chunk *chunks;         /* (L) */
    struct msg_node *free_nodes;      /* (L) */
    uint32_t nnodes;                  /* (L) nodes in the pool (free or not) */
    struct mtimer *timers;            /* (L) */
    uint32_t timer_cap;
    nspa_obj_t timer;                 /* the NT timer WM_TIMER comes from (timer.c), made
                                       * with the first SetTimer, 0 before */
    /* cleared when recycled: from here on */
    _Atomic uint32_t refs;
    _Atomic uint32_t tid;             /* owner thread id */
    _Atomic int dead;
    /* (L) */
    struct msg_node *post_head, *post_tail;
    uint32_t nposted;
    struct msg_node *sent_head, *sent_tail;
    uint32_t wake_bits, changed_bits;
    uint32_t wake_mask, changed_mask;
    int waiting;                      /* armed: the owner sleeps (or is about to) on event */
    int armed_all;                    /* ... on event_all (MWMO_WAITALL) */
    int quit;
    int quit_code;
    uint32_t ntimers;                 /* (L), changed by the owner only */
    int timer_waited;                 /* the armed wait holds q->timer in its set */
    /* owner thread only */
    uint64_t tmr_due, tmr_period;     /* q->timer's arm: first expiry, period (timer.c) */
    int tmr_armed, tmr_failed;        /* armed; the last arm failed (waits bound themselves) */
    DWORD msg_time;
    uint32_t recv_depth;
    struct recv_frame recv[MSG_RECV_DEPTH];
};

/* ---- queue.c -------------------------------------------------------------------- */
static inline void mq_lock(struct mq *q) { nspa_pilock_lock(&q->lock); }
static inline void mq_unlock(struct mq *q) { nspa_pilock_unlock(&q->lock); }
NSPA_HIDDEN struct mq *mq_self(void);            /* the caller's queue, made on first use */
NSPA_HIDDEN struct mq *mq_self_peek(void);       /* the caller's queue or NULL */
NSPA_HIDDEN struct mq *mq_get(uint32_t tid);     /* a reference, or NULL: no queue */
NSPA_HIDDEN void mq_ref(struct mq *q);
NSPA_HIDDEN int mq_tryref(struct mq *q);       /* 0: the count was zero */
NSPA_HIDDEN void mq_unref(struct mq *q);
NSPA_HIDDEN struct msg_node *node_alloc_locked(struct mq *q);
NSPA_HIDDEN void node_free_locked(struct mq *q, struct msg_node *n);
NSPA_HIDDEN void node_free(struct msg_node *n);  /* takes n->pool's lock */
NSPA_HIDDEN nspa_obj_t mq_wake_locked(struct mq *q);   /* set the result after unlocking */
NSPA_HIDDEN void mq_signal(nspa_obj_t ev);
NSPA_HIDDEN int mq_post(struct mq *q, HWND hwnd, UINT msg, WPARAM wp, LPARAM lp);
NSPA_HIDDEN DWORD msg_tick(void);

/* ---- get.c: peeking and waiting (the owner thread) ------------------------------- */
/* what GetMessage's wait needs from the peek that armed it: where the queue's timer
 * should fire (want, UINT64_MAX: no timer; its period), the next due time of a timer
 * not pending (np), the time the peek looked (timers_next_due_locked) */
struct msg_arm {
    uint64_t want, period, np, now;
};
NSPA_HIDDEN int msg_peek(MSG *msg, HWND hwnd, UINT first, UINT last, UINT flags, int unicode, struct msg_arm *arm);
NSPA_HIDDEN void msg_get_wait(struct mq *q, const struct msg_arm *arm);
NSPA_HIDDEN DWORD msg_wait(struct mq *q, DWORD count, const nspa_obj_t *objs, uint64_t deadline,
                           uint32_t wake_mask, uint32_t changed_mask, DWORD flags);
NSPA_HIDDEN uint64_t msg_deadline(DWORD ms);

/* ---- send.c ---------------------------------------------------------------------- */
NSPA_HIDDEN int send_process_one(struct mq *q);  /* 1 when a sent message was processed */
NSPA_HIDDEN void send_reply(struct msg_node *n, LRESULT result);
NSPA_HIDDEN void send_queue_dead(struct msg_node *sent);   /* a dying queue's sent list */
NSPA_HIDDEN int msg_send(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, UINT flags, UINT ms,
                         LRESULT *result, int unicode, int notify);

/* ---- timer.c --------------------------------------------------------------------- */
NSPA_HIDDEN void timers_update_locked(struct mq *q, uint64_t now);
NSPA_HIDDEN uint64_t timers_next_due_locked(struct mq *q, uint64_t now, uint64_t *period, uint64_t *np);
NSPA_HIDDEN void timers_arm(struct mq *q, uint64_t want, uint64_t period, uint64_t now);   /* owner, unlocked */
NSPA_HIDDEN void timers_sync(struct mq *q);                 /* owner, unlocked */
NSPA_HIDDEN void timers_stop(struct mq *q);                 /* owner at its end, unlocked */
NSPA_HIDDEN int timers_take_locked(struct mq *q, HWND hwnd, int any_hwnd, int thread_only, int remove,
                                   uint64_t now, MSG *msg);
NSPA_HIDDEN void timers_kill_window_locked(struct mq *q, HWND hwnd);
NSPA_HIDDEN int timers_has_proc(HWND hwnd, UINT_PTR id, TIMERPROC proc);

/* ---- window.c -------------------------------------------------------------------- */
struct wclass;
struct wnd {
    _Atomic uintptr_t hwnd;           /* this slot's current HWND, 0 while free */
    uint16_t gen;
    uint32_t tid;
    struct mq *q;                     /* owner queue (a reference) */
    struct wclass *cls;
    _Atomic(WNDPROC) proc;
    _Atomic int unicode;              /* proc takes W messages */
    _Atomic(LONG_PTR) userdata, id, style, exstyle, inst;
    uint8_t *extra;                   /* cbWndExtra bytes (kept across slot reuse) */
    uint32_t cbextra, extra_cap;
    uint16_t *text;                   /* window text (UTF-16, owner thread) */
    int destroying;
    uint32_t next_free;               /* the free slots (index + 1, common/slots.h) */
    uint32_t slot;                    /* its index: the HWND's low 16 bits - 1 */
};
NSPA_HIDDEN struct wnd *wnd_get(HWND hwnd);      /* the live window, or NULL */
/* a window's owner, read by any thread while the slot may be reused under it (the
 * caller checks the handle again after using the value) */
static inline uint32_t wnd_tid(const struct wnd *w) { return __atomic_load_n(&w->tid, __ATOMIC_RELAXED); }
static inline struct mq *wnd_q(const struct wnd *w) { return __atomic_load_n(&w->q, __ATOMIC_RELAXED); }
NSPA_HIDDEN void wnd_destroy_thread(uint32_t tid);   /* a dying thread's windows */
NSPA_HIDDEN LRESULT wnd_call(struct wnd *w, WNDPROC proc, int proc_unicode, HWND hwnd, UINT msg, WPARAM wp,
                             LPARAM lp, int caller_unicode);
NSPA_HIDDEN LRESULT wnd_call_hwnd(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, int caller_unicode);
NSPA_HIDDEN void wnd_set_text(struct wnd *w, const uint16_t *text);
NSPA_HIDDEN LRESULT wnd_default(HWND hwnd, UINT msg, WPARAM wp, LPARAM lp, int unicode);
NSPA_HIDDEN struct wnd *wnd_new(const uint16_t *cls_name, DWORD exstyle, DWORD style, HINSTANCE inst,
                                HMENU menu, WNDPROC *proc, int *unicode, struct mq *q);
NSPA_HIDDEN void wnd_free(struct wnd *w);
NSPA_HIDDEN HWND wnd_find(HWND after, const uint16_t *cls, const uint16_t *title);
NSPA_HIDDEN ATOM cls_register(const uint16_t *name, UINT style, WNDPROC proc, int cbcls, int cbwnd,
                              HINSTANCE inst, int unicode);
NSPA_HIDDEN BOOL cls_unregister(const uint16_t *name);

/* ---- atom.c ---------------------------------------------------------------------- */
NSPA_HIDDEN UINT atom_register(const uint16_t *name);   /* 0: failed, last error set */

/* ---- text.c: A/W conversions (ANSI is UTF-8) ------------------------------------- */
NSPA_HIDDEN uint16_t *text_a_to_w(const char *s);       /* malloc'd, NULL: s NULL or no memory */
NSPA_HIDDEN char *text_w_to_a(const uint16_t *s);
#include "unicode/wstr.h"
NSPA_HIDDEN uint16_t *wdup(const uint16_t *s);
NSPA_HIDDEN int wcmpi(const uint16_t *a, const uint16_t *b);

static inline void msg_fail(DWORD err) { SetLastError(err); }
#endif
