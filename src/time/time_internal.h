/*
 * The time module's private interface: the timer service (service.c) and what is
 * built on it (waitable timers, timer queues, thread pools, multimedia timers).
 */
#ifndef NSPA_TIME_INTERNAL_H
#define NSPA_TIME_INTERNAL_H
#include <stdint.h>
#include <time.h>
#include "common/export.h"

/* One pending expiry of the timer service. The owner allocates it and keeps it alive
 * until tsvc_remove() returned (or, for an entry that removes itself from its own
 * callback, until the callback returned). All fields are the service's while the
 * entry is queued or running; set them before tsvc_add(). */
struct tsvc_ent {
    uint64_t due;                    /* absolute ns on `clock` */
    uint64_t period;                 /* ns; 0: one-shot */
    clockid_t clock;                 /* CLOCK_MONOTONIC, or CLOCK_REALTIME (follows the
                                      * wall clock: absolute Win32 due times) */
    /* Runs on the service thread with no lock held, at `due` (or late). Return 1 to
     * be queued again at due + period (periodic entries), 0 to be dropped,
     * TSVC_RELEASE to be dropped and handed to release() once the service is done
     * with it (an entry that ended itself from its own callback). */
    int (*fire)(struct tsvc_ent *e, uint64_t now);
    void (*release)(struct tsvc_ent *e);
    /* the service's */
    int32_t idx;                     /* heap slot, -1 when not queued */
    uint32_t flags;
    uint64_t grace;                  /* not served before this (on `clock`): a local waiter
                                      * behind the schedule left its wait (tsvc_uncommit) */
};

#define TSVC_RELEASE 2

/* Queue @e (not queued now). Returns 0 or -ENOMEM (the heap could not grow: nothing
 * queued). Starts the service thread on first use (-EAGAIN if it cannot start). */
NSPA_HIDDEN int tsvc_add(struct tsvc_ent *e);
/* Take @e off the service: when this returns it is neither queued nor running (a
 * running callback is waited for, except when called from that callback itself).
 * Returns 1 if it was queued or running, 0 if it was idle. */
NSPA_HIDDEN int tsvc_remove(struct tsvc_ent *e);
/* The direct path (docs/time.md): a thread waiting for a timer sleeps until the due
 * time itself and runs the expiry when it wakes, instead of being woken by the service.
 * tsvc_due_mono: @e's due time on CLOCK_MONOTONIC if it is queued (1), else 0; the
 * caller is then committed to run it (the service leaves it to the caller).
 * tsvc_run_if_due: run @e's callback now, on this thread, if it is queued and due (1). */
NSPA_HIDDEN int tsvc_due_mono(struct tsvc_ent *e, uint64_t *due);
/* the caller's wait ends without running @e's expiry (it got something else, or its
 * own timeout comes first): the service serves it again (tsvc_due_mono committed the
 * caller to it) */
NSPA_HIDDEN void tsvc_uncommit(struct tsvc_ent *e);
NSPA_HIDDEN int tsvc_run_if_due(struct tsvc_ent *e);
/* 1 when the caller is the service thread (a callback) */
NSPA_HIDDEN int tsvc_on_service_thread(void);
/* the service thread's kernel thread id, 0 before it started */
NSPA_HIDDEN uint32_t tsvc_thread_tid(void);

/* ---- the thread pools (pool.c) -------------------------------------------------------
 * A pool: workers made on demand up to its maximum (kept down to its minimum), each
 * retiring after TP_IDLE_MS without work; three FIFO queues (high, normal, low). An
 * object (work, timer, wait, a simple callback, a legacy item) is queued once however
 * many submissions it has: `pending` counts them. Everything below is under the pool's
 * lock (a CRITICAL_SECTION: priority-inheriting in RT mode) except the callbacks. */
#define TP_IDLE_MS 1000
struct tp_pool;
struct tp_group;
struct tp_inst;
struct tp_obj {
    struct tp_pool *pool;
    struct tp_obj *qnext;                /* queue link */
    uint8_t queued, prio, closed, long_fn;
    uint8_t free_after_run;              /* simple callbacks, legacy items: freed after */
    uint32_t pending, running, waiters;
    uintptr_t arg;                       /* the last submission's payload (wait result) */
    /* runs the user's callback */
    void (*invoke)(struct tp_obj *o, struct tp_inst *inst, uintptr_t arg);
    void *fn, *ctx;
    void (*destroy)(struct tp_obj *o);   /* frees the object (after close, when idle) */
    void (*stop)(struct tp_obj *o);      /* timers and waits: no new submissions */
    void *done_event;                    /* legacy deletes: a HANDLE set when idle */
    struct tp_group *group;
    struct tp_obj *gnext, *gprev;
    void (*cancel_cb)(void *, void *);   /* the environment's cleanup-group cancel callback */
    void (*fin_cb)(void *, void *);      /* the environment's finalization callback */
    uint32_t kind;                       /* TPK_* (win32_pool.c checks it) */
};
enum { TPK_WORK = 0x574f524b, TPK_TIMER = 0x54494d52, TPK_WAIT = 0x57414954, TPK_SIMPLE = 0x53494d50,
       TPK_LEGACY = 0x4c454743, TPK_IO = 0x54504f49 };

