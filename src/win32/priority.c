/* Win32 priorities over nspa/sched.h: SetPriorityClass, GetPriorityClass,
 * SetThreadPriority, GetThreadPriority. */
#include <errno.h>
#include "nspa/sched.h"
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"

static BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

/* the thread id behind a thread handle (or the pseudo handle) that grants one of
 * @need, 0 if none (*@err: the Win32 error; ERROR_INVALID_HANDLE for an ended thread
 * too: the callers' check of the handle argument) */
static uint32_t thread_tid(HANDLE h, DWORD need, DWORD *err)
{
    *err = ERROR_INVALID_HANDLE;
    if (h == GetCurrentThread()) return nspa_thread_id();
    uint32_t tid, ec;
    int sig;
    DWORD e = nspa__thread_access(h, need);
    if (e) {
        *err = e;
        return 0;
    }
    if (nspa__thread_obj_info(nspa__win32_h(h), &tid, &ec, &sig)) return 0;
    return sig ? 0 : tid;
}

NSPA_EXPORT BOOL WINAPI SetPriorityClass(HANDLE process, DWORD cls)
{
    if (process != GetCurrentProcess()) return fail(ERROR_INVALID_HANDLE);
    int r = nspa_set_priority_class(cls);
    return r ? fail(win32_error_from_errno(r, WIN32_ERR_PROCESS)) : TRUE;   /* -EINVAL: no such class */
}

NSPA_EXPORT DWORD WINAPI GetPriorityClass(HANDLE process)
{
    if (process != GetCurrentProcess()) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    return nspa_get_priority_class();
}

NSPA_EXPORT BOOL WINAPI SetThreadPriority(HANDLE thread, int prio)
{
    DWORD e;
    uint32_t tid = thread_tid(thread, THREAD_SET_INFORMATION | THREAD_SET_LIMITED_INFORMATION, &e);
    if (!tid) return fail(e);
    int r = nspa_set_thread_priority(tid, prio);
    /* -EINVAL: no such priority; -ESRCH: the thread has ended meanwhile */
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_PROCESS | WIN32_ERR_BY_HANDLE));
    return TRUE;
}

NSPA_EXPORT int WINAPI GetThreadPriority(HANDLE thread)
{
    DWORD e;
    uint32_t tid = thread_tid(thread, THREAD_QUERY_INFORMATION | THREAD_QUERY_LIMITED_INFORMATION, &e);
    int p = 0;
    if (!tid) {
        SetLastError(e);
        return THREAD_PRIORITY_ERROR_RETURN;
    }
    int r = nspa_get_thread_priority(tid, &p);
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_PROCESS | WIN32_ERR_BY_HANDLE));
        return THREAD_PRIORITY_ERROR_RETURN;
    }
    return p;
}
