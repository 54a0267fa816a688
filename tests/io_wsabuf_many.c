/* More WSABUFs than an operation record holds (16): up to Linux's IOV_MAX (1024) in one
 * call, overlapped and synchronous, TCP and UDP; the data is gathered and scattered in
 * buffer order. 1025 buffers: WSAENOBUFS (io_bad_input). Before, 17 buffers failed. */
#include "io_util.h"

#define NB 300
static char src[NB * 7], dst[NB * 7];
static WSABUF sb[NB], rb[NB];

/* buffer i has 1 + i % 13 bytes: ragged sizes, ~2 KiB in all */
static size_t split(WSABUF *w, char *base, int n)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        w[i].buf = base + off;
        w[i].len = 1 + (ULONG)(i % 13);
        off += w[i].len;
    }
    return off;
}

static int recv_all(SOCKET s, char *p, size_t len)
{
    size_t got = 0;
    while (got < len) {
        int k = recv(s, p + got, (int)(len - got), 0);
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

static void tcp(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    for (size_t i = 0; i < sizeof(src); i++) src[i] = (char)(i * 31 + 7);

    /* overlapped gather: WSASend of NB buffers, read back with plain recv */
    size_t total = split(sb, src, NB);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    DWORD n = 0, fl = 0;
    int r = WSASend(c, sb, NB, &n, 0, &ov, NULL);
    CHECK(r == 0 || WSAGetLastError() == WSA_IO_PENDING);
    CHECK(WSAGetOverlappedResult(c, &ov, &n, TRUE, &fl));
    CHECK_EQ(n, (DWORD)total);
    memset(dst, 0, sizeof(dst));
    CHECK_EQ(recv_all(s, dst, total), 0);
    CHECK(!memcmp(src, dst, total));

    /* overlapped scatter, pending first: WSARecv of NB buffers, then the data */
    memset(dst, 0, sizeof(dst));
    split(rb, dst, NB);
    HANDLE ev = ov.hEvent;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = ev;
    WSAResetEvent(ev);
    DWORD flags = 0;                 /* (one send of ~2 KiB is one loopback segment) */
    r = WSARecv(s, rb, NB, &n, &flags, &ov, NULL);
    CHECK(r == SOCKET_ERROR && WSAGetLastError() == WSA_IO_PENDING);
    CHECK_EQ(send(c, src, (int)total, 0), (int)total);
    CHECK(WSAGetOverlappedResult(s, &ov, &n, TRUE, &fl));
    CHECK_EQ(n, (DWORD)total);
    CHECK(!memcmp(src, dst, total));
    int k = 0;
    for (int i = 0; i < NB; i++)     /* buffer i holds bytes [off_i, off_i + len_i) */
        if (memcmp(rb[i].buf, src + (rb[i].buf - dst), rb[i].len)) k++;
    CHECK_EQ(k, 0);

    /* synchronous both ways: 40 and 1024 buffers */
    int counts[] = { 40, 1024 };
    for (int t = 0; t < 2; t++) {
        static WSABUF big[1024];
        static char one[1024];
        int m = counts[t];
        for (int i = 0; i < m; i++) { big[i].buf = one + i; big[i].len = 1; one[i] = (char)(i ^ 0x5a); }
        CHECK_EQ(WSASend(c, big, (DWORD)m, &n, 0, NULL, NULL), 0);
        CHECK_EQ(n, (DWORD)m);
        static char back[1024];
        static WSABUF bb[1024];
        memset(back, 0, sizeof(back));
        for (int i = 0; i < m; i++) { bb[i].buf = back + (m - 1 - i); bb[i].len = 1; }   /* reversed */
        size_t got = 0;
        while (got < (size_t)m) {
            flags = 0;
            CHECK_EQ(WSARecv(s, bb + got, (DWORD)(m - (int)got), &n, &flags, NULL, NULL), 0);
            if (!n) break;
            got += n;
        }
        CHECK_EQ(got, (size_t)m);
        k = 0;
        for (int i = 0; i < m; i++)
            if (back[m - 1 - i] != (char)(i ^ 0x5a)) k++;
        CHECK_EQ(k, 0);
    }
    WSACloseEvent(ov.hEvent);
    closesocket(c);
    closesocket(s);
}

static void udp(void)
{
    SOCKET a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = io_loopback4(0), to;
    CHECK_EQ(bind(b, (struct sockaddr *)&any, sizeof(any)), 0);
    int tl = sizeof(to);
    CHECK_EQ(getsockname(b, (struct sockaddr *)&to, &tl), 0);
    /* one datagram gathered from 20 buffers, received into 25 */
    size_t total = split(sb, src, 20);
    DWORD n = 0;
    CHECK_EQ(WSASendTo(a, sb, 20, &n, 0, (struct sockaddr *)&to, sizeof(to), NULL, NULL), 0);
    CHECK_EQ(n, (DWORD)total);
    memset(dst, 0, sizeof(dst));
    split(rb, dst, 25);
    WSAOVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = WSACreateEvent();
    DWORD flags = 0, fl;
    int r = WSARecvFrom(b, rb, 25, &n, &flags, NULL, NULL, &ov, NULL);
    CHECK(r == 0 || WSAGetLastError() == WSA_IO_PENDING);
    CHECK(WSAGetOverlappedResult(b, &ov, &n, TRUE, &fl));
    CHECK_EQ(n, (DWORD)total);
    CHECK(!memcmp(src, dst, total));
    WSACloseEvent(ov.hEvent);
    closesocket(a);
    closesocket(b);
}

int main(void)
{
    io_test_start();
    tcp();
    udp();
    WSACleanup();
    return nspa_test_done();
}
