/* The Win32 layer's one error mapping (src/win32/lasterror.c): representative
 * errno -> Win32 error pairs of each family, a pair for every row of each call bit (the
 * calls whose answer differs from their family's), NTSTATUS -> Win32 error pairs
 * (RtlNtStatusToDosError, the values Windows documents), the I/O results' statuses and
 * their Win32/Winsock codes, getaddrinfo's codes, the table's shape, and failures seen
 * end to end through the library's Win32 calls.
 *
 * The mapping functions are hidden in libnspa, so the unit is compiled into this test
 * too, with its GetLastError/SetLastError renamed (the library's own are used below).
 * The unit includes <netdb.h>, so winsock2.h cannot be: the Winsock codes are spelled
 * out here with winsock2.h's values. */
#define GetLastError unit_GetLastError
#define SetLastError unit_SetLastError
#include "win32/lasterror.c"
#undef GetLastError
#undef SetLastError
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "nspa_test.h"

enum {
    WSA_IO_INCOMPLETE = 996, WSA_IO_PENDING = 997, WSA_OPERATION_ABORTED = 995,
    WSAEWOULDBLOCK = 10035, WSAEINPROGRESS = 10036, WSAENOTSOCK = 10038,
    WSAEPROTONOSUPPORT = 10043, WSAEADDRNOTAVAIL = 10049, WSAECONNRESET = 10054,
    WSAESHUTDOWN = 10058, WSAHOST_NOT_FOUND = 11001, WSATRY_AGAIN = 11002,
};

/* the library's last error, not the renamed copy above */
DWORD WINAPI lib_GetLastError(void) __asm__("GetLastError");

#define E(err, ctx, want) CHECK_EQ(win32_error_from_errno(-(err), ctx), want)

