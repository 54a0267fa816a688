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

static char path[256];

static HANDLE make_file(DWORD flags)
{
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                           FILE_FLAG_RANDOM_ACCESS | flags, 0);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    return f;
}

static void drop_file(HANDLE f)
{
    CHECK(CloseHandle(f));
    CHECK(DeleteFileA(path));
}

/* the bind is refused with @err */
static void refused(HANDLE f, LPOVERLAPPED_COMPLETION_ROUTINE fn, DWORD err)
{
    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(f, fn, 0));
    CHECK_EQ(GetLastError(), err);
}

static void WINAPI iocp_callback(DWORD err, DWORD bytes, LPOVERLAPPED ov)
{
    (void)ov;
    InterlockedExchange(&cb_err, (LONG)err);
    InterlockedExchange(&cb_bytes, (LONG)bytes);
    ReleaseSemaphore(sem, 1, NULL);
}

int main(void)
{
    snprintf(path, sizeof(path), "/tmp/nspa-bind-wine-%d", (int)getpid());
    const char *buffer = "12345678123456781234567812345678";
    sem = CreateSemaphoreW(NULL, 0, 1, NULL);
    REQUIRE(sem != NULL);

    HANDLE f = make_file(0);
    refused(f, iocp_callback, ERROR_INVALID_PARAMETER);                 /* not overlapped */
    drop_file(f);

    f = make_file(FILE_FLAG_OVERLAPPED);
    CHECK(BindIoCompletionCallback(f, iocp_callback, 0));
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    DWORD written = 0;
    BOOL w = WriteFile(f, buffer, 4, &written, &ov);
    CHECK(w || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(sem, 5000), WAIT_OBJECT_0);      /* the callback ran */
    CHECK_EQ(InterlockedCompareExchange(&cb_err, 0, 0), 0);
    CHECK_EQ(InterlockedCompareExchange(&cb_bytes, 0, 0), 4);
    refused(f, iocp_callback, ERROR_INVALID_PARAMETER);                 /* bound already */
    refused(f, NULL, ERROR_INVALID_PARAMETER);
    drop_file(f);

    /* Flags must be 0 on some Windows versions: either answer, but a refusal says why */
    f = make_file(FILE_FLAG_OVERLAPPED);
    SetLastError(0xdeadbeef);
    if (!BindIoCompletionCallback(f, iocp_callback, 12345)) CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    drop_file(f);

    SetLastError(0xdeadbeef);
    CHECK(!BindIoCompletionCallback(NULL, iocp_callback, 0));
    CHECK(GetLastError() == ERROR_INVALID_HANDLE || GetLastError() == ERROR_INVALID_PARAMETER);
    CloseHandle(sem);
    return nspa_test_done();
}
