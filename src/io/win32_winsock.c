/*
 * Winsock: start-up, the BSD-style calls, select and WSAPoll (docs/io.md). The Linux
 * side is sock.c; this file sees only the Windows types.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/win32/winsock2.h"
#include "nspa/win32/ws2tcpip.h"
#include "common/export.h"
#include "io/io_api.h"
#include "io/win32_io.h"
#include "win32/win32_error.h"

static int started;                      /* WSAStartup calls not yet cleaned up */

NSPA_HIDDEN int ws_ready(void) { return __atomic_load_n(&started, __ATOMIC_ACQUIRE) > 0; }

NSPA_EXPORT int WSAAPI WSAStartup(WORD version, LPWSADATA data)
{
    if (!data) return WSAEFAULT;
    BYTE maj = (BYTE)(version & 0xff), min = (BYTE)(version >> 8);
    memset(data, 0, sizeof(*data));
    data->wHighVersion = MAKEWORD(2, 2);
    if (maj < 1 || (maj == 1 && min < 1)) {
        data->wVersion = MAKEWORD(2, 2);
        return WSAVERNOTSUPPORTED;
    }
    data->wVersion = maj >= 2 ? MAKEWORD(2, (maj > 2 || min > 2) ? 2 : min) : version;
    strcpy(data->szDescription, "NSPA Winsock 2.2");
    strcpy(data->szSystemStatus, "Running");
    __atomic_add_fetch(&started, 1, __ATOMIC_ACQ_REL);
    return 0;
}

