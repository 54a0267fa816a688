/* Waits that reap their own I/O (docs/io.md, "Thread rings"): with io_uring, a thread
 * that issues overlapped I/O gets a ring of its own and sleeps there, on its wait word
 * and its completions at once. What must hold whatever the engine:
 *  - a wait over a pending receive's event and another object wakes on the other one
 *    (the word's FUTEX_WAIT in the ring), and later on the I/O;
 *  - a wait with a timeout over a pending receive times out on time;
 *  - an issuing thread that never waits (busy, not in a wait of the library): its I/O
 *    still completes for another thread's wait (the engine thread reaps its ring);
 *  - issuing threads that end with receives pending (more threads than rings): every
 *    receive still completes, once, with its data (rings are reused);
 *  - a receive whose data is there completes at once (WSARecv returns 0, no packet with
 *    FILE_SKIP_COMPLETION_PORT_ON_SUCCESS), also when done by the ring's inline attempt;
 *  - a wait on a mutex owned by another process (a fork child), while the thread's
 *    ring has a receive pending: the wait sleeps on futex_waitv (owners watched) and
 *    on shared futexes after the fork, so the ring's request on the word is cancelled
 *    first; release and abandonment reach it, and the receive completes afterwards;
 *  - with io_uring on Linux >= 6.7 the rings exist (io_uring descriptors counted). */
#include "io_util.h"
#include <dirent.h>
#include <time.h>

/* <unistd.h> and <sys/wait.h> clash with ws2tcpip.h's socklen_t */
pid_t fork(void);
pid_t waitpid(pid_t pid, int *status, int options);

static int count_rings(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *e;
    char path[300], line[128];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof(line), f))
            if (!strncmp(line, "SqMask:", 7)) n++;   /* an io_uring's fdinfo */
        fclose(f);
    }
    if (d) closedir(d);
    return n;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static DWORD WINAPI set_later(LPVOID p)
{
    Sleep(30);
    SetEvent((HANDLE)p);
    return 0;
}

static void wake_other_then_io(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[16];
    int rings0 = count_rings();
    CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    const char *eng = getenv("NSPA_IO_ENGINE");
    int uring = !(eng && !strcmp(eng, "epoll"));
    const char *tr = getenv("NSPA_IO_THREAD_RINGS");
    if (uring && io_kernel_has_futex_ops() && !(tr && !strcmp(tr, "0")))
        CHECK(count_rings() > rings0 || rings0 >= 2);   /* the process ring and ours */
    printf("io_uring descriptors: %d\n", count_rings());

    /* the other object wakes the wait while the receive is pending */
    HANDLE other = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, set_later, other, 0, NULL);
    HANDLE hs[2] = { ov.hEvent, other };
    CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 5000), WAIT_OBJECT_0 + 1);
    CHECK(!HasOverlappedIoCompleted(&ov));
    WaitForSingleObject(t, 5000);
    CloseHandle(t);

    /* several rounds: woken by the other object, then by the I/O, in turn */
    for (int i = 0; i < 50; i++) {
        t = CreateThread(NULL, 0, set_later, other, 0, NULL);
        CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 5000), WAIT_OBJECT_0 + 1);
        WaitForSingleObject(t, 5000);
        CloseHandle(t);
        CHECK_EQ(send(c, "x", 1, 0), 1);
        CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 5000), WAIT_OBJECT_0);
        DWORD got = 0, fl = 0;
        CHECK(WSAGetOverlappedResult(s, &ov, &got, FALSE, &fl));
        CHECK_EQ(got, 1);
        CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    }

    /* a timeout over a pending receive */
    double t0 = now_ms();
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 60), WAIT_TIMEOUT);
    double el = now_ms() - t0;
    CHECK(el >= 55 && el < 3000);
    DWORD got = 0, fl = 0;
    CHECK(!WSAGetOverlappedResult(s, &ov, &got, FALSE, &fl));
    CHECK_EQ(WSAGetLastError(), WSA_IO_INCOMPLETE);
    CHECK_EQ(send(c, "yz", 2, 0), 2);
    CHECK(WSAGetOverlappedResult(s, &ov, &got, TRUE, &fl));
    CHECK_EQ(got, 2);
    CHECK(!memcmp(buf, "yz", 2));
    CloseHandle(other);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

/* the issuer stays busy outside the library's waits while another thread waits */
struct busy { SOCKET s; WSAOVERLAPPED ov; char buf[8]; volatile int posted, stop; };

