/*
 * The Win32 layer's one error mapping (lasterror.c). Every Win32 error NSPA reports for a
 * failed call goes through win32_error_from_errno / win32_error_from_status: an errno
 * becomes an NTSTATUS (one table), the NTSTATUS the Win32 error RtlNtStatusToDosError
 * gives (one table), or, with WIN32_ERR_WSA, the Winsock error (the second table, for
 * the socket calls).
 *
 * The context says which calls ask, only because Windows itself reports different codes
 * for what Linux calls by one errno. It is a family (one of the first eight bits: EPERM
 * is a mutex not owned, a heap not locked, a privilege not held; ENOSPC no system
 * resources, a short buffer, a full disk), optionally with call bits for the few calls
 * whose answer differs from their family's (a write to a pipe nobody reads,
 * MapViewOfFile's alignment, NtClose of a protected handle ...). The table's rows for the
 * call bits are looked at first, then the family's. docs/nt.md, "Win32 errors".
 */
#ifndef NSPA_WIN32_ERROR_H
#define NSPA_WIN32_ERROR_H
#include "nspa/win32/windef.h"
#include "nspa/win32/winternl.h"
#include "common/export.h"

enum {
    /* families: exactly one per call */
    WIN32_ERR_OBJECT = 0x01,       /* sync objects, handles, threads, timers, messages (and the NT layer) */
    WIN32_ERR_HEAP = 0x02,         /* Heap* */
    WIN32_ERR_MEMORY = 0x04,       /* Virtual*, sections */
    WIN32_ERR_FILE = 0x08,         /* kernel32's file, pipe and port calls */
    WIN32_ERR_IO = 0x10,           /* an I/O operation's result: the status OVERLAPPED.Internal holds */
    WIN32_ERR_PATH = 0x20,         /* SetCurrentDirectory's path */
    WIN32_ERR_PROCESS = 0x40,      /* CreateProcess's image; processes and threads reached by their ids */
    WIN32_ERR_LOCK = 0x80,         /* the Rtl-style locks: INIT_ONCE, condition variables, WaitOnAddress */
    WIN32_ERR_FAMILIES = 0xff,
    /* call bits: added to a family by the calls named */
    WIN32_ERR_WAIT = 0x100,        /* a wait's outcome as a failure: GetQueuedCompletionStatus(Ex), GetOverlappedResultEx */
    WIN32_ERR_WAIT_ALL = 0x200,    /* a wait-all (MsgWaitForMultipleObjectsEx with MWMO_WAITALL) */
    WIN32_ERR_PIPE = 0x400,        /* PeekNamedPipe */
    WIN32_ERR_WRITE = 0x800,       /* WriteFile(Ex) */
    WIN32_ERR_PACKET = 0x1000,     /* PostQueuedCompletionStatus */
    WIN32_ERR_WINDOW = 0x2000,     /* PostMessage to a window */
    WIN32_ERR_MESSAGE = 0x4000,    /* PostMessage, PostThreadMessage */
    WIN32_ERR_VIEW = 0x8000,       /* MapViewOfFile(Ex) */
    WIN32_ERR_OPEN = 0x10000,      /* an object opened by name: Open*, NtOpen* */
    WIN32_ERR_CLOSE = 0x20000,     /* NtClose */
    WIN32_ERR_DUP = 0x40000,       /* DuplicateHandle, NtDuplicateObject */
    WIN32_ERR_APC = 0x80000,       /* QueueUserAPC, NtQueueApcThread */
    WIN32_ERR_TERMINATE = 0x100000, /* TerminateProcess */
    WIN32_ERR_BY_HANDLE = 0x200000, /* a thread or process named by a handle: the affinity and priority calls */
    WIN32_ERR_OVERLAPPED = 0x400000, /* with WIN32_ERR_WSA: an overlapped Winsock call (WSARecv ...) */
    WIN32_ERR_NAME = 0x800000,     /* names made or moved: CreateDirectory, MoveFile(Ex) */
    WIN32_ERR_CALLS = 0xffff00,
    WIN32_ERR_WSA = 0x1000000,     /* flag: the Winsock code (WSAE*) instead of the Win32 error */
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
/* The Winsock error of a getaddrinfo() failure (EAI_*; EAI_SYSTEM reads errno). */
NSPA_HIDDEN int win32_wsa_from_eai(int eai);
#endif
