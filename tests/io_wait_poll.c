/* A wait that watches its own socket (docs/io.md, "The epoll engine's waits"): with the
 * epoll engine, a thread whose receive went pending sleeps in poll() on that socket and
 * its wake eventfd, and holds a reference to the socket meanwhile. What must hold (on
 * both engines; with io_uring the thread ring's sleep gives the same answers):
 *  - closesocket from another thread while the issuer waits on something else: the
 *    connection closes now (the peer reads end of stream at once, not when the wait
 *    ends), and the receive completes once, aborted;
 *  - CancelIoEx from another thread while the issuer waits on the receive's event:
 *    the wait wakes, the receive is aborted once;
 *  - a socket that stays readable after its receive completed does not keep the
 *    waiter awake: a 300 ms wait on an unrelated event costs (almost) no CPU;
 *  - a grant from another thread, a wait timeout and a receive all wake the waiter,
 *    200 times in a row, in any mix (no wake-up lost between the poll and the futex). */
#include "io_util.h"
#include <stdatomic.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct closer { SOCKET s, peer; HANDLE go; int eof; double after_ms; };

/* the peer reads end of stream within @ms: 1 */
static int peer_sees_eof(SOCKET peer, int ms)
{
    DWORD tmo = (DWORD)ms;
    setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tmo, sizeof(tmo));
    char b[8];
    return recv(peer, b, sizeof(b), 0) == 0;
}

static DWORD WINAPI close_it(LPVOID p)
{
    struct closer *c = p;
    WaitForSingleObject(c->go, INFINITE);
    Sleep(50);                           /* the issuer is asleep by now */
    double t0 = now_ms();
    closesocket(c->s);
    /* while the issuer still waits (600 ms): the connection is closed now */
    c->eof = peer_sees_eof(c->peer, 300);
    c->after_ms = now_ms() - t0;
    return 0;
}

static void close_while_waiting(void)
{
    SOCKET c, s;
    WSAOVERLAPPED ov;
    char buf[64];
    io_pair_pending(&c, &s, &ov, buf, sizeof(buf));
    HANDLE other = CreateEventW(NULL, TRUE, FALSE, NULL), go = CreateEventW(NULL, TRUE, FALSE, NULL);
    struct closer cl = { s, c, go, 0, 0 };
    HANDLE t = CreateThread(NULL, 0, close_it, &cl, 0, NULL);
    /* the issuer (this thread) waits on an unrelated event */
    SetEvent(go);
    double t0 = now_ms();
    CHECK_EQ(WaitForSingleObject(other, 600), WAIT_TIMEOUT);
    CHECK(now_ms() - t0 >= 590);
    WaitForSingleObject(t, INFINITE);
    printf("closesocket during a wait: peer saw the end %s, %.1f ms after the close\n", cl.eof ? "yes" : "NO",
           cl.after_ms);
    CHECK(cl.eof);
    CHECK(cl.after_ms < 300);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 2000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)ov.Internal, (DWORD)0xC0000120);      /* STATUS_CANCELLED */
    CloseHandle(t);
    CloseHandle(other);
    CloseHandle(go);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
}

struct canceller { SOCKET s; WSAOVERLAPPED *ov; };

static DWORD WINAPI cancel_it(LPVOID p)
{
    struct canceller *c = p;
    Sleep(50);
    CancelIoEx((HANDLE)c->s, (LPOVERLAPPED)c->ov);
    return 0;
}

