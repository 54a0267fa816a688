/*
 * nspa/timer.h — waitable timers (NT timer objects) served by NSPA's timer service.
 *
 * A timer is an object of the sync core (nspa/sync.h): waited for with nspa_wait_any /
 * nspa_wait_all among any other objects, closed with nspa_close, named in a namespace
 * like events (nspa_open(NSPA_TYPE_TIMER, ...)). A notification (manual) timer stays
 * signaled until it is set again and wakes every waiter; a synchronization (auto)
 * timer wakes exactly one, highest priority first.
 *
 * Expiries are run by one service thread per process (SCHED_FIFO NSPA_RT_PRIO - 1 in RT
 * mode, 1 ns timer slack, no tick; docs/time.md). A timer fires from the service of the
 * process that set it last; a set or cancel from any process supersedes earlier arms.
 * Conventions as nspa/sync.h: 0 or -errno.
 */
#ifndef NSPA_TIMER_H
#define NSPA_TIMER_H
#include <stdint.h>
#include "nspa/sync.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * nspa_create_timer - a new timer, or the existing one of that @name (NSPA_EXISTED).
 *   @manual: 1 notification timer, 0 synchronization timer. Errors as nspa_create_event.
 */
int nspa_create_timer(int manual, const char *name, nspa_obj_t *out);

/* nspa_timer_args.flags */
#define NSPA_TIMER_REALTIME 0x1   /* due is CLOCK_REALTIME ns: follows wall-clock changes */

struct nspa_timer_args {
    uint64_t due;        /* absolute ns on CLOCK_MONOTONIC (or CLOCK_REALTIME); a due time
                          * in the past fires at once */
    uint64_t period;     /* ns between expiries; 0 = one-shot */
    uint32_t flags;      /* NSPA_TIMER_REALTIME */
    uint32_t pad;
    /* optional: called on the service thread after each expiry has signaled the timer,
     * with the expiry's CLOCK_REALTIME time; keep it short (it delays other timers) */
    void (*fn)(void *ctx, uint64_t realtime_ns);
    void *ctx;
    /* optional: called once when @ctx is no longer used (re-set, cancel, one-shot
     * fired, timer gone) */
    void (*release)(void *ctx);
};

/*
 * nspa_timer_set - (re)arm: the timer becomes unsignaled and expires at @args->due,
 *   then every period. Returns 0, -EBADF, -EINVAL (not a timer, bad flags), -EFAULT,
 *   -ENOMEM. On failure @args->release is not called.
 * nspa_timer_cancel - disarm (the signaled state is left alone). 0, -EBADF, -EINVAL.
 * nspa_timer_read - *signaled: the current state. 0, -EBADF, -EINVAL, -EFAULT.
 */
int nspa_timer_set(nspa_obj_t timer, const struct nspa_timer_args *args);
int nspa_timer_cancel(nspa_obj_t timer);
int nspa_timer_read(nspa_obj_t timer, int *manual, int *signaled);

#ifdef __cplusplus
}
#endif
#endif
