/*
 * Winsock 2's overlapped calls (WSASend/WSARecv/WSASendTo/WSARecvFrom with an event or
 * a completion routine, WSAGetOverlappedResult), the extension functions (AcceptEx,
 * ConnectEx, GetAcceptExSockaddrs through WSAIoctl), and the WSA event calls.
 */
#include <errno.h>
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/win32/winsock2.h"
#include "nspa/win32/mswsock.h"
#include "common/export.h"
#include "io/io_api.h"
#include "io/win32_io.h"
#include "win32/win32_error.h"

#define INIT_OR(ret) do { if (!ws_ready()) { SetLastError(WSANOTINITIALISED); return ret; } } while (0)
#define BAD_SOCKET(s) ((s) == INVALID_SOCKET || (s) > 0xffffffffu)

/* the common end of the four: 0 with the count, or SOCKET_ERROR with the error */
static int ovl_end(int r, LPDWORD count, DWORD bytes)
{
    if (r == 0) {
        if (count) *count = bytes;
        SetLastError(0);
        return 0;
    }
    /* -EINPROGRESS: started, WSA_IO_PENDING */
    return ws_fail((int)win32_error_from_errno(r, WIN32_ERR_WSA | WIN32_ERR_OVERLAPPED));
}

NSPA_EXPORT int WSAAPI WSARecv(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD received, LPDWORD flags,
                               LPWSAOVERLAPPED ov, LPWSAOVERLAPPED_COMPLETION_ROUTINE routine)
{
    return WSARecvFrom(s, bufs, n, received, flags, NULL, NULL, ov, routine);
}

NSPA_EXPORT int WSAAPI WSARecvFrom(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD received, LPDWORD flags,
                                   struct sockaddr *from, LPINT fromlen, LPWSAOVERLAPPED ov,
                                   LPWSAOVERLAPPED_COMPLETION_ROUTINE routine)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (!flags) return ws_fail(WSAEFAULT);
    if (!ov) {                                   /* not overlapped: the socket's mode */
        int f = (int)*flags;
        int64_t r = io_ws_recv((uint32_t)s, (const struct io_wsabuf *)bufs, n, &f, from, fromlen);
        if (r < 0) return ws_fail(ws_err((int)r));
        *flags = (DWORD)f;
        if (received) *received = (DWORD)r;
        return 0;
    }
    uint32_t bytes = 0, fl = *flags;
    int r = io_ws_recv_ovl((uint32_t)s, (const struct io_wsabuf *)bufs, n, &fl, from, fromlen, ov,
                           (void *)routine, &bytes);
    *flags = fl;
    return ovl_end(r, received, bytes);
}

/* @plain: WSASend (no address): an unconnected datagram socket is WSAENOTCONN, where
 * WSASendTo without an address says WSAEDESTADDRREQ (Linux says EDESTADDRREQ to both) */
static int wsa_send(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD sent, DWORD flags, const struct sockaddr *to, int tolen,
                    LPWSAOVERLAPPED ov, LPWSAOVERLAPPED_COMPLETION_ROUTINE routine, int plain)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (!ov) {
        int64_t r = io_ws_send((uint32_t)s, (const struct io_wsabuf *)bufs, n, (int)flags, to, tolen);
        if (plain && r == -EDESTADDRREQ) r = -ENOTCONN;
        if (r < 0) return ws_fail(ws_err((int)r));
        if (sent) *sent = (DWORD)r;
        return 0;
    }
    uint32_t bytes = 0;
    int r = io_ws_send_ovl((uint32_t)s, (const struct io_wsabuf *)bufs, n, flags, to, tolen, ov, (void *)routine,
                           &bytes);
    if (plain && r == -EDESTADDRREQ) r = -ENOTCONN;
    return ovl_end(r, sent, bytes);
}

NSPA_EXPORT int WSAAPI WSASend(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD sent, DWORD flags, LPWSAOVERLAPPED ov,
                               LPWSAOVERLAPPED_COMPLETION_ROUTINE routine)
{
    return wsa_send(s, bufs, n, sent, flags, NULL, 0, ov, routine, 1);
}

