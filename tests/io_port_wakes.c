/* An echo server on a completion port with 2 workers, as the bench runs it: 64
 * connections, 60 messages each, all in flight (immediate sends and pending receives,
 * completed by the workers' own rings, the engine thread or the epoll engine, packets
 * handed between the workers). Every byte is echoed, no wake is lost (a worker that
 * waits 10 s fails), and afterwards the threads that posted and completed still wake a
 * plain event's waiter at once (a wake left pending on a thread would hold it until
 * the waiter's timeout). Under TSan it also checks that the issue path never reads an
 * OVERLAPPED another worker has taken back (engine.c, io_imm). */
#include "io_util.h"
#include <stdatomic.h>

#define CONNS 64
#define ROUNDS 60                      /* messages per connection */
#define MSG 64

struct conn { WSAOVERLAPPED ov; SOCKET s; char buf[MSG]; int sending; };
static HANDLE port, probe_evt, probe_done;
static atomic_int served, probe_late;   /* served: bytes echoed */

static void post_recv(struct conn *c)
{
    memset(&c->ov, 0, sizeof(c->ov));
    c->sending = 0;
    int r = io_post_recv(c->s, &c->ov, c->buf, MSG);
    CHECK(r == 0 || r == WSA_IO_PENDING);
}

static DWORD WINAPI worker(LPVOID arg)
{
    (void)arg;
    for (;;) {
        DWORD n;
        ULONG_PTR key;
        LPOVERLAPPED o;
        BOOL ok = GetQueuedCompletionStatus(port, &n, &key, &o, 10000);
        if (!ok && !o) {                  /* 10 s without a packet: a wake was lost */
            CHECK(!"a worker waited 10 s for a packet");
            return 1;
        }
        if (!o) break;                    /* the stop packet */
        if (key == 1) {
            /* this worker posted and completed in lock sections until now: a plain
             * event it sets must wake the prober at once */
            SetEvent(probe_evt);
            continue;
        }
        struct conn *c = (struct conn *)o;
        CHECK(ok);
        if (!ok) continue;
        if (c->sending) {
            post_recv(c);
            continue;
        }
        CHECK(n > 0);                     /* nobody closes before the workers stop */
        atomic_fetch_add(&served, (int)n);
        memset(&c->ov, 0, sizeof(c->ov));
        c->sending = 1;
        WSABUF b = { n, c->buf };
        if (WSASend(c->s, &b, 1, NULL, 0, &c->ov, NULL) == SOCKET_ERROR) CHECK_EQ(WSAGetLastError(), WSA_IO_PENDING);
    }
    return 0;
}

static DWORD WINAPI prober(LPVOID arg)
{
    (void)arg;
    for (int i = 0; i < 4; i++) {
        ULONGLONG t0 = GetTickCount64();
        DWORD r = WaitForSingleObject(probe_evt, 5000);
        CHECK_EQ(r, WAIT_OBJECT_0);
        if (GetTickCount64() - t0 > 2000) atomic_fetch_add(&probe_late, 1);
        SetEvent(probe_done);
    }
    return 0;
}

int main(void)
{
    io_test_start();
    port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 2);
    REQUIRE(port != NULL);
    probe_evt = CreateEventA(NULL, FALSE, FALSE, NULL);
    probe_done = CreateEventA(NULL, FALSE, FALSE, NULL);
    static struct conn conns[CONNS];
    SOCKET cli[CONNS];
    HANDLE w[2];
    for (int i = 0; i < 2; i++) w[i] = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    for (int i = 0; i < CONNS; i++) {
        io_tcp_pair(&cli[i], &conns[i].s);
        REQUIRE(CreateIoCompletionPort((HANDLE)conns[i].s, port, 0, 0) == port);
        post_recv(&conns[i]);
    }
    /* the client: each connection sends a message and waits for its echo, ROUNDS times,
     * all connections in flight at once */
    char out[MSG], in[MSG];
    memset(out, 5, sizeof(out));
    int got[CONNS] = { 0 }, left[CONNS];
    for (int i = 0; i < CONNS; i++) {
        left[i] = ROUNDS;
        CHECK_EQ(send(cli[i], out, MSG, 0), MSG);
    }
    u_long nb = 1;
    for (int i = 0; i < CONNS; i++) ioctlsocket(cli[i], FIONBIO, &nb);
    int active = CONNS;
    ULONGLONG end = GetTickCount64() + 20000;
    while (active && GetTickCount64() < end) {
        WSAPOLLFD pf[CONNS];
        for (int i = 0; i < CONNS; i++) {
            pf[i].fd = left[i] ? cli[i] : INVALID_SOCKET;
            pf[i].events = POLLRDNORM;
            pf[i].revents = 0;
        }
        if (WSAPoll(pf, CONNS, 1000) <= 0) continue;
        for (int i = 0; i < CONNS; i++) {
            if (!left[i] || !(pf[i].revents & POLLRDNORM)) continue;
            int r = recv(cli[i], in + got[i], MSG - got[i], 0);
            if (r <= 0) continue;
            got[i] += r;
            if (got[i] < MSG) continue;
            got[i] = 0;
            if (--left[i] == 0) active--;
            else CHECK_EQ(send(cli[i], out, MSG, 0), MSG);
        }
    }
    CHECK_EQ(active, 0);
    CHECK_EQ(atomic_load(&served), CONNS * ROUNDS * MSG);
    /* the workers, and this thread, wake an event's waiter at once */
    HANDLE pr = CreateThread(NULL, 0, prober, NULL, 0, NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(PostQueuedCompletionStatus(port, 0, 1, (LPOVERLAPPED)1));
        CHECK_EQ(WaitForSingleObject(probe_done, 5000), WAIT_OBJECT_0);
    }
    for (int i = 0; i < 2; i++) {
        SetEvent(probe_evt);
        CHECK_EQ(WaitForSingleObject(probe_done, 5000), WAIT_OBJECT_0);
    }
    CHECK_EQ(WaitForSingleObject(pr, 5000), WAIT_OBJECT_0);
    CHECK_EQ(atomic_load(&probe_late), 0);
    for (int i = 0; i < 2; i++) PostQueuedCompletionStatus(port, 0, 0, NULL);
    CHECK_EQ(WaitForMultipleObjects(2, w, TRUE, 10000), WAIT_OBJECT_0);
    for (int i = 0; i < CONNS; i++) {
        closesocket(cli[i]);
        closesocket(conns[i].s);
    }
    CloseHandle(port);
    printf("echoed %d bytes\n", atomic_load(&served));
    WSACleanup();
    return nspa_test_done();
}
