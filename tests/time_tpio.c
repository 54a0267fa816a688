/* Thread-pool I/O (issue 16, Deliver 3): CreateThreadpoolIo / StartThreadpoolIo /
 * CancelThreadpoolIo / WaitForThreadpoolIoCallbacks / CloseThreadpoolIo and
 * BindIoCompletionCallback over real overlapped socket and file I/O, on both engines
 * (io_uring, and <name>_epoll); FreeLibraryWhenCallbackReturns with a real library. */
#include "io_util.h"
#include "win32_testutil.h"

struct rec {
    volatile LONG calls, errors, bytes;
    volatile LONG on_caller;             /* a callback ran on the thread that issued */
    LPOVERLAPPED last_ov;
    ULONG last_res;
    DWORD issuer;
    HANDLE done;                         /* set by each callback */
    HANDLE started;                      /* set as a callback starts (when not NULL) */
    int sleep_ms;
};

static void CALLBACK io_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PVOID ov, ULONG res, ULONG_PTR bytes, PTP_IO io)
{
    struct rec *r = ctx;
    if (r->started) SetEvent(r->started);
    if (r->sleep_ms) Sleep(r->sleep_ms);
    if (GetCurrentThreadId() == r->issuer) InterlockedIncrement(&r->on_caller);
    r->last_ov = ov;
    r->last_res = res;
    InterlockedAdd(&r->bytes, (LONG)bytes);
    if (res) InterlockedIncrement(&r->errors);
    InterlockedIncrement(&r->calls);
    SetEvent(r->done);
}

