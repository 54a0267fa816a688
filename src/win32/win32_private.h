/* Internal glue between the Win32 layer files. */
#ifndef NSPA_WIN32_PRIVATE_H
#define NSPA_WIN32_PRIVATE_H
#include <stdint.h>
#include "nspa/sync.h"
#include "common/export.h"

NSPA_HIDDEN unsigned int nspa_win32_error(int err);
/* A queued APC. QueueUserAPC's are malloc'ed (release NULL: freed); other modules
 * queue records of their own (release is called before fn runs: copy what fn needs). */
struct nspa_apc {
    struct nspa_apc *next;
    void (*fn)(uintptr_t data);
    uintptr_t data;
    void (*release)(void *apc);
    void (*drop)(void *apc);          /* never run: the thread ended (NULL: release) */
};
/* Queue @a to the thread @tid (its alert event is set). 0, or -ESRCH: the thread is
 * gone (nothing queued). */
NSPA_HIDDEN int nspa__win32_queue_apc(uint32_t tid, struct nspa_apc *a);
/* Run the calling thread's queued APCs; returns how many ran. */
NSPA_HIDDEN int nspa__win32_run_apcs(void);
/* The calling thread's APC alert event (auto-reset), created on first use. */
NSPA_HIDDEN nspa_obj_t nspa__win32_apc_event(void);
/* A new real handle to the calling thread's thread object. */
NSPA_HIDDEN int nspa__win32_current_thread_handle(nspa_obj_t *out);
/* The calling thread's own thread object handle (kept by its record; do not close). */
NSPA_HIDDEN nspa_obj_t nspa__win32_current_thread_obj(void);
#include "sync/sync_api.h"            /* the sync core internals the thread code uses */
#endif
