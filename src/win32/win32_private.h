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
/* object names (synch.c): W names to UTF-8 (0 or an error code); A names checked and
 * "Local\\" stripped (NULL: no name, or *err set); the Create and Open tails */
#include "nspa/win32/windef.h"
NSPA_HIDDEN DWORD nspa__win32_name_w(LPCWSTR w, char *out, size_t cap);
NSPA_HIDDEN const char *nspa__win32_name_a(LPCSTR name, DWORD *err);
NSPA_HIDDEN HANDLE nspa__win32_created(int r, nspa_obj_t h);
NSPA_HIDDEN HANDLE nspa__win32_open_named(int type, LPCSTR name);
#include "sync/sync_api.h"            /* the sync core internals the thread code uses */
#endif
