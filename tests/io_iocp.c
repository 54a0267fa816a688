/* Completion ports: post/get, timeouts, GetQueuedCompletionStatusEx, sockets
 * associated with a port, AcceptEx/ConnectEx through WSAIoctl, the skip modes and the
 * hEvent low bit, LIFO release of waiting threads, the concurrency limit, and closing
 * a port under its waiters. */
#include "io_util.h"
#include <stdatomic.h>
#include "nspa/sync.h"

static void post_get(void)
{
    HANDLE p = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
    REQUIRE(p != NULL);
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED ov;
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 0));
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    CHECK(ov == NULL);
    ULONGLONG t0 = GetTickCount64();
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 50));
    CHECK(GetTickCount64() - t0 >= 40);
    OVERLAPPED mine;
    CHECK(PostQueuedCompletionStatus(p, 7, 42, &mine));
    CHECK(PostQueuedCompletionStatus(p, 8, 43, NULL));
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 0));
    CHECK_EQ(n, 7);
    CHECK_EQ(key, 42);
    CHECK(ov == &mine);
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 0));
    CHECK_EQ(key, 43);
    CHECK(ov == NULL);
    /* Ex: several at once, FIFO */
    for (int i = 0; i < 5; i++) PostQueuedCompletionStatus(p, (DWORD)i, 100 + (ULONG_PTR)i, NULL);
    OVERLAPPED_ENTRY e[8];
    ULONG got = 0;
    CHECK(GetQueuedCompletionStatusEx(p, e, 3, &got, 0, FALSE));
    CHECK_EQ(got, 3);
    CHECK_EQ(e[0].lpCompletionKey, 100);
    CHECK_EQ(e[2].lpCompletionKey, 102);
    CHECK(GetQueuedCompletionStatusEx(p, e, 8, &got, 0, FALSE));
    CHECK_EQ(got, 2);
    CHECK_EQ(e[1].dwNumberOfBytesTransferred, 4);
    CHECK(!GetQueuedCompletionStatusEx(p, e, 8, &got, 0, FALSE));
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    CHECK_EQ(got, 0);
    /* a posted packet is there for the next call even with packets left when the
     * port closes (they are dropped with it) */
    PostQueuedCompletionStatus(p, 1, 1, NULL);
    CHECK(CloseHandle(p));
    CHECK(!PostQueuedCompletionStatus(p, 1, 1, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

static void sockets_on_port(void)
{
    HANDLE p = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    struct sockaddr_in la;
    SOCKET l = io_listener(&la);
    REQUIRE(CreateIoCompletionPort((HANDLE)l, p, 1, 0) == p);
    /* a second association fails */
    CHECK(CreateIoCompletionPort((HANDLE)l, p, 1, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    LPFN_ACCEPTEX acceptex = NULL;
    LPFN_CONNECTEX connectex = NULL;
    LPFN_GETACCEPTEXSOCKADDRS sockaddrs = NULL;
    GUID ga = WSAID_ACCEPTEX, gc = WSAID_CONNECTEX, gs = WSAID_GETACCEPTEXSOCKADDRS;
    DWORD ret;
    CHECK_EQ(WSAIoctl(l, SIO_GET_EXTENSION_FUNCTION_POINTER, &ga, sizeof(ga), &acceptex, sizeof(acceptex), &ret,
                      NULL, NULL), 0);
    CHECK_EQ(WSAIoctl(l, SIO_GET_EXTENSION_FUNCTION_POINTER, &gc, sizeof(gc), &connectex, sizeof(connectex), &ret,
                      NULL, NULL), 0);
    CHECK_EQ(WSAIoctl(l, SIO_GET_EXTENSION_FUNCTION_POINTER, &gs, sizeof(gs), &sockaddrs, sizeof(sockaddrs), &ret,
                      NULL, NULL), 0);
    REQUIRE(acceptex && connectex && sockaddrs);

    SOCKET as = WSASocketA(AF_INET, SOCK_STREAM, 0, NULL, 0, WSA_FLAG_OVERLAPPED);
    char abuf[2 * (sizeof(struct sockaddr_in) + 16)];
    OVERLAPPED aov;
    memset(&aov, 0, sizeof(aov));
    DWORD n = 0;
    BOOL ok = acceptex(l, as, abuf, 0, sizeof(struct sockaddr_in) + 16, sizeof(struct sockaddr_in) + 16, &n, &aov);
    CHECK(ok || GetLastError() == ERROR_IO_PENDING);

    /* ConnectEx needs a bound socket */
    SOCKET c = socket(AF_INET, SOCK_STREAM, 0);
    OVERLAPPED cov;
    memset(&cov, 0, sizeof(cov));
    CHECK(!connectex(c, (struct sockaddr *)&la, sizeof(la), NULL, 0, NULL, &cov));
    CHECK_EQ(WSAGetLastError(), WSAEINVAL);
    struct sockaddr_in any = io_loopback4(0);
    bind(c, (struct sockaddr *)&any, sizeof(any));
    REQUIRE(CreateIoCompletionPort((HANDLE)c, p, 2, 0) == p);
    ok = connectex(c, (struct sockaddr *)&la, sizeof(la), NULL, 0, NULL, &cov);
    CHECK(ok || WSAGetLastError() == ERROR_IO_PENDING);

    int seen_accept = 0, seen_connect = 0;
    for (int i = 0; i < 2; i++) {
        ULONG_PTR key;
        LPOVERLAPPED ov;
        CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 5000));
        if (key == 1) { CHECK(ov == &aov); seen_accept++; }
        if (key == 2) { CHECK(ov == &cov); seen_connect++; }
    }
    CHECK_EQ(seen_accept, 1);
    CHECK_EQ(seen_connect, 1);
    struct sockaddr *lo = NULL, *re = NULL;
    int ll = 0, rl = 0;
    sockaddrs(abuf, 0, sizeof(struct sockaddr_in) + 16, sizeof(struct sockaddr_in) + 16, &lo, &ll, &re, &rl);
    CHECK_EQ(ll, sizeof(struct sockaddr_in));
    CHECK_EQ(rl, sizeof(struct sockaddr_in));
    CHECK_EQ(lo->sa_family, AF_INET);
    CHECK_EQ(((struct sockaddr_in *)lo)->sin_port, la.sin_port);
    struct sockaddr_in cme;
    int cl = sizeof(cme);
    getsockname(c, (struct sockaddr *)&cme, &cl);
    CHECK_EQ(((struct sockaddr_in *)re)->sin_port, cme.sin_port);
    CHECK_EQ(setsockopt(as, SOL_SOCKET, SO_UPDATE_ACCEPT_CONTEXT, (char *)&l, sizeof(l)), 0);

    /* the accepted socket works, and on the port too */
    REQUIRE(CreateIoCompletionPort((HANDLE)as, p, 3, 0) == p);
    char buf[32];
    WSABUF b = { sizeof(buf), buf };
    OVERLAPPED rov;
    memset(&rov, 0, sizeof(rov));
    DWORD flags = 0;
    CHECK_EQ(WSARecv(as, &b, 1, NULL, &flags, &rov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    CHECK_EQ(send(c, "port", 4, 0), 4);
    ULONG_PTR key;
    LPOVERLAPPED ov;
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 5000));
    CHECK_EQ(key, 3);
    CHECK_EQ(n, 4);
    CHECK(ov == &rov);
    CHECK(!memcmp(buf, "port", 4));

    /* an immediate success also queues a packet ... */
    send(c, "A", 1, 0);
    Sleep(20);
    flags = 0;
    CHECK_EQ(WSARecv(as, &b, 1, &n, &flags, &rov, NULL), 0);
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 0));
    /* ... unless the hEvent's low bit says not to ... */
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    rov.hEvent = (HANDLE)((ULONG_PTR)ev | 1);
    send(c, "B", 1, 0);
    flags = 0;
    CHECK(WSARecv(as, &b, 1, &n, &flags, &rov, NULL) == 0 || WSAGetLastError() == WSA_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(ev, 5000), WAIT_OBJECT_0);
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 50));
    rov.hEvent = NULL;
    /* ... or FILE_SKIP_COMPLETION_PORT_ON_SUCCESS */
    CHECK(SetFileCompletionNotificationModes((HANDLE)as, FILE_SKIP_COMPLETION_PORT_ON_SUCCESS));
    CHECK(!SetFileCompletionNotificationModes((HANDLE)as, 0x10));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    send(c, "C", 1, 0);
    Sleep(20);
    flags = 0;
    CHECK_EQ(WSARecv(as, &b, 1, &n, &flags, &rov, NULL), 0);
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 50));
    /* a pending one still posts */
    flags = 0;
    CHECK_EQ(WSARecv(as, &b, 1, &n, &flags, &rov, NULL), SOCKET_ERROR);
    send(c, "D", 1, 0);
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 5000));
    CHECK_EQ(key, 3);
    /* a failed operation's packet: FALSE with the OVERLAPPED and the error */
    flags = 0;
    CHECK_EQ(WSARecv(as, &b, 1, &n, &flags, &rov, NULL), SOCKET_ERROR);
    CHECK(CancelIoEx((HANDLE)as, &rov));
    CHECK(!GetQueuedCompletionStatus(p, &n, &key, &ov, 5000));
    CHECK_EQ(GetLastError(), ERROR_OPERATION_ABORTED);
    CHECK(ov == &rov);
    CloseHandle(ev);
    closesocket(as);
    closesocket(c);

    /* AcceptEx with a receive length completes with the first data; ConnectEx with
     * data sends it once connected */
    as = WSASocketA(AF_INET, SOCK_STREAM, 0, NULL, 0, WSA_FLAG_OVERLAPPED);
    char dbuf[16 + 2 * (sizeof(struct sockaddr_in) + 16)];
    memset(&aov, 0, sizeof(aov));
    ok = acceptex(l, as, dbuf, 16, sizeof(struct sockaddr_in) + 16, sizeof(struct sockaddr_in) + 16, &n, &aov);
    CHECK(!ok && GetLastError() == ERROR_IO_PENDING);
    c = socket(AF_INET, SOCK_STREAM, 0);
    bind(c, (struct sockaddr *)&any, sizeof(any));
    REQUIRE(CreateIoCompletionPort((HANDLE)c, p, 2, 0) == p);
    memset(&cov, 0, sizeof(cov));
    DWORD sent = 0;
    ok = connectex(c, (struct sockaddr *)&la, sizeof(la), "first", 5, &sent, &cov);
    CHECK(ok || WSAGetLastError() == ERROR_IO_PENDING);
    seen_accept = seen_connect = 0;
    for (int i = 0; i < 2; i++) {
        CHECK(GetQueuedCompletionStatus(p, &n, &key, &ov, 5000));
        CHECK_EQ(n, 5);
        if (key == 1) seen_accept++;
        if (key == 2) seen_connect++;
    }
    CHECK_EQ(seen_accept, 1);
    CHECK_EQ(seen_connect, 1);
    CHECK(!memcmp(dbuf, "first", 5));
    sockaddrs(dbuf, 16, sizeof(struct sockaddr_in) + 16, sizeof(struct sockaddr_in) + 16, &lo, &ll, &re, &rl);
    CHECK_EQ(ll, sizeof(struct sockaddr_in));
    CHECK_EQ(((struct sockaddr_in *)lo)->sin_port, la.sin_port);
    CHECK_EQ(((struct sockaddr_in *)re)->sin_family, AF_INET);
    closesocket(as);
    closesocket(c);
    closesocket(l);
    CloseHandle(p);
}

