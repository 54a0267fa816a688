/* nspa-bench io, the Win32 side: one source, built natively against NSPA's <windows.h>
 * and with mingw-w64 for stock Wine (bench/io/run.sh).
 *
 *   io_bench pingpong_event <impl> <iters>   TCP loopback, 256-byte messages; both ends
 *            post an overlapped WSARecv and wait on its event (the echo end is a thread)
 *   io_bench pingpong_iocp <impl> <iters>    the same, completions read from a port
 *   io_bench echo_iocp <impl> <port> <ms>    an echo server on a completion port with 2
 *            worker threads (bench/io/limits.c's echo_client drives it)
 *   io_bench fileread <impl> <path> <bs> <qd> <rand|seq> <ms>   overlapped ReadFile, qd
 *            reads in flight on a completion port
 * Each prints one line: RESULT bench=<b> impl=<impl> unit=<u> value=<v> better=<..> ... */
#include <winsock2.h>
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG 256

static double now_us(void)
{
    static double per;
    LARGE_INTEGER c, f;
    if (!per) {
        QueryPerformanceFrequency(&f);
        per = 1e6 / (double)f.QuadPart;
    }
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * per;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what)
{
    fprintf(stderr, "io_bench: %s failed (%d)\n", what, (int)WSAGetLastError());
    exit(1);
}

static void tcp_pair(SOCKET *a, SOCKET *b)
{
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int al = sizeof(sa);
    if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1) || getsockname(l, (struct sockaddr *)&sa, &al))
        die("listen");
    *a = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    if (connect(*a, (struct sockaddr *)&sa, sizeof(sa))) die("connect");
    *b = accept(l, NULL, NULL);
    if (*b == INVALID_SOCKET) die("accept");
    closesocket(l);
    BOOL one = TRUE;
    setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
    setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
}

/* one message in: overlapped receives until MSG bytes, waiting on the event or port */
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
            DWORD bytes;
            ULONG_PTR key;
            LPOVERLAPPED o;
            if (!GetQueuedCompletionStatus(port, &bytes, &key, &o, 5000)) return -1;
            n = bytes;
        } else {
            DWORD fl;
            if (!WSAGetOverlappedResult(s, &ov, &n, TRUE, &fl)) return -1;
        }
        if (n == 0) return -1;
        got += (int)n;
    }
    return 0;
}

static int send_msg(SOCKET s, const char *buf)
{
    int done = 0;
    while (done < MSG) {
        int k = send(s, buf + done, MSG - done, 0);
        if (k <= 0) return -1;
        done += k;
    }
    return 0;
}

struct echo_arg { SOCKET s; int iters, use_port; };

static DWORD WINAPI echo_thread(LPVOID p)
{
    struct echo_arg *a = p;
    char buf[MSG];
    HANDLE ev = a->use_port ? NULL : WSACreateEvent();
    HANDLE port = a->use_port ? CreateIoCompletionPort((HANDLE)a->s, NULL, 1, 1) : NULL;
    for (int i = 0; i < a->iters; i++) {
        if (recv_msg(a->s, buf, ev, port) || send_msg(a->s, buf)) return 1;
    }
    return 0;
}

static int pingpong(const char *impl, int iters, int use_port)
{
    SOCKET c, s;
    tcp_pair(&c, &s);
    struct echo_arg ea = { s, iters + 1000, use_port };
    HANDLE t = CreateThread(NULL, 0, echo_thread, &ea, 0, NULL);
    HANDLE ev = use_port ? NULL : WSACreateEvent();
    HANDLE port = use_port ? CreateIoCompletionPort((HANDLE)c, NULL, 1, 1) : NULL;
    char buf[MSG];
    memset(buf, 7, sizeof(buf));
    double *rtt = malloc(sizeof(double) * iters);
    for (int i = 0; i < 1000; i++)   /* warm-up */
        if (send_msg(c, buf) || recv_msg(c, buf, ev, port)) die("warm-up");
    double t0 = now_us();
    for (int i = 0; i < iters; i++) {
        double a = now_us();
        if (send_msg(c, buf) || recv_msg(c, buf, ev, port)) die("round trip");
        rtt[i] = now_us() - a;
    }
    double el = now_us() - t0;
    WaitForSingleObject(t, 10000);
    qsort(rtt, iters, sizeof(double), dcmp);
    const char *b = use_port ? "pingpong_iocp" : "pingpong_event";
    printf("RESULT bench=%s impl=%s unit=us value=%.3f better=lower p50=%.3f p99=%.3f iters=%d rate=%.0f\n", b, impl,
           rtt[iters / 2], rtt[iters / 2], rtt[(long long)iters * 99 / 100], iters, iters / (el / 1e6));
    closesocket(c);
    closesocket(s);
    return 0;
}

