/* Overlapped sockets: a receive that completes at once and one that goes pending, the
 * event set on completion (waits over I/O events and other objects), completion
 * routines run by alertable waits (WAIT_IO_COMPLETION), order of pending receives,
 * overlapped sends, a peer reset, cancels and closes with operations pending. */
#include "io_util.h"

static char big[1 << 20];

static void immediate_and_pending(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[256];
    WSABUF b = { sizeof(buf), buf };
    DWORD n = 0, flags = 0;

    /* A: the data is there first: the receive completes at once, event set */
    CHECK_EQ(send(c, "abc", 3, 0), 3);
    Sleep(20);
    CHECK_EQ(WSARecv(s, &b, 1, &n, &flags, &ov, NULL), 0);
    CHECK_EQ(n, 3);
    CHECK(HasOverlappedIoCompleted(&ov));
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 0), WAIT_OBJECT_0);
    DWORD got = 0, fl = 0;
    CHECK(WSAGetOverlappedResult(s, &ov, &got, FALSE, &fl));
    CHECK_EQ(got, 3);

    /* B: posted first, it goes pending; the event is reset when it starts */
    CHECK_EQ(WSARecv(s, &b, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    CHECK(!HasOverlappedIoCompleted(&ov));
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 0), WAIT_TIMEOUT);
    CHECK(!WSAGetOverlappedResult(s, &ov, &got, FALSE, &fl));
    CHECK_EQ(WSAGetLastError(), WSA_IO_INCOMPLETE);
    /* a wait over the I/O event and another (unsignaled) event wakes on the I/O */
    HANDLE other = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE hs[2] = { other, ov.hEvent };
    CHECK_EQ(send(c, "defgh", 5, 0), 5);
    CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 5000), WAIT_OBJECT_0 + 1);
    CHECK(WSAGetOverlappedResult(s, &ov, &got, TRUE, &fl));
    CHECK_EQ(got, 5);
    CHECK(!memcmp(buf, "defgh", 5));

    /* two pending receives complete in the order they were posted */
    WSAOVERLAPPED o2[2];
    char b2[2][1];
    WSABUF w2[2] = { { 1, b2[0] }, { 1, b2[1] } };
    for (int i = 0; i < 2; i++) {
        memset(&o2[i], 0, sizeof(o2[i]));
        o2[i].hEvent = WSACreateEvent();
        flags = 0;
        CHECK_EQ(WSARecv(s, &w2[i], 1, NULL, &flags, &o2[i], NULL), SOCKET_ERROR);
        CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    }
    CHECK_EQ(send(c, "12", 2, 0), 2);
    for (int i = 0; i < 2; i++) {
        CHECK(WSAGetOverlappedResult(s, &o2[i], &got, TRUE, &fl));
        CHECK_EQ(got, 1);
        WSACloseEvent(o2[i].hEvent);
    }
    CHECK_EQ(b2[0][0], '1');
    CHECK_EQ(b2[1][0], '2');

    /* an overlapped send bigger than the socket buffer goes pending and completes as
     * the peer reads */
    WSAOVERLAPPED so;
    memset(&so, 0, sizeof(so));
    so.hEvent = WSACreateEvent();
    WSABUF sb = { sizeof(big), big };
    int r = WSASend(c, &sb, 1, &n, 0, &so, NULL);
    CHECK(r == 0 || WSAGetLastError() == WSA_IO_PENDING);
    size_t total = 0;
    while (total < sizeof(big)) {
        int k = recv(s, buf, sizeof(buf), 0);
        if (k <= 0) break;
        total += (size_t)k;
    }
    CHECK_EQ(total, sizeof(big));
    CHECK(WSAGetOverlappedResult(c, &so, &got, TRUE, &fl));
    CHECK_EQ(got, sizeof(big));
    WSACloseEvent(so.hEvent);

    CloseHandle(other);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

static DWORD routine_tid, routine_bytes, routine_err;
static int routine_calls;
static void CALLBACK on_done(DWORD err, DWORD bytes, LPWSAOVERLAPPED ov, DWORD flags)
{
    routine_calls++;
    routine_err = err;
    routine_bytes = bytes;
    routine_tid = GetCurrentThreadId();
}