NSPA_HIDDEN struct tp_pool *tp_default_pool(void);
NSPA_HIDDEN struct tp_pool *tp_pool_new(void);
NSPA_HIDDEN void tp_pool_close(struct tp_pool *p);
NSPA_HIDDEN void tp_pool_set_max(struct tp_pool *p, uint32_t max);
NSPA_HIDDEN int tp_pool_set_min(struct tp_pool *p, uint32_t min);
/* bind @o (zeroed by the caller, invoke/fn/ctx set) to @p; env fields may be NULL */
NSPA_HIDDEN void tp_obj_init(struct tp_obj *o, struct tp_pool *p, int prio, int long_fn);
/* a Vista object's kind, callback and environment (a PTP_CALLBACK_ENVIRON or NULL:
 * pool, priority, cleanup group, its callbacks; win32_pool.c) */
NSPA_HIDDEN void tp_env_setup(struct tp_obj *o, uint32_t kind, void *fn, void *ctx, void *env);
NSPA_HIDDEN void tp_submit(struct tp_obj *o, uintptr_t arg);
/* run one submission of @o on the calling thread now (timer / wait thread callbacks) */
NSPA_HIDDEN void tp_run_inline(struct tp_obj *o, uintptr_t arg);
/* drop pending submissions (returns how many); wait for running callbacks, except the
 * caller's own */
NSPA_HIDDEN uint32_t tp_cancel_pending(struct tp_obj *o);
NSPA_HIDDEN void tp_wait_callbacks(struct tp_obj *o, int cancel);
/* submissions of @o handed to the pool and not started yet */
NSPA_HIDDEN uint32_t tp_pending(struct tp_obj *o);
/* callbacks of @o running now (the caller's own one counted if @count_self) */
NSPA_HIDDEN int tp_busy(struct tp_obj *o, int count_self);
/* close: destroyed now if idle, else by the last callback; @done (a HANDLE or NULL)
 * is set when it is idle */
NSPA_HIDDEN void tp_obj_close(struct tp_obj *o, void *done);
/* every destroy calls it: the object leaves its group and its pool (pool.c) */
NSPA_HIDDEN void tp_obj_release(struct tp_obj *o);
/* the object whose callback the calling thread runs, or NULL */
NSPA_HIDDEN struct tp_obj *tp_current(void);
/* cleanup groups */
NSPA_HIDDEN struct tp_group *tp_group_new(void);
NSPA_HIDDEN void tp_group_add(struct tp_group *g, struct tp_obj *o);
NSPA_HIDDEN void tp_group_remove(struct tp_obj *o);
NSPA_HIDDEN void tp_group_close_members(struct tp_group *g, int cancel, void *cleanup_ctx);
NSPA_HIDDEN void tp_group_free(struct tp_group *g);
/* instances (the PTP_CALLBACK_INSTANCE of a running callback) */
struct tp_inst {
    struct tp_obj *o;
    void *set_event, *rel_sem, *rel_mutex, *free_lib;
    uint32_t sem_count;
    void *leave_cs;
    int disassociated, may_run_long;
};
NSPA_HIDDEN int tp_inst_may_run_long(struct tp_inst *i);
NSPA_HIDDEN void tp_inst_disassociate(struct tp_inst *i);

/* ---- the wait threads (waitsvc.c): RegisterWaitForSingleObject, thread-pool waits -- */
struct wsvc_reg {
    void *h;                             /* the HANDLE waited for */
    uint64_t deadline;                   /* CLOCK_MONOTONIC ns, UINT64_MAX: none */
    uint32_t timeout_ms;                 /* repeated waits: the next deadline's interval */
    uint8_t once, in_wait_thread;
    struct tp_obj *obj;                  /* submitted (or run inline) with the result */
    void *thr;                           /* the wait thread that has it, or NULL */
};
NSPA_HIDDEN int wsvc_add(struct wsvc_reg *r);
/* take it off its wait thread; waits for an inline callback of it that runs now,
 * unless called from that callback. Returns 1 if it was registered. */
NSPA_HIDDEN int wsvc_remove(struct wsvc_reg *r);

/* Win32 FILETIME <-> ns */
#define FT_UNIX_EPOCH 116444736000000000ull     /* 1601 -> 1970 in 100 ns */
#endif
