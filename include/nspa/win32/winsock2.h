/* NSPA Win32 layer: Winsock 2 (winsock2.h). Sockets are HANDLE-valued SOCKETs in the
 * process's handle table; overlapped operations run on the I/O engine (docs/io.md).
 *
 * Functions whose names are also C library names (socket, bind, recv, select ...) are
 * bound to nspa_ws_* symbols with asm labels, so that a native program gets the
 * Winsock ones and the C library keeps its own for everyone else in the process; the
 * other lower-case Winsock names (closesocket, ioctlsocket, __WSAFDIsSet) too, so that
 * the library exports nspa_* and capitalised Win32 names only. */
#ifndef NSPA_WIN32_WINSOCK2_H
#define NSPA_WIN32_WINSOCK2_H
#include "windef.h"
#include "winerror.h"
#include "minwinbase.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WSAAPI
#define NSPA_WS(name) __asm__("nspa_ws_" #name)

/* The C library's <sys/types.h> and <sys/select.h> (which <stdlib.h> pulls in) have
 * their own u_long (64 bits), fd_set (a bit mask), struct timeval and select: they are
 * included first, and the Winsock ones are given other names underneath. */
/* A program may define FD_SETSIZE before it includes <winsock2.h> (Winsock's default is
 * 64): that definition is kept aside (push_macro) while the C library's headers define
 * their own, and brought back for the Winsock fd_set. */
#if defined(FD_SETSIZE) && !(defined(__FD_SETSIZE) && FD_SETSIZE == __FD_SETSIZE)
#define NSPA_WS_OWN_FD_SETSIZE 1
#pragma push_macro("FD_SETSIZE")
#undef FD_SETSIZE
#endif
#include <sys/types.h>
#include <sys/select.h>
#undef FD_SETSIZE
#undef FD_SET
#undef FD_CLR
#undef FD_ZERO
#undef FD_ISSET
#ifdef NSPA_WS_OWN_FD_SETSIZE
#pragma pop_macro("FD_SETSIZE")
#else
#define FD_SETSIZE 64
#endif
#define u_char nspa_ws_u_char
#define u_short nspa_ws_u_short
#define u_int nspa_ws_u_int
#define u_long nspa_ws_u_long
#define fd_set nspa_ws_fd_set
#define timeval nspa_ws_timeval
#define select nspa_ws_select
#define hostent nspa_ws_hostent
#define servent nspa_ws_servent

typedef UINT_PTR SOCKET;
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef ULONG u_long;
typedef int socklen_t_ws_;
#define INVALID_SOCKET ((SOCKET)~0)
#define SOCKET_ERROR (-1)

/* ---- addresses -------------------------------------------------------------------- */
typedef USHORT ADDRESS_FAMILY;
#define AF_UNSPEC 0
#define AF_INET   2
#define AF_INET6  23
#define PF_UNSPEC AF_UNSPEC
#define PF_INET   AF_INET
#define PF_INET6  AF_INET6

struct sockaddr { ADDRESS_FAMILY sa_family; CHAR sa_data[14]; };
typedef struct sockaddr SOCKADDR, *PSOCKADDR, *LPSOCKADDR;
struct in_addr {
    union {
        struct { UCHAR s_b1, s_b2, s_b3, s_b4; } S_un_b;
        struct { USHORT s_w1, s_w2; } S_un_w;
        ULONG S_addr;
    } S_un;
};
#define s_addr S_un.S_addr
typedef struct in_addr IN_ADDR, *PIN_ADDR;
struct sockaddr_in {
    ADDRESS_FAMILY sin_family;
    USHORT sin_port;
    struct in_addr sin_addr;
    CHAR sin_zero[8];
};
typedef struct sockaddr_in SOCKADDR_IN, *PSOCKADDR_IN;
struct in6_addr { union { UCHAR Byte[16]; USHORT Word[8]; } u; };
#define s6_addr u.Byte
typedef struct in6_addr IN6_ADDR, *PIN6_ADDR;
struct sockaddr_in6 {
    ADDRESS_FAMILY sin6_family;
    USHORT sin6_port;
    ULONG sin6_flowinfo;
    struct in6_addr sin6_addr;
    ULONG sin6_scope_id;
};
typedef struct sockaddr_in6 SOCKADDR_IN6, *PSOCKADDR_IN6;
typedef struct sockaddr_storage {
    ADDRESS_FAMILY ss_family;
    CHAR __ss_pad1[6];
    LONGLONG __ss_align;
    CHAR __ss_pad2[112];
} SOCKADDR_STORAGE, *PSOCKADDR_STORAGE;