static void errno_pairs(void)
{
    E(0, WIN32_ERR_OBJECT, ERROR_SUCCESS);
    /* sync objects (SetWaitableTimer, CreateThread, ReleaseMutex ...) */
    E(EBADF, WIN32_ERR_OBJECT, ERROR_INVALID_HANDLE);
    E(EINVAL, WIN32_ERR_OBJECT, ERROR_INVALID_HANDLE);      /* a handle of another type */
    E(EOVERFLOW, WIN32_ERR_OBJECT, ERROR_TOO_MANY_POSTS);
    E(EPERM, WIN32_ERR_OBJECT, ERROR_NOT_OWNER);
    E(ENOSPC, WIN32_ERR_OBJECT, ERROR_NO_SYSTEM_RESOURCES);
    E(EMFILE, WIN32_ERR_OBJECT, ERROR_TOO_MANY_OPEN_FILES);
    E(EFAULT, WIN32_ERR_OBJECT, ERROR_NOACCESS);
    E(ENOTSUP, WIN32_ERR_OBJECT, ERROR_INVALID_PARAMETER);
    /* the NT layer's statuses for the same errnos */
    CHECK_EQ(win32_status_from_errno(-EPERM, WIN32_ERR_OBJECT), STATUS_MUTANT_NOT_OWNED);
    CHECK_EQ(win32_status_from_errno(-EEXIST, WIN32_ERR_OBJECT), STATUS_OBJECT_TYPE_MISMATCH);
    CHECK_EQ(win32_status_from_errno(-ETIMEDOUT, WIN32_ERR_OBJECT), STATUS_TIMEOUT);
    /* heap */
    E(EBADF, WIN32_ERR_HEAP, ERROR_INVALID_HANDLE);
    E(EPERM, WIN32_ERR_HEAP, ERROR_NOT_LOCKED);
    E(ENODATA, WIN32_ERR_HEAP, ERROR_NO_MORE_ITEMS);
    E(ENOSPC, WIN32_ERR_HEAP, ERROR_INSUFFICIENT_BUFFER);
    E(EINVAL, WIN32_ERR_HEAP, ERROR_INVALID_PARAMETER);
    E(ENOMEM, WIN32_ERR_HEAP, ERROR_NOT_ENOUGH_MEMORY);
    /* memory */
    E(EADDRNOTAVAIL, WIN32_ERR_MEMORY, ERROR_INVALID_ADDRESS);
    E(EPERM, WIN32_ERR_MEMORY, ERROR_PRIVILEGE_NOT_HELD);
    E(ENOLCK, WIN32_ERR_MEMORY, ERROR_NOT_LOCKED);
    E(EAGAIN, WIN32_ERR_MEMORY, ERROR_WORKING_SET_QUOTA);
    E(ENOSPC, WIN32_ERR_MEMORY, ERROR_NO_SYSTEM_RESOURCES);
    E(ENOTSUP, WIN32_ERR_MEMORY, ERROR_NOT_SUPPORTED);
    E(EEXIST, WIN32_ERR_MEMORY, ERROR_INVALID_HANDLE);       /* a section name of another type */
    E(EINVAL, WIN32_ERR_MEMORY, ERROR_INVALID_PARAMETER);
    /* files, pipes, ports */
    E(ENOENT, WIN32_ERR_FILE, ERROR_FILE_NOT_FOUND);
    E(ENOTDIR, WIN32_ERR_FILE, ERROR_PATH_NOT_FOUND);
    E(EEXIST, WIN32_ERR_FILE, ERROR_FILE_EXISTS);
    E(ETXTBSY, WIN32_ERR_FILE, ERROR_SHARING_VIOLATION);
    E(EISDIR, WIN32_ERR_FILE, ERROR_ACCESS_DENIED);
    E(ENXIO, WIN32_ERR_FILE, ERROR_NEGATIVE_SEEK);
    E(EINPROGRESS, WIN32_ERR_FILE, ERROR_IO_PENDING);
    E(ENOSPC, WIN32_ERR_FILE, ERROR_DISK_FULL);
    E(ENODATA, WIN32_ERR_FILE, ERROR_HANDLE_EOF);
    E(EROFS, WIN32_ERR_FILE, ERROR_WRITE_PROTECT);
    E(ENAMETOOLONG, WIN32_ERR_FILE, ERROR_FILENAME_EXCED_RANGE);
    E(ENFILE, WIN32_ERR_FILE, ERROR_TOO_MANY_OPEN_FILES);
    E(ECANCELED, WIN32_ERR_FILE, ERROR_OPERATION_ABORTED);
    E(ECONNRESET, WIN32_ERR_FILE, ERROR_NETNAME_DELETED);
    E(EPERM, WIN32_ERR_FILE, ERROR_ACCESS_DENIED);           /* an immutable file, a sticky directory */
    E(EPIPE, WIN32_ERR_FILE, ERROR_BROKEN_PIPE);             /* ReadFile: no writer left */
    E(EPIPE, WIN32_ERR_IO, ERROR_NETNAME_DELETED);           /* an I/O result: the socket's peer */
    E(EAGAIN, WIN32_ERR_FILE, ERROR_NOT_READY);              /* AFD's STATUS_DEVICE_NOT_READY */
    E(EADDRNOTAVAIL, WIN32_ERR_FILE, ERROR_INVALID_NETNAME); /* STATUS_INVALID_ADDRESS_COMPONENT */
    E(ENOMEM, WIN32_ERR_FILE, ERROR_NOT_ENOUGH_MEMORY);
    E(EMFILE, WIN32_ERR_FILE, ERROR_TOO_MANY_OPEN_FILES);
    /* paths (SetCurrentDirectory) and images (CreateProcess) */
    E(ENOTDIR, WIN32_ERR_PATH, ERROR_DIRECTORY);
    E(ELOOP, WIN32_ERR_PATH, ERROR_CANT_RESOLVE_FILENAME);
    E(EPERM, WIN32_ERR_PATH, ERROR_ACCESS_DENIED);
    E(EBADF, WIN32_ERR_PATH, ERROR_PATH_NOT_FOUND);
    E(ENOEXEC, WIN32_ERR_PROCESS, ERROR_BAD_EXE_FORMAT);
    E(E2BIG, WIN32_ERR_PROCESS, ERROR_FILENAME_EXCED_RANGE);
    E(EAGAIN, WIN32_ERR_PROCESS, ERROR_NOT_ENOUGH_MEMORY);
    E(EISDIR, WIN32_ERR_PROCESS, ERROR_ACCESS_DENIED);
    /* processes and threads by id (OpenProcess, OpenThread, GenerateConsoleCtrlEvent) */
    E(ESRCH, WIN32_ERR_PROCESS, ERROR_INVALID_PARAMETER);
    E(EPERM, WIN32_ERR_PROCESS, ERROR_ACCESS_DENIED);
    E(EINVAL, WIN32_ERR_PROCESS, ERROR_INVALID_PARAMETER);
    E(EMFILE, WIN32_ERR_PROCESS, ERROR_TOO_MANY_OPEN_FILES);
    CHECK_EQ(win32_status_from_errno(-ESRCH, WIN32_ERR_PROCESS), STATUS_INVALID_CID);
    /* locks (INIT_ONCE, condition variables, WaitOnAddress, InitializeCriticalSectionEx) */
    E(EINVAL, WIN32_ERR_LOCK, ERROR_INVALID_PARAMETER);
    E(ETIMEDOUT, WIN32_ERR_LOCK, ERROR_TIMEOUT);
    E(EAGAIN, WIN32_ERR_LOCK, ERROR_GEN_FAILURE);
    /* Winsock */
    E(ECONNRESET, WIN32_ERR_WSA, WSAECONNRESET);
    E(EAGAIN, WIN32_ERR_WSA, WSAEWOULDBLOCK);
    E(EBADF, WIN32_ERR_WSA, WSAENOTSOCK);
    E(ECANCELED, WIN32_ERR_WSA, WSA_OPERATION_ABORTED);
    E(EPROTONOSUPPORT, WIN32_ERR_WSA, WSAEPROTONOSUPPORT);
    E(EADDRNOTAVAIL, WIN32_ERR_WSA, WSAEADDRNOTAVAIL);
    E(EINPROGRESS, WIN32_ERR_WSA, WSAEINPROGRESS);
    E(EINPROGRESS, WIN32_ERR_WSA | WIN32_ERR_OVERLAPPED, WSA_IO_PENDING);   /* WSARecv ... started */
    /* getaddrinfo's codes (GetAddrInfoW) */
    CHECK_EQ(win32_wsa_from_eai(EAI_NONAME), WSAHOST_NOT_FOUND);
    CHECK_EQ(win32_wsa_from_eai(EAI_AGAIN), WSATRY_AGAIN);
    CHECK_EQ(win32_wsa_from_eai(EAI_MEMORY), 8);            /* WSA_NOT_ENOUGH_MEMORY */
}