static void cancel_while_waiting(void)
{
    SOCKET c, s;
    WSAOVERLAPPED ov;
    char buf[64];
    io_pair_pending(&c, &s, &ov, buf, sizeof(buf));
    struct canceller cc = { s, &ov };
    HANDLE t = CreateThread(NULL, 0, cancel_it, &cc, 0, NULL);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 3000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)ov.Internal, (DWORD)0xC0000120);
    DWORD n = 0, fl = 0;
    CHECK(!WSAGetOverlappedResult(s, &ov, &n, FALSE, &fl));
    CHECK_EQ(WSAGetLastError(), WSA_OPERATION_ABORTED);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    /* the socket still works: data sent now is there for the next receive */
    CHECK_EQ(send(c, "x", 1, 0), 1);
    WSAResetEvent(ov.hEvent);
    int e = io_post_recv(s, &ov, buf, sizeof(buf));
    CHECK(e == 0 || e == WSA_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 3000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)ov.InternalHigh, 1u);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void readable_does_not_spin(void)
{
    SOCKET c, s;
    WSAOVERLAPPED ov;
    char buf[4];
    io_pair_pending(&c, &s, &ov, buf, sizeof(buf));
    /* more than the receive takes: the socket stays readable after it completes */
    CHECK_EQ(send(c, "abcdefgh", 8, 0), 8);
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 3000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)ov.InternalHigh, 4u);
    HANDLE other = CreateEventW(NULL, TRUE, FALSE, NULL);
    double c0 = thread_cpu_ms(), t0 = now_ms();
    CHECK_EQ(WaitForSingleObject(other, 300), WAIT_TIMEOUT);
    double cpu = thread_cpu_ms() - c0, wall = now_ms() - t0;
    printf("readable socket, 300 ms wait: %.1f ms wall, %.2f ms CPU\n", wall, cpu);
    CHECK(cpu < 30.0);
    CloseHandle(other);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

/* ---- every way of waking, mixed --------------------------------------------------- */

struct mixer { SOCKET c; HANDLE ev; atomic_int round, stop; };

static DWORD WINAPI mix_peer(LPVOID p)
{
    struct mixer *m = p;
    unsigned x = 12345;
    int seen = -1;
    while (!atomic_load(&m->stop)) {
        int r = atomic_load(&m->round);
        if (r == seen) {
            Sleep(0);
            continue;
        }
        seen = r;
        x = x * 1103515245u + 12345u;
        Sleep((x >> 16) % 3);
        switch ((x >> 8) % 3) {
        case 0: send(m->c, "d", 1, 0); break;      /* the receive */
        case 1: SetEvent(m->ev); break;           /* a grant */
        default: break;                           /* the timeout */
        }
    }
    return 0;
}

static void mixed_wakes(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    struct mixer m = { c, CreateEventW(NULL, FALSE, FALSE, NULL), 0, 0 };
    HANDLE t = CreateThread(NULL, 0, mix_peer, &m, 0, NULL);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    char buf[1];
    int pending = 0, got_io = 0, got_ev = 0, got_to = 0;
    for (int i = 0; i < 200; i++) {
        if (!pending) {
            WSAResetEvent(ov.hEvent);
            int e = io_post_recv(s, &ov, buf, sizeof(buf));
            CHECK(e == 0 || e == WSA_IO_PENDING);
            pending = 1;
        }
        atomic_fetch_add(&m.round, 1);
        HANDLE h[2] = { ov.hEvent, m.ev };
        DWORD r = WaitForMultipleObjects(2, h, FALSE, 10);
        if (r == WAIT_OBJECT_0) {
            CHECK_EQ((DWORD)ov.InternalHigh, 1u);
            pending = 0;
            got_io++;
        } else if (r == WAIT_OBJECT_0 + 1) {
            got_ev++;
        } else {
            CHECK_EQ(r, WAIT_TIMEOUT);
            got_to++;
        }
    }
    atomic_store(&m.stop, 1);
    WaitForSingleObject(t, INFINITE);
    /* whatever is still on its way is there for the last receive */
    if (pending) {
        send(c, "d", 1, 0);
        CHECK_EQ(WaitForSingleObject(ov.hEvent, 3000), WAIT_OBJECT_0);
    }
    printf("200 waits: %d by I/O, %d by the event, %d timeouts\n", got_io, got_ev, got_to);
    CHECK(got_io > 0 && got_ev > 0);
    CloseHandle(t);
    CloseHandle(m.ev);
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

int main(void)
{
    io_test_start();
    close_while_waiting();
    cancel_while_waiting();
    readable_does_not_spin();
    mixed_wakes();
    WSACleanup();
    return nspa_test_done();
}