#define INADDR_ANY       ((ULONG)0x00000000)
#define INADDR_LOOPBACK  0x7f000001
#define INADDR_NONE      0xffffffff

static inline u_short WSAAPI htons(u_short v) { return (u_short)__builtin_bswap16(v); }
static inline u_short WSAAPI ntohs(u_short v) { return (u_short)__builtin_bswap16(v); }
static inline u_long WSAAPI htonl(u_long v) { return __builtin_bswap32(v); }
static inline u_long WSAAPI ntohl(u_long v) { return __builtin_bswap32(v); }

/* ---- socket types, levels, options ---------------------------------------------- */
#define SOCK_STREAM 1
#define SOCK_DGRAM  2
#define SOCK_RAW    3
#define IPPROTO_IP    0
#define IPPROTO_ICMP  1
#define IPPROTO_TCP   6
#define IPPROTO_UDP   17
#define IPPROTO_IPV6  41
#define IPPROTO_ICMPV6 58
#define IPPROTO_RAW   255
#define SOL_SOCKET    0xffff
#define SO_DEBUG      0x0001
#define SO_ACCEPTCONN 0x0002
#define SO_REUSEADDR  0x0004
#define SO_KEEPALIVE  0x0008
#define SO_DONTROUTE  0x0010
#define SO_BROADCAST  0x0020
#define SO_LINGER     0x0080
#define SO_OOBINLINE  0x0100
#define SO_EXCLUSIVEADDRUSE ((int)(~SO_REUSEADDR))
#define SO_SNDBUF     0x1001
#define SO_RCVBUF     0x1002
#define SO_SNDLOWAT   0x1003
#define SO_RCVLOWAT   0x1004
#define SO_SNDTIMEO   0x1005
#define SO_RCVTIMEO   0x1006
#define SO_ERROR      0x1007
#define SO_TYPE       0x1008
#define TCP_NODELAY   0x0001
#define IPV6_V6ONLY   27
#define IP_TTL        4
#define IPV6_UNICAST_HOPS 4
struct linger { u_short l_onoff; u_short l_linger; };

#define MSG_OOB       0x1
#define MSG_PEEK      0x2
#define MSG_DONTROUTE 0x4
#define MSG_WAITALL   0x8
#define MSG_PARTIAL   0x8000

#define SD_RECEIVE 0
#define SD_SEND    1
#define SD_BOTH    2
#define SOMAXCONN  0x7fffffff

/* ioctlsocket / WSAIoctl */
#define IOCPARM_MASK 0x7f
#define IOC_VOID     0x20000000
#define IOC_OUT      0x40000000
#define IOC_IN       0x80000000
#define IOC_INOUT    (IOC_IN | IOC_OUT)
#define IOC_WS2      0x08000000
#define _IOW_WS(x, y, t) (IOC_IN | (((long)sizeof(t) & IOCPARM_MASK) << 16) | ((x) << 8) | (y))
#define _IOR_WS(x, y, t) (IOC_OUT | (((long)sizeof(t) & IOCPARM_MASK) << 16) | ((x) << 8) | (y))
#define FIONBIO   ((long)_IOW_WS('f', 126, u_long))
#define FIONREAD  ((long)_IOR_WS('f', 127, u_long))
#define _WSAIORW(x, y) (IOC_INOUT | (x) | (y))
#define SIO_GET_EXTENSION_FUNCTION_POINTER _WSAIORW(IOC_WS2, 6)

