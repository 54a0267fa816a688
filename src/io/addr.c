/*
 * Name resolution and address text for Winsock: getaddrinfo / GetAddrInfoW /
 * freeaddrinfo / FreeAddrInfoW, inet_pton / inet_ntop, and the BSD-era inet_addr /
 * inet_ntoa, gethostname, gethostbyname / gethostbyaddr, getservbyname and getnameinfo,
 * over the C library's, with
 * Windows' family numbers (AF_INET6 is 23) and Windows' struct addrinfo (ai_canonname
 * before ai_addr; ai_addrlen a size_t). The Winsock names are bound to these nspa_ws_*
 * symbols by <ws2tcpip.h> (asm labels), so the C library keeps its own. Each result
 * node is one allocation: the node, its address, its canonical name.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/export.h"
#include "nspa/unicode.h"
#include "io/io_internal.h"
#include "win32/win32_error.h"
#include "unicode/wstr.h"

struct waddrinfo {                       /* = Windows ADDRINFOA / ADDRINFOW */
    int ai_flags, ai_family, ai_socktype, ai_protocol;
    size_t ai_addrlen;
    void *ai_canonname;
    void *ai_addr;
    struct waddrinfo *ai_next;
};

void WINAPI_SetLastError(uint32_t e) __asm__("SetLastError");

NSPA_EXPORT int nspa_ws_getaddrinfo(const char *node, const char *service, const struct waddrinfo *hints,
                                    struct waddrinfo **res);
NSPA_EXPORT void nspa_ws_freeaddrinfo(struct waddrinfo *ai);
NSPA_EXPORT int nspa_ws_inet_pton(int af, const char *src, void *dst);
NSPA_EXPORT const char *nspa_ws_inet_ntop(int af, const void *src, char *dst, size_t size);
NSPA_EXPORT int GetAddrInfoW(const uint16_t *node, const uint16_t *service, const struct waddrinfo *hints,
                             struct waddrinfo **res);
NSPA_EXPORT void FreeAddrInfoW(struct waddrinfo *ai);

static int fam_from_win(int f) { return f == 2 ? AF_INET : f == 23 ? AF_INET6 : f == 0 ? AF_UNSPEC : -1; }

/* @wide: canonical names in UTF-16 (GetAddrInfoW) */
static int resolve(const char *node, const char *service, const struct waddrinfo *hints, struct waddrinfo **res,
                   int wide)
{
    if (!res) return 10014;
    *res = NULL;
    if (!node && !service) return 11001;
    struct addrinfo h = { 0 }, *lr = NULL;
    if (hints) {
        int fam = fam_from_win(hints->ai_family);
        if (fam < 0) return 10047;
        h.ai_family = fam;
        h.ai_socktype = hints->ai_socktype == 1 ? SOCK_STREAM : hints->ai_socktype == 2 ? SOCK_DGRAM : 0;
        h.ai_protocol = hints->ai_protocol;
        int f = hints->ai_flags;
        h.ai_flags = (f & 0x01 ? AI_PASSIVE : 0) | (f & 0x02 ? AI_CANONNAME : 0) | (f & 0x04 ? AI_NUMERICHOST : 0) |
                     (f & 0x08 ? AI_NUMERICSERV : 0) | (f & 0x0400 ? AI_ADDRCONFIG : 0);
    }
    int e = getaddrinfo(node, service, hints ? &h : NULL, &lr);
    if (e) return win32_wsa_from_eai(e);
    struct waddrinfo **tail = res;
    for (struct addrinfo *a = lr; a; a = a->ai_next) {
        if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
        size_t cl = a->ai_canonname ? strlen(a->ai_canonname) + 1 : 0;
        size_t cbytes = wide ? cl * 2 : cl;
        struct waddrinfo *w = calloc(1, sizeof(*w) + sizeof(struct sockaddr_storage) + cbytes);
        if (!w) {
            freeaddrinfo(lr);
            nspa_ws_freeaddrinfo(*res);
            *res = NULL;
            return 8;
        }
        w->ai_flags = hints ? hints->ai_flags : 0;
        w->ai_family = a->ai_family == AF_INET ? 2 : 23;
        w->ai_socktype = a->ai_socktype == SOCK_STREAM ? 1 : a->ai_socktype == SOCK_DGRAM ? 2 : 0;
        w->ai_protocol = a->ai_protocol;
        w->ai_addr = (char *)(w + 1);
        int wl = (int)sizeof(struct sockaddr_storage);
        io_addr_to_win(a->ai_addr, a->ai_addrlen, w->ai_addr, &wl);
        w->ai_addrlen = (size_t)wl;
        if (cl) {
            char *c = (char *)(w + 1) + sizeof(struct sockaddr_storage);
            if (wide) nspa_utf8_to_utf16(a->ai_canonname, cl, (uint16_t *)c, cl, NULL);
            else memcpy(c, a->ai_canonname, cl);
            w->ai_canonname = c;
        }
        *tail = w;
        tail = &w->ai_next;
    }
    freeaddrinfo(lr);
    return *res ? 0 : 11001;
}

