/* The randomized cancel/close test: NSPA_IO_STRESS_OPS (1,000,000; 100,000 under a
 * sanitizer) overlapped operations — UDP receives and sends over loopback on a
 * completion port — mixed at random with CancelIoEx, CancelIo and closesocket (the
 * socket is then made again), while a second thread dequeues completions. Every
 * operation that was started (returned 0 or WSA_IO_PENDING) must complete exactly
 * once: each OVERLAPPED is marked in use when issued and unmarked by its packet (a
 * second packet, or a packet for an unused OVERLAPPED, fails the test), and at the end
 * every one is back. */
#include "io_util.h"
#include <stdatomic.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_OPS 100000
#else
#define DEFAULT_OPS 1000000
#endif
#define NSOCK 8
#define NOV 2048

static HANDLE port;
static WSAOVERLAPPED ovs[NOV];
static atomic_int state[NOV];            /* 0 free, 1 in flight */
static atomic_long completions, doubles, stray;
static atomic_int stop;
static char rbuf[NOV][64];

static int ov_index(LPOVERLAPPED o)
{
    long i = o - ovs;
    return i >= 0 && i < NOV ? (int)i : -1;
}

static void account(LPOVERLAPPED o)
{
    int i = ov_index(o);
    if (i < 0) { atomic_fetch_add(&stray, 1); return; }
    int one = 1;
    if (!atomic_compare_exchange_strong(&state[i], &one, 0)) atomic_fetch_add(&doubles, 1);
    atomic_fetch_add(&completions, 1);
}

static DWORD WINAPI drainer(LPVOID arg)
{
    OVERLAPPED_ENTRY e[64];
    for (;;) {
        ULONG n = 0;
        if (GetQueuedCompletionStatusEx(port, e, 64, &n, 20, FALSE)) {
            for (ULONG i = 0; i < n; i++) account(e[i].lpOverlapped);
        } else if (atomic_load(&stop)) {
            return 0;
        }
    }
}

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)rng;
}

static SOCKET socks[NSOCK];
static struct sockaddr_in addrs[NSOCK];

static void make(int k)
{
    socks[k] = socket(AF_INET, SOCK_DGRAM, 0);
    REQUIRE(socks[k] != INVALID_SOCKET);
    struct sockaddr_in a = io_loopback4(0);
    REQUIRE(bind(socks[k], (struct sockaddr *)&a, sizeof(a)) == 0);
    int l = sizeof(addrs[k]);
    getsockname(socks[k], (struct sockaddr *)&addrs[k], &l);
    REQUIRE(CreateIoCompletionPort((HANDLE)socks[k], port, (ULONG_PTR)k, 0) == port);
}

static int take_ov(void)
{
    for (int tries = 0;; tries++) {
        int i = (int)(rnd() % NOV);
        int z = 0;
        if (atomic_compare_exchange_strong(&state[i], &z, 1)) return i;
        if (tries > 64) Sleep(0);
    }
}

int main(void)
{
    io_test_start();
    const char *e = getenv("NSPA_IO_STRESS_OPS");
    long ops = e ? atol(e) : DEFAULT_OPS;
    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    for (int k = 0; k < NSOCK; k++) make(k);
    HANDLE d = CreateThread(NULL, 0, drainer, NULL, 0, NULL);
    long started = 0, refused = 0, cancels = 0, closes = 0;
    ULONGLONG t0 = GetTickCount64();
    for (long n = 0; n < ops; n++) {
        unsigned r = rnd();
        int k = (int)(r % NSOCK);
        unsigned act = (r >> 8) % 1000;
        if (act < 30) {                          /* 3%: cancel one or all */
            CancelIoEx((HANDLE)socks[k], act < 15 ? &ovs[rnd() % NOV] : NULL);
            cancels++;
        } else if (act < 33) {                   /* 0.3%: close with whatever is pending */
            closesocket(socks[k]);
            make(k);
            closes++;
        }
        int i = take_ov();
        memset(&ovs[i], 0, sizeof(ovs[i]));
        DWORD flags = 0, nb;
        int rc;
        if (r & (1u << 20)) {
            WSABUF b = { sizeof(rbuf[i]), rbuf[i] };
            rc = WSARecv(socks[k], &b, 1, &nb, &flags, &ovs[i], NULL);
        } else {
            WSABUF b = { 8, "datagram" };
            int to = (int)((r >> 21) % NSOCK);
            rc = WSASendTo(socks[k], &b, 1, &nb, 0, (struct sockaddr *)&addrs[to], sizeof(addrs[to]), &ovs[i], NULL);
        }
        if (rc == 0 || WSAGetLastError() == WSA_IO_PENDING) {
            started++;
        } else {
            refused++;                           /* failed at once: no packet comes */
            atomic_store(&state[i], 0);
        }
    }
    /* close everything: what is still pending completes, aborted */
    for (int k = 0; k < NSOCK; k++) closesocket(socks[k]);
    ULONGLONG t_end = GetTickCount64() + 20000;
    while (atomic_load(&completions) < started && GetTickCount64() < t_end) Sleep(10);
    atomic_store(&stop, 1);
    WaitForSingleObject(d, 10000);
    CloseHandle(d);
    long in_flight = 0;
    for (int i = 0; i < NOV; i++) in_flight += atomic_load(&state[i]);
    printf("%ld operations in %llu ms: %ld started, %ld refused, %ld completions, %ld cancels, %ld closes\n",
           ops, (unsigned long long)(GetTickCount64() - t0), started, refused, (long)atomic_load(&completions),
           cancels, closes);
    CHECK_EQ(started + refused, ops);
    CHECK_EQ(atomic_load(&completions), started);
    CHECK_EQ(atomic_load(&doubles), 0);
    CHECK_EQ(atomic_load(&stray), 0);
    CHECK_EQ(in_flight, 0);
    CloseHandle(port);
    WSACleanup();
    return nspa_test_done();
}
