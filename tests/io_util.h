/* Shared helpers of the I/O tests: Winsock start-up, the engine check, loopback pairs. */
#ifndef NSPA_IO_UTIL_H
#define NSPA_IO_UTIL_H
#include <windows.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <mswsock.h>
#include <stdlib.h>
#include <string.h>
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
#endif