int nspa_ws_getaddrinfo(const char *node, const char *service, const struct waddrinfo *hints,
                        struct waddrinfo **res)
{
    int r = resolve(node, service, hints, res, 0);
    WINAPI_SetLastError((uint32_t)r);
    return r;
}

void nspa_ws_freeaddrinfo(struct waddrinfo *ai)
{
    while (ai) {
        struct waddrinfo *n = ai->ai_next;
        free(ai);
        ai = n;
    }
}

static char *utf8_of(const uint16_t *w) { return w ? nspa__w_to_utf8(w) : NULL; }

int GetAddrInfoW(const uint16_t *node, const uint16_t *service, const struct waddrinfo *hints, struct waddrinfo **res)
{
    char *n = utf8_of(node), *s = utf8_of(service);
    int r = (node && !n) || (service && !s) ? 8 : resolve(n, s, hints, res, 1);
    free(n);
    free(s);
    WINAPI_SetLastError((uint32_t)r);
    return r;
}

void FreeAddrInfoW(struct waddrinfo *ai) { nspa_ws_freeaddrinfo(ai); }

int nspa_ws_inet_pton(int af, const char *src, void *dst)
{
    int f = fam_from_win(af);
    if (f != AF_INET && f != AF_INET6) {
        WINAPI_SetLastError(10047);
        return -1;
    }
    if (!src || !dst) {
        WINAPI_SetLastError(10014);
        return -1;
    }
    return inet_pton(f, src, dst);
}

const char *nspa_ws_inet_ntop(int af, const void *src, char *dst, size_t size)
{
    int f = fam_from_win(af);
    if (f != AF_INET && f != AF_INET6) {
        WINAPI_SetLastError(10047);
        return NULL;
    }
    if (!src || !dst) {
        WINAPI_SetLastError(10014);
        return NULL;
    }
    const char *r = inet_ntop(f, src, dst, (socklen_t)size);
    if (!r) WINAPI_SetLastError(10022);
    return r;
}

/* ---- the BSD-era names: inet_addr / inet_ntoa, gethostname, gethostbyname /
 * gethostbyaddr, getservbyname, getnameinfo ------------------------------------------ */

/* Winsock's hostent and servent (64-bit layout: shorts where the C library has ints,
 * s_proto before s_port). One of each per thread, as Windows keeps them ("valid until
 * the thread's next Winsock call"): filled in place, never allocated. */
struct whostent { char *h_name; char **h_aliases; short h_addrtype, h_length; char **h_addr_list; };
struct wservent { char *s_name; char **s_aliases; char *s_proto; short s_port; };

#define HOST_ADDRS 16
static __thread struct {
    struct whostent h;
    char *aliases[1], *addrs[HOST_ADDRS + 1];
    unsigned char bytes[HOST_ADDRS][16];
    char name[1025];
} tls_host;
static __thread struct {
    struct wservent s;
    char *aliases[1];
    char name[64], proto[16];
} tls_serv;
static __thread char tls_ntoa[16];

