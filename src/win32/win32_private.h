/* Internal glue between the Win32 layer files. */
#ifndef NSPA_WIN32_PRIVATE_H
#define NSPA_WIN32_PRIVATE_H
#include <stdint.h>
#include "nspa/sync.h"
#include "common/export.h"

#include "win32/win32_error.h"      /* the one errno/NTSTATUS -> Win32 error mapping */
/* A HANDLE as an nspa handle. NT ignores a handle's low two bits (tag bits: Wine's
 * test_WaitForSingleObject waits on handle|1, |2, |3), so they are masked here; nspa
 * handles are multiples of 4. Pseudo handles are to be told apart before. */
static inline nspa_obj_t nspa__win32_h(const void *h) { return (nspa_obj_t)((uintptr_t)h & ~(uintptr_t)3); }
/* Queue an APC (NtQueueApcThread's form) for a thread handle or GetCurrentThread();
 * @special: a special user APC. Returns 0, -EBADF, -ESRCH (ended), -ENOMEM, -ENOTSUP. */
NSPA_HIDDEN int nspa__win32_queue_apc(void *thread, void (*fn)(uintptr_t, uintptr_t, uintptr_t),
                                      uintptr_t a1, uintptr_t a2, uintptr_t a3, int special);
/* Does thread handle @h (GetCurrentThread() included: every right) grant one of the
 * THREAD_* bits of @need? 0, or the Win32 error: ERROR_INVALID_HANDLE (not a thread
 * handle), ERROR_ACCESS_DENIED (thread.c). */
NSPA_HIDDEN uint32_t nspa__thread_access(void *h, uint32_t need);
/* Signal @h as SignalObjectAndWait does: 0, -EBADF, -EINVAL (not signalable), or the
 * operation's error (-EPERM not owner, -EOVERFLOW semaphore full). */
NSPA_HIDDEN int nspa__win32_signal_object(nspa_obj_t h);
/* The Win32 and NT waits' common wait (synch.c): owner = the caller; alertable waits
 * run APCs and return NSPA__WAIT_APC; else nspa_wait_any/all's result and *index. */
#define NSPA__WAIT_APC 1
NSPA_HIDDEN int nspa__win32_wait(const nspa_obj_t *objs, uint32_t n, int all, uint64_t timeout, uint32_t flags,
                                 int alertable, uint32_t *index);
/* A queued APC. QueueUserAPC's are malloc'ed (release NULL: freed); other modules
 * queue records of their own (release is called before fn runs: copy what fn needs). */
struct nspa_apc {
    struct nspa_apc *next;
    void (*fn)(uintptr_t a1, uintptr_t a2, uintptr_t a3);
    uintptr_t a1, a2, a3;
    void (*release)(void *apc);
    void (*drop)(void *apc);          /* never run: the thread ended (NULL: release) */
};
/* Queue record @a to the thread @tid (its alert event is set); no allocation. 0, or
 * -ESRCH: the thread is gone (nothing queued). */
NSPA_HIDDEN int nspa__win32_queue_apc_rec(uint32_t tid, struct nspa_apc *a);
/* Run the calling thread's queued APCs; returns how many ran. */
NSPA_HIDDEN int nspa__win32_run_apcs(void);
/* The calling thread's APC alert event (auto-reset), created on first use. */
NSPA_HIDDEN nspa_obj_t nspa__win32_apc_event(void);
/* A new real handle to the calling thread's thread object. */
NSPA_HIDDEN int nspa__win32_current_thread_handle(nspa_obj_t *out);
/* What a pseudo handle stands for in a wait: GetCurrentThread() the calling thread's
 * thread object, GetCurrentProcess() an event nobody sets (do not close either). */
NSPA_HIDDEN nspa_obj_t nspa__win32_pseudo_obj(void *pseudo);
/* The calling thread's own thread object handle (kept by its record; do not close). */
NSPA_HIDDEN nspa_obj_t nspa__win32_current_thread_obj(void);
/* The object a handle of a wait array stands for (GetCurrentThread()/Process() too). */
NSPA_HIDDEN nspa_obj_t nspa__win32_wait_handle(void *h);
/* The calling thread is ending: its message queue and windows go (src/msg/). */
NSPA_HIDDEN void nspa__msg_thread_exit(void);
/* Object names (synch.c): a Win32 name as the OBJECT_ATTRIBUTES kernel32 gives NtCreate*
 * and NtOpen* ("X" -> \Sessions\1\BaseNamedObjects\X), built in this struct on the
 * caller's stack. @w or @a (UTF-8) the name, both NULL: unnamed; "" is unnamed for a
 * create (@open 0) and an invalid name for an open. Returns 0 or the Win32 error. */
#include "nspa/win32/windef.h"
#include "nspa/win32/winternl.h"
#define NSPA__OBJ_DIR_UNITS 29      /* \Sessions\1\BaseNamedObjects\ */
struct nspa_obj_name {
    OBJECT_ATTRIBUTES attr;
    UNICODE_STRING str;
    WCHAR buf[NSPA__OBJ_DIR_UNITS + MAX_PATH];
};
NSPA_HIDDEN DWORD nspa__win32_obj_attr(struct nspa_obj_name *n, LPCWSTR w, LPCSTR a, ULONG attributes, int open);
/* The end of a Create*: the handle with ERROR_ALREADY_EXISTS / ERROR_SUCCESS as last
 * error (STATUS_OBJECT_NAME_EXISTS / success), or NULL with the status's error. */
NSPA_HIDDEN HANDLE nspa__win32_created(NTSTATUS s, HANDLE h);
/* Open*A/W over an NtOpen* call: NULL name ERROR_INVALID_PARAMETER, inherit OBJ_INHERIT. */
typedef NTSTATUS (NTAPI *nspa_nt_open_fn)(PHANDLE, ACCESS_MASK, const OBJECT_ATTRIBUTES *);
NSPA_HIDDEN HANDLE nspa__win32_open(nspa_nt_open_fn op, DWORD access, BOOL inherit, LPCWSTR w, LPCSTR a);
/* The NTSTATUS of a failed nspa wait over @objs (src/nt/win32_nt_wait.c): a closed
 * handle, a non-waitable kind, duplicates in a wait-all, or nt_status's mapping. */
NSPA_HIDDEN NTSTATUS nspa__nt_wait_error(int r, const nspa_obj_t *objs, uint32_t n, int all);
#include "sync/sync_api.h"            /* the sync core internals the thread code uses */
/* NT's generic mapping of an access mask for an object of sync type @type (src/nt):
 * what a handle is granted */
NSPA_HIDDEN uint32_t nspa__nt_map_access(int type, uint32_t access);
#endif