NSPA_EXPORT int WSAAPI WSACleanup(void)
{
    int s = __atomic_load_n(&started, __ATOMIC_ACQUIRE);
    while (s > 0 && !__atomic_compare_exchange_n(&started, &s, s - 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
    if (s <= 0) return ws_fail(WSANOTINITIALISED);
    return 0;
}

NSPA_EXPORT int WSAAPI WSAGetLastError(void) { return (int)GetLastError(); }
NSPA_EXPORT void WSAAPI WSASetLastError(int err) { SetLastError((DWORD)err); }

NSPA_HIDDEN int ws_fail(int wsa)
{
    SetLastError((DWORD)wsa);
    return SOCKET_ERROR;
}

NSPA_HIDDEN int ws_err(int r) { return (int)win32_error_from_errno(r, WIN32_ERR_WSA); }   /* -EBADF: WSAENOTSOCK */

#define INIT_OR(ret) do { if (!ws_ready()) { SetLastError(WSANOTINITIALISED); return ret; } } while (0)
#define S32(s) ((uint32_t)(s))
/* a SOCKET that cannot be a handle: WSAENOTSOCK */
#define BAD_SOCKET(s) ((s) == INVALID_SOCKET || (s) > 0xffffffffu)

static SOCKET make_socket(int af, int type, int proto, int overlapped)
{
    INIT_OR(INVALID_SOCKET);
    uint32_t h;
    int r = io_ws_socket(af, type, proto, overlapped, &h);
    if (r) {
        ws_fail(ws_err(r));
        return INVALID_SOCKET;
    }
    SetLastError(0);
    return (SOCKET)h;
}

NSPA_EXPORT SOCKET WSAAPI socket(int af, int type, int protocol) { return make_socket(af, type, protocol, 1); }

NSPA_EXPORT SOCKET WSAAPI WSASocketA(int af, int type, int protocol, LPWSAPROTOCOL_INFOA info, GROUP g, DWORD flags)
{
    if (info) { SetLastError(WSAEINVAL); return INVALID_SOCKET; }
    return make_socket(af, type, protocol, (flags & WSA_FLAG_OVERLAPPED) != 0);
}

NSPA_EXPORT SOCKET WSAAPI WSASocketW(int af, int type, int protocol, LPWSAPROTOCOL_INFOW info, GROUP g, DWORD flags)
{
    if (info) { SetLastError(WSAEINVAL); return INVALID_SOCKET; }
    return make_socket(af, type, protocol, (flags & WSA_FLAG_OVERLAPPED) != 0);
}

#define CALL(expr) do { INIT_OR(SOCKET_ERROR); if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK); \
    int r_ = (expr); if (r_ < 0) return ws_fail(ws_err(r_)); return 0; } while (0)

NSPA_EXPORT int WSAAPI bind(SOCKET s, const struct sockaddr *name, int namelen) { CALL(io_ws_bind(S32(s), name, namelen)); }
NSPA_EXPORT int WSAAPI listen(SOCKET s, int backlog) { CALL(io_ws_listen(S32(s), backlog)); }
NSPA_EXPORT int WSAAPI connect(SOCKET s, const struct sockaddr *name, int namelen) { CALL(io_ws_connect(S32(s), name, namelen)); }
NSPA_EXPORT int WSAAPI shutdown(SOCKET s, int how) { CALL(io_ws_shutdown(S32(s), how)); }
NSPA_EXPORT int WSAAPI closesocket(SOCKET s) { CALL(io_ws_close(S32(s))); }
NSPA_EXPORT int WSAAPI getsockname(SOCKET s, struct sockaddr *name, int *len) { CALL(io_ws_name(S32(s), 0, name, len)); }
NSPA_EXPORT int WSAAPI getpeername(SOCKET s, struct sockaddr *name, int *len) { CALL(io_ws_name(S32(s), 1, name, len)); }
NSPA_EXPORT int WSAAPI getsockopt(SOCKET s, int level, int name, char *val, int *len) { CALL(io_ws_getopt(S32(s), level, name, val, len)); }
NSPA_EXPORT int WSAAPI setsockopt(SOCKET s, int level, int name, const char *val, int len) { CALL(io_ws_setopt(S32(s), level, name, val, len)); }
NSPA_EXPORT int WSAAPI ioctlsocket(SOCKET s, long cmd, u_long *arg) { CALL(io_ws_ioctl(S32(s), (uint32_t)cmd, arg)); }

NSPA_EXPORT SOCKET WSAAPI accept(SOCKET s, struct sockaddr *addr, int *addrlen)
{
    INIT_OR(INVALID_SOCKET);
    if (BAD_SOCKET(s)) { ws_fail(WSAENOTSOCK); return INVALID_SOCKET; }
    uint32_t h;
    int r = io_ws_accept(S32(s), addr, addrlen, &h);
    if (r) { ws_fail(ws_err(r)); return INVALID_SOCKET; }
    return (SOCKET)h;
}

NSPA_EXPORT int WSAAPI send(SOCKET s, const char *buf, int len, int flags)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (len < 0) return ws_fail(WSAEINVAL);
    struct io_wsabuf b = { (uint32_t)len, (char *)buf };
    int64_t r = io_ws_send(S32(s), &b, 1, flags, NULL, 0);
    if (r == -EDESTADDRREQ) r = -ENOTCONN;   /* an unconnected datagram socket: WSAENOTCONN (sendto: WSAEDESTADDRREQ) */
    return r < 0 ? ws_fail(ws_err((int)r)) : (int)r;
}

NSPA_EXPORT int WSAAPI sendto(SOCKET s, const char *buf, int len, int flags, const struct sockaddr *to, int tolen)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (len < 0) return ws_fail(WSAEINVAL);
    struct io_wsabuf b = { (uint32_t)len, (char *)buf };
    int64_t r = io_ws_send(S32(s), &b, 1, flags, to, tolen);
    return r < 0 ? ws_fail(ws_err((int)r)) : (int)r;
}

/* recv is recvfrom without the address */
static int recv_from(SOCKET s, char *buf, int len, int flags, struct sockaddr *from, int *fromlen)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (len < 0) return ws_fail(WSAEINVAL);
    struct io_wsabuf b = { (uint32_t)len, buf };
    int64_t r = io_ws_recv(S32(s), &b, 1, &flags, from, fromlen);
    return r < 0 ? ws_fail(ws_err((int)r)) : (int)r;
}

NSPA_EXPORT int WSAAPI recv(SOCKET s, char *buf, int len, int flags) { return recv_from(s, buf, len, flags, NULL, NULL); }

