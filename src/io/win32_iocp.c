/*
 * kernel32's completion ports and overlapped results: CreateIoCompletionPort,
 * GetQueuedCompletionStatus(Ex), PostQueuedCompletionStatus,
 * SetFileCompletionNotificationModes, GetOverlappedResult(Ex), CancelIo(Ex),
 * (CancelSynchronousIo: win32_pipe.c).
 */
#include <errno.h>
#include "nspa/win32/windows.h"
#include "nspa/win32/ioapiset.h"
#include "common/export.h"
#include "io/io_api.h"
#include "nspa/sync.h"
#include "win32/win32_error.h"

static inline BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

static inline uint32_t H32(HANDLE h) { return (uint32_t)(uintptr_t)h; }

static uint64_t deadline_of(DWORD ms)
{
    if (ms == INFINITE) return UINT64_MAX;
    if (ms == 0) return 0;
    return nspa_time_ns() + (uint64_t)ms * 1000000ull;
}

/* the port calls' errors (win32_error.h): the file family, a wait's outcomes for the
 * dequeues (WIN32_ERR_WAIT), a completion packet's record for a post */
static DWORD err_of(int r, unsigned call) { return win32_error_from_errno(r, WIN32_ERR_FILE | call); }

NSPA_EXPORT HANDLE WINAPI CreateIoCompletionPort(HANDLE file, HANDLE port, ULONG_PTR key, DWORD concurrency)
{
    uint32_t p;
    if (file == INVALID_HANDLE_VALUE) {
        if (port) {
            SetLastError(ERROR_INVALID_PARAMETER);
            return NULL;
        }
        int r = io_port_new(concurrency, &p);
        if (r) {
            SetLastError(err_of(r, 0));
            return NULL;
        }
        return (HANDLE)(uintptr_t)p;
    }
    int made = 0;
    if (!port) {                           /* a new port, and the file associated with it */
        int r = io_port_new(concurrency, &p);
        if (r) {
            SetLastError(err_of(r, 0));
            return NULL;
        }
        port = (HANDLE)(uintptr_t)p;
        made = 1;
    }
    int r = io_port_assoc(H32(file), H32(port), key);
    if (r) {
        if (made) CloseHandle(port);
        SetLastError(err_of(r, 0));       /* -EINVAL: associated already */
        return NULL;
    }
    return port;
}

NSPA_EXPORT BOOL WINAPI GetQueuedCompletionStatus(HANDLE port, LPDWORD bytes, PULONG_PTR key, LPOVERLAPPED *ov,
                                                  DWORD ms)
{
    if (!bytes || !key || !ov) return fail(ERROR_INVALID_PARAMETER);
    struct io_entry e;
    int r = io_port_dequeue(H32(port), &e, 1, deadline_of(ms), 0);
    if (r < 0) {
        *ov = NULL;
        return fail(err_of(r, WIN32_ERR_WAIT));
    }
    *bytes = e.bytes;
    *key = e.key;
    *ov = e.ov;
    /* a failed operation's packet: FALSE with its error and the OVERLAPPED */
    if (e.internal) return fail(win32_error_from_status((NTSTATUS)e.internal, WIN32_ERR_IO));
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetQueuedCompletionStatusEx(HANDLE port, LPOVERLAPPED_ENTRY entries, ULONG count,
                                                    PULONG removed, DWORD ms, BOOL alertable)
{
    if (!entries || !count || !removed) return fail(ERROR_INVALID_PARAMETER);
    *removed = 0;
    int r = io_port_dequeue(H32(port), (struct io_entry *)entries, count, deadline_of(ms), alertable);
    if (r < 0) return fail(err_of(r, WIN32_ERR_WAIT));
    *removed = (ULONG)r;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI PostQueuedCompletionStatus(HANDLE port, DWORD bytes, ULONG_PTR key, LPOVERLAPPED ov)
{
    int r = io_port_post_h(H32(port), bytes, key, ov);
    return r ? fail(err_of(r, WIN32_ERR_PACKET)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI SetFileCompletionNotificationModes(HANDLE file, UCHAR flags)
{
    int r = io_set_notify(H32(file), flags);
    return r ? fail(err_of(r, 0)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI GetOverlappedResultEx(HANDLE file, LPOVERLAPPED ov, LPDWORD bytes, DWORD ms, BOOL alertable)
{
    if (!ov || !bytes) return fail(ERROR_INVALID_PARAMETER);
    int r = io_ovl_wait(H32(file), ov, deadline_of(ms), alertable);
    if (r == -ETIMEDOUT && !ms) r = -EINPROGRESS;   /* a zero wait is a look: still pending */
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_IO | WIN32_ERR_WAIT));
    *bytes = (DWORD)ov->InternalHigh;
    uint32_t st = (uint32_t)ov->Internal;
    return st ? fail(win32_error_from_status((NTSTATUS)st, WIN32_ERR_IO)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI GetOverlappedResult(HANDLE file, LPOVERLAPPED ov, LPDWORD bytes, BOOL wait)
{
    return GetOverlappedResultEx(file, ov, bytes, wait ? INFINITE : 0, FALSE);
}

NSPA_EXPORT BOOL WINAPI CancelIoEx(HANDLE file, LPOVERLAPPED ov)
{
    int r = io_cancel_h(H32(file), ov, 0);
    if (r < 0) return fail(err_of(r, 0));
    if (r == 0) return fail(ERROR_NOT_FOUND);       /* a count, not a failure: nothing to cancel */
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI CancelIo(HANDLE file)
{
    /* the calling thread's operations on the handle; none is not an error */
    int r = io_cancel_h(H32(file), NULL, 1);
    return r < 0 ? fail(err_of(r, 0)) : TRUE;
}
