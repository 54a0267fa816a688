/*
 * kernel32's anonymous pipes and standard handles over pipe.c / file.c: CreatePipe,
 * PeekNamedPipe, SetStdHandle, CancelSynchronousIo (block.c). docs/io.md, "Pipes".
 */
#include <errno.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "common/export.h"
#include "io/io_api.h"
#include "win32/win32_private.h"
#include "win32/win32_error.h"

static inline BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

NSPA_EXPORT BOOL WINAPI CreatePipe(PHANDLE rd, PHANDLE wr, LPSECURITY_ATTRIBUTES sa, DWORD size)
{
    if (!rd || !wr) return fail(ERROR_NOACCESS);
    uint32_t r, w;
    int e = io_pipe_create(size, &r, &w);
    if (e) return fail(win32_error_from_errno(e, WIN32_ERR_FILE));
    if (sa && sa->bInheritHandle) {
        nspa_handle_set_flags(r, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
        nspa_handle_set_flags(w, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    }
    *rd = (HANDLE)(uintptr_t)r;
    *wr = (HANDLE)(uintptr_t)w;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI PeekNamedPipe(HANDLE h, LPVOID buf, DWORD size, LPDWORD read, LPDWORD avail, LPDWORD left)
{
    uint32_t got = 0, av = 0;
    int e = io_pipe_peek((uint32_t)(uintptr_t)h & ~3u, buf, size, &got, &av);
    if (e) return fail(win32_error_from_errno(e, WIN32_ERR_FILE | WIN32_ERR_PIPE));   /* -EPIPE: no writer left */
    if (read) *read = got;
    if (avail) *avail = av;
    if (left) *left = 0;                 /* a byte-mode pipe has no messages */
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetStdHandle(DWORD which, HANDLE h)
{
    int i = which == STD_INPUT_HANDLE ? 0 : which == STD_OUTPUT_HANDLE ? 1 : which == STD_ERROR_HANDLE ? 2 : -1;
    if (i < 0) return fail(ERROR_INVALID_HANDLE);
    io_set_std(i, (uint32_t)(uintptr_t)h);
    return TRUE;
}

/* The thread's synchronous call blocked on NSPA's I/O (a pipe, a blocking socket, a
 * terminal) ends with ERROR_OPERATION_ABORTED; ERROR_NOT_FOUND when it is not blocked in
 * one (block.c). */
NSPA_EXPORT BOOL WINAPI CancelSynchronousIo(HANDLE thread)
{
    uint32_t tid, code;
    int sig;
    if (thread == GetCurrentThread()) return fail(ERROR_NOT_FOUND);   /* it is here, not blocked */
    int r = nspa__thread_obj_info(nspa__win32_h(thread), &tid, &code, &sig);
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_OBJECT));
    DWORD e = nspa__thread_access(thread, THREAD_TERMINATE);
    if (e) return fail(e);
    /* results, not failures: an ended thread, or one not blocked in NSPA's I/O */
    if (sig) return fail(ERROR_NOT_FOUND);
    return io_cancel_sync(tid) ? fail(ERROR_NOT_FOUND) : TRUE;
}
