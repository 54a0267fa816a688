/* CancelSynchronousIo (issue 13, item 3): a thread blocked in a synchronous ReadFile on a
 * pipe, a WriteFile on a full pipe, or a blocking recv is woken with
 * ERROR_OPERATION_ABORTED (WSA_OPERATION_ABORTED for Winsock); nothing is lost (the pipe
 * and the socket keep working, a later read gets the data); a cancel leaves no stale
 * wake-up behind (the next blocking read blocks until data comes); ERROR_NOT_FOUND when
 * the thread is not blocked in I/O (running, sleeping, waiting on an event, the caller
 * itself); ERROR_INVALID_HANDLE for a handle that is not a thread. */
#include "io_util.h"
/* <unistd.h> cannot meet <ws2tcpip.h> (socklen_t): the few POSIX calls used here */
extern int pipe(int fds[2]);
extern int dup(int fd);
extern int dup2(int fd, int to);
extern int close(int fd);
extern long write(int fd, const void *buf, unsigned long n);

struct job {
    int kind;                 /* 0 ReadFile, 1 WriteFile until full, 2 recv */
    HANDLE h;
    SOCKET s;
    volatile LONG stage;
    DWORD err, err2, n2;
    char buf[64];
};

static DWORD WINAPI worker(LPVOID p)
{
    struct job *j = p;
    DWORD n;
    InterlockedExchange(&j->stage, 1);
    if (j->kind == 0) {
        BOOL ok = ReadFile(j->h, j->buf, sizeof(j->buf), &n, NULL);
        j->err = ok ? 0 : GetLastError();
        InterlockedExchange(&j->stage, 2);
        /* again: must block until the main thread writes (no stale wake-up) */
        ok = ReadFile(j->h, j->buf, sizeof(j->buf), &j->n2, NULL);
        j->err2 = ok ? 0 : GetLastError();
    } else if (j->kind == 1) {
        static char big[1 << 20];
        BOOL ok = WriteFile(j->h, big, sizeof(big), &n, NULL);   /* nobody reads */
        j->err = ok ? 0 : GetLastError();
    } else {
        int r = recv(j->s, j->buf, sizeof(j->buf), 0);
        j->err = r < 0 ? (DWORD)WSAGetLastError() : 0;
        InterlockedExchange(&j->stage, 2);
        r = recv(j->s, j->buf, sizeof(j->buf), 0);
        j->n2 = r > 0 ? (DWORD)r : 0;
        j->err2 = r < 0 ? (DWORD)WSAGetLastError() : 0;
    }
    InterlockedExchange(&j->stage, 3);
    return 0;
}

/* cancel until it takes (the thread must first reach its blocking wait); every
 * earlier answer is ERROR_NOT_FOUND. Returns the number of tries. */
static int cancel_until(HANDLE th)
{
    for (int i = 1; i <= 5000; i++) {
        SetLastError(0);
        if (CancelSynchronousIo(th)) return i;
        CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
        Sleep(1);
    }
    CHECK(!"CancelSynchronousIo never found the blocked call");
    return -1;
}

static void wait_stage(struct job *j, LONG s)
{
    for (int i = 0; i < 10000 && InterlockedCompareExchange(&j->stage, 0, 0) < s; i++) Sleep(1);
    CHECK(InterlockedCompareExchange(&j->stage, 0, 0) >= s);
}

static void test_pipe_read(void)
{
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, NULL, 0));
    struct job j = { .kind = 0, .h = r };
    HANDLE th = CreateThread(NULL, 0, worker, &j, 0, NULL);
    REQUIRE(th);
    cancel_until(th);
    wait_stage(&j, 2);
    CHECK_EQ(j.err, ERROR_OPERATION_ABORTED);
    /* the second read blocks: a cancel left no count behind */
    Sleep(50);
    CHECK_EQ(InterlockedCompareExchange(&j.stage, 0, 0), 2);
    DWORD n;
    CHECK(WriteFile(w, "after", 5, &n, NULL));
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    CHECK_EQ(j.err2, 0);
    CHECK(j.n2 == 5 && !memcmp(j.buf, "after", 5));
    /* a thread that has ended, or is not in I/O */
    SetLastError(0);
    CHECK(!CancelSynchronousIo(th));
    CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
    CloseHandle(th);
    CloseHandle(r);
    CloseHandle(w);
}

