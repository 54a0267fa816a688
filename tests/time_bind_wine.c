/* Wine's test_iocp_callback (kernel32 sync tests), on NSPA: BindIoCompletionCallback
 * refuses a file opened without FILE_FLAG_OVERLAPPED (ERROR_INVALID_PARAMETER), binds an
 * overlapped one whose WriteFile completion then runs the callback, refuses a second bind
 * and a NULL callback (ERROR_INVALID_PARAMETER), takes or refuses Flags != 0 with
 * ERROR_INVALID_PARAMETER, and refuses a NULL handle. */
#include <windows.h>
#include <stdio.h>
#include <unistd.h>
#include "nspa_test.h"

static HANDLE sem;
static volatile LONG cb_err = -1, cb_bytes = -1;

static void WINAPI iocp_callback(DWORD err, DWORD bytes, LPOVERLAPPED ov)
{
    (void)ov;
    InterlockedExchange(&cb_err, (LONG)err);
    InterlockedExchange(&cb_bytes, (LONG)bytes);
    ReleaseSemaphore(sem, 1, NULL);
}

int main(void)
{
    char path[256];
    snprintf(path, sizeof(path), "/tmp/nspa-bind-wine-%d", (int)getpid());
    const char *buffer = "12345678123456781234567812345678";
    sem = CreateSemaphoreW(NULL, 0, 1, NULL);
    REQUIRE(sem != NULL);

    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_FLAG_RANDOM_ACCESS, 0);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(f, iocp_callback, 0));             /* not overlapped */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CloseHandle(f));
    CHECK(DeleteFileA(path));

    f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                    FILE_FLAG_RANDOM_ACCESS | FILE_FLAG_OVERLAPPED, 0);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    CHECK(BindIoCompletionCallback(f, iocp_callback, 0));
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    DWORD written = 0;
    BOOL w = WriteFile(f, buffer, 4, &written, &ov);
    CHECK(w || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(sem, 5000), WAIT_OBJECT_0);      /* the callback ran */
    CHECK_EQ(InterlockedCompareExchange(&cb_err, 0, 0), 0);
    CHECK_EQ(InterlockedCompareExchange(&cb_bytes, 0, 0), 4);
    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(f, iocp_callback, 0));             /* bound already */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(f, NULL, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CloseHandle(f));
    CHECK(DeleteFileA(path));

    /* Flags must be 0 on some Windows versions: either answer, but a refusal says why */
    f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                    FILE_FLAG_RANDOM_ACCESS | FILE_FLAG_OVERLAPPED, 0);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    SetLastError(0xdeadbeef);
    if (!BindIoCompletionCallback(f, iocp_callback, 12345)) CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CloseHandle(f));
    CHECK(DeleteFileA(path));

    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(NULL, iocp_callback, 0));
    CHECK(GetLastError() == ERROR_INVALID_HANDLE || GetLastError() == ERROR_INVALID_PARAMETER);
    CloseHandle(sem);
    return nspa_test_done();
}
