/* Thread rings handed from thread to thread (docs/io.md, "Thread rings"): a ring left
 * by an ended thread serves the next one, which registers the ring's descriptor for
 * itself (its own io_uring_enter names the ring by that index), submits on it without a
 * lock, and is cancelled from another thread through IORING_REGISTER_SYNC_CANCEL.
 * 70 threads in turn (more than the 64 rings), each on a pair of its own:
 *   - a receive of data already there completes at once;
 *   - a receive goes pending, the main thread sends 60 ms later: the wait sleeps (its
 *     CPU time stays under 10 ms: an io_uring_enter failing on a stale registration
 *     would return at once and turn the wait into a busy loop), the data is intact;
 *   - a receive goes pending, the main thread cancels it (CancelIoEx): one completion,
 *     WSA_OPERATION_ABORTED, and the socket still works after it.
 * Runs on both engines (the epoll one has no thread rings: the same calls must hold). */
#include <time.h>
#include "io_util.h"

#define THREADS 70

struct job {
    SOCKET c, s;
    HANDLE posted, sent;         /* worker -> main: a receive is pending; main -> worker */
    int cancel;                  /* main: cancel the receive instead of sending */
    WSAOVERLAPPED *ov;           /* the pending receive (main's cancel names it) */
    double cpu_ms;               /* worker: CPU time of the 60 ms wait */
    int fails;
};

static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void ov_reset(WSAOVERLAPPED *ov)
{
    WSAEVENT e = ov->hEvent;
    memset(ov, 0, sizeof(*ov));
    ov->hEvent = e;
}

static DWORD WINAPI worker(LPVOID p)
{
    struct job *j = p;
    char buf[64], want[64];
    WSAOVERLAPPED ov;
    DWORD n = 0, fl = 0;

    /* data first: completes at once */
    memset(want, 'a', sizeof(want));
    CHECK_EQ(send(j->c, want, 16, 0), 16);
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    int r = io_post_recv(j->s, &ov, buf, sizeof(buf));
    if (r == WSA_IO_PENDING) r = WSAGetOverlappedResult(j->s, &ov, &n, TRUE, &fl) ? 0 : (int)WSAGetLastError();
    CHECK_EQ(r, 0);
    CHECK_EQ(WSAGetOverlappedResult(j->s, &ov, &n, FALSE, &fl), TRUE);
    CHECK_EQ(n, 16);

    /* pending, then the main thread sends: the wait sleeps in the ring */
    ov_reset(&ov);
    CHECK_EQ(io_post_recv(j->s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    j->ov = &ov;
    j->cancel = 0;
    SetEvent(j->posted);
    double c0 = thread_cpu_ms();
    BOOL ok = WSAGetOverlappedResult(j->s, &ov, &n, TRUE, &fl);
    j->cpu_ms = thread_cpu_ms() - c0;
    CHECK_EQ(ok, TRUE);
    CHECK_EQ(n, 32);
    memset(want, 'b', 32);
    CHECK(!memcmp(buf, want, 32));
    WaitForSingleObject(j->sent, 5000);

    /* pending, then the main thread cancels it */
    ov_reset(&ov);
    CHECK_EQ(io_post_recv(j->s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    j->cancel = 1;
    SetEvent(j->posted);
    ok = WSAGetOverlappedResult(j->s, &ov, &n, TRUE, &fl);
    CHECK_EQ(ok, FALSE);
    CHECK_EQ(WSAGetLastError(), WSA_OPERATION_ABORTED);
    WaitForSingleObject(j->sent, 5000);
    /* after the cancel the socket still works */
    CHECK_EQ(send(j->c, "z", 1, 0), 1);
    ov_reset(&ov);
    r = io_post_recv(j->s, &ov, buf, sizeof(buf));
    if (r == WSA_IO_PENDING) r = WSAGetOverlappedResult(j->s, &ov, &n, TRUE, &fl) ? 0 : (int)WSAGetLastError();
    CHECK_EQ(r, 0);
    CHECK_EQ(buf[0], 'z');
    WSACloseEvent(ov.hEvent);
    return 0;
}

int main(void)
{
    io_test_start();
    double worst = 0;
    int slept = 0;
    for (int i = 0; i < THREADS; i++) {
        struct job j;
        memset(&j, 0, sizeof(j));
        io_tcp_pair(&j.c, &j.s);
        j.posted = CreateEventA(NULL, FALSE, FALSE, NULL);
        j.sent = CreateEventA(NULL, FALSE, FALSE, NULL);
        HANDLE t = CreateThread(NULL, 0, worker, &j, 0, NULL);
        REQUIRE(t != NULL);

        REQUIRE(WaitForSingleObject(j.posted, 5000) == WAIT_OBJECT_0);
        CHECK_EQ(j.cancel, 0);
        Sleep(60);
        char b[32];
        memset(b, 'b', sizeof(b));
        CHECK_EQ(send(j.c, b, 32, 0), 32);
        SetEvent(j.sent);

        REQUIRE(WaitForSingleObject(j.posted, 5000) == WAIT_OBJECT_0);
        CHECK_EQ(j.cancel, 1);
        CHECK_EQ(CancelIoEx((HANDLE)j.s, (LPOVERLAPPED)j.ov), TRUE);
        SetEvent(j.sent);

        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        CloseHandle(t);
        if (j.cpu_ms > worst) worst = j.cpu_ms;
        slept += j.cpu_ms < 10.0;
        closesocket(j.c);
        closesocket(j.s);
        CloseHandle(j.posted);
        CloseHandle(j.sent);
    }
    printf("%d threads: %d waits of 60 ms slept (CPU < 10 ms); worst %.2f ms of CPU\n", THREADS, slept, worst);
    CHECK_EQ(slept, THREADS);
    return nspa_test_done();
}