static void test_pipe_write(void)
{
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, NULL, 4096));
    struct job j = { .kind = 1, .h = w };
    HANDLE th = CreateThread(NULL, 0, worker, &j, 0, NULL);
    REQUIRE(th);
    cancel_until(th);
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    CHECK_EQ(j.err, ERROR_OPERATION_ABORTED);
    /* the pipe still carries data: what was written before the cancel is readable */
    DWORD avail = 0;
    CHECK(PeekNamedPipe(r, NULL, 0, NULL, &avail, NULL) && avail > 0);
    CloseHandle(th);
    CloseHandle(r);
    CloseHandle(w);
}

static void test_recv(void)
{
    struct sockaddr_in a;
    SOCKET l = io_listener(&a);
    SOCKET c = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    REQUIRE(connect(c, (struct sockaddr *)&a, sizeof(a)) == 0);
    SOCKET s = accept(l, NULL, NULL);
    REQUIRE(s != INVALID_SOCKET);
    struct job j = { .kind = 2, .s = s };
    HANDLE th = CreateThread(NULL, 0, worker, &j, 0, NULL);
    REQUIRE(th);
    cancel_until(th);
    wait_stage(&j, 2);
    CHECK_EQ(j.err, WSA_OPERATION_ABORTED);
    Sleep(20);
    CHECK_EQ(send(c, "data", 4, 0), 4);
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    CHECK(j.n2 == 4 && !memcmp(j.buf, "data", 4));
    CloseHandle(th);
    closesocket(s);
    closesocket(c);
    closesocket(l);
}

/* a standard stream that is a Linux pipe (not one of ours): the wait is cancellable too */
static void test_std_fifo(void)
{
    int p[2];
    REQUIRE(pipe(p) == 0);
    int saved = dup(0);
    REQUIRE(saved >= 0 && dup2(p[0], 0) == 0);
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    CHECK_EQ(GetFileType(in), FILE_TYPE_PIPE);
    struct job j = { .kind = 0, .h = in };
    HANDLE th = CreateThread(NULL, 0, worker, &j, 0, NULL);
    REQUIRE(th);
    cancel_until(th);
    wait_stage(&j, 2);
    CHECK_EQ(j.err, ERROR_OPERATION_ABORTED);
    CHECK_EQ(write(p[1], "fifo", 4), 4);
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    CHECK(j.err2 == 0 && j.n2 == 4 && !memcmp(j.buf, "fifo", 4));
    CloseHandle(th);
    dup2(saved, 0);
    close(saved);
    close(p[0]);
    close(p[1]);
}

static DWORD WINAPI sleeper(LPVOID ev)
{
    return WaitForSingleObject((HANDLE)ev, 10000);
}

static void test_not_found(void)
{
    SetLastError(0);
    CHECK(!CancelSynchronousIo(GetCurrentThread()));
    CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE th = CreateThread(NULL, 0, sleeper, ev, 0, NULL);
    REQUIRE(th);
    Sleep(20);
    SetLastError(0);
    CHECK(!CancelSynchronousIo(th));                   /* a wait is not I/O */
    CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
    SetEvent(ev);
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeThread(th, &code) && code == WAIT_OBJECT_0);   /* the wait was not disturbed */
    SetLastError(0);
    CHECK(!CancelSynchronousIo(ev));                   /* not a thread */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!CancelSynchronousIo((HANDLE)(uintptr_t)0x7ff4));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(th);
    CloseHandle(ev);
}

int main(void)
{
    io_test_start();
    test_not_found();
    test_pipe_read();
    test_pipe_write();
    test_recv();
    test_std_fifo();
    WSACleanup();
    return nspa_test_done();
}