NSPA_EXPORT int WSAAPI WSASendTo(SOCKET s, LPWSABUF bufs, DWORD n, LPDWORD sent, DWORD flags,
                                 const struct sockaddr *to, int tolen, LPWSAOVERLAPPED ov,
                                 LPWSAOVERLAPPED_COMPLETION_ROUTINE routine)
{
    return wsa_send(s, bufs, n, sent, flags, to, tolen, ov, routine, 0);
}

NSPA_EXPORT BOOL WSAAPI WSAGetOverlappedResult(SOCKET s, LPWSAOVERLAPPED ov, LPDWORD bytes, BOOL wait, LPDWORD flags)
{
    if (BAD_SOCKET(s) || io_ws_is_socket((uint32_t)s) <= 0) {
        SetLastError(WSAENOTSOCK);
        return FALSE;
    }
    if (!ov || !bytes || !flags) {
        SetLastError(WSAEFAULT);
        return FALSE;
    }
    int r = io_ovl_wait((uint32_t)s, ov, wait ? UINT64_MAX : 0, FALSE);
    if (r == -EINPROGRESS || r == -ETIMEDOUT) {
        SetLastError(WSA_IO_INCOMPLETE);
        return FALSE;
    }
    if (r) {
        SetLastError(ws_err(r));
        return FALSE;
    }
    uint32_t st = (uint32_t)ov->Internal;
    *bytes = (DWORD)ov->InternalHigh;
    *flags = st == 0x80000005u ? MSG_PARTIAL : 0;
    if (st) {
        SetLastError(win32_error_from_status((NTSTATUS)st, WIN32_ERR_IO | WIN32_ERR_WSA));
        return FALSE;
    }
    return TRUE;
}

/* ---- the extension functions ------------------------------------------------------- */

NSPA_EXPORT BOOL PASCAL_WS_ AcceptEx(SOCKET listener, SOCKET accepted, PVOID buf, DWORD rxlen, DWORD local_len,
                                     DWORD remote_len, LPDWORD received, LPOVERLAPPED ov)
{
    if (!ws_ready()) { SetLastError(WSANOTINITIALISED); return FALSE; }
    if (BAD_SOCKET(listener) || BAD_SOCKET(accepted)) { SetLastError(WSAENOTSOCK); return FALSE; }
    uint32_t bytes = 0;
    int r = io_ws_accept_ovl((uint32_t)listener, (uint32_t)accepted, buf, rxlen, local_len, remote_len, &bytes, ov);
    return ovl_end(r, received, bytes) == 0;
}

static BOOL PASCAL_WS_ connect_ex(SOCKET s, const struct sockaddr *name, int namelen, PVOID data, DWORD len,
                                  LPDWORD sent, LPOVERLAPPED ov)
{
    if (!ws_ready()) { SetLastError(WSANOTINITIALISED); return FALSE; }
    if (BAD_SOCKET(s)) { SetLastError(WSAENOTSOCK); return FALSE; }
    uint32_t n = 0;
    int r = io_ws_connect_ovl((uint32_t)s, name, namelen, data, len, &n, ov);
    return ovl_end(r, sent, n) == 0;
}

NSPA_EXPORT void PASCAL_WS_ GetAcceptExSockaddrs(PVOID buf, DWORD rxlen, DWORD local_len, DWORD remote_len,
                                                 struct sockaddr **local, LPINT local_size,
                                                 struct sockaddr **remote, LPINT remote_size)
{
    /* AcceptEx wrote each address as its length (an int) and the address */
    char *b = (char *)buf + rxlen;
    if (local_size) memcpy(local_size, b, sizeof(int));
    if (local) *local = (struct sockaddr *)(b + sizeof(int));
    b += local_len;
    if (remote_size) memcpy(remote_size, b, sizeof(int));
    if (remote) *remote = (struct sockaddr *)(b + sizeof(int));
}

