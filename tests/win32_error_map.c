/* The Win32 layer's one error mapping (src/win32/lasterror.c): representative
 * errno -> Win32 error pairs of each module's context, NTSTATUS -> Win32 error pairs
 * (RtlNtStatusToDosError, the values Windows documents), the I/O results' statuses and
 * their Win32/Winsock codes, and a few failures seen end to end through the library.
 *
 * The mapping functions are hidden in libnspa, so the unit is compiled into this test
 * too, with its GetLastError/SetLastError renamed (the library's own are used below). */
#define GetLastError unit_GetLastError
#define SetLastError unit_SetLastError
#include "win32/lasterror.c"
#undef GetLastError
#undef SetLastError
#include <fcntl.h>
#include <unistd.h>
#include "nspa_test.h"
#include "nspa/win32/winsock2.h"

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
    E(EEXIST, WIN32_ERR_MEMORY, ERROR_INVALID_PARAMETER);
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
    E(EPERM, WIN32_ERR_FILE, ERROR_GEN_FAILURE);
    /* paths (SetCurrentDirectory) and images (CreateProcess) */
    E(ENOTDIR, WIN32_ERR_PATH, ERROR_DIRECTORY);
    E(ELOOP, WIN32_ERR_PATH, ERROR_CANT_RESOLVE_FILENAME);
    E(EPERM, WIN32_ERR_PATH, ERROR_ACCESS_DENIED);
    E(EBADF, WIN32_ERR_PATH, ERROR_PATH_NOT_FOUND);
    E(ENOEXEC, WIN32_ERR_EXEC, ERROR_BAD_EXE_FORMAT);
    E(E2BIG, WIN32_ERR_EXEC, ERROR_FILENAME_EXCED_RANGE);
    E(EAGAIN, WIN32_ERR_EXEC, ERROR_NOT_ENOUGH_MEMORY);
    E(EISDIR, WIN32_ERR_EXEC, ERROR_ACCESS_DENIED);
    /* Winsock */
    E(ECONNRESET, WIN32_ERR_WSA, WSAECONNRESET);
    E(EAGAIN, WIN32_ERR_WSA, WSAEWOULDBLOCK);
    E(EBADF, WIN32_ERR_WSA, WSAENOTSOCK);
    E(ECANCELED, WIN32_ERR_WSA, WSA_OPERATION_ABORTED);
    E(EPROTONOSUPPORT, WIN32_ERR_WSA, WSAEPROTONOSUPPORT);
}

static void status_pairs(void)
{
    static const struct { NTSTATUS st; DWORD err; } t[] = {
        { STATUS_NOT_LOCKED, ERROR_NOT_LOCKED },
        { STATUS_NO_MORE_ENTRIES, ERROR_NO_MORE_ITEMS },
        { STATUS_END_OF_FILE, ERROR_HANDLE_EOF },
        { STATUS_SHARING_VIOLATION, ERROR_SHARING_VIOLATION },
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

int main(void)
{
    errno_pairs();
    status_pairs();
    end_to_end();
    return nspa_test_done();
}
