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
     * be queued again at due + period (periodic entries), 0 to be dropped. */
    int (*fire)(struct tsvc_ent *e, uint64_t now);
    /* the service's */
    int32_t idx;                     /* heap slot, -1 when not queued */
    uint32_t flags;
};

/* Queue @e (not queued now). Returns 0 or -ENOMEM (the heap could not grow: nothing
 * queued). Starts the service thread on first use (-EAGAIN if it cannot start). */
NSPA_HIDDEN int tsvc_add(struct tsvc_ent *e);
/* Take @e off the service: when this returns it is neither queued nor running (a
 * running callback is waited for, except when called from that callback itself).
 * Returns 1 if it was queued or running, 0 if it was idle. */
NSPA_HIDDEN int tsvc_remove(struct tsvc_ent *e);
/* The direct path (docs/time.md): a thread waiting for a timer sleeps until the due
 * time itself and runs the expiry when it wakes, instead of being woken by the service.
 * tsvc_due_mono: @e's due time on CLOCK_MONOTONIC if it is queued (1), else 0.
 * tsvc_run_if_due: run @e's callback now, on this thread, if it is queued and due (1). */
NSPA_HIDDEN int tsvc_due_mono(struct tsvc_ent *e, uint64_t *due);
NSPA_HIDDEN int tsvc_run_if_due(struct tsvc_ent *e);
/* 1 when the caller is the service thread (a callback) */
NSPA_HIDDEN int tsvc_on_service_thread(void);
/* the service thread's kernel thread id, 0 before it started */
NSPA_HIDDEN uint32_t tsvc_thread_tid(void);

/* Win32 FILETIME <-> ns */
#define FT_UNIX_EPOCH 116444736000000000ull     /* 1601 -> 1970 in 100 ns */
#endif
