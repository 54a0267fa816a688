/* select over more sockets than Winsock's default FD_SETSIZE (64): a program may define
 * FD_SETSIZE itself before <winsock2.h>, and Winsock's select reads a set by its count
 * (docs/io.md, "Winsock"). 150 bound UDP sockets, a datagram to three of them: select
 * reports exactly those three, in the read set, with the write set of all 150 ready. */
#define FD_SETSIZE 512
#include "io_util.h"

#define NS 150

int main(void)
{
    io_test_start();
    static SOCKET s[NS];
    static struct sockaddr_in a[NS];
    for (int i = 0; i < NS; i++) {
        s[i] = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
        REQUIRE(s[i] != INVALID_SOCKET);
        a[i] = io_loopback4(0);
        REQUIRE(bind(s[i], (struct sockaddr *)&a[i], sizeof(a[i])) == 0);
        int l = sizeof(a[i]);
        REQUIRE(getsockname(s[i], (struct sockaddr *)&a[i], &l) == 0);
    }
    SOCKET tx = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    const int hot[3] = { 7, 99, 149 };
    for (int j = 0; j < 3; j++)
        CHECK_EQ(sendto(tx, "x", 1, 0, (struct sockaddr *)&a[hot[j]], sizeof(a[hot[j]])), 1);
    fd_set rd, wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    for (int i = 0; i < NS; i++) {
        FD_SET(s[i], &rd);
        FD_SET(s[i], &wr);
    }
    CHECK_EQ(rd.fd_count, NS);
    struct timeval tv = { 5, 0 };
    int r = select(0, &rd, &wr, NULL, &tv);
    printf("select over %d + %d sockets: %d ready\n", NS, NS, r);
    CHECK_EQ(r, 3 + NS);
    CHECK_EQ(rd.fd_count, 3);
    for (int j = 0; j < 3; j++) CHECK(FD_ISSET(s[hot[j]], &rd));
    CHECK_EQ(wr.fd_count, NS);
    for (int i = 0; i < NS; i++) closesocket(s[i]);
    closesocket(tx);
    WSACleanup();
    return nspa_test_done();
}