NSPA_EXPORT int WSAAPI WSAIoctl(SOCKET s, DWORD code, LPVOID in, DWORD inlen, LPVOID out, DWORD outlen,
                                LPDWORD ret, LPWSAOVERLAPPED ov, LPWSAOVERLAPPED_COMPLETION_ROUTINE routine)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s) || io_ws_is_socket((uint32_t)s) <= 0) return ws_fail(WSAENOTSOCK);
    if (code == SIO_GET_EXTENSION_FUNCTION_POINTER) {
        static const GUID acc = WSAID_ACCEPTEX, con = WSAID_CONNECTEX, gas = WSAID_GETACCEPTEXSOCKADDRS;
        if (!in || inlen < sizeof(GUID) || !out || outlen < sizeof(void *)) return ws_fail(WSAEFAULT);
        void *fn = NULL;
        if (!memcmp(in, &acc, sizeof(GUID))) fn = (void *)AcceptEx;
        else if (!memcmp(in, &con, sizeof(GUID))) fn = (void *)connect_ex;
        else if (!memcmp(in, &gas, sizeof(GUID))) fn = (void *)GetAcceptExSockaddrs;
        if (!fn) return ws_fail(WSAEINVAL);
        memcpy(out, &fn, sizeof(fn));
        if (ret) *ret = sizeof(fn);
        return 0;
    }
    if (code == (DWORD)FIONBIO || code == (DWORD)FIONREAD) {
        u_long v = 0;
        if (code == (DWORD)FIONBIO) {
            if (!in || inlen < sizeof(u_long)) return ws_fail(WSAEFAULT);
            memcpy(&v, in, sizeof(v));
        } else if (!out || outlen < sizeof(u_long)) {
            return ws_fail(WSAEFAULT);
        }
        if (ioctlsocket(s, (long)code, &v)) return SOCKET_ERROR;
        if (code == (DWORD)FIONREAD) memcpy(out, &v, sizeof(v));
        if (ret) *ret = code == (DWORD)FIONREAD ? sizeof(v) : 0;
        return 0;
    }
    return ws_fail(WSAEOPNOTSUPP);
}

/* ---- WSA events ------------------------------------------------------------------- */

NSPA_EXPORT WSAEVENT WSAAPI WSACreateEvent(void) { return CreateEventW(NULL, TRUE, FALSE, NULL); }
NSPA_EXPORT BOOL WSAAPI WSACloseEvent(WSAEVENT e) { return CloseHandle(e); }
NSPA_EXPORT BOOL WSAAPI WSASetEvent(WSAEVENT e) { return SetEvent(e); }
NSPA_EXPORT BOOL WSAAPI WSAResetEvent(WSAEVENT e) { return ResetEvent(e); }
NSPA_EXPORT DWORD WSAAPI WSAWaitForMultipleEvents(DWORD n, const WSAEVENT *events, BOOL all, DWORD ms, BOOL alertable)
{
    return WaitForMultipleObjectsEx(n, events, all, ms, alertable);
}

NSPA_EXPORT int WSAAPI WSAEventSelect(SOCKET s, WSAEVENT e, long events)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    int r = io_ws_event_select((uint32_t)s, (uint32_t)(uintptr_t)e, (uint32_t)events);
    return r < 0 ? ws_fail(ws_err(r)) : 0;
}

NSPA_EXPORT int WSAAPI WSAEnumNetworkEvents(SOCKET s, WSAEVENT e, LPWSANETWORKEVENTS out)
{
    INIT_OR(SOCKET_ERROR);
    if (BAD_SOCKET(s)) return ws_fail(WSAENOTSOCK);
    if (!out) return ws_fail(WSAEFAULT);
    uint32_t ev = 0;
    int r = io_ws_enum_events((uint32_t)s, (uint32_t)(uintptr_t)e, &ev, out->iErrorCode);
    if (r < 0) return ws_fail(ws_err(r));
    out->lNetworkEvents = (long)ev;
    return 0;
}