NSPA_EXPORT int WSAAPI recvfrom(SOCKET s, char *buf, int len, int flags, struct sockaddr *from, int *fromlen)
{
    return recv_from(s, buf, len, flags, from, fromlen);
}

/* ---- select and WSAPoll ---------------------------------------------------------- */

NSPA_EXPORT int WSAAPI __WSAFDIsSet(SOCKET s, fd_set *set)
{
    for (u_int i = 0; set && i < set->fd_count; i++)
        if (set->fd_array[i] == s) return 1;
    return 0;
}

static int select_on(fd_set **sets, const short *ev, struct io_wspollfd *p, const struct timeval *tv);

/* The sets are read by their counts, whatever FD_SETSIZE the program compiled with
 * (Winsock's fd_set is a count and an array; a program may define FD_SETSIZE above the
 * default 64): up to 64 sockets per set the poll array is on the stack, past that it is
 * allocated before the wait. */
NSPA_EXPORT int WSAAPI select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, const struct timeval *tv)
{
    INIT_OR(SOCKET_ERROR);
    struct io_wspollfd sp[3 * 64], *p = sp;
    fd_set *sets[3] = { rd, wr, ex };
    static const short ev[3] = { POLLRDNORM, POLLWRNORM, POLLPRI };
    size_t want = 0;
    for (int k = 0; k < 3; k++) want += sets[k] ? sets[k]->fd_count : 0;
    if (want > 3 * 64 && !(p = malloc(want * sizeof(*p)))) return ws_fail(WSAENOBUFS);
    int r = select_on(sets, ev, p, tv);
    if (p != sp) free(p);
    return r;
}

static int select_on(fd_set **sets, const short *ev, struct io_wspollfd *p, const struct timeval *tv)
{
    uint32_t n = 0;
    for (int k = 0; k < 3; k++) {
        if (!sets[k]) continue;
        for (u_int i = 0; i < sets[k]->fd_count; i++) {
            p[n].fd = sets[k]->fd_array[i];
            p[n].events = ev[k];
            p[n].revents = 0;
            n++;
        }
    }
    if (!n) return ws_fail(WSAEINVAL);           /* Winsock: no sockets at all */
    if (tv && (tv->tv_sec < 0 || tv->tv_usec < 0)) return ws_fail(WSAEINVAL);
    int ms = tv ? (int)(tv->tv_sec * 1000 + (tv->tv_usec + 999) / 1000) : -1;
    int r = io_ws_poll(p, n, ms);
    if (r < 0) return ws_fail(ws_err(r));
    for (uint32_t i = 0; i < n; i++)
        if (p[i].revents & POLLNVAL) return ws_fail(WSAENOTSOCK);
    int total = 0;
    n = 0;
    for (int k = 0; k < 3; k++) {
        if (!sets[k]) continue;
        u_int keep = 0, cnt = sets[k]->fd_count;
        for (u_int i = 0; i < cnt; i++, n++) {
            short re = p[n].revents;
            /* readable: data, a connection to accept, or the peer's close/reset */
            int hit = k == 0 ? (re & (POLLRDNORM | POLLHUP | POLLERR)) != 0
                    : k == 1 ? (re & POLLWRNORM) != 0 : (re & (POLLPRI | POLLERR)) != 0;
            if (hit) sets[k]->fd_array[keep++] = sets[k]->fd_array[i];
        }
        sets[k]->fd_count = keep;
        total += (int)keep;
    }
    return total;
}

NSPA_EXPORT int WSAAPI WSAPoll(LPWSAPOLLFD fds, ULONG nfds, INT timeout)
{
    INIT_OR(SOCKET_ERROR);
    if (!fds) return ws_fail(WSAEFAULT);
    for (ULONG i = 0; i < nfds; i++)
        if (fds[i].events & ~(POLLRDNORM | POLLRDBAND | POLLPRI | POLLWRNORM | POLLWRBAND)) return ws_fail(WSAEINVAL);
    int r = io_ws_poll((struct io_wspollfd *)fds, nfds, timeout < 0 ? -1 : timeout);
    return r < 0 ? ws_fail(ws_err(r)) : r;
}
