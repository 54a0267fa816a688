/*
 * GetLastError/SetLastError (one thread-local DWORD, as the TEB's LastErrorValue) and the
 * Win32 layer's one error mapping (win32_error.h): every module's Win32 names report
 * the failures of the calls they make through win32_error_from_errno /
 * win32_error_from_status.
 *
 * errno -> NTSTATUS is the table below; NTSTATUS -> Win32 error is RtlNtStatusToDosError
 * (src/nt/win32_nt_status.c, Windows' own values), so a Win32 error and the NTSTATUS the
 * NT layer or an OVERLAPPED reports for the same failure always agree. A row holds the
 * contexts it serves: one errno has several rows only where Windows gives different codes
 * to the calls of different families, or to one call (the call bits, looked at before
 * the families). A few rows carry a Win32 code in a status (NTSTATUS_FROM_WIN32,
 * facility 7) where kernel32 or user32 sets the error itself rather than translating a
 * status (CreateFile's ERROR_FILE_EXISTS, SetFilePointer's ERROR_NEGATIVE_SEEK,
 * PostThreadMessage's ERROR_INVALID_THREAD_ID). The Winsock codes are the second table
 * (WIN32_ERR_WSA), getaddrinfo's the third.
 */
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_error.h"

static __thread DWORD last_error;

NSPA_EXPORT DWORD WINAPI GetLastError(void) { return last_error; }
NSPA_EXPORT void WINAPI SetLastError(DWORD err) { last_error = err; }

#define O WIN32_ERR_OBJECT
#define H WIN32_ERR_HEAP
#define M WIN32_ERR_MEMORY
#define F WIN32_ERR_FILE
#define I WIN32_ERR_IO
#define P WIN32_ERR_PATH
#define X WIN32_ERR_PROCESS
#define L WIN32_ERR_LOCK
#define FROM_WIN32(e) ((NTSTATUS)(0xC0070000u | (e)))   /* NTSTATUS_FROM_WIN32 */