static void routines(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    char buf[16];
    WSABUF b = { sizeof(buf), buf };
    DWORD flags = 0;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, on_done), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    send(c, "xyz", 3, 0);
    /* not alertable: the routine waits */
    Sleep(50);
    CHECK_EQ(routine_calls, 0);
    CHECK_EQ(SleepEx(5000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(routine_calls, 1);
    CHECK_EQ(routine_bytes, 3);
    CHECK_EQ(routine_err, 0);
    CHECK_EQ(routine_tid, GetCurrentThreadId());
    /* completed at once: the routine is still queued, and runs in the next
     * alertable wait */
    send(c, "uv", 2, 0);
    Sleep(20);
    flags = 0;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, on_done), 0);
    CHECK_EQ(routine_calls, 1);
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK_EQ(WaitForSingleObjectEx(e, 5000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(routine_calls, 2);
    CHECK_EQ(routine_bytes, 2);
    /* cancelled: the routine gets WSA_OPERATION_ABORTED */
    flags = 0;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, on_done), SOCKET_ERROR);
    CHECK(CancelIoEx((HANDLE)s, &ov));
    CHECK_EQ(SleepEx(5000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(routine_calls, 3);
    CHECK_EQ(routine_err, WSA_OPERATION_ABORTED);
    CloseHandle(e);
    closesocket(c);
    closesocket(s);
}

static void reset_and_close(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[16];
    WSABUF b = { sizeof(buf), buf };
    DWORD flags = 0, got, fl;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    /* the peer resets: linger 0 then close */
    struct linger lg = { 1, 0 };
    CHECK_EQ(setsockopt(c, SOL_SOCKET, SO_LINGER, (const char *)&lg, sizeof(lg)), 0);
    closesocket(c);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 5000), WAIT_OBJECT_0);
    CHECK(!WSAGetOverlappedResult(s, &ov, &got, TRUE, &fl));
    CHECK_EQ(WSAGetLastError(), WSAECONNRESET);
    closesocket(s);

    /* closesocket with a receive pending: it completes once, aborted */
    io_tcp_pair(&c, &s);
    flags = 0;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    CHECK_EQ(closesocket(s), 0);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 5000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)ov.Internal, 0xC0000120u);      /* STATUS_CANCELLED */
    CHECK(!GetOverlappedResult(ov.hEvent, &ov, &got, FALSE));
    CHECK_EQ(GetLastError(), ERROR_OPERATION_ABORTED);
    /* a cancel with nothing pending */
    CHECK(!CancelIoEx((HANDLE)c, &ov));
    CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
    CHECK(CancelIo((HANDLE)c));
    closesocket(c);
    WSACloseEvent(ov.hEvent);
}

/* GetOverlappedResult with no event waits on the socket handle itself */
static void no_event(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    char buf[16];
    WSABUF b = { sizeof(buf), buf };
    DWORD flags = 0, got = 0;
    CHECK_EQ(WSARecv(s, &b, 1, NULL, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WaitForSingleObject((HANDLE)s, 0), WAIT_TIMEOUT);
    send(c, "q", 1, 0);
    CHECK(GetOverlappedResult((HANDLE)s, &ov, &got, TRUE));
    CHECK_EQ(got, 1);
    CHECK_EQ(WaitForSingleObject((HANDLE)s, 0), WAIT_OBJECT_0);
    closesocket(c);
    closesocket(s);
}

static void udp_ovl(void)
{
    SOCKET a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = io_loopback4(0), from;
    bind(a, (struct sockaddr *)&sa, sizeof(sa));
    int al = sizeof(sa), fl = sizeof(from);
    getsockname(a, (struct sockaddr *)&sa, &al);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[4];
    WSABUF wb = { sizeof(buf), buf };
    DWORD flags = 0, got, fls;
    CHECK_EQ(WSARecvFrom(a, &wb, 1, NULL, &flags, (struct sockaddr *)&from, &fl, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    WSABUF sb = { 3, "dgm" };
    DWORD sent = 0;
    CHECK_EQ(WSASendTo(b, &sb, 1, &sent, 0, (struct sockaddr *)&sa, sizeof(sa), NULL, NULL), 0);
    CHECK_EQ(sent, 3);
    CHECK(WSAGetOverlappedResult(a, &ov, &got, TRUE, &fls));
    CHECK_EQ(got, 3);
    CHECK_EQ(from.sin_family, AF_INET);
    CHECK_EQ(fl, sizeof(struct sockaddr_in));
    /* too big for the buffer: WSAEMSGSIZE with MSG_PARTIAL */
    flags = 0;
    CHECK_EQ(WSARecvFrom(a, &wb, 1, NULL, &flags, NULL, NULL, &ov, NULL), SOCKET_ERROR);
    WSABUF lb = { 8, "12345678" };
    WSASendTo(b, &lb, 1, &sent, 0, (struct sockaddr *)&sa, sizeof(sa), NULL, NULL);
    CHECK(!WSAGetOverlappedResult(a, &ov, &got, TRUE, &fls));
    CHECK_EQ(WSAGetLastError(), WSAEMSGSIZE);
    CHECK_EQ(got, 4);
    CHECK(fls & MSG_PARTIAL);
    WSACloseEvent(ov.hEvent);
    closesocket(a);
    closesocket(b);
}

int main(void)
{
    io_test_start();
    immediate_and_pending();
    routines();
    reset_and_close();
    no_event();
    udp_ovl();
    WSACleanup();
    return nspa_test_done();
}
