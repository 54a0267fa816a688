/* Shared helpers of the I/O tests: Winsock start-up, the engine check, loopback pairs. */
#ifndef NSPA_IO_UTIL_H
#define NSPA_IO_UTIL_H
#include <windows.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <mswsock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "nspa/io.h"
#include "nspa_test.h"

/* every I/O test runs twice (tests/io.cmake): the engine must be the one asked for */
static inline void io_test_start(void)
{
    WSADATA d;
    REQUIRE(WSAStartup(MAKEWORD(2, 2), &d) == 0);
    const char *want = getenv("NSPA_IO_ENGINE");
    const char *have = nspa_io_engine();
    printf("engine: %s\n", have);
    if (want && !strcmp(want, "epoll")) REQUIRE(!strcmp(have, "epoll"));
    else REQUIRE(!strcmp(have, "io_uring"));
}

static inline struct sockaddr_in io_loopback4(unsigned short port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* a listening TCP socket on 127.0.0.1 (ephemeral port) */
static inline SOCKET io_listener(struct sockaddr_in *where)
{
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    REQUIRE(l != INVALID_SOCKET);
    struct sockaddr_in a = io_loopback4(0);
    REQUIRE(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0);
    REQUIRE(listen(l, 64) == 0);
    int len = sizeof(a);
    REQUIRE(getsockname(l, (struct sockaddr *)&a, &len) == 0);
    *where = a;
    return l;
}

/* a connected TCP pair over loopback */
static inline void io_tcp_pair(SOCKET *c, SOCKET *s)
{
    struct sockaddr_in a;
    SOCKET l = io_listener(&a);
    *c = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    REQUIRE(*c != INVALID_SOCKET);
    REQUIRE(connect(*c, (struct sockaddr *)&a, sizeof(a)) == 0);
    *s = accept(l, NULL, NULL);
    REQUIRE(*s != INVALID_SOCKET);
    closesocket(l);
    BOOL one = TRUE;
    setsockopt(*c, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
    setsockopt(*s, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof(one));
}
/* an overlapped WSARecv into @buf: 0 (completed at once) or the Winsock error
 * (WSA_IO_PENDING when it went pending) */
static inline int io_post_recv(SOCKET s, WSAOVERLAPPED *ov, char *buf, ULONG len)
{
    WSABUF b = { len, buf };
    DWORD flags = 0, n = 0;
    if (WSARecv(s, &b, 1, &n, &flags, ov, NULL) == 0) return 0;
    return WSAGetLastError();
}

/* a connected pair, and a receive pending on *s with an event of its own in @ov */
static inline void io_pair_pending(SOCKET *c, SOCKET *s, WSAOVERLAPPED *ov, char *buf, ULONG len)
{
    io_tcp_pair(c, s);
    memset(ov, 0, sizeof(*ov));
    ov->hEvent = WSACreateEvent();
    CHECK_EQ(io_post_recv(*s, ov, buf, len), WSA_IO_PENDING);
}

/* Linux >= 6.7 (IORING_OP_FUTEX_WAIT): the io_uring engine gives threads rings */
static inline int io_kernel_has_futex_ops(void)
{
    struct utsname u;
    int maj = 0, min = 0;
    if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2) return 0;
    return maj > 6 || (maj == 6 && min >= 7);
}
#endif