static const struct row { uint16_t err; uint32_t ctx; NTSTATUS status; } rows[] = {
    /* I/O results (the status OVERLAPPED.Internal holds) and the file calls */
    { ECANCELED, F | I, STATUS_CANCELLED },
    { ECONNRESET, F | I, STATUS_CONNECTION_RESET },
    { EPIPE, I, STATUS_CONNECTION_RESET },               /* a socket's peer gone */
    { EPIPE, F, STATUS_PIPE_BROKEN },                    /* a pipe's other end gone (ReadFile, PeekNamedPipe) */
    { ECONNABORTED, F | I, STATUS_CONNECTION_ABORTED },
    { ECONNREFUSED, F | I, STATUS_CONNECTION_REFUSED },
    { ENOTCONN, F | I, STATUS_INVALID_CONNECTION },
    { ETIMEDOUT, F | I, STATUS_IO_TIMEOUT },
    { EMSGSIZE, F | I, STATUS_BUFFER_OVERFLOW },
    { ENODATA, F | I, STATUS_END_OF_FILE },
    { ENOMEM, O | H | M | F | I | P | X, STATUS_NO_MEMORY },
    { ENOBUFS, F | I, STATUS_INSUFFICIENT_RESOURCES },
    { EINVAL, H | M | F | I | X | L, STATUS_INVALID_PARAMETER },
    { EBADF, O | H | M | F | I, STATUS_INVALID_HANDLE },
    { ENOTSOCK, F | I, STATUS_INVALID_HANDLE },
    { EFAULT, O | M | F | I, STATUS_ACCESS_VIOLATION },
    { ENOSPC, F | I, STATUS_DISK_FULL },
    { EHOSTUNREACH, F | I, STATUS_HOST_UNREACHABLE },
    { ENETUNREACH, F | I, STATUS_NETWORK_UNREACHABLE },
    { EADDRINUSE, F | I, STATUS_ADDRESS_ALREADY_EXISTS },
    { EADDRNOTAVAIL, F | I, STATUS_INVALID_ADDRESS_COMPONENT },   /* AFD's; Winsock: WSAEADDRNOTAVAIL */
    { EACCES, O | M | F | I | P | X, STATUS_ACCESS_DENIED },
    { ESHUTDOWN, F | I, STATUS_CONNECTION_RESET },
    { EAGAIN, F | I, STATUS_DEVICE_NOT_READY },          /* AFD's would-block; Winsock: WSAEWOULDBLOCK */
    { EIO, F | I, STATUS_IO_DEVICE_ERROR },
    /* names, paths, files, images */
    { ENOENT, O | M | F | P | X, STATUS_OBJECT_NAME_NOT_FOUND },
    { ENOTDIR, F, STATUS_OBJECT_PATH_NOT_FOUND },
    { ENOTDIR, P | X, STATUS_NOT_A_DIRECTORY },
    { EISDIR, F | X, STATUS_FILE_IS_A_DIRECTORY },
    { EPERM, F | P | X, STATUS_ACCESS_DENIED },
    { ENAMETOOLONG, F | P, STATUS_NAME_TOO_LONG },
    { E2BIG, X, STATUS_NAME_TOO_LONG },
    { ELOOP, P, FROM_WIN32(ERROR_CANT_RESOLVE_FILENAME) },
    { ENOEXEC, X, STATUS_INVALID_IMAGE_FORMAT },
    { EAGAIN, X, STATUS_NO_MEMORY },                      /* fork/clone: no process */
    { EMFILE, O | M | F | X, STATUS_TOO_MANY_OPENED_FILES },
    { ENFILE, F | X, STATUS_TOO_MANY_OPENED_FILES },
    { EEXIST, F, FROM_WIN32(ERROR_FILE_EXISTS) },          /* CreateFile's own code */
    { ENOTEMPTY, F, STATUS_DIRECTORY_NOT_EMPTY },          /* RemoveDirectory, MoveFileEx onto a directory */
    { EXDEV, F, STATUS_NOT_SAME_DEVICE },                  /* MoveFileEx without MOVEFILE_COPY_ALLOWED */
    { ETXTBSY, F, STATUS_SHARING_VIOLATION },             /* io/file.c's share modes */
    { ENXIO, F, FROM_WIN32(ERROR_NEGATIVE_SEEK) },         /* SetFilePointer's check */
    { EINPROGRESS, F, STATUS_PENDING },
    { ESPIPE, F, STATUS_INVALID_PARAMETER },
    { EROFS, F, STATUS_MEDIA_WRITE_PROTECTED },
    { EOPNOTSUPP, M | F, STATUS_NOT_SUPPORTED },           /* = ENOTSUP */
    { ENOSYS, F, STATUS_NOT_SUPPORTED },
    /* sync objects: EINVAL/EEXIST are a handle or name of another type */
    { EINVAL, O, STATUS_OBJECT_TYPE_MISMATCH },
    { EEXIST, O | M, STATUS_OBJECT_TYPE_MISMATCH },         /* M: a section's name */
    { EOVERFLOW, O, STATUS_SEMAPHORE_LIMIT_EXCEEDED },
    { EPERM, O, STATUS_MUTANT_NOT_OWNED },
    { ENOSPC, O | M, STATUS_INSUFFICIENT_RESOURCES },
    { ETIMEDOUT, O, STATUS_TIMEOUT },
    /* heap: HeapUnlock not held, the end of a walk, a short information buffer */
    { EPERM, H, STATUS_NOT_LOCKED },
    { ENODATA, H, STATUS_NO_MORE_ENTRIES },
    { ENOSPC, H, STATUS_BUFFER_TOO_SMALL },
    /* memory */
    { EADDRNOTAVAIL, M, STATUS_MEMORY_NOT_ALLOCATED },
    { EPERM, M, STATUS_PRIVILEGE_NOT_HELD },
    { ENOLCK, M, STATUS_NOT_LOCKED },
    { EAGAIN, M, STATUS_WORKING_SET_QUOTA },
    /* processes and threads by id: gone (NtOpenProcess of an unknown id) */
    { ESRCH, X, STATUS_INVALID_CID },
    /* locks: a timed-out sleep (kernel32 sets ERROR_TIMEOUT), INIT_ONCE not done */
    { ETIMEDOUT, L, FROM_WIN32(ERROR_TIMEOUT) },
    { EAGAIN, L, STATUS_UNSUCCESSFUL },

    /* call bits: one call's answer where it differs from its family's (first match wins) */
#define CALL(bit) WIN32_ERR_##bit
    /* a name made or moved onto one that exists: ERROR_ALREADY_EXISTS, not CreateFile's code */
    { EEXIST, CALL(NAME), STATUS_OBJECT_NAME_COLLISION },
    /* a wait's outcome reported as a failure (kernel32 sets WAIT_IO_COMPLETION itself) */
    { ETIMEDOUT, CALL(WAIT), STATUS_TIMEOUT },
    { EOWNERDEAD, CALL(WAIT), STATUS_ABANDONED_WAIT_0 },
    { EINTR, CALL(WAIT), FROM_WIN32(WAIT_IO_COMPLETION) },
    { EINPROGRESS, CALL(WAIT), STATUS_PENDING },
    /* a wait-all over handles that are all open: one object twice (or a kind not waitable) */
    { EINVAL, CALL(WAIT_ALL), STATUS_INVALID_PARAMETER_MIX },
    /* PeekNamedPipe on a handle that is not a pipe */
    { EINVAL, CALL(PIPE), STATUS_INVALID_HANDLE },
    /* a write to a pipe nobody reads any more */
    { EPIPE, CALL(WRITE), STATUS_PIPE_CLOSING },
    /* no record left for a completion packet */
    { ENOMEM, CALL(PACKET), STATUS_INSUFFICIENT_RESOURCES },
    /* PostMessage: the window (or its queue) is gone */
    { EBADF, CALL(WINDOW), FROM_WIN32(ERROR_INVALID_WINDOW_HANDLE) },
    { ESRCH, CALL(WINDOW), FROM_WIN32(ERROR_INVALID_WINDOW_HANDLE) },
    /* posting: the queue's limit of posted messages, the thread's queue gone */
    { ENOSPC, CALL(MESSAGE), FROM_WIN32(ERROR_NOT_ENOUGH_QUOTA) },
    { ESRCH, CALL(MESSAGE), FROM_WIN32(ERROR_INVALID_THREAD_ID) },
    /* MapViewOfFile: every EINVAL of nspa_vm_map_view is a misaligned offset or address */
    { EINVAL, CALL(VIEW), STATUS_MAPPED_ALIGNMENT },
    /* opening by name: a name the namespace cannot hold */
    { EINVAL, CALL(OPEN), STATUS_OBJECT_NAME_INVALID },
    /* NtClose of a handle with HANDLE_FLAG_PROTECT_FROM_CLOSE */
    { EPERM, CALL(CLOSE), STATUS_HANDLE_NOT_CLOSABLE },
    /* DuplicateHandle: a source that is not a handle, a process that is gone */
    { EINVAL, CALL(DUP), STATUS_INVALID_HANDLE },
    { ESRCH, CALL(DUP), STATUS_INVALID_HANDLE },
    { EOPNOTSUPP, CALL(DUP), STATUS_NOT_SUPPORTED },
    { ENOSYS, CALL(DUP), STATUS_NOT_SUPPORTED },           /* no pidfd_getfd */
    /* an APC to a thread that has ended: NtQueueApcThread's STATUS_UNSUCCESSFUL */
    { ESRCH, CALL(APC), STATUS_UNSUCCESSFUL },
    { ENOTSUP, CALL(APC), STATUS_NOT_SUPPORTED },
    /* TerminateProcess of a process that has ended */
    { ESRCH, CALL(TERMINATE), STATUS_PROCESS_IS_TERMINATING },
    /* a thread or process named by a handle that has ended (its id, its /proc entry) */
    { ESRCH, CALL(BY_HANDLE), STATUS_INVALID_HANDLE },
    { ENOENT, CALL(BY_HANDLE), STATUS_INVALID_HANDLE },
#undef CALL
};