static void nap_ms(int ms)          /* a plain Linux sleep, not a wait of the library */
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static DWORD WINAPI busy_issuer(LPVOID p)
{
    struct busy *b = p;
    CHECK_EQ(io_post_recv(b->s, &b->ov, b->buf, sizeof(b->buf)), WSA_IO_PENDING);
    __atomic_store_n(&b->posted, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) nap_ms(1);
    return 0;
}

static void busy_issuer_case(void)
{
    SOCKET c;
    struct busy b;
    memset(&b, 0, sizeof(b));
    io_tcp_pair(&c, &b.s);
    b.ov.hEvent = WSACreateEvent();
    HANDLE th = CreateThread(NULL, 0, busy_issuer, &b, 0, NULL);
    REQUIRE(th != NULL);
    while (!__atomic_load_n(&b.posted, __ATOMIC_ACQUIRE)) nap_ms(1);
    CHECK_EQ(send(c, "busy", 4, 0), 4);
    CHECK_EQ(WaitForSingleObject(b.ov.hEvent, 5000), WAIT_OBJECT_0);
    DWORD got = 0, fl = 0;
    CHECK(WSAGetOverlappedResult(b.s, &b.ov, &got, FALSE, &fl));
    CHECK_EQ(got, 4);
    CHECK(!memcmp(b.buf, "busy", 4));
    __atomic_store_n(&b.stop, 1, __ATOMIC_RELEASE);
    CHECK_EQ(WaitForSingleObject(th, 5000), WAIT_OBJECT_0);
    CloseHandle(th);
    WSACloseEvent(b.ov.hEvent);
    closesocket(c);
    closesocket(b.s);
}

/* issuing threads end with their receives pending; more of them than rings */
#define NEND 80
struct ended { SOCKET c, s; WSAOVERLAPPED ov; char buf[8]; };
static struct ended ends[NEND];

static DWORD WINAPI issue_and_end(LPVOID p)
{
    struct ended *e = p;
    DWORD r = (DWORD)io_post_recv(e->s, &e->ov, e->buf, sizeof(e->buf));
    /* then a wait of the library: the thread sleeps in its ring (if it has one), whose
     * FUTEX_WAIT on the thread's word must not outlive the thread */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK_EQ(WaitForSingleObject(ev, 1), WAIT_TIMEOUT);
    CloseHandle(ev);
    return r;
}

static void ended_issuers(void)
{
    HANDLE port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    REQUIRE(port != NULL);
    for (int i = 0; i < NEND; i++) {
        io_tcp_pair(&ends[i].c, &ends[i].s);
        memset(&ends[i].ov, 0, sizeof(ends[i].ov));
        if (i % 2) ends[i].ov.hEvent = WSACreateEvent();
        else CHECK(CreateIoCompletionPort((HANDLE)ends[i].s, port, (ULONG_PTR)i, 0) == port);
    }
    for (int i = 0; i < NEND; i++) {
        HANDLE t = CreateThread(NULL, 0, issue_and_end, &ends[i], 0, NULL);
        REQUIRE(t != NULL);
        CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
        DWORD code = 0;
        GetExitCodeThread(t, &code);
        CHECK_EQ(code, WSA_IO_PENDING);
        CloseHandle(t);
    }
    for (int i = 0; i < NEND; i++) {
        char m[8];
        snprintf(m, sizeof(m), "m%03d", i);
        CHECK_EQ(send(ends[i].c, m, 4, 0), 4);
    }
    /* each receive completes exactly once: with its message, or aborted (io_uring
     * cancels a request of a thread that exits, as NT does for a thread's I/O; the
     * message then stays in the socket) */
    int done[NEND] = { 0 }, aborted = 0, packets = 0;
    for (int i = 1; i < NEND; i += 2) {
        CHECK_EQ(WaitForSingleObject(ends[i].ov.hEvent, 5000), WAIT_OBJECT_0);
        DWORD got = 0, fl = 0;
        if (WSAGetOverlappedResult(ends[i].s, &ends[i].ov, &got, FALSE, &fl)) {
            CHECK_EQ(got, 4);
            done[i] = 1;
        } else {
            CHECK_EQ(WSAGetLastError(), WSA_OPERATION_ABORTED);
            done[i] = 2;
        }
    }
    for (;;) {
        DWORD n = 0;
        ULONG_PTR key = 0;
        LPOVERLAPPED o = NULL;
        BOOL ok = GetQueuedCompletionStatus(port, &n, &key, &o, packets == NEND / 2 ? 100 : 5000);
        if (!o) break;                       /* timed out: no more packets */
        packets++;
        CHECK(key < NEND && !(key % 2));
        if (key >= NEND) continue;
        CHECK(o == &ends[key].ov);
        CHECK_EQ(done[key], 0);              /* one packet per receive */
        if (ok) {
            CHECK_EQ(n, 4);
            done[key] = 1;
        } else {
            CHECK_EQ(GetLastError(), ERROR_OPERATION_ABORTED);
            done[key] = 2;
        }
    }
    CHECK_EQ(packets, NEND / 2);
    for (int i = 0; i < NEND; i++) {
        char m[8];
        snprintf(m, sizeof(m), "m%03d", i);
        CHECK(done[i] != 0);
        if (done[i] == 2) {
            aborted++;
            CHECK_EQ(recv(ends[i].s, ends[i].buf, sizeof(ends[i].buf), 0), 4);
        }
        CHECK(!memcmp(ends[i].buf, m, 4));
        if (i % 2) WSACloseEvent(ends[i].ov.hEvent);
        closesocket(ends[i].c);
        closesocket(ends[i].s);
    }
    printf("receives of ended threads: %d completed, %d aborted\n", NEND - aborted, aborted);
    CloseHandle(port);
}