NSPA_EXPORT uint32_t nspa_ws_inet_addr(const char *cp);
NSPA_EXPORT char *nspa_ws_inet_ntoa(uint32_t in);
NSPA_EXPORT int nspa_ws_gethostname(char *name, size_t len);
NSPA_EXPORT struct whostent *nspa_ws_gethostbyname(const char *name);
NSPA_EXPORT struct whostent *nspa_ws_gethostbyaddr(const char *addr, int len, int type);
NSPA_EXPORT struct wservent *nspa_ws_getservbyname(const char *name, const char *proto);
NSPA_EXPORT int nspa_ws_getnameinfo(const void *sa, int salen, char *host, uint32_t hostlen, char *serv,
                                    uint32_t servlen, int flags);

/* "a.b.c.d" and the shorter and hex / octal forms Windows' inet_addr takes too (as BSD's
 * inet_aton); INADDR_NONE for anything else, the empty string included */
uint32_t nspa_ws_inet_addr(const char *cp)
{
    struct in_addr a;
    if (!cp || !*cp || !inet_aton(cp, &a)) return 0xffffffffu;
    return a.s_addr;
}

/* the thread's buffer, as Windows' */
char *nspa_ws_inet_ntoa(uint32_t in)
{
    const unsigned char *b = (const unsigned char *)&in;
    snprintf(tls_ntoa, sizeof(tls_ntoa), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    return tls_ntoa;
}

/* Winsock's length is an int: a negative one arrives here as a huge size_t */
int nspa_ws_gethostname(char *name, size_t len)
{
    char n[256];
    if (!name || !len || len > 0x7fffffff || gethostname(n, sizeof(n)) < 0 || strlen(n) + 1 > len) {
        WINAPI_SetLastError(10014);              /* WSAEFAULT: too short */
        return -1;
    }
    strcpy(name, n);
    return 0;
}

/* the thread's hostent over @name and the addresses of @list (IPv4 or IPv6, one kind) */
static struct whostent *host_fill(const char *name, int fam, struct addrinfo *list)
{
    int n = 0, len = fam == AF_INET ? 4 : 16;
    for (struct addrinfo *a = list; a && n < HOST_ADDRS; a = a->ai_next) {
        if (a->ai_family != fam) continue;
        const void *src = fam == AF_INET ? (const void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr
                                         : (const void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
        int dup = 0;
        for (int k = 0; k < n; k++) dup |= !memcmp(tls_host.bytes[k], src, (size_t)len);
        if (dup) continue;
        memcpy(tls_host.bytes[n], src, (size_t)len);
        tls_host.addrs[n] = (char *)tls_host.bytes[n];
        n++;
    }
    if (!n) return NULL;
    tls_host.addrs[n] = NULL;
    tls_host.aliases[0] = NULL;
    snprintf(tls_host.name, sizeof(tls_host.name), "%s", name);
    tls_host.h.h_name = tls_host.name;
    tls_host.h.h_aliases = tls_host.aliases;
    tls_host.h.h_addrtype = (short)(fam == AF_INET ? 2 : 23);
    tls_host.h.h_length = (short)len;
    tls_host.h.h_addr_list = tls_host.addrs;
    return &tls_host.h;
}

/* IPv4 addresses of @name (NULL or "": this host's); WSAHOST_NOT_FOUND, WSANO_DATA (a
 * name with no IPv4 address), WSATRY_AGAIN */
struct whostent *nspa_ws_gethostbyname(const char *name)
{
    char self[256];
    if (!name || !*name) {
        if (gethostname(self, sizeof(self)) < 0) {
            WINAPI_SetLastError(11003);
            return NULL;
        }
        name = self;
    }
    struct addrinfo h = { .ai_flags = AI_CANONNAME, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *r = NULL;
    int e = getaddrinfo(name, NULL, &h, &r);
    if (e) {
        WINAPI_SetLastError((uint32_t)win32_wsa_from_eai(e));
        return NULL;
    }
    struct whostent *he = host_fill(r->ai_canonname ? r->ai_canonname : name, AF_INET, r);
    freeaddrinfo(r);
    if (!he) WINAPI_SetLastError(11004);          /* WSANO_DATA: no IPv4 address */
    return he;
}

/* the name of an address (AF_INET, 4 bytes; AF_INET6 (23), 16 bytes) */
struct whostent *nspa_ws_gethostbyaddr(const char *addr, int len, int type)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl;
    if (!addr) {
        WINAPI_SetLastError(10014);
        return NULL;
    }
    if (type == 2 && len == 4) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        memcpy(&s4->sin_addr, addr, 4);
        sl = sizeof(*s4);
    } else if (type == 23 && len == 16) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        memcpy(&s6->sin6_addr, addr, 16);
        sl = sizeof(*s6);
    } else {
        WINAPI_SetLastError(type == 2 || type == 23 ? 10014 : 10047);   /* WSAEFAULT / WSAEAFNOSUPPORT */
        return NULL;
    }
    char host[1025];
    int e = getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), NULL, 0, NI_NAMEREQD);
    if (e) {
        WINAPI_SetLastError((uint32_t)win32_wsa_from_eai(e));
        return NULL;
    }
    struct addrinfo one = { .ai_family = ss.ss_family, .ai_addr = (struct sockaddr *)&ss, .ai_addrlen = sl };
    return host_fill(host, ss.ss_family, &one);
}

