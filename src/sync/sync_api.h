/* The sync core's interface to the other modules of the library (the Win32 layer):
 * hidden, declared once here. */
#ifndef NSPA_SYNC_API_H
#define NSPA_SYNC_API_H
#include <stdint.h>
#include "nspa/sync.h"
#include "common/export.h"

/* Win32 thread objects: a manual event set at the thread's end, with its id and exit
 * code */
NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out);
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code);
NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled);
NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid);
/* the calling thread is leaving (ExitThread): its mutexes are abandoned now */
NSPA_HIDDEN void nspa__thread_unregister(void);
/* WaitForSingleObject's path: one handle, the caller's thread id as owner */
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout);
/* Waitable timers (timerobj.c): the object is an event-like kind whose `max` holds the
 * arm generation. Arm (set or cancel) bumps the generation under the object lock, so a
 * pending expiry armed before, by any process, finds it stale and does nothing. */
NSPA_HIDDEN int nspa__timer_create(int manual, const char *name, nspa_obj_t *out);
/* bump the generation (*gen: the new one); @reset: also make the timer unsignaled */
NSPA_HIDDEN int nspa__timer_arm(nspa_obj_t h, int reset, uint32_t *gen);
/* an expiry armed at @gen: signal and serve the queue. Returns 0, -ESTALE (re-armed or
 * cancelled since), -EBADF/-EINVAL; *refs: the object's handle count (1 = only ours). */
NSPA_HIDDEN int nspa__timer_fire(nspa_obj_t h, uint32_t gen, uint32_t *refs);
NSPA_HIDDEN int nspa__timer_read(nspa_obj_t h, int *manual, int *signaled, uint32_t *gen);
/* The timer service's direct path (docs/time.md): a wait on timers armed in this
 * process sleeps only until the earliest due time, then runs that expiry on the
 * waiting thread. due: the due time (CLOCK_MONOTONIC ns) of the timer whose key is
 * @key, if armed here (1), else 0; expire: run its expiry if it is due. */
struct nspa__timer_hooks {
    int (*due)(uintptr_t key, uint64_t *mono_ns);
    void (*expire)(uintptr_t key);
};
NSPA_HIDDEN void nspa__set_timer_hooks(const struct nspa__timer_hooks *h);
/* a key naming the object behind @h in this process (0: not a handle) */
NSPA_HIDDEN uintptr_t nspa__obj_key(nspa_obj_t h);
#endif
