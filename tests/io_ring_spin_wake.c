/* A thread's ring and a waker that sends no wake-up (docs/io.md, "Thread rings";
 * docs/sync.md, "Waits"): a waiter still on its CPU when it is granted gets no
 * FUTEX_WAKE, and a thread ring keeps its FUTEX_WAIT request on the word armed from one
 * sleep to the next, so before it sleeps in the ring it must look at the word itself.
 * Two threads play a TCP ping-pong of 256-byte messages, each receive overlapped and
 * waited for on its event (WaitForSingleObject, 5 s), then through a completion port
 * (GetQueuedCompletionStatus, 5 s). Threads with rings do not spin by default (their
 * receives run as their task work, which waits for them to enter the kernel), which
 * leaves only the short window between queueing and sleeping; the test makes them spin
 * (NSPA_EVENT_SPIN_IO=1, NSPA_EVENT_SPIN_LOAD=0: whatever the machine's load), so grants
 * often land while the waiter still runs. Every
 * round trip of 20,000 must complete; a lost wake-up shows as a 5 s timeout (without the
 * word check, 1 run in 3 timed out within 3,000 round trips). Runs on both engines. */
#include "io_util.h"

#define MSG 256
#define TRIPS 20000

struct side { SOCKET s; int use_port, fails; };

static int recv_msg(SOCKET s, char *buf, HANDLE ev, HANDLE port)
{
    int got = 0;
    while (got < MSG) {
        WSAOVERLAPPED ov;
        memset(&ov, 0, sizeof(ov));
        ov.hEvent = ev;
        WSABUF b = { (ULONG)(MSG - got), buf + got };
        DWORD n = 0, flags = 0;
        if (WSARecv(s, &b, 1, &n, &flags, &ov, NULL) == SOCKET_ERROR && WSAGetLastError() != WSA_IO_PENDING)
            return -1;
        if (port) {
            ULONG_PTR key;
            LPOVERLAPPED o;
            if (!GetQueuedCompletionStatus(port, &n, &key, &o, 5000)) return -2;
        } else {
            DWORD fl;
            if (WaitForSingleObject(ev, 5000) != WAIT_OBJECT_0) return -2;
            if (!WSAGetOverlappedResult(s, &ov, &n, FALSE, &fl)) return -1;
        }
        if (n == 0) return -1;
        got += (int)n;
    }
    return 0;
}

static int send_msg(SOCKET s, const char *buf)
{
    for (int done = 0; done < MSG;) {
        int k = send(s, buf + done, MSG - done, 0);
        if (k <= 0) return -1;
        done += k;
    }
    return 0;
}

static DWORD WINAPI echo(LPVOID p)
{
    struct side *a = p;
    char buf[MSG];
    HANDLE ev = a->use_port ? NULL : WSACreateEvent();
    HANDLE port = a->use_port ? CreateIoCompletionPort((HANDLE)a->s, NULL, 1, 1) : NULL;
    for (int i = 0; i < TRIPS; i++)
        if (recv_msg(a->s, buf, ev, port) || send_msg(a->s, buf)) {
            a->fails++;
            break;
        }
    if (ev) WSACloseEvent(ev);
    if (port) CloseHandle(port);
    return 0;
}

static void play(int use_port)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    struct side e = { s, use_port, 0 };
    HANDLE t = CreateThread(NULL, 0, echo, &e, 0, NULL);
    REQUIRE(t);
    HANDLE ev = use_port ? NULL : WSACreateEvent();
    HANDLE port = use_port ? CreateIoCompletionPort((HANDLE)c, NULL, 1, 1) : NULL;
    char buf[MSG];
    memset(buf, 7, sizeof(buf));
    int done = 0, r = 0;
    for (; done < TRIPS; done++) {
        if (send_msg(c, buf)) break;
        if ((r = recv_msg(c, buf, ev, port))) break;
    }
    printf("%s: %d of %d round trips%s\n", use_port ? "port" : "event", done, TRIPS,
           r == -2 ? " (a wait timed out: a lost wake-up)" : "");
    CHECK_EQ(done, TRIPS);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(e.fails, 0);
    CloseHandle(t);
    closesocket(c);
    closesocket(s);
    if (ev) WSACloseEvent(ev);
    if (port) CloseHandle(port);
}

int main(void)
{
    setenv("NSPA_EVENT_SPIN_LOAD", "0", 1);   /* read at the first slow wait */
    setenv("NSPA_EVENT_SPIN_IO", "1", 1);
    io_test_start();
    play(0);
    play(1);
    return nspa_test_done();
}
