/*
 * The Win32 layer's one error mapping (lasterror.c). Every Win32 error NSPA reports goes
 * through win32_error_from_errno / win32_error_from_status: an errno becomes an NTSTATUS
 * (one table), the NTSTATUS the Win32 error RtlNtStatusToDosError gives (one table), or,
 * with WIN32_ERR_WSA, the Winsock error (the second table, for the socket calls).
 *
 * The context says which family of calls asks, only because Windows itself reports
 * different codes for what Linux calls by one errno: EPERM is a mutex not owned, a heap
 * not locked, a privilege not held; ENOSPC no system resources, a short buffer, a full
 * disk; ENODATA the end of a heap walk or of a file.
 */
#ifndef NSPA_WIN32_ERROR_H
#define NSPA_WIN32_ERROR_H
#include "nspa/win32/windef.h"
#include "nspa/win32/winternl.h"
#include "common/export.h"

enum {
    WIN32_ERR_OBJECT = 0x01,   /* sync objects, handles, threads, timers (and the NT layer) */
    WIN32_ERR_HEAP = 0x02,     /* Heap* */
    WIN32_ERR_MEMORY = 0x04,   /* Virtual*, sections */
    WIN32_ERR_FILE = 0x08,     /* kernel32's file, pipe and port calls */
    WIN32_ERR_IO = 0x10,       /* an I/O operation's result: the status OVERLAPPED.Internal holds */
    WIN32_ERR_PATH = 0x20,     /* SetCurrentDirectory's path */
    WIN32_ERR_EXEC = 0x40,     /* CreateProcess's image */
    WIN32_ERR_WSA = 0x100,     /* flag: the Winsock code (WSAE*) instead of the Win32 error */
};

/* The NTSTATUS of @err (an errno, either sign) for calls of context @ctx; 0: STATUS_SUCCESS.
 * An errno without a row: STATUS_INVALID_PARAMETER, STATUS_UNSUCCESSFUL for files, and for
 * I/O results the customer status 0xE0000000 | errno (mapped back by the functions below). */
NSPA_HIDDEN NTSTATUS win32_status_from_errno(int err, unsigned ctx);
/* The Win32 (or, with WIN32_ERR_WSA, Winsock) error of @err; 0: ERROR_SUCCESS. */
NSPA_HIDDEN DWORD win32_error_from_errno(int err, unsigned ctx);
/* The Win32 (or Winsock) error of @st: RtlNtStatusToDosError, except for I/O results
 * (WIN32_ERR_IO): a pending operation is ERROR_IO_INCOMPLETE there (GetOverlappedResult). */
NSPA_HIDDEN DWORD win32_error_from_status(NTSTATUS st, unsigned ctx);
#endif