/* One pair (at least) for every row of every call bit, and the family's answer beside
 * it where the call's differs. */
static void call_pairs(void)
{
    /* O, M, F, I, X: the unit's own short names (lasterror.c) */
    /* GetQueuedCompletionStatus(Ex), GetOverlappedResultEx: a wait's outcomes */
    E(ETIMEDOUT, F | WIN32_ERR_WAIT, WAIT_TIMEOUT);
    E(EOWNERDEAD, F | WIN32_ERR_WAIT, ERROR_ABANDONED_WAIT_0);
    E(EINTR, F | WIN32_ERR_WAIT, WAIT_IO_COMPLETION);
    E(EBADF, F | WIN32_ERR_WAIT, ERROR_INVALID_HANDLE);
    E(EINPROGRESS, I | WIN32_ERR_WAIT, ERROR_IO_INCOMPLETE);
    E(ETIMEDOUT, I | WIN32_ERR_WAIT, WAIT_TIMEOUT);
    E(EINTR, I | WIN32_ERR_WAIT, WAIT_IO_COMPLETION);
    E(EBADF, I | WIN32_ERR_WAIT, ERROR_INVALID_HANDLE);
    /* a wait-all (MsgWaitForMultipleObjectsEx) */
    E(EINVAL, O | WIN32_ERR_WAIT_ALL, ERROR_INVALID_PARAMETER);
    E(EINVAL, O, ERROR_INVALID_HANDLE);
    /* PeekNamedPipe, WriteFile */
    E(EINVAL, F | WIN32_ERR_PIPE, ERROR_INVALID_HANDLE);
    E(EPIPE, F | WIN32_ERR_PIPE, ERROR_BROKEN_PIPE);
    E(EINVAL, F, ERROR_INVALID_PARAMETER);
    E(EPIPE, F | WIN32_ERR_WRITE, ERROR_NO_DATA);
    E(EINPROGRESS, F | WIN32_ERR_WRITE, ERROR_IO_PENDING);
    /* PostQueuedCompletionStatus */
    E(ENOMEM, F | WIN32_ERR_PACKET, ERROR_NO_SYSTEM_RESOURCES);
    E(EBADF, F | WIN32_ERR_PACKET, ERROR_INVALID_HANDLE);
    /* PostThreadMessage, PostMessage (a window's: its rows come first) */
    E(ENOSPC, O | WIN32_ERR_MESSAGE, ERROR_NOT_ENOUGH_QUOTA);
    E(ESRCH, O | WIN32_ERR_MESSAGE, ERROR_INVALID_THREAD_ID);
    E(ENOMEM, O | WIN32_ERR_MESSAGE, ERROR_NOT_ENOUGH_MEMORY);
    E(ESRCH, O | WIN32_ERR_MESSAGE | WIN32_ERR_WINDOW, ERROR_INVALID_WINDOW_HANDLE);
    E(EBADF, O | WIN32_ERR_MESSAGE | WIN32_ERR_WINDOW, ERROR_INVALID_WINDOW_HANDLE);
    E(ENOSPC, O | WIN32_ERR_MESSAGE | WIN32_ERR_WINDOW, ERROR_NOT_ENOUGH_QUOTA);
    /* MapViewOfFile, OpenFileMapping / NtOpen* */
    E(EINVAL, M | WIN32_ERR_VIEW, ERROR_MAPPED_ALIGNMENT);
    E(EACCES, M | WIN32_ERR_VIEW, ERROR_ACCESS_DENIED);
    E(EINVAL, M | WIN32_ERR_OPEN, ERROR_INVALID_NAME);
    E(ENOENT, M | WIN32_ERR_OPEN, ERROR_FILE_NOT_FOUND);
    CHECK_EQ(win32_status_from_errno(-EINVAL, O | WIN32_ERR_OPEN), STATUS_OBJECT_NAME_INVALID);
    /* NtClose, DuplicateHandle / NtDuplicateObject */
    CHECK_EQ(win32_status_from_errno(-EPERM, O | WIN32_ERR_CLOSE), STATUS_HANDLE_NOT_CLOSABLE);
    CHECK_EQ(win32_status_from_errno(-EBADF, O | WIN32_ERR_CLOSE), STATUS_INVALID_HANDLE);
    E(EINVAL, O | WIN32_ERR_DUP, ERROR_INVALID_HANDLE);
    E(ESRCH, O | WIN32_ERR_DUP, ERROR_INVALID_HANDLE);
    E(EOPNOTSUPP, O | WIN32_ERR_DUP, ERROR_NOT_SUPPORTED);
    E(EMFILE, O | WIN32_ERR_DUP, ERROR_TOO_MANY_OPEN_FILES);
    CHECK_EQ(win32_status_from_errno(-EINVAL, O | WIN32_ERR_DUP), STATUS_INVALID_HANDLE);
    /* QueueUserAPC / NtQueueApcThread */
    E(ESRCH, O | WIN32_ERR_APC, ERROR_GEN_FAILURE);
    E(ENOTSUP, O | WIN32_ERR_APC, ERROR_NOT_SUPPORTED);
    E(ENOMEM, O | WIN32_ERR_APC, ERROR_NOT_ENOUGH_MEMORY);
    CHECK_EQ(win32_status_from_errno(-ESRCH, O | WIN32_ERR_APC), STATUS_UNSUCCESSFUL);
    /* TerminateProcess; the affinity and priority calls */
    E(ESRCH, X | WIN32_ERR_TERMINATE, ERROR_ACCESS_DENIED);
    CHECK_EQ(win32_status_from_errno(-ESRCH, X | WIN32_ERR_TERMINATE), STATUS_PROCESS_IS_TERMINATING);
    E(EPERM, X | WIN32_ERR_TERMINATE, ERROR_ACCESS_DENIED);
    E(EBADF, X | WIN32_ERR_TERMINATE, ERROR_INVALID_PARAMETER);
    E(ESRCH, X | WIN32_ERR_BY_HANDLE, ERROR_INVALID_HANDLE);
    E(ENOENT, X | WIN32_ERR_BY_HANDLE, ERROR_INVALID_HANDLE);
    E(EACCES, X | WIN32_ERR_BY_HANDLE, ERROR_ACCESS_DENIED);
    E(EINVAL, X | WIN32_ERR_BY_HANDLE, ERROR_INVALID_PARAMETER);
    /* names: CreateFile's EEXIST is its own code, a directory or a move's the collision */
    E(EEXIST, F, ERROR_FILE_EXISTS);
    E(EEXIST, F | WIN32_ERR_NAME, ERROR_ALREADY_EXISTS);
    E(ENOTEMPTY, F, ERROR_DIR_NOT_EMPTY);
    E(EXDEV, F | WIN32_ERR_NAME, ERROR_NOT_SAME_DEVICE);
}

