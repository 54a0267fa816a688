/* Bad input and hostile sequences: closed, garbage and non-socket handles, NULL
 * buffers, flags and OVERLAPPEDs, an OVERLAPPED reused while pending, cancels racing
 * completions, closesocket with operations pending on a port: a clear error or exactly
 * one completion with its status, never a crash, a hang or a lost completion. */
#include "io_util.h"

static void handles(void)
{
    char buf[8];
    WSABUF b = { sizeof(buf), buf };
    DWORD n, flags = 0;
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    SOCKET closed = socket(AF_INET, SOCK_STREAM, 0);
    closesocket(closed);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    SOCKET bad[] = { closed, (SOCKET)0x123454, (SOCKET)(uintptr_t)ev, INVALID_SOCKET, 0, (SOCKET)3 };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK_EQ(recv(bad[i], buf, 1, 0), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
        CHECK_EQ(send(bad[i], buf, 1, 0), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
        CHECK_EQ(WSARecv(bad[i], &b, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
        CHECK_EQ(closesocket(bad[i]), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
        CHECK_EQ(bind(bad[i], NULL, 0), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
        CHECK(!CancelIoEx((HANDLE)bad[i], NULL));
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    /* the event is still an event */
    CHECK(SetEvent(ev));
    CloseHandle(ev);
    DWORD k;
    ULONG_PTR key;
    LPOVERLAPPED o;
    CHECK(!GetQueuedCompletionStatus((HANDLE)0x123454, &k, &key, &o, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE p = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    CHECK(CreateIoCompletionPort((HANDLE)0x123454, p, 0, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* a port is not a socket, a socket is not a port */
    CHECK_EQ(recv((SOCKET)p, buf, 1, 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
    SOCKET s = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(!GetQueuedCompletionStatus((HANDLE)s, &k, &key, &o, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!PostQueuedCompletionStatus((HANDLE)s, 0, 0, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    closesocket(s);
    CloseHandle(p);
}

static void pointers(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    char buf[8];
    WSABUF b = { sizeof(buf), buf };
    DWORD n = 0, flags = 0;
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    CHECK_EQ(recv(s, NULL, 4, 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    CHECK_EQ(WSARecv(s, NULL, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    CHECK_EQ(WSARecv(s, &b, 1, &n, NULL, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    WSABUF nb = { 4, NULL };
    CHECK_EQ(WSASend(c, &nb, 1, &n, 0, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    /* more buffers than Linux's IOV_MAX (1024): WSAENOBUFS (io_wsabuf_many has the rest) */
    static WSABUF many[1025];
    for (int i = 0; i < 1025; i++) { many[i].len = 1; many[i].buf = buf; }
    CHECK_EQ(WSASend(c, many, 1025, &n, 0, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOBUFS);
    CHECK_EQ(WSASend(c, many, 1025, &n, 0, NULL, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOBUFS);
    CHECK(!GetOverlappedResult((HANDLE)s, NULL, &n, FALSE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!WSAGetOverlappedResult(s, NULL, &n, FALSE, &flags));
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    DWORD k;
    ULONG_PTR key;
    HANDLE p = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    CHECK(!GetQueuedCompletionStatus(p, &k, &key, NULL, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CloseHandle(p);
    CHECK_EQ(bind(s, NULL, 16), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    /* sending after shutdown */
    shutdown(c, SD_SEND);
    CHECK_EQ(send(c, "x", 1, 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAESHUTDOWN);
    closesocket(c);
    closesocket(s);
}

/* the same OVERLAPPED twice while the first is pending (a program error NT does not
 * catch): each operation still completes exactly once */
static void reused_overlapped(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    HANDLE p = CreateIoCompletionPort((HANDLE)s, NULL, 5, 0);
    char b1[1], b2[1];
    WSABUF w1 = { 1, b1 }, w2 = { 1, b2 };
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    DWORD flags = 0, n;
    CHECK_EQ(WSARecv(s, &w1, 1, NULL, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSARecv(s, &w2, 1, NULL, &flags, &ov, NULL), SOCKET_ERROR);
    send(c, "ab", 2, 0);
    ULONG_PTR key;
    LPOVERLAPPED o;
    int packets = 0;
    while (GetQueuedCompletionStatus(p, &n, &key, &o, 500)) packets++;
    CHECK_EQ(packets, 2);
    CHECK_EQ(b1[0], 'a');
    CHECK_EQ(b2[0], 'b');
    closesocket(c);
    closesocket(s);
    CloseHandle(p);
}

/* closesocket with receives pending on a port: each comes back once, aborted */
static void close_pending_on_port(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    HANDLE p = CreateIoCompletionPort((HANDLE)s, NULL, 9, 0);
    WSAOVERLAPPED ov[5];
    char buf[5];
    for (int i = 0; i < 5; i++) {
        memset(&ov[i], 0, sizeof(ov[i]));
        WSABUF b = { 1, buf + i };
        DWORD flags = 0;
        CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov[i], NULL), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    }
    CHECK_EQ(closesocket(s), 0);
    int seen[5] = { 0 };
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED o;
    for (int i = 0; i < 5; i++) {
        CHECK(!GetQueuedCompletionStatus(p, &n, &key, &o, 5000));
        CHECK_EQ(GetLastError(), ERROR_OPERATION_ABORTED);
        CHECK_EQ(key, 9);
        for (int k = 0; k < 5; k++)
            if (o == &ov[k]) seen[k]++;
    }
    for (int k = 0; k < 5; k++) CHECK_EQ(seen[k], 1);
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &o, 100));
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    closesocket(c);
    CloseHandle(p);
}

/* a cancel racing the completion: whichever wins, one completion, and the byte is
 * either received by it or still there for the next receive */
static HANDLE race_port;
static SOCKET race_c;
static volatile LONG race_go;

static DWORD WINAPI racer(LPVOID arg)
{
    for (int i = 0; i < 2000; i++) {
        while (InterlockedCompareExchange(&race_go, 0, 1) != 1) YieldProcessor();
        send(race_c, "z", 1, 0);
    }
    return 0;
}

static void cancel_races(void)
{
    SOCKET s;
    io_tcp_pair(&race_c, &s);
    race_port = CreateIoCompletionPort((HANDLE)s, NULL, 1, 0);
    HANDLE t = CreateThread(NULL, 0, racer, NULL, 0, NULL);
    int ok = 0, aborted = 0, other = 0, lost = 0;
    long bytes = 0;
    char buf[4096];
    for (int i = 0; i < 2000; i++) {
        WSAOVERLAPPED ov;
        memset(&ov, 0, sizeof(ov));
        WSABUF b = { 1, buf };
        DWORD flags = 0, n;
        int r = WSARecv(s, &b, 1, NULL, &flags, &ov, NULL);
        InterlockedExchange(&race_go, 1);
        if (r == SOCKET_ERROR && WSAGetLastError() == WSA_IO_PENDING) CancelIoEx((HANDLE)s, &ov);
        ULONG_PTR key;
        LPOVERLAPPED o;
        if (GetQueuedCompletionStatus(race_port, &n, &key, &o, 5000)) { ok++; bytes += n; }
        else if (o && GetLastError() == ERROR_OPERATION_ABORTED) aborted++;
        else if (o) other++;
        else lost++;
        CHECK(o == NULL || o == &ov);
        while (InterlockedCompareExchange(&race_go, 0, 0)) YieldProcessor();
    }
    WaitForSingleObject(t, 10000);
    CloseHandle(t);
    /* nothing else may be queued */
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED o;
    CHECK(!GetQueuedCompletionStatus(race_port, &n, &key, &o, 50));
    /* every byte sent is either received by a winning receive or still readable */
    u_long left = 0;
    Sleep(50);
    ioctlsocket(s, FIONREAD, &left);
    CHECK_EQ(bytes + (long)left, 2000);
    CHECK_EQ(ok + aborted, 2000);
    CHECK_EQ(other, 0);
    CHECK_EQ(lost, 0);
    printf("cancel races: %d completed, %d aborted\n", ok, aborted);
    closesocket(race_c);
    closesocket(s);
    CloseHandle(race_port);
}

int main(void)
{
    io_test_start();
    handles();
    pointers();
    reused_overlapped();
    close_pending_on_port();
    cancel_races();
    WSACleanup();
    return nspa_test_done();
}