/* data already there: completes at once, no packet when skipping */
static void immediate_skip(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    HANDLE port = CreateIoCompletionPort((HANDLE)s, NULL, 7, 0);
    REQUIRE(port != NULL);
    CHECK(SetFileCompletionNotificationModes((HANDLE)s, FILE_SKIP_COMPLETION_PORT_ON_SUCCESS));
    WSAOVERLAPPED ov;
    char buf[8];
    for (int i = 0; i < 20; i++) {
        memset(&ov, 0, sizeof(ov));
        CHECK_EQ(send(c, "now", 3, 0), 3);
        Sleep(2);
        CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), 0);
        CHECK(HasOverlappedIoCompleted(&ov));
        CHECK_EQ((DWORD)ov.InternalHigh, 3);
    }
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED o;
    CHECK(!GetQueuedCompletionStatus(port, &n, &key, &o, 50));
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    /* pending ones still queue their packet */
    memset(&ov, 0, sizeof(ov));
    CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    CHECK_EQ(send(c, "later", 5, 0), 5);
    CHECK(GetQueuedCompletionStatus(port, &n, &key, &o, 5000));
    CHECK_EQ(n, 5);
    CHECK_EQ(key, 7);
    CHECK(o == &ov);
    CloseHandle(port);
    closesocket(c);
    closesocket(s);
}

static void owner_in_other_process(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[8];
    CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);
    HANDLE go = CreateEventA(NULL, FALSE, FALSE, "io-tr-go");
    HANDLE m = CreateMutexA(NULL, FALSE, "io-tr-mx");
    REQUIRE(go && m);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        HANDLE cm = OpenMutexA(SYNCHRONIZE | MUTEX_MODIFY_STATE, FALSE, "io-tr-mx");
        HANDLE cg = OpenEventA(EVENT_ALL_ACCESS, FALSE, "io-tr-go");
        if (!cm || !cg || WaitForSingleObject(cm, 5000) != WAIT_OBJECT_0) _Exit(2);
        SetEvent(cg);
        Sleep(100);
        ReleaseMutex(cm);                /* the parent waits for it now */
        if (WaitForSingleObject(cm, 5000) != WAIT_OBJECT_0) _Exit(3);
        SetEvent(cg);
        Sleep(100);
        _Exit(0);                        /* owning it: abandoned */
    }
    CHECK_EQ(WaitForSingleObject(go, 5000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(m, 5000), WAIT_OBJECT_0);      /* released by the child */
    CHECK(ReleaseMutex(m));
    CHECK_EQ(WaitForSingleObject(go, 5000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(m, 5000), WAIT_ABANDONED_0);   /* the child died owning it */
    CHECK(ReleaseMutex(m));
    int st = -1;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK_EQ(st, 0);                     /* exited normally with 0 */
    /* the ring still serves the thread: the receive and waits after the fork */
    HANDLE other = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, set_later, other, 0, NULL);
    HANDLE hs[2] = { ov.hEvent, other };
    CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 5000), WAIT_OBJECT_0 + 1);
    WaitForSingleObject(t, 5000);
    CloseHandle(t);
    CHECK_EQ(send(c, "after", 5, 0), 5);
    DWORD got = 0, fl = 0;
    CHECK(WSAGetOverlappedResult(s, &ov, &got, TRUE, &fl));
    CHECK_EQ(got, 5);
    CHECK(!memcmp(buf, "after", 5));
    CloseHandle(other);
    CloseHandle(go);
    CloseHandle(m);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

int main(void)
{
    io_test_start();
    wake_other_then_io();
    busy_issuer_case();
    ended_issuers();
    immediate_skip();
    owner_in_other_process();            /* last: the process has forked after it */
    WSACleanup();
    return nspa_test_done();
}