/* The table's shape: a row serves families or call bits, never both (the call rows are
 * looked at first, so a mixed row would be found in the wrong pass); every call bit has
 * a row; nothing outside the two masks. */
static void table_shape(void)
{
    unsigned calls = 0;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint32_t c = rows[i].ctx;
        CHECK(c != 0);
        CHECK(!(c & ~(uint32_t)(WIN32_ERR_FAMILIES | WIN32_ERR_CALLS)));
        CHECK(!((c & WIN32_ERR_FAMILIES) && (c & WIN32_ERR_CALLS)));
        calls |= c & WIN32_ERR_CALLS;
    }
    /* WIN32_ERR_OVERLAPPED is a Winsock flag (the second table), not a row */
    CHECK_EQ(calls | WIN32_ERR_OVERLAPPED, (unsigned)(WIN32_ERR_NAME * 2 - WIN32_ERR_WAIT));
    CHECK(!(WIN32_ERR_WSA & (WIN32_ERR_FAMILIES | WIN32_ERR_CALLS)));
}

static void status_pairs(void)
{
    static const struct { NTSTATUS st; DWORD err; } t[] = {
        { STATUS_NOT_LOCKED, ERROR_NOT_LOCKED },
        { STATUS_NO_MORE_ENTRIES, ERROR_NO_MORE_ITEMS },
        { STATUS_END_OF_FILE, ERROR_HANDLE_EOF },
        { STATUS_SHARING_VIOLATION, ERROR_SHARING_VIOLATION },
        { STATUS_DIRECTORY_NOT_EMPTY, ERROR_DIR_NOT_EMPTY },
        { STATUS_NOT_SAME_DEVICE, ERROR_NOT_SAME_DEVICE },
        { STATUS_NO_MORE_FILES, ERROR_NO_MORE_FILES },
        { STATUS_PRIVILEGE_NOT_HELD, ERROR_PRIVILEGE_NOT_HELD },
        { STATUS_MEMORY_NOT_ALLOCATED, ERROR_INVALID_ADDRESS },
        { STATUS_WORKING_SET_QUOTA, ERROR_WORKING_SET_QUOTA },
        { STATUS_DISK_FULL, ERROR_DISK_FULL },
        { STATUS_CANCELLED, ERROR_OPERATION_ABORTED },
        { STATUS_CONNECTION_RESET, ERROR_NETNAME_DELETED },
        { STATUS_CONNECTION_REFUSED, ERROR_CONNECTION_REFUSED },
        { STATUS_IO_TIMEOUT, ERROR_SEM_TIMEOUT },
        { STATUS_NOT_A_DIRECTORY, ERROR_DIRECTORY },
        { STATUS_INVALID_IMAGE_FORMAT, ERROR_BAD_EXE_FORMAT },
        { STATUS_MUTANT_NOT_OWNED, ERROR_NOT_OWNER },
        { STATUS_SEMAPHORE_LIMIT_EXCEEDED, ERROR_TOO_MANY_POSTS },
        { STATUS_BUFFER_TOO_SMALL, ERROR_INSUFFICIENT_BUFFER },
        { STATUS_PIPE_BROKEN, ERROR_BROKEN_PIPE },
        { STATUS_PIPE_CLOSING, ERROR_NO_DATA },
        { STATUS_MAPPED_ALIGNMENT, ERROR_MAPPED_ALIGNMENT },
        { STATUS_DEVICE_NOT_READY, ERROR_NOT_READY },
        { STATUS_INVALID_ADDRESS_COMPONENT, ERROR_INVALID_NETNAME },
        { STATUS_PROCESS_IS_TERMINATING, ERROR_ACCESS_DENIED },
        { STATUS_INVALID_CID, ERROR_INVALID_PARAMETER },
        { STATUS_HANDLE_NOT_CLOSABLE, ERROR_INVALID_HANDLE },
        { STATUS_OBJECT_NAME_INVALID, ERROR_INVALID_NAME },
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        CHECK_EQ(RtlNtStatusToDosError(t[i].st), t[i].err);
        CHECK_EQ(win32_error_from_status(t[i].st, WIN32_ERR_OBJECT), t[i].err);
    }
    /* an I/O result: the status OVERLAPPED.Internal holds, and what GetOverlappedResult
     * and WSAGetOverlappedResult make of it */
    CHECK_EQ(win32_status_from_errno(-ECONNRESET, WIN32_ERR_IO), STATUS_CONNECTION_RESET);
    CHECK_EQ(win32_status_from_errno(-ENODATA, WIN32_ERR_IO), STATUS_END_OF_FILE);
    CHECK_EQ(win32_error_from_status(STATUS_END_OF_FILE, WIN32_ERR_IO | WIN32_ERR_WSA), WSAESHUTDOWN);
    CHECK_EQ(win32_error_from_status(STATUS_PENDING, WIN32_ERR_IO), ERROR_IO_INCOMPLETE);
    CHECK_EQ(win32_error_from_status(STATUS_PENDING, WIN32_ERR_IO | WIN32_ERR_WSA), WSA_IO_INCOMPLETE);
    CHECK_EQ(win32_error_from_status(STATUS_PENDING, WIN32_ERR_FILE), ERROR_IO_PENDING);
    NTSTATUS c = win32_status_from_errno(-ENOENT, WIN32_ERR_IO);     /* no row: 0xE0000000 | errno */
    CHECK_EQ((ULONG)c, 0xE0000000u | ENOENT);
    CHECK_EQ(win32_error_from_status(c, WIN32_ERR_IO), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(win32_error_from_status((NTSTATUS)0xC0001234, WIN32_ERR_IO), ERROR_GEN_FAILURE);
    /* the non-blocking socket's would-block and an address not available: Windows' AFD
     * statuses, Win32 codes by RtlNtStatusToDosError, Winsock codes by WSAGetOverlappedResult */
    CHECK_EQ(win32_status_from_errno(-EAGAIN, WIN32_ERR_IO), STATUS_DEVICE_NOT_READY);
    CHECK_EQ(win32_error_from_status(STATUS_DEVICE_NOT_READY, WIN32_ERR_IO), ERROR_NOT_READY);
    CHECK_EQ(win32_error_from_status(STATUS_DEVICE_NOT_READY, WIN32_ERR_IO | WIN32_ERR_WSA), WSAEWOULDBLOCK);
    CHECK_EQ(win32_status_from_errno(-EADDRNOTAVAIL, WIN32_ERR_IO), STATUS_INVALID_ADDRESS_COMPONENT);
    CHECK_EQ(win32_error_from_status(STATUS_INVALID_ADDRESS_COMPONENT, WIN32_ERR_IO), ERROR_INVALID_NETNAME);
    CHECK_EQ(win32_error_from_status(STATUS_INVALID_ADDRESS_COMPONENT, WIN32_ERR_IO | WIN32_ERR_WSA),
             WSAEADDRNOTAVAIL);
    CHECK_EQ(win32_error_from_status(STATUS_CONNECTION_RESET, WIN32_ERR_IO | WIN32_ERR_WSA), WSAECONNRESET);
}

/* the same mapping seen through the library's Win32 calls */
static void end_to_end(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    REQUIRE(h != NULL);
    CHECK(!HeapUnlock(h));
    CHECK_EQ(lib_GetLastError(), ERROR_NOT_LOCKED);
    PROCESS_HEAP_ENTRY e = { 0 };
    while (HeapWalk(h, &e)) {}
    CHECK_EQ(lib_GetLastError(), ERROR_NO_MORE_ITEMS);
    HeapDestroy(h);

    HANDLE m = CreateMutexW(NULL, FALSE, NULL);
    REQUIRE(m != NULL);
    CHECK(!ReleaseMutex(m));
    CHECK_EQ(lib_GetLastError(), ERROR_NOT_OWNER);
    CloseHandle(m);

    char path[] = "/tmp/nspa-errmap-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    CHECK(CreateFileA(path, GENERIC_READ, 0, NULL, CREATE_NEW, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(lib_GetLastError(), ERROR_FILE_EXISTS);
    unlink(path);
    CHECK(!SetCurrentDirectoryA("/nonexistent-nspa-errmap"));
    CHECK_EQ(lib_GetLastError(), ERROR_FILE_NOT_FOUND);
}

static DWORD WINAPI quick_win32_thread(LPVOID arg) { return 0; }
static VOID CALLBACK never_apc(ULONG_PTR p) { (void)p; }
static void NTAPI never_nt_apc(ULONG_PTR a1, ULONG_PTR a2, ULONG_PTR a3) { (void)a1, (void)a2, (void)a3; }

/* A file the kernel refuses to write or delete (FS_IMMUTABLE_FL): EPERM, which the file
 * calls report as Windows does for a read-only file, ERROR_ACCESS_DENIED (it was
 * ERROR_GEN_FAILURE for CreateFile). Needs CAP_LINUX_IMMUTABLE and a file system with
 * the flag: said so and left out otherwise. */
static void immutable_file(void)
{
    char path[] = "/var/tmp/nspa-errmap-ro-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        printf("immutable file: not checked (mkstemp: %s)\n", strerror(errno));
        return;
    }
    int fl = 0;
    int ok = ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 && (fl |= FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0);
    int why = errno;
    close(fd);
    if (!ok) {
        printf("immutable file: not checked (FS_IOC_SETFLAGS: %s)\n", strerror(why));
        unlink(path);
        return;
    }
    CHECK(CreateFileA(path, GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(lib_GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(!DeleteFileA(path));
    CHECK_EQ(lib_GetLastError(), ERROR_ACCESS_DENIED);
    fd = open(path, O_RDONLY);
    if (fd >= 0) {
        fl &= ~FS_IMMUTABLE_FL;
        CHECK(ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0);
        close(fd);
    }
    CHECK(unlink(path) == 0);
}

/* the call sites that used to pick their error inline, through the library */
static void call_sites(void)
{
    /* ports (a zero wait's WAIT_TIMEOUT: tests/io_iocp.c): a packet for a handle that is
     * not a port, notification modes for one that is not a file */
    HANDLE port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
    REQUIRE(port != NULL);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    REQUIRE(ev != NULL);
    CHECK(!PostQueuedCompletionStatus(ev, 0, 0, NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!SetFileCompletionNotificationModes(port, 0x80));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);   /* a port is not a file of its own */
    CloseHandle(port);

    /* pipes: PeekNamedPipe on a file; a write nobody will read; a NULL path */
    char path[] = "/tmp/nspa-errmap-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    HANDLE f = CreateFileA(path, GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    DWORD avail = 0;
    CHECK(!PeekNamedPipe(f, NULL, 0, NULL, &avail, NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(f);
    unlink(path);
    HANDLE rd, wr;
    REQUIRE(CreatePipe(&rd, &wr, NULL, 0));
    CloseHandle(rd);
    DWORD n = 0;
    CHECK(!WriteFile(wr, "x", 1, &n, NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_NO_DATA);
    CloseHandle(wr);
    immutable_file();
    CHECK(CreateFileA(NULL, GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(lib_GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(!DeleteFileW(NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_PATH_NOT_FOUND);

    /* sections: a name of another type (fixed: was ERROR_INVALID_PARAMETER), a view at
     * an offset that is not a multiple of 64 KiB */
    HANDLE named = CreateEventA(NULL, TRUE, FALSE, "nspa-errmap-ev");
    REQUIRE(named != NULL);
    CHECK(OpenFileMappingA(FILE_MAP_READ, FALSE, "nspa-errmap-ev") == NULL);
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 65536, "nspa-errmap-ev") == NULL);
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(named);
    HANDLE sec = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 1 << 17, NULL);
    REQUIRE(sec != NULL);
    CHECK(MapViewOfFile(sec, FILE_MAP_READ, 0, 4096, 4096) == NULL);
    CHECK_EQ(lib_GetLastError(), ERROR_MAPPED_ALIGNMENT);
    CloseHandle(sec);

    /* handles: NtClose of a protected handle; DuplicateHandle's bad source */
    REQUIRE(SetHandleInformation(ev, HANDLE_FLAG_PROTECT_FROM_CLOSE, HANDLE_FLAG_PROTECT_FROM_CLOSE));
    CHECK_EQ(NtClose(ev), STATUS_HANDLE_NOT_CLOSABLE);
    REQUIRE(SetHandleInformation(ev, HANDLE_FLAG_PROTECT_FROM_CLOSE, 0));
    CHECK_EQ(NtClose(ev), STATUS_SUCCESS);
    CHECK_EQ(NtClose(ev), STATUS_INVALID_HANDLE);
    CHECK(!GetHandleInformation(ev, &n));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);

    /* an APC to a thread that has ended: ERROR_GEN_FAILURE (NtQueueApcThread's
     * STATUS_UNSUCCESSFUL) */
    HANDLE t = CreateThread(NULL, 0, quick_win32_thread, NULL, 0, NULL);
    REQUIRE(t != NULL);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(QueueUserAPC(never_apc, t, 0), 0);
    CHECK_EQ(lib_GetLastError(), ERROR_GEN_FAILURE);
    CHECK_EQ(NtQueueApcThread(t, never_nt_apc, 0, 0, 0), STATUS_UNSUCCESSFUL);
    CHECK_EQ(GetThreadPriority(t), THREAD_PRIORITY_ERROR_RETURN);
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(t);

    /* messages: a thread with no queue */
    CHECK(!PostThreadMessageA(0x3ffffff0u, WM_USER, 0, 0));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_THREAD_ID);

    /* locks: WaitOnAddress's size and timeout, INIT_ONCE checked before it is done */
    volatile LONG word = 1;
    LONG cmp = 1;
    CHECK(!WaitOnAddress(&word, &cmp, 3, 0));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!WaitOnAddress(&word, &cmp, sizeof(cmp), 1));
    CHECK_EQ(lib_GetLastError(), ERROR_TIMEOUT);
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    BOOL pending;
    CHECK(!InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY, &pending, NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_GEN_FAILURE);
    CHECK(!InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY | INIT_ONCE_ASYNC, &pending, NULL));
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_PARAMETER);

    /* processes by id */
    CHECK(OpenThread(THREAD_QUERY_INFORMATION, FALSE, 0x3ffffff0u) == NULL);
    CHECK_EQ(lib_GetLastError(), ERROR_INVALID_PARAMETER);
}

int main(void)
{
    errno_pairs();
    call_pairs();
    table_shape();
    status_pairs();
    end_to_end();
    call_sites();
    return nspa_test_done();
}
