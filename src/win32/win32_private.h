/* Internal glue between the Win32 layer files. */
#ifndef NSPA_WIN32_PRIVATE_H
#define NSPA_WIN32_PRIVATE_H
#include <stdint.h>
#include "nspa/sync.h"
#include "common/export.h"

NSPA_HIDDEN unsigned int nspa_win32_error(int err);
/* Run the calling thread's queued APCs; returns how many ran. */
NSPA_HIDDEN int nspa__win32_run_apcs(void);
/* The calling thread's APC alert event (auto-reset), created on first use. */
NSPA_HIDDEN nspa_obj_t nspa__win32_apc_event(void);
/* A new real handle to the calling thread's thread object. */
NSPA_HIDDEN int nspa__win32_current_thread_handle(nspa_obj_t *out);
/* The calling thread's own thread object handle (kept by its record; do not close). */
NSPA_HIDDEN nspa_obj_t nspa__win32_current_thread_obj(void);
/* The object a handle of a wait array stands for (GetCurrentThread()/Process() too). */
NSPA_HIDDEN nspa_obj_t nspa__win32_wait_handle(void *h);
/* The calling thread is ending: its message queue and windows go (src/msg/). */
NSPA_HIDDEN void nspa__msg_thread_exit(void);
#include "sync/sync_api.h"            /* the sync core internals the thread code uses */
#endif