/* ---- errors (WSAGetLastError) ---------------------------------------------------- */
#define WSABASEERR 10000
#define WSAEINTR           10004
#define WSAEBADF           10009
#define WSAEACCES          10013
#define WSAEFAULT          10014
#define WSAEINVAL          10022
#define WSAEMFILE          10024
#define WSAEWOULDBLOCK     10035
#define WSAEINPROGRESS     10036
#define WSAEALREADY        10037
#define WSAENOTSOCK        10038
#define WSAEDESTADDRREQ    10039
#define WSAEMSGSIZE        10040
#define WSAEPROTOTYPE      10041
#define WSAENOPROTOOPT     10042
#define WSAEPROTONOSUPPORT 10043
#define WSAESOCKTNOSUPPORT 10044
#define WSAEOPNOTSUPP      10045
#define WSAEPFNOSUPPORT    10046
#define WSAEAFNOSUPPORT    10047
#define WSAEADDRINUSE      10048
#define WSAEADDRNOTAVAIL   10049
#define WSAENETDOWN        10050
#define WSAENETUNREACH     10051
#define WSAENETRESET       10052
#define WSAECONNABORTED    10053
#define WSAECONNRESET      10054
#define WSAENOBUFS         10055
#define WSAEISCONN         10056
#define WSAENOTCONN        10057
#define WSAESHUTDOWN       10058
#define WSAETIMEDOUT       10060
#define WSAECONNREFUSED    10061
#define WSAEHOSTUNREACH    10065
#define WSASYSNOTREADY     10091
#define WSAVERNOTSUPPORTED 10092
#define WSANOTINITIALISED  10093
#define WSAHOST_NOT_FOUND  11001
#define WSATRY_AGAIN       11002
#define WSANO_RECOVERY     11003
#define WSANO_DATA         11004
#define WSA_IO_PENDING        997
#define WSA_IO_INCOMPLETE     996
#define WSA_INVALID_HANDLE    6
#define WSA_INVALID_PARAMETER 87
#define WSA_NOT_ENOUGH_MEMORY 8
#define WSA_OPERATION_ABORTED 995
#define WSA_INFINITE          0xFFFFFFFFu
#define WSA_WAIT_EVENT_0      0
#define WSA_WAIT_IO_COMPLETION 0xC0
#define WSA_WAIT_TIMEOUT      0x102
#define WSA_WAIT_FAILED       0xFFFFFFFFu
#define WSA_INVALID_EVENT     ((WSAEVENT)0)

/* ---- start-up ------------------------------------------------------------------- */
#define WSADESCRIPTION_LEN 256
#define WSASYS_STATUS_LEN  128
typedef struct WSAData {
    WORD wVersion;
    WORD wHighVersion;
    unsigned short iMaxSockets;
    unsigned short iMaxUdpDg;
    char *lpVendorInfo;
    char szDescription[WSADESCRIPTION_LEN + 1];
    char szSystemStatus[WSASYS_STATUS_LEN + 1];
} WSADATA, *LPWSADATA;

int WSAAPI WSAStartup(WORD version, LPWSADATA data);
int WSAAPI WSACleanup(void);
int WSAAPI WSAGetLastError(void);
void WSAAPI WSASetLastError(int err);

/* ---- the BSD-style calls -------------------------------------------------------- */
SOCKET WSAAPI socket(int af, int type, int protocol) NSPA_WS(socket);
int WSAAPI bind(SOCKET s, const struct sockaddr *name, int namelen) NSPA_WS(bind);
int WSAAPI listen(SOCKET s, int backlog) NSPA_WS(listen);
SOCKET WSAAPI accept(SOCKET s, struct sockaddr *addr, int *addrlen) NSPA_WS(accept);
int WSAAPI connect(SOCKET s, const struct sockaddr *name, int namelen) NSPA_WS(connect);
int WSAAPI send(SOCKET s, const char *buf, int len, int flags) NSPA_WS(send);
int WSAAPI recv(SOCKET s, char *buf, int len, int flags) NSPA_WS(recv);
int WSAAPI sendto(SOCKET s, const char *buf, int len, int flags, const struct sockaddr *to, int tolen)
    NSPA_WS(sendto);
int WSAAPI recvfrom(SOCKET s, char *buf, int len, int flags, struct sockaddr *from, int *fromlen)
    NSPA_WS(recvfrom);