/* ---- threads: LIFO and the concurrency limit --------------------------------------- */

static HANDLE port;
static atomic_int order[8], norder;

static DWORD WINAPI waiter(LPVOID arg)
{
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED ov;
    if (GetQueuedCompletionStatus(port, &n, &key, &ov, 10000)) {
        int i = atomic_fetch_add(&norder, 1);
        order[i] = (int)(INT_PTR)arg;
    }
    return 0;
}

static void wait_waiters(HANDLE p, int n)
{
    for (int i = 0; i < 5000; i++) {
        /* the port is a sync object: its queue says how many wait */
        if (nspa_obj_waiters((unsigned int)(uintptr_t)p) >= n) return;
        Sleep(1);
    }
}

static void lifo(void)
{
    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 8);
    HANDLE t[3];
    for (int i = 0; i < 3; i++) {
        t[i] = CreateThread(NULL, 0, waiter, (LPVOID)(INT_PTR)i, 0, NULL);
        wait_waiters(port, i + 1);
    }
    for (int i = 0; i < 3; i++) {
        PostQueuedCompletionStatus(port, 0, 0, NULL);
        for (int k = 0; k < 5000 && atomic_load(&norder) <= i; k++) Sleep(1);
    }
    WaitForMultipleObjects(3, t, TRUE, 10000);
    CHECK_EQ(atomic_load(&norder), 3);
    /* the last to wait is the first released */
    CHECK_EQ(order[0], 2);
    CHECK_EQ(order[1], 1);
    CHECK_EQ(order[2], 0);
    for (int i = 0; i < 3; i++) CloseHandle(t[i]);
    CloseHandle(port);
}