/* ---- the echo server ------------------------------------------------------------- */

struct conn { WSAOVERLAPPED ov; SOCKET s; char buf[MSG]; int sending; };
static HANDLE eport;
static volatile LONG served;

static void post_recv(struct conn *c)
{
    memset(&c->ov, 0, sizeof(c->ov));
    c->sending = 0;
    WSABUF b = { MSG, c->buf };
    DWORD flags = 0;
    if (WSARecv(c->s, &b, 1, NULL, &flags, &c->ov, NULL) == SOCKET_ERROR && WSAGetLastError() != WSA_IO_PENDING) {
        closesocket(c->s);
        c->s = INVALID_SOCKET;
    }
}

static DWORD WINAPI echo_worker(LPVOID p)
{
    for (;;) {
        DWORD n;
        ULONG_PTR key;
        LPOVERLAPPED o;
        BOOL ok = GetQueuedCompletionStatus(eport, &n, &key, &o, INFINITE);
        if (!o) return 0;                              /* the stop packet */
        struct conn *c = (struct conn *)o;
        if (!ok || n == 0) {
            closesocket(c->s);
            continue;
        }
        if (c->sending) {
            post_recv(c);
            continue;
        }
        InterlockedIncrement(&served);
        /* echo what came, overlapped, then receive again on its completion */
        memset(&c->ov, 0, sizeof(c->ov));
        c->sending = 1;
        WSABUF b = { n, c->buf };
        if (WSASend(c->s, &b, 1, NULL, 0, &c->ov, NULL) == SOCKET_ERROR && WSAGetLastError() != WSA_IO_PENDING)
            closesocket(c->s);
    }
}

static int echo_iocp(const char *impl, int port_no, int ms)
{
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    BOOL one = TRUE;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, (const char *)&one, sizeof(one));
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((u_short)port_no);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 256)) die("listen");
    eport = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 2);
    HANDLE w[2];
    for (int i = 0; i < 2; i++) w[i] = CreateThread(NULL, 0, echo_worker, NULL, 0, NULL);
    printf("READY\n");
    fflush(stdout);
    double end = now_us() + ms * 1000.0;
    u_long nb = 1;
    ioctlsocket(l, FIONBIO, &nb);
    /* connections as they come, until the end: the thread sleeps in select (a poll with
     * Sleep(1) woke it 1,000 times a second while the workers ran: ~6% of the server's
     * context switches) */
    for (double left; (left = end - now_us()) > 0;) {
        fd_set rs;
        FD_ZERO(&rs);
        FD_SET(l, &rs);
        struct timeval tv = { (long)(left / 1e6), (long)(left - (long)(left / 1e6) * 1e6) };
        if (select(0, &rs, NULL, NULL, &tv) <= 0) continue;
        SOCKET s = accept(l, NULL, NULL);
        if (s == INVALID_SOCKET) continue;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
        struct conn *c = calloc(1, sizeof(*c));
        c->s = s;
        CreateIoCompletionPort((HANDLE)s, eport, 0, 0);
        post_recv(c);
    }
    for (int i = 0; i < 2; i++) PostQueuedCompletionStatus(eport, 0, 0, NULL);
    WaitForMultipleObjects(2, w, TRUE, 5000);
    printf("RESULT bench=echo_served impl=%s unit=msgs value=%ld better=info\n", impl, (long)served);
    return 0;
}

