/* WSAEventSelect / WSAEnumNetworkEvents: FD_ACCEPT, FD_CONNECT, FD_WRITE, FD_READ,
 * FD_CLOSE, and Winsock's re-enabling rules (an event is recorded once until the call
 * that re-enables it; data left after a receive records FD_READ again). */
#include "io_util.h"

static long take(SOCKET s, WSAEVENT e, WSANETWORKEVENTS *ne, DWORD ms)
{
    if (WaitForSingleObject(e, ms) != WAIT_OBJECT_0) return 0;
    memset(ne, 0, sizeof(*ne));
    CHECK_EQ(WSAEnumNetworkEvents(s, e, ne), 0);
    return ne->lNetworkEvents;
}

int main(void)
{
    io_test_start();
    WSANETWORKEVENTS ne;
    struct sockaddr_in a;
    SOCKET l = io_listener(&a);
    WSAEVENT le = WSACreateEvent();
    CHECK_EQ(WSAEventSelect(l, le, FD_ACCEPT), 0);
    CHECK_EQ(WaitForSingleObject(le, 0), WAIT_TIMEOUT);

    SOCKET c = socket(AF_INET, SOCK_STREAM, 0);
    WSAEVENT ce = WSACreateEvent();
    CHECK_EQ(WSAEventSelect(c, ce, FD_CONNECT | FD_WRITE | FD_READ | FD_CLOSE), 0);
    /* event-selected sockets are non-blocking */
    CHECK_EQ(connect(c, (struct sockaddr *)&a, sizeof(a)), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEWOULDBLOCK);
    u_long zero = 0;
    CHECK_EQ(ioctlsocket(c, FIONBIO, &zero), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEINVAL);

    CHECK(take(l, le, &ne, 5000) & FD_ACCEPT);
    CHECK_EQ(ne.iErrorCode[FD_ACCEPT_BIT], 0);
    long ev = take(c, ce, &ne, 5000);
    CHECK(ev & FD_CONNECT);
    CHECK_EQ(ne.iErrorCode[FD_CONNECT_BIT], 0);
    if (!(ev & FD_WRITE)) ev |= take(c, ce, &ne, 5000);
    CHECK(ev & FD_WRITE);
    /* a socket polls as hung up until its connect completes: that is not FD_CLOSE */
    CHECK(!(ev & FD_CLOSE));

    /* a second connection waiting: FD_ACCEPT is not recorded again until accept() */
    SOCKET c2 = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_EQ(connect(c2, (struct sockaddr *)&a, sizeof(a)), 0);
    Sleep(50);
    CHECK_EQ(WaitForSingleObject(le, 0), WAIT_TIMEOUT);
    SOCKET s = accept(l, NULL, NULL);
    REQUIRE(s != INVALID_SOCKET);
    /* accept re-enabled it, and a connection is still waiting */
    CHECK(take(l, le, &ne, 5000) & FD_ACCEPT);
    SOCKET s2 = accept(l, NULL, NULL);
    CHECK(s2 != INVALID_SOCKET);

    /* FD_READ: once until a receive; data left after a receive: again */
    CHECK_EQ(send(s, "abcdef", 6, 0), 6);
    CHECK(take(c, ce, &ne, 5000) & FD_READ);
    CHECK_EQ(send(s, "gh", 2, 0), 2);
    Sleep(50);
    CHECK_EQ(WaitForSingleObject(ce, 0), WAIT_TIMEOUT);   /* not re-enabled yet */
    char buf[64];
    CHECK_EQ(recv(c, buf, 3, 0), 3);                      /* 5 bytes left */
    CHECK(take(c, ce, &ne, 5000) & FD_READ);
    CHECK_EQ(recv(c, buf, sizeof(buf), 0), 5);
    Sleep(20);
    CHECK_EQ(WaitForSingleObject(ce, 0), WAIT_TIMEOUT);
    CHECK_EQ(recv(c, buf, sizeof(buf), 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEWOULDBLOCK);

    /* FD_WRITE: recorded once; again only after a send failed with WSAEWOULDBLOCK and
     * room came back */
    static char chunk[65536];
    int sends = 0;
    while (send(c, chunk, sizeof(chunk), 0) != SOCKET_ERROR && sends < 10000) sends++;
    CHECK_EQ(WSAGetLastError(), WSAEWOULDBLOCK);
    CHECK_EQ(WaitForSingleObject(ce, 0), WAIT_TIMEOUT);
    /* the peer reads (non-blocking, bounded) until FD_WRITE is recorded */
    u_long one = 1;
    ioctlsocket(s, FIONBIO, &one);
    ULONGLONG end = GetTickCount64() + 10000;
    while (WaitForSingleObject(ce, 0) != WAIT_OBJECT_0 && GetTickCount64() < end) {
        if (recv(s, chunk, sizeof(chunk), 0) == SOCKET_ERROR) Sleep(1);
    }
    CHECK(take(c, ce, &ne, 5000) & FD_WRITE);
    for (;;) {                                              /* the rest, without FD_WRITE again */
        u_long avail = 0;
        Sleep(5);
        ioctlsocket(s, FIONREAD, &avail);
        if (!avail) break;
        recv(s, chunk, avail < sizeof(chunk) ? (int)avail : (int)sizeof(chunk), 0);   /* non-blocking */
    }
    Sleep(20);
    CHECK_EQ(WaitForSingleObject(ce, 0), WAIT_TIMEOUT);
    u_long zero_s = 0;
    ioctlsocket(s, FIONBIO, &zero_s);

    /* FD_CLOSE when the peer closes */
    closesocket(s);
    CHECK(take(c, ce, &ne, 5000) & FD_CLOSE);
    CHECK_EQ(ne.iErrorCode[FD_CLOSE_BIT], 0);

    /* a refused connect: FD_CONNECT with the error, and no FD_CLOSE after it */
    SOCKET r = socket(AF_INET, SOCK_STREAM, 0);
    WSAEVENT re = WSACreateEvent();
    CHECK_EQ(WSAEventSelect(r, re, FD_CONNECT | FD_CLOSE), 0);
    struct sockaddr_in gone = a;
    SOCKET tmp = socket(AF_INET, SOCK_STREAM, 0);       /* a port nobody listens on */
    struct sockaddr_in any = io_loopback4(0);
    int glen = sizeof(gone);
    CHECK_EQ(bind(tmp, (struct sockaddr *)&any, sizeof(any)), 0);
    CHECK_EQ(getsockname(tmp, (struct sockaddr *)&gone, &glen), 0);
    CHECK_EQ(connect(r, (struct sockaddr *)&gone, sizeof(gone)), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEWOULDBLOCK);
    ev = take(r, re, &ne, 5000);
    CHECK(ev & FD_CONNECT);
    CHECK_EQ(ne.iErrorCode[FD_CONNECT_BIT], WSAECONNREFUSED);
    CHECK(!(ev & FD_CLOSE));
    CHECK_EQ(WaitForSingleObject(re, 100), WAIT_TIMEOUT);
    closesocket(tmp);
    closesocket(r);
    WSACloseEvent(re);

    /* bad input */
    CHECK_EQ(WSAEventSelect((SOCKET)0x123454, ce, FD_READ), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAENOTSOCK);
    CHECK_EQ(WSAEnumNetworkEvents(c, ce, NULL), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    CHECK_EQ(WSAEventSelect(c, NULL, FD_READ), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEINVAL);
    /* mask 0: no more events, and the socket may block again */
    CHECK_EQ(WSAEventSelect(c, NULL, 0), 0);
    CHECK_EQ(ioctlsocket(c, FIONBIO, &zero), 0);

    closesocket(c);
    closesocket(c2);
    closesocket(s2);
    closesocket(l);
    WSACloseEvent(le);
    WSACloseEvent(ce);
    WSACleanup();
    return nspa_test_done();
}