static HANDLE go, go2, second_done, a_has, a_again;
static atomic_int second_got;
static ULONG_PTR a_again_key;
static BOOL a_again_ok;

static DWORD WINAPI worker_a(LPVOID arg)
{
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED ov;
    GetQueuedCompletionStatus(port, &n, &key, &ov, 10000);   /* active from here */
    SetEvent(a_has);
    WaitForSingleObject(go, 10000);
    /* calling again with a packet queued: NT's KeRemoveQueue (same queue) stops counting
     * this thread and, the count allowing, gives it the packet at once, activating no
     * other thread */
    a_again_key = 0;
    a_again_ok = GetQueuedCompletionStatus(port, &n, &a_again_key, &ov, 100);
    SetEvent(a_again);
    WaitForSingleObject(go2, 10000);
    return 0;                            /* its end: no longer active */
}

static DWORD WINAPI worker_b(LPVOID arg)
{
    DWORD n;
    ULONG_PTR key = 0;
    LPOVERLAPPED ov;
    if (GetQueuedCompletionStatus(port, &n, &key, &ov, 10000) && key == 3) atomic_store(&second_got, 1);
    SetEvent(second_done);
    return 0;
}

static void concurrency(void)
{
    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    go2 = CreateEventA(NULL, TRUE, FALSE, NULL);
    second_done = CreateEventA(NULL, TRUE, FALSE, NULL);
    a_has = CreateEventA(NULL, TRUE, FALSE, NULL);
    a_again = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE a = CreateThread(NULL, 0, worker_a, NULL, 0, NULL);
    PostQueuedCompletionStatus(port, 0, 1, NULL);
    CHECK_EQ(WaitForSingleObject(a_has, 5000), WAIT_OBJECT_0);   /* a took the first packet */
    HANDLE b = CreateThread(NULL, 0, worker_b, NULL, 0, NULL);
    wait_waiters(port, 1);
    PostQueuedCompletionStatus(port, 0, 2, NULL);
    /* limit 1 and a is active: b must not get the packet */
    CHECK_EQ(WaitForSingleObject(second_done, 200), WAIT_TIMEOUT);
    CHECK_EQ(atomic_load(&second_got), 0);
    SetEvent(go);                             /* a calls again: it takes packet 2 itself */
    CHECK_EQ(WaitForSingleObject(a_again, 5000), WAIT_OBJECT_0);
    CHECK(a_again_ok);
    CHECK_EQ(a_again_key, (ULONG_PTR)2);
    CHECK_EQ(WaitForSingleObject(second_done, 200), WAIT_TIMEOUT);   /* b still held back */
    SetEvent(go2);                            /* a ends: the next packet is b's */
    WaitForSingleObject(a, 10000);
    PostQueuedCompletionStatus(port, 0, 3, NULL);
    CHECK_EQ(WaitForSingleObject(second_done, 5000), WAIT_OBJECT_0);
    CHECK_EQ(atomic_load(&second_got), 1);
    WaitForSingleObject(b, 10000);
    CloseHandle(a);
    CloseHandle(b);
    CloseHandle(go);
    CloseHandle(go2);
    CloseHandle(second_done);
    CloseHandle(a_has);
    CloseHandle(a_again);
    CloseHandle(port);
}