/* the port (network order) of a service; WSANO_DATA when unknown */
struct wservent *nspa_ws_getservbyname(const char *name, const char *proto)
{
    struct servent se, *r = NULL;
    char buf[1024];
    if (!name || getservbyname_r(name, proto, &se, buf, sizeof(buf), &r) || !r) {
        WINAPI_SetLastError(11004);
        return NULL;
    }
    snprintf(tls_serv.name, sizeof(tls_serv.name), "%s", r->s_name);
    snprintf(tls_serv.proto, sizeof(tls_serv.proto), "%s", r->s_proto ? r->s_proto : "");
    tls_serv.aliases[0] = NULL;
    tls_serv.s.s_name = tls_serv.name;
    tls_serv.s.s_aliases = tls_serv.aliases;
    tls_serv.s.s_proto = tls_serv.proto;
    tls_serv.s.s_port = (short)r->s_port;
    return &tls_serv.s;
}

/* Windows' NI_ flags: NOFQDN 1, NUMERICHOST 2, NAMEREQD 4, NUMERICSERV 8, DGRAM 16 (the C
 * library numbers them otherwise); a WSA code, 0 when done */
int nspa_ws_getnameinfo(const void *sa, int salen, char *host, uint32_t hostlen, char *serv, uint32_t servlen,
                        int flags)
{
    struct sockaddr_storage ss;
    int l = sa ? io_addr_from_win(sa, salen, &ss) : -EFAULT;
    int r;
    if (l < 0) {
        r = l == -EFAULT ? 10014 : 10047;
    } else if ((!host || !hostlen) && (!serv || !servlen)) {
        r = 11001;                                /* WSAHOST_NOT_FOUND: nothing asked */
    } else {
        int lf = (flags & 1 ? NI_NOFQDN : 0) | (flags & 2 ? NI_NUMERICHOST : 0) | (flags & 4 ? NI_NAMEREQD : 0) |
                 (flags & 8 ? NI_NUMERICSERV : 0) | (flags & 16 ? NI_DGRAM : 0);
        int e = getnameinfo((struct sockaddr *)&ss, (socklen_t)l, host, host ? hostlen : 0, serv, serv ? servlen : 0, lf);
        r = e ? win32_wsa_from_eai(e) : 0;
    }
    WINAPI_SetLastError((uint32_t)r);
    return r;
}
