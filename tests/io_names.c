/* Winsock's BSD-era names (docs/io.md, "Winsock"): inet_addr (the dotted forms and
 * their short, hex and octal variants; INADDR_NONE otherwise), inet_ntoa (the thread's
 * buffer), gethostname (WSAEFAULT for a short buffer), gethostbyname / gethostbyaddr
 * (Winsock's hostent: short type and length; numeric names; the loopback name from
 * /etc/hosts), getservbyname (the port in network order; /etc/services), getnameinfo
 * with Windows' NI_ flags. */
#include "io_util.h"

int main(void)
{
    io_test_start();
    CHECK_EQ(inet_addr("1.2.3.4"), htonl(0x01020304));
    CHECK_EQ(inet_addr("127.1"), htonl(0x7f000001));             /* a.b: b fills 24 bits */
    CHECK_EQ(inet_addr("0x7f.0.0.1"), htonl(0x7f000001));
    CHECK_EQ(inet_addr("010.0.0.1"), htonl(0x08000001));         /* octal */
    CHECK_EQ(inet_addr(""), INADDR_NONE);
    CHECK_EQ(inet_addr("1.2.3.256"), INADDR_NONE);
    CHECK_EQ(inet_addr("host"), INADDR_NONE);
    struct in_addr a;
    a.s_addr = htonl(0xc0a80001);
    CHECK(!strcmp(inet_ntoa(a), "192.168.0.1"));

    char name[256], tiny[1];
    CHECK_EQ(gethostname(name, sizeof(name)), 0);
    CHECK(name[0] != 0);
    CHECK_EQ(gethostname(tiny, sizeof(tiny)), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);

    struct hostent *h = gethostbyname("localhost");
    REQUIRE(h != NULL);
    CHECK_EQ(h->h_addrtype, AF_INET);
    CHECK_EQ(h->h_length, 4);
    int loop = 0;
    for (char **p = h->h_addr_list; *p; p++) loop |= !memcmp(*p, "\x7f\0\0\x01", 4);
    CHECK(loop);
    h = gethostbyname("10.1.2.3");                              /* numeric */
    REQUIRE(h != NULL);
    CHECK(!memcmp(h->h_addr, "\x0a\x01\x02\x03", 4));
    CHECK(gethostbyname(name) != NULL);                          /* this host */
    CHECK(gethostbyname("no-such-host.invalid") == NULL);
    int e = WSAGetLastError();
    CHECK(e == WSAHOST_NOT_FOUND || e == WSATRY_AGAIN || e == WSANO_DATA);
    unsigned char lo[4] = { 127, 0, 0, 1 };
    h = gethostbyaddr((const char *)lo, 4, AF_INET);
    REQUIRE(h != NULL);
    printf("127.0.0.1 is \"%s\"\n", h->h_name);
    CHECK(h->h_name[0] != 0);
    CHECK(gethostbyaddr((const char *)lo, 3, AF_INET) == NULL);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);

    struct servent *se = getservbyname("http", "tcp");
    REQUIRE(se != NULL);
    CHECK_EQ(se->s_port, (short)htons(80));
    CHECK(!strcmp(se->s_proto, "tcp"));
    CHECK(getservbyname("no-such-service", "tcp") == NULL);
    CHECK_EQ(WSAGetLastError(), WSANO_DATA);

    struct sockaddr_in sa = io_loopback4(80);
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    CHECK_EQ(getnameinfo((struct sockaddr *)&sa, sizeof(sa), host, sizeof(host), serv, sizeof(serv),
                         NI_NUMERICHOST | NI_NUMERICSERV), 0);
    CHECK(!strcmp(host, "127.0.0.1"));
    CHECK(!strcmp(serv, "80"));
    CHECK_EQ(getnameinfo((struct sockaddr *)&sa, sizeof(sa), host, sizeof(host), serv, sizeof(serv), 0), 0);
    CHECK(!strcmp(serv, "http"));                                /* a name when not numeric */
    CHECK_EQ(getnameinfo((struct sockaddr *)&sa, 3, host, sizeof(host), NULL, 0, 0), WSAEFAULT);
    WSACleanup();
    return nspa_test_done();
}