static DWORD WINAPI closed_waiter(LPVOID arg)
{
    DWORD n;
    ULONG_PTR key;
    LPOVERLAPPED ov;
    BOOL ok = GetQueuedCompletionStatus(port, &n, &key, &ov, 10000);
    return ok ? 0 : GetLastError();
}

static void close_under_waiter(void)
{
    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    HANDLE t = CreateThread(NULL, 0, closed_waiter, NULL, 0, NULL);
    wait_waiters(port, 1);
    CloseHandle(port);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    DWORD code = 0;
    GetExitCodeThread(t, &code);
    CHECK_EQ(code, ERROR_ABANDONED_WAIT_0);
    CloseHandle(t);
}

static void CALLBACK apc_fn(ULONG_PTR p) { (void)p; }

static void alertable(void)
{
    HANDLE p = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    QueueUserAPC(apc_fn, GetCurrentThread(), 0);
    OVERLAPPED_ENTRY e[1];
    ULONG got = 0;
    CHECK(!GetQueuedCompletionStatusEx(p, e, 1, &got, 5000, TRUE));
    CHECK_EQ(GetLastError(), WAIT_IO_COMPLETION);
    CloseHandle(p);
}

int main(void)
{
    io_test_start();
    ULONGLONG t = GetTickCount64();
#define STEP(f) f(); printf(#f ": %u ms\n", (unsigned)(GetTickCount64() - t)); t = GetTickCount64()
    STEP(post_get);
    STEP(sockets_on_port);
    STEP(lifo);
    STEP(concurrency);
    STEP(close_under_waiter);
    STEP(alertable);
    WSACleanup();
    return nspa_test_done();
}