#define CUSTOMER 0xE0000000u     /* an I/O result without a row: 0xE0000000 | errno */

NSPA_HIDDEN NTSTATUS win32_status_from_errno(int err, unsigned ctx)
{
    unsigned e = err < 0 ? (unsigned)-err : (unsigned)err;
    if (!e) return STATUS_SUCCESS;
    /* the call's own rows first, then its family's */
    for (int pass = 0; pass < 2; pass++) {
        unsigned want = ctx & (pass ? WIN32_ERR_FAMILIES : WIN32_ERR_CALLS);
        if (!want) continue;
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
            if (rows[i].err == e && (rows[i].ctx & want)) return rows[i].status;
    }
    if (ctx & I) return (NTSTATUS)(CUSTOMER | (e & 0xffff));
    if (ctx & F) return STATUS_UNSUCCESSFUL;
    if (ctx & P) return STATUS_OBJECT_PATH_NOT_FOUND;
    return STATUS_INVALID_PARAMETER;
}

/* The second table: Winsock's codes (WSAE*, winsock2.h) for the socket calls, which
 * Windows reports by errno-like names of their own rather than by the Win32 errors. */
static int wsa_from_errno(unsigned e, unsigned ctx)
{
    switch (e) {
    case 0: return 0;
    case EINTR: return 10004;                       /* WSAEINTR */
    case EACCES: case EPERM: return 10013;          /* WSAEACCES */
    case EFAULT: return 10014;
    case EINVAL: return 10022;
    case EMFILE: case ENFILE: return 10024;
    case EAGAIN: return 10035;                      /* WSAEWOULDBLOCK */
    case EINPROGRESS: return (ctx & WIN32_ERR_OVERLAPPED) ? 997 : 10036;   /* WSA_IO_PENDING : WSAEINPROGRESS */
    case EALREADY: return 10037;
    case ENOTSOCK: case EBADF: return 10038;
    case EDESTADDRREQ: return 10039;
    case EMSGSIZE: return 10040;
    case EPROTOTYPE: return 10041;
    case ENOPROTOOPT: return 10042;
    case EPROTONOSUPPORT: return 10043;
    case ESOCKTNOSUPPORT: return 10044;
    case EOPNOTSUPP: case ENOSYS: return 10045;
    case EPFNOSUPPORT: return 10046;
    case EAFNOSUPPORT: return 10047;
    case EADDRINUSE: return 10048;
    case EADDRNOTAVAIL: return 10049;
    case ENETDOWN: case EIO: return 10050;          /* WSAENETDOWN */
    case ENETUNREACH: return 10051;
    case ENETRESET: return 10052;
    case ECONNABORTED: return 10053;
    case ECONNRESET: case EPIPE: return 10054;
    case ENOBUFS: case ENOMEM: case ENOSPC: return 10055;   /* WSAENOBUFS */
    case EISCONN: return 10056;
    case ENOTCONN: return 10057;
    case ESHUTDOWN: case ENODATA: return 10058;     /* WSAESHUTDOWN: read past the end */
    case ETIMEDOUT: return 10060;
    case ECONNREFUSED: return 10061;
    case EHOSTUNREACH: return 10065;
    case ECANCELED: return 995;                     /* WSA_OPERATION_ABORTED */
    default: return 10022;                          /* WSAEINVAL */
    }
}

