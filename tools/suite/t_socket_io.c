/* socket-io [messages]: the seed's socket test plus NSPA's phase C. TCP over loopback,
 * 256-byte messages, <messages> (2000) per phase, a sender thread and a
 * TIME_CRITICAL receiver:
 *   A  the message is sent first, then an overlapped WSARecv completes (at once);
 *   B  the WSARecv is posted first and goes pending, then the send is released;
 *   C  as B, the completion read from a completion port (GetQueuedCompletionStatus).
 * Each receive waits on its event (A, B) or the port (C) with a 5 s bound and reads
 * WSAGetOverlappedResult. Latency: from the send call to the receiver seeing the
 * completion (A: from the WSARecv call). Pass: every message intact and in order, none
 * lost, and at least 95% of phase B's receives really went pending. */
#include <winsock2.h>
#include "suite.h"

#define MSG 256
static SOCKET tx, rx;
static HANDLE go_ev, sent_ev, port;
static volatile LONG phase_n, stop_sender;
static volatile double t_send;                /* when the sender called send() */

static void fill(char *b, int i)
{
    for (int k = 0; k < MSG; k++) b[k] = (char)(i * 31 + k * 7);
}

static DWORD WINAPI sender(LPVOID arg)
{
    char b[MSG];
    for (;;) {
        if (WaitForSingleObject(go_ev, 10000) != WAIT_OBJECT_0) return 1;
        if (stop_sender) return 0;
        int i = (int)phase_n;
        fill(b, i);
        t_send = suite_now_us();
        int done = 0;
        while (done < MSG) {
            int k = send(tx, b + done, MSG - done, 0);
            if (k <= 0) return 2;
            done += k;
        }
        SetEvent(sent_ev);
    }
}

/* receive one message: the first part overlapped (the measured one), the rest (TCP may
 * split) with more overlapped receives. Returns 0, or a reason. */
static const char *receive(int i, int mode, int *went_pending, double *lat)
{
    char b[MSG];
    int got = 0;
    WSAOVERLAPPED ov;
    HANDLE ev = port ? NULL : WSACreateEvent();
    int first = 1;
    const char *why = NULL;
    while (got < MSG && !why) {
        memset(&ov, 0, sizeof(ov));
        ov.hEvent = ev;
        WSABUF wb = { (ULONG)(MSG - got), b + got };
        DWORD n = 0, flags = 0;
        double t0 = suite_now_us();
        int r = WSARecv(rx, &wb, 1, &n, &flags, &ov, NULL);
        int pending = r == SOCKET_ERROR && WSAGetLastError() == WSA_IO_PENDING;
        if (r == SOCKET_ERROR && !pending) { why = "WSARecv failed"; break; }
        if (first && went_pending) *went_pending = pending;
        if (first && mode != 0) {
            SetEvent(go_ev);                  /* B, C: release the send now */
        }
        if (port) {
            DWORD bytes;
            ULONG_PTR key;
            LPOVERLAPPED o;
            if (!GetQueuedCompletionStatus(port, &bytes, &key, &o, 5000) || o != &ov) { why = "no completion in 5 s"; break; }
        } else if (WaitForSingleObject(ev, 5000) != WAIT_OBJECT_0) {
            why = "no completion in 5 s";
            break;
        }
        double t1 = suite_now_us();
        DWORD fl = 0;
        if (!WSAGetOverlappedResult(rx, &ov, &n, FALSE, &fl)) { why = "WSAGetOverlappedResult failed"; break; }
        if (n == 0) { why = "connection closed"; break; }
        if (first) *lat = mode == 0 ? t1 - t0 : t1 - t_send;
        first = 0;
        got += (int)n;
    }
    if (ev) WSACloseEvent(ev);
    if (why) return why;
    if (mode != 0 && WaitForSingleObject(sent_ev, 5000) != WAIT_OBJECT_0) return "sender stuck";
    char want[MSG];
    fill(want, i);
    if (memcmp(b, want, MSG)) return "message corrupted or out of order";
    (void)i;
    return NULL;
}

int t_socket_io(int argc, char **argv)
{
    int n = (int)suite_arg(argc, argv, 1, 2000);
    if (n < 1) return suite_fail("bad arguments");
    WSADATA wd;
    if (WSAStartup(MAKEWORD(2, 2), &wd)) return suite_fail("WSAStartup");
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int al = sizeof(a);
    if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &al))
        return suite_fail("listen on 127.0.0.1: %d", WSAGetLastError());
    tx = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    if (connect(tx, (struct sockaddr *)&a, sizeof(a))) return suite_fail("connect: %d", WSAGetLastError());
    rx = accept(l, NULL, NULL);
    if (rx == INVALID_SOCKET) return suite_fail("accept: %d", WSAGetLastError());
    closesocket(l);
    BOOL one = TRUE;
    setsockopt(tx, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
    go_ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    sent_ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE st = suite_thread(sender, NULL, THREAD_PRIORITY_NORMAL);

    double *lat[3];
    int pend[3] = { 0, 0, 0 };
    const char *why = NULL;
    static const char *names[3] = { "A", "B", "C" };
    for (int ph = 0; ph < 3 && !why; ph++) {
        lat[ph] = malloc(sizeof(double) * n);
        if (ph == 2) {
            port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
            if (!port || CreateIoCompletionPort((HANDLE)rx, port, 7, 0) != port) { why = "CreateIoCompletionPort"; break; }
        }
        double t0 = suite_now_us();
        for (int i = 0; i < n && !why; i++) {
            phase_n = ph * n + i;
            int p = 0;
            if (ph == 0) {                   /* A: the data first */
                SetEvent(go_ev);
                if (WaitForSingleObject(sent_ev, 5000) != WAIT_OBJECT_0) { why = "sender stuck"; break; }
            }
            why = receive(ph * n + i, ph, &p, &lat[ph][i]);
            if (why) suite_note("phase %s message %d: %s (error %d)", names[ph], i, why, (int)WSAGetLastError());
            pend[ph] += p;
        }
        double el = suite_now_us() - t0;
        if (why) break;
        suite_stats s = suite_stat(lat[ph], n);
        char key[32], label[80];
        snprintf(key, sizeof key, "%s_avg", names[ph]);
        snprintf(label, sizeof label, "phase %s avg latency", names[ph]);
        suite_fig(key, s.avg, "us", "lower", label);
        snprintf(key, sizeof key, "%s_p50", names[ph]);
        snprintf(label, sizeof label, "phase %s p50 latency", names[ph]);
        suite_fig(key, s.p50, "us", "lower", label);
        snprintf(key, sizeof key, "%s_p99", names[ph]);
        snprintf(label, sizeof label, "phase %s p99 latency", names[ph]);
        suite_fig(key, s.p99, "us", "lower", label);
        snprintf(key, sizeof key, "%s_rate", names[ph]);
        snprintf(label, sizeof label, "phase %s messages per second", names[ph]);
        suite_fig(key, n / (el / 1e6), "msg/s", "higher", label);
        snprintf(key, sizeof key, "%s_lat", names[ph]);
        suite_samples(key, "us", lat[ph], n);
    }
    stop_sender = 1;
    SetEvent(go_ev);
    suite_join(st);
    suite_fig("B_pending_pct", 100.0 * pend[1] / n, "%", "higher", "phase B receives that went pending");
    closesocket(tx);
    closesocket(rx);
    if (port) CloseHandle(port);
    WSACleanup();
    if (why) return suite_fail("%s", why);
    if (pend[1] * 100 < n * 95) return suite_fail("only %d of %d phase B receives went pending", pend[1], n);
    return suite_pass();
}
