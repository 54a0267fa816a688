/* NSPA Win32 layer: ws2tcpip.h — name resolution and address text (IPv4 and IPv6).
 * getaddrinfo & co. are bound to nspa_ws_* symbols (see winsock2.h). */
#ifndef NSPA_WIN32_WS2TCPIP_H
#define NSPA_WIN32_WS2TCPIP_H
#include "winsock2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int socklen_t;
typedef struct addrinfo {
    int ai_flags;
    int ai_family;
    int ai_socktype;
    int ai_protocol;
    size_t ai_addrlen;
    char *ai_canonname;
    struct sockaddr *ai_addr;
    struct addrinfo *ai_next;
} ADDRINFOA, *PADDRINFOA;
typedef struct addrinfoW {
    int ai_flags;
    int ai_family;
    int ai_socktype;
    int ai_protocol;
    size_t ai_addrlen;
    PWSTR ai_canonname;
    struct sockaddr *ai_addr;
    struct addrinfoW *ai_next;
} ADDRINFOW, *PADDRINFOW;
#define AI_PASSIVE     0x01
#define AI_CANONNAME   0x02
#define AI_NUMERICHOST 0x04
#define AI_NUMERICSERV 0x08
#define AI_ADDRCONFIG  0x0400
#define EAI_AGAIN    WSATRY_AGAIN
#define EAI_BADFLAGS WSAEINVAL
#define EAI_FAIL     WSANO_RECOVERY
#define EAI_FAMILY   WSAEAFNOSUPPORT
#define EAI_MEMORY   WSA_NOT_ENOUGH_MEMORY
#define EAI_NONAME   WSAHOST_NOT_FOUND
#define EAI_SERVICE  WSATYPE_NOT_FOUND
#define EAI_SOCKTYPE WSAESOCKTNOSUPPORT
#define WSATYPE_NOT_FOUND 10109
#define INET_ADDRSTRLEN  22
#define INET6_ADDRSTRLEN 65

int WSAAPI getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                       struct addrinfo **res) NSPA_WS(getaddrinfo);
void WSAAPI freeaddrinfo(struct addrinfo *ai) NSPA_WS(freeaddrinfo);
int WSAAPI GetAddrInfoW(PCWSTR node, PCWSTR service, const ADDRINFOW *hints, PADDRINFOW *res);
void WSAAPI FreeAddrInfoW(PADDRINFOW ai);
#define NI_NOFQDN      0x01
#define NI_NUMERICHOST 0x02
#define NI_NAMEREQD    0x04
#define NI_NUMERICSERV 0x08
#define NI_DGRAM       0x10
#define NI_MAXHOST     1025
#define NI_MAXSERV     32
int WSAAPI getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host, DWORD hostlen, char *serv,
                       DWORD servlen, int flags) NSPA_WS(getnameinfo);
int WSAAPI inet_pton(int af, const char *src, void *dst) NSPA_WS(inet_pton);
const char *WSAAPI inet_ntop(int af, const void *src, char *dst, size_t size) NSPA_WS(inet_ntop);

#ifdef __cplusplus
}
#endif
#endif