static void test_socket(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    struct rec r = { .issuer = GetCurrentThreadId(), .done = CreateEventA(NULL, FALSE, FALSE, NULL) };
    PTP_IO io = CreateThreadpoolIo((HANDLE)s, io_cb, &r, NULL);
    REQUIRE(io != NULL);
    /* a handle is bound to one port: a second object on it fails */
    SetLastError(0);
    CHECK(CreateThreadpoolIo((HANDLE)s, io_cb, &r, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(CreateThreadpoolIo((HANDLE)c, NULL, &r, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* 200 receives, each pending when the data is sent: one callback each, on a pool
     * worker, with the OVERLAPPED, 0 and the byte count */
    char buf[64];
    int pending = 0;
    for (int i = 0; i < 200; i++) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof(ov));
        WSABUF b = { sizeof(buf), buf };
        DWORD n = 0, flags = 0;
        StartThreadpoolIo(io);
        int rc = WSARecv(s, &b, 1, &n, &flags, &ov, NULL);
        if (rc == SOCKET_ERROR) CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
        pending += rc == SOCKET_ERROR;
        char msg[10] = "0123456789";
        CHECK_EQ(send(c, msg, 1 + i % 10, 0), 1 + i % 10);
        REQUIRE(WaitForSingleObject(r.done, 5000) == WAIT_OBJECT_0);
        CHECK(r.last_ov == &ov);
        CHECK_EQ(r.last_res, 0);
    }
    WaitForThreadpoolIoCallbacks(io, FALSE);
    printf("socket: %d callbacks (%d went pending), %d bytes\n", (int)r.calls, pending, (int)r.bytes);
    CHECK_EQ(r.calls, 200);
    CHECK(pending > 0);
    CHECK_EQ(r.errors, 0);
    CHECK_EQ(r.on_caller, 0);
    long want = 0;
    for (int i = 0; i < 200; i++) want += 1 + i % 10;
    CHECK_EQ(r.bytes, want);

    /* a pending receive cancelled: its callback comes with ERROR_OPERATION_ABORTED */
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    WSABUF b = { sizeof(buf), buf };
    DWORD n = 0, flags = 0;
    StartThreadpoolIo(io);
    CHECK_EQ(WSARecv(s, &b, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    CHECK(CancelIoEx((HANDLE)s, &ov));
    CHECK_EQ(WaitForSingleObject(r.done, 5000), WAIT_OBJECT_0);
    CHECK_EQ(r.last_res, ERROR_OPERATION_ABORTED);
    CHECK_EQ(r.calls, 201);

    /* an operation that fails at once: CancelThreadpoolIo, and no callback comes */
    StartThreadpoolIo(io);
    CHECK_EQ(WSARecv(s, NULL, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
    CancelThreadpoolIo(io);
    /* a completion nobody started is dropped: a receive without StartThreadpoolIo */
    memset(&ov, 0, sizeof(ov));
    CHECK_EQ(WSARecv(s, &b, 1, &n, &flags, &ov, NULL), SOCKET_ERROR);
    CHECK_EQ(send(c, "x", 1, 0), 1);
    CHECK(GetOverlappedResult((HANDLE)s, &ov, &n, TRUE));
    CHECK_EQ(WaitForSingleObject(r.done, 100), WAIT_TIMEOUT);
    CHECK_EQ(r.calls, 201);

    /* WaitForThreadpoolIoCallbacks waits for a running callback */
    r.sleep_ms = 100;
    r.started = CreateEventA(NULL, FALSE, FALSE, NULL);
    StartThreadpoolIo(io);
    memset(&ov, 0, sizeof(ov));
    WSARecv(s, &b, 1, &n, &flags, &ov, NULL);
    CHECK_EQ(send(c, "y", 1, 0), 1);
    /* the callback runs now (was a Sleep(20), which a loaded machine outlasted: the
     * wait then found nothing running yet and returned at once) */
    CHECK_EQ(WaitForSingleObject(r.started, 5000), WAIT_OBJECT_0);
    double t0 = w32t_now_ms();
    WaitForThreadpoolIoCallbacks(io, FALSE);
    CHECK_EQ(r.calls, 202);
    printf("socket: WaitForThreadpoolIoCallbacks waited %.1f ms for a 100 ms callback\n", w32t_now_ms() - t0);
    r.sleep_ms = 0;
    ResetEvent(r.done);

    CloseThreadpoolIo(io);
    /* the object is gone; the socket's completions go nowhere and nothing crashes */
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
    WSARecv(s, &b, 1, &n, &flags, &ov, NULL);
    CHECK_EQ(send(c, "z", 1, 0), 1);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 5000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(r.done, 50), WAIT_TIMEOUT);
    CloseHandle(ov.hEvent);
    closesocket(c);
    closesocket(s);
    CloseHandle(r.done);
    CloseHandle(r.started);
}

/* pending callbacks cancelled: WaitForThreadpoolIoCallbacks(io, TRUE) on a pool of one
 * thread busy with the first callback drops the queued ones */
static void test_cancel_pending(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    PTP_POOL pool = CreateThreadpool(NULL);
    REQUIRE(pool != NULL);
    SetThreadpoolThreadMaximum(pool, 1);
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, pool);
    struct rec r = { .issuer = GetCurrentThreadId(), .done = CreateEventA(NULL, FALSE, FALSE, NULL), .sleep_ms = 100 };
    PTP_IO io = CreateThreadpoolIo((HANDLE)s, io_cb, &r, &env);
    REQUIRE(io != NULL);
    OVERLAPPED ov[4];
    char buf[4][8];
    for (int i = 0; i < 4; i++) {
        memset(&ov[i], 0, sizeof(ov[i]));
        WSABUF b = { 1, buf[i] };
        DWORD n = 0, flags = 0;
        StartThreadpoolIo(io);
        WSARecv(s, &b, 1, &n, &flags, &ov[i], NULL);
    }
    CHECK_EQ(send(c, "abcd", 4, 0), 4);
    Sleep(30);                           /* the first callback sleeps, 3 are queued */
    WaitForThreadpoolIoCallbacks(io, TRUE);
    printf("cancel pending: %d of 4 callbacks ran\n", (int)r.calls);
    CHECK(r.calls >= 1 && r.calls < 4);
    Sleep(150);
    CHECK(r.calls < 4);                  /* the cancelled ones never run */
    CloseThreadpoolIo(io);
    DestroyThreadpoolEnvironment(&env);
    CloseThreadpool(pool);
    closesocket(c);
    closesocket(s);
    CloseHandle(r.done);
}

/* a file opened for overlapped I/O: writes then reads at offsets */
static void test_file(void)
{
    char path[128];
    snprintf(path, sizeof(path), "/tmp/nspa-tpio-%lu", (unsigned long)GetCurrentProcessId());
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_FLAG_OVERLAPPED, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    struct rec r = { .issuer = GetCurrentThreadId(), .done = CreateEventA(NULL, FALSE, FALSE, NULL) };
    PTP_IO io = CreateThreadpoolIo(f, io_cb, &r, NULL);
    REQUIRE(io != NULL);
    char data[4096];
    for (int i = 0; i < (int)sizeof(data); i++) data[i] = (char)(i * 7);
    for (int i = 0; i < 8; i++) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof(ov));
        ov.Offset = (DWORD)i * 512;
        StartThreadpoolIo(io);
        BOOL ok = WriteFile(f, data + i * 512, 512, NULL, &ov);
        CHECK(ok || GetLastError() == ERROR_IO_PENDING);
        CHECK_EQ(WaitForSingleObject(r.done, 5000), WAIT_OBJECT_0);
        CHECK(r.last_ov == &ov);
    }
    char back[4096];
    memset(back, 0, sizeof(back));
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    StartThreadpoolIo(io);
    BOOL ok = ReadFile(f, back, sizeof(back), NULL, &ov);
    CHECK(ok || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(r.done, 5000), WAIT_OBJECT_0);
    WaitForThreadpoolIoCallbacks(io, FALSE);
    CHECK_EQ(r.calls, 9);
    CHECK_EQ(r.bytes, 8 * 512 + 4096);
    CHECK_EQ(r.errors, 0);
    CHECK(memcmp(back, data, sizeof(data)) == 0);
    /* a read past the end: the callback reports ERROR_HANDLE_EOF */
    memset(&ov, 0, sizeof(ov));
    ov.Offset = 1 << 20;
    StartThreadpoolIo(io);
    ok = ReadFile(f, back, 16, NULL, &ov);
    if (!ok && GetLastError() == ERROR_IO_PENDING) {
        CHECK_EQ(WaitForSingleObject(r.done, 5000), WAIT_OBJECT_0);
        CHECK_EQ(r.last_res, ERROR_HANDLE_EOF);
    } else {
        CHECK(!ok);
        CHECK_EQ(GetLastError(), ERROR_HANDLE_EOF);
        CancelThreadpoolIo(io);          /* failed at once: no completion */
    }
    CloseThreadpoolIo(io);
    CloseHandle(f);
    DeleteFileA(path);
    CloseHandle(r.done);
}

/* the legacy BindIoCompletionCallback */
static volatile LONG bind_calls, bind_bytes;
static LPOVERLAPPED bind_ov;
static HANDLE bind_done;

static void WINAPI bind_cb(DWORD err, DWORD bytes, LPOVERLAPPED ov)
{
    bind_ov = ov;
    InterlockedAdd(&bind_bytes, (LONG)bytes);
    if (!err) InterlockedIncrement(&bind_calls);
    SetEvent(bind_done);
}

static void test_bind(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    bind_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK(BindIoCompletionCallback((HANDLE)s, bind_cb, 0));
    SetLastError(0);
    CHECK(!BindIoCompletionCallback((HANDLE)s, bind_cb, 0));          /* bound already */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!BindIoCompletionCallback((HANDLE)c, NULL, 0));
    char buf[16];
    for (int i = 0; i < 20; i++) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof(ov));
        WSABUF b = { sizeof(buf), buf };
        DWORD n = 0, flags = 0;
        WSARecv(s, &b, 1, &n, &flags, &ov, NULL);
        CHECK_EQ(send(c, "hello", 5, 0), 5);
        CHECK_EQ(WaitForSingleObject(bind_done, 5000), WAIT_OBJECT_0);
        CHECK(bind_ov == &ov);
    }
    CHECK_EQ(bind_calls, 20);
    CHECK_EQ(bind_bytes, 100);
    closesocket(c);
    closesocket(s);
    CloseHandle(bind_done);
}

