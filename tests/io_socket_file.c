/* A SOCKET is a file handle: ReadFile / WriteFile work on it, synchronous (blocking as
 * recv / send) and overlapped (with an event, and ReadFileEx / WriteFileEx with their
 * completion routines run by an alertable wait), as on Windows (docs/io.md, "Winsock"). */
#include "io_util.h"

static DWORD routine_bytes, routine_err;
static int routines;

static void WINAPI done(DWORD err, DWORD bytes, LPOVERLAPPED ov)
{
    (void)ov;
    routine_err = err;
    routine_bytes = bytes;
    routines++;
}

int main(void)
{
    io_test_start();
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    char b[16];
    DWORD n = 0;
    /* synchronous */
    CHECK(WriteFile((HANDLE)c, "hello", 5, &n, NULL));
    CHECK_EQ(n, 5);
    CHECK(ReadFile((HANDLE)s, b, sizeof(b), &n, NULL));
    CHECK_EQ(n, 5);
    CHECK(!memcmp(b, "hello", 5));

    /* overlapped, with an event: pending until the data comes */
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    n = 0;
    CHECK(!ReadFile((HANDLE)s, b, sizeof(b), NULL, &ov));
    CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    CHECK(WriteFile((HANDLE)c, "world!", 6, &n, NULL));
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 5000), WAIT_OBJECT_0);
    CHECK(GetOverlappedResult((HANDLE)s, &ov, &n, FALSE));
    CHECK_EQ(n, 6);
    CHECK(!memcmp(b, "world!", 6));
    CloseHandle(ov.hEvent);

    /* ReadFileEx / WriteFileEx: the routines run in an alertable wait, with the bytes */
    memset(&ov, 0, sizeof(ov));
    CHECK(ReadFileEx((HANDLE)s, b, sizeof(b), &ov, done));
    OVERLAPPED wo;
    memset(&wo, 0, sizeof(wo));
    CHECK(WriteFileEx((HANDLE)c, "routine", 7, &wo, done));
    for (int i = 0; i < 100 && routines < 2; i++) SleepEx(50, TRUE);
    CHECK_EQ(routines, 2);
    CHECK_EQ(routine_err, 0);
    CHECK_EQ(routine_bytes, 7);
    CHECK(!memcmp(b, "routine", 7));

    /* the peer's close: a read of 0 bytes, TRUE */
    closesocket(c);
    CHECK(ReadFile((HANDLE)s, b, sizeof(b), &n, NULL));
    CHECK_EQ(n, 0);
    closesocket(s);
    WSACleanup();
    return nspa_test_done();
}
