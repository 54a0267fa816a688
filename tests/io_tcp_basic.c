/* Winsock basics: start-up, TCP and UDP over IPv4 and IPv6 loopback, names, options,
 * ioctlsocket, shutdown, select, WSAPoll, address text and resolution. */
#include "io_util.h"

static void before_startup(void)
{
    CHECK(socket(AF_INET, SOCK_STREAM, 0) == INVALID_SOCKET);
    CHECK_EQ(WSAGetLastError(), WSANOTINITIALISED);
    CHECK_EQ(WSACleanup(), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSANOTINITIALISED);
}

static void tcp4(void)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    char buf[64];
    CHECK_EQ(send(c, "hello", 5, 0), 5);
    CHECK_EQ(recv(s, buf, sizeof(buf), 0), 5);
    CHECK(!memcmp(buf, "hello", 5));
    struct sockaddr_in a, b;
    int la = sizeof(a), lb = sizeof(b);
    CHECK_EQ(getsockname(c, (struct sockaddr *)&a, &la), 0);
    CHECK_EQ(getpeername(s, (struct sockaddr *)&b, &lb), 0);
    CHECK_EQ(la, sizeof(struct sockaddr_in));
    CHECK_EQ(a.sin_family, AF_INET);
    CHECK_EQ(a.sin_port, b.sin_port);
    CHECK_EQ(ntohl(b.sin_addr.s_addr), INADDR_LOOPBACK);
    /* a name buffer too small: WSAEFAULT */
    lb = 4;
    CHECK_EQ(getpeername(s, (struct sockaddr *)&b, &lb), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);

    /* options */
    int v = 0, vl = sizeof(v);
    CHECK_EQ(getsockopt(c, IPPROTO_TCP, TCP_NODELAY, (char *)&v, &vl), 0);
    CHECK(v != 0);
    vl = sizeof(v);
    CHECK_EQ(getsockopt(c, SOL_SOCKET, SO_TYPE, (char *)&v, &vl), 0);
    CHECK_EQ(v, SOCK_STREAM);
    v = 65536;
    CHECK_EQ(setsockopt(c, SOL_SOCKET, SO_RCVBUF, (const char *)&v, sizeof(v)), 0);
    vl = sizeof(v);
    CHECK_EQ(getsockopt(c, SOL_SOCKET, SO_RCVBUF, (char *)&v, &vl), 0);
    CHECK(v >= 65536);
    CHECK_EQ(getsockopt(c, SOL_SOCKET, 0x7777, (char *)&v, &vl), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOPROTOOPT);
    vl = 2;
    CHECK_EQ(getsockopt(c, SOL_SOCKET, SO_TYPE, (char *)&v, &vl), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);

    /* non-blocking: WSAEWOULDBLOCK; FIONREAD counts what is queued */
    u_long nb = 1;
    CHECK_EQ(ioctlsocket(s, FIONBIO, &nb), 0);
    CHECK_EQ(recv(s, buf, sizeof(buf), 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEWOULDBLOCK);
    CHECK_EQ(send(c, "0123456789", 10, 0), 10);
    u_long avail = 0;
    for (int i = 0; i < 1000 && avail < 10; i++) {
        CHECK_EQ(ioctlsocket(s, FIONREAD, &avail), 0);
        if (avail < 10) Sleep(1);
    }
    CHECK_EQ(avail, 10);
    CHECK_EQ(recv(s, buf, 4, MSG_PEEK), 4);
    CHECK_EQ(recv(s, buf, sizeof(buf), 0), 10);

    /* select: readable after data, writable at once */
    fd_set rd, wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    FD_SET(s, &rd);
    FD_SET(c, &wr);
    struct timeval tv = { 0, 0 };
    CHECK_EQ(select(0, &rd, &wr, NULL, &tv), 1);
    CHECK(!FD_ISSET(s, &rd));
    CHECK(FD_ISSET(c, &wr));
    send(c, "x", 1, 0);
    FD_ZERO(&rd);
    FD_SET(s, &rd);
    tv.tv_sec = 5;
    CHECK_EQ(select(0, &rd, NULL, NULL, &tv), 1);
    CHECK(FD_ISSET(s, &rd));
    recv(s, buf, 1, 0);

    /* WSAPoll */
    WSAPOLLFD p[2] = { { s, POLLRDNORM, 0 }, { c, POLLWRNORM, 0 } };
    CHECK_EQ(WSAPoll(p, 2, 0), 1);
    CHECK_EQ(p[0].revents, 0);
    CHECK(p[1].revents & POLLWRNORM);

    /* shutdown: the peer reads 0 */
    CHECK_EQ(shutdown(c, SD_SEND), 0);
    nb = 0;
    CHECK_EQ(ioctlsocket(s, FIONBIO, &nb), 0);
    CHECK_EQ(recv(s, buf, sizeof(buf), 0), 0);
    CHECK_EQ(shutdown(c, 7), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEINVAL);
    CHECK_EQ(closesocket(c), 0);
    CHECK_EQ(closesocket(s), 0);
    CHECK_EQ(closesocket(s), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
}

static void tcp6(void)
{
    SOCKET l = socket(AF_INET6, SOCK_STREAM, 0);
    REQUIRE(l != INVALID_SOCKET);
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof(a));
    a.sin6_family = AF_INET6;
    CHECK_EQ(inet_pton(AF_INET6, "::1", &a.sin6_addr), 1);
    CHECK_EQ(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    CHECK_EQ(listen(l, 4), 0);
    int len = sizeof(a);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&a, &len), 0);
    CHECK_EQ(len, sizeof(struct sockaddr_in6));
    CHECK_EQ(a.sin6_family, AF_INET6);
    SOCKET c = socket(AF_INET6, SOCK_STREAM, 0);
    CHECK_EQ(connect(c, (struct sockaddr *)&a, sizeof(a)), 0);
    struct sockaddr_in6 peer;
    int pl = sizeof(peer);
    SOCKET s = accept(l, (struct sockaddr *)&peer, &pl);
    REQUIRE(s != INVALID_SOCKET);
    CHECK_EQ(peer.sin6_family, AF_INET6);
    char txt[INET6_ADDRSTRLEN];
    CHECK(inet_ntop(AF_INET6, &peer.sin6_addr, txt, sizeof(txt)) != NULL);
    CHECK(!strcmp(txt, "::1"));
    char buf[8];
    CHECK_EQ(send(s, "v6", 2, 0), 2);
    CHECK_EQ(recv(c, buf, sizeof(buf), 0), 2);
    int v = 0, vl = sizeof(v);
    CHECK_EQ(getsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, (char *)&v, &vl), 0);
    closesocket(s);
    closesocket(c);
    closesocket(l);
}