int WSAAPI shutdown(SOCKET s, int how) NSPA_WS(shutdown);
int WSAAPI closesocket(SOCKET s) NSPA_WS(closesocket);
int WSAAPI getsockname(SOCKET s, struct sockaddr *name, int *namelen) NSPA_WS(getsockname);
int WSAAPI getpeername(SOCKET s, struct sockaddr *name, int *namelen) NSPA_WS(getpeername);
int WSAAPI getsockopt(SOCKET s, int level, int optname, char *optval, int *optlen) NSPA_WS(getsockopt);
int WSAAPI setsockopt(SOCKET s, int level, int optname, const char *optval, int optlen) NSPA_WS(setsockopt);
int WSAAPI ioctlsocket(SOCKET s, long cmd, u_long *argp) NSPA_WS(ioctlsocket);

/* select over Winsock fd_sets */
typedef struct fd_set { u_int fd_count; SOCKET fd_array[FD_SETSIZE]; } fd_set, FD_SET, *PFD_SET, *LPFD_SET;
struct timeval { LONG tv_sec; LONG tv_usec; };
typedef struct timeval TIMEVAL, *PTIMEVAL;
int WSAAPI __WSAFDIsSet(SOCKET s, fd_set *set) NSPA_WS(__WSAFDIsSet);

/* ---- the BSD-era names: one hostent / servent per thread, valid until the thread's
 * next Winsock call (docs/io.md, "Winsock") -------------------------------------------- */
struct hostent {
    char *h_name;
    char **h_aliases;
    short h_addrtype;
    short h_length;
    char **h_addr_list;
};
#define h_addr h_addr_list[0]
typedef struct hostent HOSTENT, *PHOSTENT, *LPHOSTENT;
struct servent {                          /* the 64-bit layout */
    char *s_name;
    char **s_aliases;
    char *s_proto;
    short s_port;
};
typedef struct servent SERVENT, *PSERVENT, *LPSERVENT;
u_long WSAAPI inet_addr(const char *cp) NSPA_WS(inet_addr);
char *WSAAPI inet_ntoa(struct in_addr in) NSPA_WS(inet_ntoa);
/* gethostname is unistd.h's name too, with a size_t length: renamed (not bound by an
 * asm label), and declared with that type, so that unistd.h before or after this header
 * declares the same function */
#define gethostname nspa_ws_gethostname
int WSAAPI gethostname(char *name, size_t len);
struct hostent *WSAAPI gethostbyname(const char *name) NSPA_WS(gethostbyname);
struct hostent *WSAAPI gethostbyaddr(const char *addr, int len, int type) NSPA_WS(gethostbyaddr);
struct servent *WSAAPI getservbyname(const char *name, const char *proto) NSPA_WS(getservbyname);
#define FD_CLR(fd, set) do { u_int __i; for (__i = 0; __i < (set)->fd_count; __i++) \
    if ((set)->fd_array[__i] == (SOCKET)(fd)) { \
        for (; __i + 1 < (set)->fd_count; __i++) (set)->fd_array[__i] = (set)->fd_array[__i + 1]; \
        (set)->fd_count--; break; } } while (0)
#define FD_SET(fd, set) do { u_int __i; \
    for (__i = 0; __i < (set)->fd_count; __i++) { if ((set)->fd_array[__i] == (SOCKET)(fd)) break; } \
    if (__i == (set)->fd_count && (set)->fd_count < FD_SETSIZE) \
        (set)->fd_array[(set)->fd_count++] = (SOCKET)(fd); } while (0)
#define FD_ZERO(set) ((set)->fd_count = 0)
#define FD_ISSET(fd, set) __WSAFDIsSet((SOCKET)(fd), (fd_set *)(set))
int WSAAPI select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timeval *timeout);

typedef struct pollfd_ws_ { SOCKET fd; SHORT events; SHORT revents; } WSAPOLLFD, *PWSAPOLLFD, *LPWSAPOLLFD;
#define POLLRDNORM 0x0100
#define POLLRDBAND 0x0200
#define POLLIN     (POLLRDNORM | POLLRDBAND)
#define POLLPRI    0x0400
#define POLLWRNORM 0x0010
#define POLLOUT    POLLWRNORM
#define POLLWRBAND 0x0020
#define POLLERR    0x0001
#define POLLHUP    0x0002
#define POLLNVAL   0x0004
int WSAAPI WSAPoll(LPWSAPOLLFD fds, ULONG nfds, INT timeout);

