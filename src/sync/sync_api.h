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
/* exit objects in general: NSPA_TYPE_THREAD or NSPA_TYPE_PROCESS (same shape: id, exit
 * code, signaled at the end) */
NSPA_HIDDEN int nspa__create_exit_obj(int type, uint32_t id, nspa_obj_t *out);
NSPA_HIDDEN int nspa__exit_obj_signal(nspa_obj_t h, int type, uint32_t exit_code);
NSPA_HIDDEN int nspa__exit_obj_set_id(nspa_obj_t h, int type, uint32_t id);
NSPA_HIDDEN int nspa__exit_obj_info(nspa_obj_t h, int type, uint32_t *id, uint32_t *exit_code, int *signaled);
/* nspa_create_sem/mutex/event (args of that type) with @shared: an unnamed object is
 * made in the namespace region, so that its handles can cross processes (Win32: an
 * inheritable handle at creation) */
NSPA_HIDDEN int nspa__create_obj(int type, const void *args, const char *name, int shared, nspa_obj_t *out);
/* handle inheritance across exec and handles of other processes (inherit.c) */
NSPA_HIDDEN int nspa__handoff_prepare(uint32_t *slot);       /* the parent, before the spawn */
NSPA_HIDDEN void nspa__handoff_commit(uint32_t slot, int32_t child);   /* after it */
NSPA_HIDDEN void nspa__handoff_cancel(uint32_t slot);        /* the spawn failed */
NSPA_HIDDEN void nspa__handoff_reap(uint32_t slot, int32_t child);     /* the child ended */
NSPA_HIDDEN int nspa__dup_to_process(nspa_obj_t h, int32_t pid, nspa_obj_t *remote);
NSPA_HIDDEN int nspa__dup_from_process(int32_t pid, nspa_obj_t remote, nspa_obj_t *out);
/* the calling thread is leaving (ExitThread): its mutexes are abandoned now */
NSPA_HIDDEN void nspa__thread_unregister(void);
/* WaitForSingleObject's path: one handle, the caller's thread id as owner */
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout);
/* the process code's wait on one process object (wait.c calls it when the object is not
 * signaled; it returns 0, -ETIMEDOUT, or 1 to let the ordinary wait run) */
NSPA_HIDDEN void nspa__set_proc_wait_hook(int (*fn)(nspa_obj_t h, uint64_t timeout));
#endif