/* FreeLibraryWhenCallbackReturns: the library is really unloaded after the callback */
struct lib_ctx {
    HMODULE mod;
    int (*fn)(int);
    volatile LONG result;
};

static void CALLBACK lib_work(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK w)
{
    struct lib_ctx *l = ctx;
    l->result = l->fn(20);
    FreeLibraryWhenCallbackReturns(inst, l->mod);
}

static void test_free_library(void)
{
    const char *path = NSPA_TPLIB;
    struct lib_ctx l = { 0 };
    l.mod = LoadLibraryA(path);
    REQUIRE(l.mod != NULL);
    l.fn = (int (*)(int))(void *)GetProcAddress(l.mod, "tplib_twice_plus_two");
    REQUIRE(l.fn != NULL);
    /* held twice: the callback's FreeLibrary leaves it loaded */
    HMODULE again = LoadLibraryA(path);
    CHECK(again == l.mod);
    PTP_WORK w = CreateThreadpoolWork(lib_work, &l, NULL);
    SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CHECK_EQ(l.result, 42);
    CHECK(GetModuleHandleA(path) == l.mod);   /* one reference left (RTLD_NOLOAD probe) */
    /* held once: the callback's FreeLibrary unloads it */
    l.result = 0;
    SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CHECK_EQ(l.result, 42);
    CHECK(GetModuleHandleA(path) == NULL);    /* unloaded */
    CloseThreadpoolWork(w);
}

int main(void)
{
    io_test_start();
    test_socket();
    test_cancel_pending();
    test_file();
    test_bind();
    test_free_library();
    WSACleanup();
    return nspa_test_done();
}