NSPA_HIDDEN DWORD win32_error_from_errno(int err, unsigned ctx)
{
    if (!err) return ERROR_SUCCESS;
    if (ctx & WIN32_ERR_WSA) return (DWORD)wsa_from_errno(err < 0 ? (unsigned)-err : (unsigned)err, ctx);
    return win32_error_from_status(win32_status_from_errno(err, ctx), ctx);
}

NSPA_HIDDEN DWORD win32_error_from_status(NTSTATUS st, unsigned ctx)
{
    if (st == STATUS_SUCCESS) return ERROR_SUCCESS;
    if (ctx & I) {
        if (st == STATUS_PENDING) return ERROR_IO_INCOMPLETE;   /* = WSA_IO_INCOMPLETE */
        if (((ULONG)st & 0xF0000000u) == CUSTOMER)
            return win32_error_from_errno((int)((ULONG)st & 0xffff), F | (ctx & WIN32_ERR_WSA));
        if (ctx & WIN32_ERR_WSA) {
            for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                if ((rows[i].ctx & I) && rows[i].status == st) return (DWORD)wsa_from_errno(rows[i].err, ctx);
            return 10022;
        }
    }
    DWORD e = RtlNtStatusToDosError(st);
    return (ctx & I) && e == ERROR_MR_MID_NOT_FOUND ? ERROR_GEN_FAILURE : e;
}

/* The third table: getaddrinfo()'s failures as GetAddrInfoW reports them (WSAHOST_NOT_FOUND
 * 11001, WSATRY_AGAIN 11002, WSANO_RECOVERY 11003, WSATYPE_NOT_FOUND 10109, WSA_NOT_ENOUGH_MEMORY 8). */
NSPA_HIDDEN int win32_wsa_from_eai(int eai)
{
    switch (eai) {
    case EAI_NONAME: case EAI_NODATA: case EAI_ADDRFAMILY: return 11001;
    case EAI_AGAIN: return 11002;
    case EAI_FAIL: return 11003;
    case EAI_FAMILY: return 10047;                  /* WSAEAFNOSUPPORT */
    case EAI_MEMORY: return 8;
    case EAI_SERVICE: return 10109;
    case EAI_SOCKTYPE: return 10044;                /* WSAESOCKTNOSUPPORT */
    case EAI_BADFLAGS: return 10022;                /* WSAEINVAL */
    case EAI_SYSTEM: return (int)win32_error_from_errno(errno, WIN32_ERR_WSA);
    default: return 11003;
    }
}