static void udp(int af)
{
    SOCKET a = socket(af, SOCK_DGRAM, IPPROTO_UDP), b = socket(af, SOCK_DGRAM, 0);
    REQUIRE(a != INVALID_SOCKET && b != INVALID_SOCKET);
    struct sockaddr_storage sa;
    memset(&sa, 0, sizeof(sa));
    int sl;
    if (af == AF_INET) {
        struct sockaddr_in *x = (struct sockaddr_in *)&sa;
        *x = io_loopback4(0);
        sl = sizeof(*x);
    } else {
        struct sockaddr_in6 *x = (struct sockaddr_in6 *)&sa;
        x->sin6_family = AF_INET6;
        inet_pton(AF_INET6, "::1", &x->sin6_addr);
        sl = sizeof(*x);
    }
    CHECK_EQ(bind(a, (struct sockaddr *)&sa, sl), 0);
    CHECK_EQ(bind(b, (struct sockaddr *)&sa, sl), 0);
    struct sockaddr_storage aa, from;
    int al = sizeof(aa), fl = sizeof(from);
    getsockname(a, (struct sockaddr *)&aa, &al);
    CHECK_EQ(sendto(b, "datagram", 8, 0, (struct sockaddr *)&aa, al), 8);
    char buf[32];
    CHECK_EQ(recvfrom(a, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl), 8);
    CHECK_EQ(from.ss_family, af);
    CHECK_EQ(fl, al);
    /* a datagram larger than the buffer: WSAEMSGSIZE, the buffer filled */
    CHECK_EQ(sendto(b, "0123456789", 10, 0, (struct sockaddr *)&aa, al), 10);
    CHECK_EQ(recv(a, buf, 4, 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEMSGSIZE);
    CHECK(!memcmp(buf, "0123", 4));
    closesocket(a);
    closesocket(b);
}

static void names(void)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST;
    CHECK_EQ(getaddrinfo("127.0.0.1", "80", &hints, &res), 0);
    REQUIRE(res != NULL);
    CHECK_EQ(res->ai_family, AF_INET);
    CHECK_EQ(res->ai_socktype, SOCK_STREAM);
    CHECK_EQ(res->ai_addrlen, sizeof(struct sockaddr_in));
    CHECK_EQ(ntohs(((struct sockaddr_in *)res->ai_addr)->sin_port), 80);
    freeaddrinfo(res);
    hints.ai_family = AF_INET6;
    CHECK_EQ(getaddrinfo("::1", NULL, &hints, &res), 0);
    REQUIRE(res != NULL);
    CHECK_EQ(res->ai_family, AF_INET6);
    CHECK_EQ(((struct sockaddr_in6 *)res->ai_addr)->sin6_family, AF_INET6);
    freeaddrinfo(res);
    CHECK_EQ(getaddrinfo("not an address", NULL, &hints, &res), WSAHOST_NOT_FOUND);
    ADDRINFOW hw, *rw = NULL;
    memset(&hw, 0, sizeof(hw));
    hw.ai_family = AF_INET;
    hw.ai_flags = AI_NUMERICHOST;
    CHECK_EQ(GetAddrInfoW(L"127.0.0.1", L"8080", &hw, &rw), 0);
    REQUIRE(rw != NULL);
    CHECK_EQ(ntohs(((struct sockaddr_in *)rw->ai_addr)->sin_port), 8080);
    FreeAddrInfoW(rw);
    struct in_addr ia;
    CHECK_EQ(inet_pton(AF_INET, "10.1.2.3", &ia), 1);
    CHECK_EQ(ntohl(ia.s_addr), 0x0a010203);
    CHECK_EQ(inet_pton(AF_INET, "10.1.2", &ia), 0);
    CHECK_EQ(inet_pton(99, "10.1.2.3", &ia), -1);
    CHECK_EQ(WSAGetLastError(), WSAEAFNOSUPPORT);
    char t[INET_ADDRSTRLEN];
    CHECK(!strcmp(inet_ntop(AF_INET, &ia, t, sizeof(t)), "10.1.2.3"));
    CHECK_EQ(htons(0x1234), 0x3412);
    CHECK_EQ(ntohl(htonl(0x12345678)), 0x12345678);
}

int main(void)
{
    before_startup();
    io_test_start();
    tcp4();
    tcp6();
    udp(AF_INET);
    udp(AF_INET6);
    names();
    CHECK_EQ(socket(7, SOCK_STREAM, 0), INVALID_SOCKET);
    CHECK_EQ(WSAGetLastError(), WSAEAFNOSUPPORT);
    CHECK_EQ(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), INVALID_SOCKET);
    CHECK_EQ(WSAGetLastError(), WSAEPROTONOSUPPORT);   /* Windows' answer (tests/io_ws_rules.c) */
    CHECK_EQ(WSACleanup(), 0);
    return nspa_test_done();
}
