/*
 * Name resolution and address text for Winsock: getaddrinfo / GetAddrInfoW /
 * freeaddrinfo / FreeAddrInfoW and inet_pton / inet_ntop, over the C library's, with
 * Windows' family numbers (AF_INET6 is 23) and Windows' struct addrinfo (ai_canonname
 * before ai_addr; ai_addrlen a size_t). The Winsock names are bound to these nspa_ws_*
 * symbols by <ws2tcpip.h> (asm labels), so the C library keeps its own. Each result
 * node is one allocation: the node, its address, its canonical name.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
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
