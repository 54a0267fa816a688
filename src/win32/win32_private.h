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
/* sync core internals used by the thread code */
NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out);
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code);
NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled);
NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid);
NSPA_HIDDEN void nspa__thread_unregister(void);
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout);
#endif