/* ---- file reads ------------------------------------------------------------------- */

static int fileread(const char *impl, const char *path, int bs, int qd, int rnd, int ms)
{
    HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_FLAG_OVERLAPPED, NULL);
    if (h == INVALID_HANDLE_VALUE) die("CreateFileA");
    LARGE_INTEGER sz;
    GetFileSizeEx(h, &sz);
    long long blocks = sz.QuadPart / bs;
    HANDLE port = CreateIoCompletionPort(h, NULL, 1, 1);
    OVERLAPPED *ov = calloc(qd, sizeof(OVERLAPPED));
    char *buf = malloc((size_t)qd * bs);
    unsigned long long rng = 88172645463325252ull, next = 0;
    long long done = 0;
    for (int i = 0; i < qd; i++) {
        long long b;
        if (rnd) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; b = (long long)(rng % blocks); }
        else b = (long long)(next++ % blocks);
        ov[i].Offset = (DWORD)(b * bs);
        ov[i].OffsetHigh = (DWORD)((b * bs) >> 32);
        if (!ReadFile(h, buf + (size_t)i * bs, bs, NULL, &ov[i]) && GetLastError() != ERROR_IO_PENDING) die("ReadFile");
    }
    double t0 = now_us(), end = t0 + ms * 1000.0;
    for (;;) {
        DWORD n;
        ULONG_PTR key;
        LPOVERLAPPED o;
        if (!GetQueuedCompletionStatus(port, &n, &key, &o, 5000)) die("GetQueuedCompletionStatus");
        done++;
        if (now_us() >= end) break;
        int i = (int)(o - ov);
        long long b;
        if (rnd) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; b = (long long)(rng % blocks); }
        else b = (long long)(next++ % blocks);
        o->Offset = (DWORD)(b * bs);
        o->OffsetHigh = (DWORD)((b * bs) >> 32);
        if (!ReadFile(h, buf + (size_t)i * bs, bs, NULL, o) && GetLastError() != ERROR_IO_PENDING) die("ReadFile");
    }
    double el = now_us() - t0;
    /* let the reads in flight finish before closing */
    for (int i = 0; i < qd - 1; i++) {
        DWORD n;
        ULONG_PTR key;
        LPOVERLAPPED o;
        GetQueuedCompletionStatus(port, &n, &key, &o, 5000);
    }
    printf("RESULT bench=fileread_%s_%d impl=%s unit=MiB/s value=%.1f better=higher iops=%.0f qd=%d\n",
           rnd ? "rand" : "seq", bs, impl, done * (double)bs / (1 << 20) / (el / 1e6), done / (el / 1e6), qd);
    CloseHandle(port);
    CloseHandle(h);
    return 0;
}

int main(int argc, char **argv)
{
    WSADATA wd;
    WSAStartup(MAKEWORD(2, 2), &wd);
    if (argc < 3) {
        fprintf(stderr, "usage: io_bench pingpong_event|pingpong_iocp|echo_iocp|fileread <impl> ...\n");
        return 2;
    }
    const char *b = argv[1], *impl = argv[2];
    if (!strcmp(b, "pingpong_event")) return pingpong(impl, argc > 3 ? atoi(argv[3]) : 20000, 0);
    if (!strcmp(b, "pingpong_iocp")) return pingpong(impl, argc > 3 ? atoi(argv[3]) : 20000, 1);
    if (!strcmp(b, "echo_iocp")) return echo_iocp(impl, atoi(argv[3]), atoi(argv[4]));
    if (!strcmp(b, "fileread") && argc >= 8)
        return fileread(impl, argv[3], atoi(argv[4]), atoi(argv[5]), !strcmp(argv[6], "rand"), atoi(argv[7]));
    fprintf(stderr, "io_bench: unknown bench %s\n", b);
    return 2;
}
