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
/* Kinds that are not waitable (file mappings): an object of @type whose word, max and
 * ext carry the kind's own data; named ones are shared by the namespace. Create returns
 * 0, NSPA_EXISTED (same type: a new handle to it) or -EEXIST (another type). */
NSPA_HIDDEN int nspa__obj_create_data(int type, uint64_t word, uint32_t max, uint32_t ext,
                                      const char *name, nspa_obj_t *out);
NSPA_HIDDEN int nspa__obj_data(nspa_obj_t h, int type, uint64_t *word, uint32_t *max, uint32_t *ext);
/* @fn runs when an object of @type is freed (its last reference gone, in whichever
 * process drops it, a sweep of a dead process included), under the object's lock */
NSPA_HIDDEN void nspa__obj_on_free(int type, void (*fn)(uint64_t word, uint32_t max, uint32_t ext));
/* the namespace region's file path (the directory is private to the user), or NULL */
NSPA_HIDDEN const char *nspa__ns_path(void);
#endif