/* ---- Winsock 2: overlapped I/O -------------------------------------------------- */
typedef struct _WSABUF { ULONG len; CHAR *buf; } WSABUF, *LPWSABUF;
typedef OVERLAPPED WSAOVERLAPPED, *LPWSAOVERLAPPED;
typedef HANDLE WSAEVENT, *LPWSAEVENT;
typedef void (CALLBACK *LPWSAOVERLAPPED_COMPLETION_ROUTINE)(DWORD err, DWORD bytes, LPWSAOVERLAPPED ov,
                                                             DWORD flags);
typedef struct _WSAPROTOCOL_INFOA WSAPROTOCOL_INFOA, *LPWSAPROTOCOL_INFOA;
typedef struct _WSAPROTOCOL_INFOW WSAPROTOCOL_INFOW, *LPWSAPROTOCOL_INFOW;
typedef unsigned int GROUP;
#define WSA_FLAG_OVERLAPPED        0x01
#define WSA_FLAG_NO_HANDLE_INHERIT 0x80

SOCKET WSAAPI WSASocketA(int af, int type, int protocol, LPWSAPROTOCOL_INFOA info, GROUP g, DWORD flags);
SOCKET WSAAPI WSASocketW(int af, int type, int protocol, LPWSAPROTOCOL_INFOW info, GROUP g, DWORD flags);
#define WSASocket WSASocketA
int WSAAPI WSASend(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD sent, DWORD flags, LPWSAOVERLAPPED ov,
                   LPWSAOVERLAPPED_COMPLETION_ROUTINE routine);
int WSAAPI WSARecv(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD received, LPDWORD flags, LPWSAOVERLAPPED ov,
                   LPWSAOVERLAPPED_COMPLETION_ROUTINE routine);
int WSAAPI WSASendTo(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD sent, DWORD flags, const struct sockaddr *to,
                     int tolen, LPWSAOVERLAPPED ov, LPWSAOVERLAPPED_COMPLETION_ROUTINE routine);
int WSAAPI WSARecvFrom(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD received, LPDWORD flags,
                       struct sockaddr *from, LPINT fromlen, LPWSAOVERLAPPED ov,
                       LPWSAOVERLAPPED_COMPLETION_ROUTINE routine);
BOOL WSAAPI WSAGetOverlappedResult(SOCKET s, LPWSAOVERLAPPED ov, LPDWORD bytes, BOOL wait, LPDWORD flags);
int WSAAPI WSAIoctl(SOCKET s, DWORD code, LPVOID in, DWORD inlen, LPVOID out, DWORD outlen, LPDWORD ret,
                    LPWSAOVERLAPPED ov, LPWSAOVERLAPPED_COMPLETION_ROUTINE routine);

/* events */
#define FD_READ_BIT     0
#define FD_READ         (1 << FD_READ_BIT)
#define FD_WRITE_BIT    1
#define FD_WRITE        (1 << FD_WRITE_BIT)
#define FD_OOB_BIT      2
#define FD_OOB          (1 << FD_OOB_BIT)
#define FD_ACCEPT_BIT   3
#define FD_ACCEPT       (1 << FD_ACCEPT_BIT)
#define FD_CONNECT_BIT  4
#define FD_CONNECT      (1 << FD_CONNECT_BIT)
#define FD_CLOSE_BIT    5
#define FD_CLOSE        (1 << FD_CLOSE_BIT)
#define FD_MAX_EVENTS   10
#define FD_ALL_EVENTS   ((1 << FD_MAX_EVENTS) - 1)
typedef struct _WSANETWORKEVENTS { long lNetworkEvents; int iErrorCode[FD_MAX_EVENTS]; }
    WSANETWORKEVENTS, *LPWSANETWORKEVENTS;
WSAEVENT WSAAPI WSACreateEvent(void);
BOOL WSAAPI WSACloseEvent(WSAEVENT e);
BOOL WSAAPI WSASetEvent(WSAEVENT e);
BOOL WSAAPI WSAResetEvent(WSAEVENT e);
DWORD WSAAPI WSAWaitForMultipleEvents(DWORD n, const WSAEVENT *events, BOOL all, DWORD ms, BOOL alertable);
int WSAAPI WSAEventSelect(SOCKET s, WSAEVENT e, long events);
int WSAAPI WSAEnumNetworkEvents(SOCKET s, WSAEVENT e, LPWSANETWORKEVENTS out);

#ifdef __cplusplus
}
#endif
#endif
