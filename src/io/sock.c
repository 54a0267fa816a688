/*
 * Sockets, the Linux side: creation, addresses and options in Winsock numbers, and the
 * immediate (blocking or non-blocking) calls. Every socket's fd is O_NONBLOCK; a
 * "blocking" Winsock socket blocks in poll() here, honouring SO_RCVTIMEO/SO_SNDTIMEO.
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"
#include "win32/win32_error.h"

#define W_AF_INET   2
#define W_AF_INET6  23

NSPA_HIDDEN int io_addr_from_win(const void *wa, int wlen, struct sockaddr_storage *out)
{
    if (!wa) return -EFAULT;
    if (wlen < 2) return -EFAULT;
    uint16_t fam;
    memcpy(&fam, wa, 2);
    memset(out, 0, sizeof(*out));
    if (fam == W_AF_INET) {
        if (wlen < (int)sizeof(struct sockaddr_in)) return -EFAULT;
        memcpy(out, wa, sizeof(struct sockaddr_in));
        out->ss_family = AF_INET;
        return sizeof(struct sockaddr_in);
    }
    if (fam == W_AF_INET6) {
        if (wlen < (int)sizeof(struct sockaddr_in6)) return -EFAULT;
        memcpy(out, wa, sizeof(struct sockaddr_in6));
        out->ss_family = AF_INET6;
        return sizeof(struct sockaddr_in6);
    }
    return -EAFNOSUPPORT;
}

NSPA_HIDDEN int io_addr_to_win(const struct sockaddr *a, socklen_t alen, void *wa, int *wlen)
{
    int need;
    uint16_t wf;
    if (a->sa_family == AF_INET) { need = sizeof(struct sockaddr_in); wf = W_AF_INET; }
    else if (a->sa_family == AF_INET6) { need = sizeof(struct sockaddr_in6); wf = W_AF_INET6; }
    else return -EAFNOSUPPORT;
    if (!wa || !wlen || *wlen < need) return -EFAULT;
    memcpy(wa, a, (size_t)need);
    memcpy(wa, &wf, 2);
    *wlen = need;
    return 0;
}

NSPA_HIDDEN struct io_file *io_sock_get(uint32_t s, int *err)
{
    struct io_file *f = io_file_get(s, err);
    if (f && !f->is_socket) {
        io_file_put(f);
        *err = -ENOTSOCK;
        return NULL;
    }
    return f;
}
#define SOCK_OR_RETURN(f, s) int err_ = 0; struct io_file *f = io_sock_get(s, &err_); if (!f) return err_

static int install(int fd, int family, int type, int overlapped, uint32_t *out)
{
    struct io_file *f;
    int r = io_file_new(0, fd, &f, out);
    if (r) return r;
    f->is_socket = 1;
    f->family = family;
    f->type = type;
    f->overlapped = (uint8_t)overlapped;
    const struct io_engine *e = io_engine();
    if (e) e->file_new(f);
    nspa__fdmap_note(*out);                              /* described: others may take it */
    return 0;
}

/* socket / WSASocket's arguments as Windows judges them (its catalog: TCP over stream,
 * UDP over datagram, IPv4 and IPv6; raw sockets need rights NSPA does not have), in
 * Windows' order: no family and no protocol: WSAEINVAL; an unknown family:
 * WSAEAFNOSUPPORT; an unknown type: WSAESOCKTNOSUPPORT (raw: WSAEACCES); an unknown
 * protocol, or one the type does not carry: WSAEPROTONOSUPPORT. A zero type or family
 * is the first that fits the protocol (TCP for none), IPv4. */
NSPA_HIDDEN int io_ws_socket(int af, int type, int proto, int overlapped, uint32_t *out)
{
    if (!af && !proto) return -EINVAL;
    int fam = af == W_AF_INET || !af ? AF_INET : af == W_AF_INET6 ? AF_INET6 : -1;
    if (fam < 0) return -EAFNOSUPPORT;
    if (type == 3) return -EACCES;                              /* SOCK_RAW */
    int t = type == 1 ? SOCK_STREAM : type == 2 ? SOCK_DGRAM : type == 0 ? 0 : -1;
    if (t < 0) return -ESOCKTNOSUPPORT;
    if (proto && proto != IPPROTO_TCP && proto != IPPROTO_UDP) return -EPROTONOSUPPORT;
    if (!t) t = proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
    if ((proto == IPPROTO_TCP && t != SOCK_STREAM) || (proto == IPPROTO_UDP && t != SOCK_DGRAM))
        return -EPROTONOSUPPORT;
    int fd = socket(fam, t | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);
    if (fd < 0) return -errno;
    return install(fd, fam, t, overlapped, out);
}

NSPA_HIDDEN int io_ws_is_socket(uint32_t s)
{
    int err = 0;
    struct io_file *f = io_file_get(s, &err);
    if (!f) return io_is_port(s) ? 0 : err;
    int r = f->is_socket;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_bind(uint32_t s, const void *wa, int wlen)
{
    SOCK_OR_RETURN(f, s);
    struct sockaddr_storage a;
    int l = io_addr_from_win(wa, wlen, &a);
    int r = l < 0 ? l : (a.ss_family != f->family ? -EFAULT : 0);
    if (!r && bind(f->fd, (struct sockaddr *)&a, (socklen_t)l) < 0) r = -errno;
    io_file_put(f);
    return r;
}

/* Is the stream socket bound (Linux's listen and connect bind one that is not; Winsock's
 * listen refuses it) / connected? */
static int sock_bound(int fd)
{
    struct sockaddr_storage a;
    socklen_t al = sizeof(a);
    if (getsockname(fd, (struct sockaddr *)&a, &al) < 0) return 0;
    if (a.ss_family == AF_INET) return ((struct sockaddr_in *)&a)->sin_port != 0;
    if (a.ss_family == AF_INET6) return ((struct sockaddr_in6 *)&a)->sin6_port != 0;
    return 0;
}

static int sock_connected(int fd)
{
    struct sockaddr_storage a;
    socklen_t al = sizeof(a);
    return getpeername(fd, (struct sockaddr *)&a, &al) == 0;
}

/* A stream send's EPIPE, as Winsock tells it: still connected, so our own
 * shutdown(SD_SEND): WSAESHUTDOWN; never connected: WSAENOTCONN; else the connection
 * is gone (reset or closed): WSAECONNRESET. Never connected: the kernel measured no
 * round trip and negotiated no option (an established connection has at least the
 * SYN-ACK's round trip; its state says CLOSE once it is gone, as a new socket's does). */
static int send_epipe(int fd)
{
    if (sock_connected(fd)) return -ESHUTDOWN;
    struct tcp_info ti;
    socklen_t tl = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0 && !ti.tcpi_rtt && !ti.tcpi_options) return -ENOTCONN;
    return -ECONNRESET;
}

NSPA_HIDDEN int64_t io_sock_result(struct io_file *f, int dir, int64_t res)
{
    if (f->type != SOCK_STREAM || res > 0) return res;
    if (dir && res == -EPIPE) res = send_epipe(f->fd);
    if (res == -ECONNRESET) __atomic_store_n(&f->conn_reset, 1, __ATOMIC_RELAXED);
    else if ((res == 0 || res == -EPIPE) && __atomic_load_n(&f->conn_reset, __ATOMIC_RELAXED)) res = -ECONNRESET;
    return res;
}

NSPA_HIDDEN int io_sock_recv_ready(struct io_file *f)
{
    if (f->type != SOCK_DGRAM || __atomic_load_n(&f->bound_seen, __ATOMIC_RELAXED)) return 0;
    if (!sock_bound(f->fd)) return -EINVAL;
    __atomic_store_n(&f->bound_seen, 1, __ATOMIC_RELAXED);
    return 0;
}

NSPA_HIDDEN int io_ws_listen(uint32_t s, int backlog)
{
    SOCK_OR_RETURN(f, s);
    int r = 0;
    if (f->type != SOCK_STREAM) r = -EOPNOTSUPP;
    else if (!f->listening && sock_connected(f->fd)) r = -EISCONN;   /* WSAEISCONN */
    else if (!f->listening && !sock_bound(f->fd)) r = -EINVAL;      /* not bound: WSAEINVAL */
    else if (listen(f->fd, backlog < 0 ? 0 : backlog > 4096 ? 4096 : backlog) < 0) r = -errno;
    else f->listening = 1;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_sock_block(struct io_file *f, int events, uint32_t timeout_ms)
{
    return io_block(f->fd, events, timeout_ms);     /* CancelSynchronousIo wakes it (block.c) */
}

NSPA_HIDDEN int io_ws_accept(uint32_t s, void *wa, int *wlen, uint32_t *out)
{
    SOCK_OR_RETURN(f, s);
    int r;
    if (!f->listening) { io_file_put(f); return -EINVAL; }
    if (wa && (!wlen || *wlen < (f->family == AF_INET ? 16 : 28))) { io_file_put(f); return -EFAULT; }
    for (;;) {
        struct sockaddr_storage a;
        socklen_t al = sizeof(a);
        int fd = accept4(f->fd, (struct sockaddr *)&a, &al, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            r = install(fd, f->family, f->type, 1, out);
            if (!r && wa) io_addr_to_win((struct sockaddr *)&a, al, wa, wlen);
            break;
        }
        r = -errno;
        if (r == -EINTR || r == -ECONNABORTED) continue;
        if (r != -EAGAIN || f->nonblock) break;
        if ((r = io_sock_block(f, POLLIN, 0))) break;
    }
    if (f->es_mask) io_es_reenable(f, 1 << 3);   /* FD_ACCEPT */
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_connect(uint32_t s, const void *wa, int wlen)
{
    SOCK_OR_RETURN(f, s);
    struct sockaddr_storage a;
    int l = io_addr_from_win(wa, wlen, &a);
    int r = l < 0 ? l : 0;
    /* connected already (a non-blocking connect that has finished meanwhile, which
     * Linux's next connect reports once as success): WSAEISCONN */
    if (!r && f->type == SOCK_STREAM && sock_connected(f->fd)) r = -EISCONN;
    if (!r && connect(f->fd, (struct sockaddr *)&a, (socklen_t)l) < 0) {
        r = -errno;
        if (r == -EINPROGRESS) {
            if (f->nonblock) {
                r = -EAGAIN;             /* WSAEWOULDBLOCK, as Winsock says */
            } else if (!(r = io_sock_block(f, POLLOUT, 0))) {
                int e = 0;
                socklen_t el = sizeof(e);
                getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &e, &el);
                r = -e;
            }
        }
    }
    io_file_put(f);
    return r;
}

static int msg_flags_from_win(int w)
{
    int l = 0;
    if (w & 1) l |= MSG_OOB;
    if (w & 2) l |= MSG_PEEK;
    if (w & 4) l |= MSG_DONTROUTE;
    if (w & 8) l |= MSG_WAITALL;
    return l;
}

/* WSABUFs to an iovec. *iovp: the caller's IO_MAX_IOV (on its stack, or an operation
 * record's), or (more buffers, up to IO_MAX_BUFS) a vector allocated here, on the issue
 * path, that the caller frees (*iovp then differs from what it passed). The synchronous
 * calls below and the overlapped ones (wsa.c) share it. */
NSPA_HIDDEN int io_fill_iov(struct iovec **iovp, const struct io_wsabuf *b, uint32_t n)
{
    if (n > IO_MAX_BUFS) return -ENOBUFS;
    if (n && !b) return -EFAULT;
    if (n > IO_MAX_IOV && !(*iovp = malloc(n * sizeof(**iovp)))) return -ENOBUFS;
    struct iovec *iov = *iovp;
    for (uint32_t i = 0; i < n; i++) {
        if (!b[i].buf && b[i].len) return -EFAULT;
        iov[i].iov_base = b[i].buf;
        iov[i].iov_len = b[i].len;
    }
    return 0;
}

NSPA_HIDDEN int64_t io_ws_send(uint32_t s, const struct io_wsabuf *b, uint32_t n, int flags, const void *to,
                               int tolen)
{
    SOCK_OR_RETURN(f, s);
    struct iovec sv[IO_MAX_IOV], *iov = sv;
    struct sockaddr_storage a;
    struct msghdr m = { 0 };
    int64_t r = io_fill_iov(&iov, b, n);
    if (!r && to && f->type == SOCK_DGRAM) {
        int l = io_addr_from_win(to, tolen, &a);
        if (l < 0) r = l;
        m.msg_name = &a;
        m.msg_namelen = (socklen_t)(l < 0 ? 0 : l);
    }
    m.msg_iov = iov;
    m.msg_iovlen = n;
    /* one buffer and no address (send, a one-buffer WSASend): sendto() without an
     * address, which the kernel takes as one user buffer; sendmsg() copies the header
     * in and imports an iovec (io_op_one_buf) */
    int one = n == 1 && !m.msg_name;
    while (!r) {
        int sf = msg_flags_from_win(flags) | MSG_DONTWAIT | MSG_NOSIGNAL;
        ssize_t x = one ? io_send1(f->fd, iov[0].iov_base, iov[0].iov_len, sf) : sendmsg(f->fd, &m, sf);
        if (x >= 0) { r = x; break; }
        r = -errno;
        if (r == -EINTR) { r = 0; continue; }
        if (r != -EAGAIN || f->nonblock) break;
        if ((r = io_sock_block(f, POLLOUT, f->sndtimeo))) break;
    }
    if (r == -EAGAIN && f->es_mask) io_es_reenable(f, 1 << 1);   /* FD_WRITE comes back */
    r = io_sock_result(f, 1, r);
    if (iov != sv) free(iov);
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int64_t io_ws_recv(uint32_t s, const struct io_wsabuf *b, uint32_t n, int *flags, void *from,
                               int *fromlen)
{
    SOCK_OR_RETURN(f, s);
    struct iovec sv[IO_MAX_IOV], *iov = sv;
    struct sockaddr_storage a;
    struct msghdr m = { 0 };
    int64_t r = io_fill_iov(&iov, b, n);
    if (!r && from && (!fromlen || *fromlen < (f->family == AF_INET ? 16 : 28))) r = -EFAULT;
    if (!r) r = io_sock_recv_ready(f);
    if (!r) r = io_kernel_writes(iov, n);
    m.msg_iov = iov;
    m.msg_iovlen = n;
    int lf = flags ? msg_flags_from_win(*flags) : 0;
    int one = n == 1 && !from && f->type == SOCK_STREAM;   /* recv(): see io_op_one_buf */
    while (!r) {
        m.msg_name = &a;
        m.msg_namelen = sizeof(a);
        ssize_t x = one ? io_recv1(f->fd, iov[0].iov_base, iov[0].iov_len, lf | MSG_DONTWAIT)
                        : recvmsg(f->fd, &m, lf | MSG_DONTWAIT);
        if (x >= 0) {
            r = x;
            if (from && m.msg_namelen) io_addr_to_win((struct sockaddr *)&a, m.msg_namelen, from, fromlen);
            if (m.msg_flags & MSG_TRUNC) r = -EMSGSIZE;
            break;
        }
        r = -errno;
        if (r == -EINTR) { r = 0; continue; }
        if (r != -EAGAIN || f->nonblock) break;
        if ((r = io_sock_block(f, POLLIN, f->rcvtimeo))) break;
    }
    r = io_sock_result(f, 0, r);
    if (flags) *flags = 0;
    if (f->es_mask) io_es_reenable(f, 1 << 0);       /* FD_READ */
    if (iov != sv) free(iov);
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_shutdown(uint32_t s, int how)
{
    SOCK_OR_RETURN(f, s);
    int r = how < 0 || how > 2 ? -EINVAL : 0;
    if (!r && shutdown(f->fd, how == 0 ? SHUT_RD : how == 1 ? SHUT_WR : SHUT_RDWR) < 0) r = -errno;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_close(uint32_t s)
{
    int r = io_ws_is_socket(s);
    if (r < 0) return -ENOTSOCK;
    if (r == 0) return -ENOTSOCK;
    return nspa_close(s) ? -ENOTSOCK : 0;
}

NSPA_HIDDEN int io_ws_name(uint32_t s, int peer, void *wa, int *wlen)
{
    SOCK_OR_RETURN(f, s);
    struct sockaddr_storage a;
    socklen_t al = sizeof(a);
    int r = (peer ? getpeername(f->fd, (struct sockaddr *)&a, &al) : getsockname(f->fd, (struct sockaddr *)&a, &al))
                ? -errno : 0;
    if (!r && !peer && al && ((struct sockaddr *)&a)->sa_family == AF_INET &&
        ((struct sockaddr_in *)&a)->sin_port == 0 && ((struct sockaddr_in *)&a)->sin_addr.s_addr == 0)
        r = -EINVAL;                         /* WSAEINVAL: not bound */
    if (!r) r = io_addr_to_win((struct sockaddr *)&a, al, wa, wlen);
    io_file_put(f);
    return r;
}

/* Winsock option -> Linux (level, name); 0 when unknown */
static int opt_map(int level, int name, int *ll, int *ln)
{
    if (level == 0xffff) {
        *ll = SOL_SOCKET;
        switch (name) {
        case 0x0002: *ln = SO_ACCEPTCONN; return 1;
        case 0x0004: *ln = SO_REUSEADDR; return 1;
        case 0x0008: *ln = SO_KEEPALIVE; return 1;
        case 0x0010: *ln = SO_DONTROUTE; return 1;
        case 0x0020: *ln = SO_BROADCAST; return 1;
        case 0x0100: *ln = SO_OOBINLINE; return 1;
        case 0x1001: *ln = SO_SNDBUF; return 1;
        case 0x1002: *ln = SO_RCVBUF; return 1;
        case 0x1003: *ln = SO_SNDLOWAT; return 1;
        case 0x1004: *ln = SO_RCVLOWAT; return 1;
        case 0x1007: *ln = SO_ERROR; return 1;
        default: return 0;
        }
    }
    if (level == 6 && name == 1) { *ll = IPPROTO_TCP; *ln = TCP_NODELAY; return 1; }
    if (level == 41 && name == 27) { *ll = IPPROTO_IPV6; *ln = IPV6_V6ONLY; return 1; }
    if (level == 41 && name == 4) { *ll = IPPROTO_IPV6; *ln = IPV6_UNICAST_HOPS; return 1; }
    if (level == 0 && name == 4) { *ll = IPPROTO_IP; *ln = IP_TTL; return 1; }
    return 0;
}

NSPA_HIDDEN int io_ws_setopt(uint32_t s, int level, int name, const void *val, int len)
{
    SOCK_OR_RETURN(f, s);
    int r = 0, ll, ln, v = 0;
    if (!val || len < 1) r = -EFAULT;
    else if (level == 0xffff && (name == 0x700B || name == 0x7010 || name == (int)~0x4)) r = 0;  /* accept/connect context, exclusive */
    else if (level == 0xffff && (name == 0x1005 || name == 0x1006)) {
        if (len < 4) r = -EFAULT;
        else memcpy(name == 0x1006 ? &f->rcvtimeo : &f->sndtimeo, val, 4);
    } else if (level == 0xffff && name == 0x0080) {   /* linger: two u_shorts */
        if (len < 4) r = -EFAULT;
        else {
            uint16_t w[2];
            memcpy(w, val, 4);
            struct linger lg = { w[0] != 0, w[1] };
            if (setsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) r = -errno;
        }
    } else if (!opt_map(level, name, &ll, &ln)) {
        r = -ENOPROTOOPT;
    } else {
        /* a BOOL or an int; Winsock also takes a single byte for a BOOL */
        if (len >= 4) memcpy(&v, val, 4);
        else v = *(const unsigned char *)val;
        if (setsockopt(f->fd, ll, ln, &v, sizeof(v))) r = -errno;
    }
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_getopt(uint32_t s, int level, int name, void *val, int *len)
{
    SOCK_OR_RETURN(f, s);
    int r = 0, ll, ln, v = 0;
    socklen_t vl = sizeof(v);
    if (!val || !len || *len < 4) r = -EFAULT;
    else if (level == 0xffff && name == 0x1008) v = f->type == SOCK_STREAM ? 1 : 2;    /* SO_TYPE */
    else if (level == 0xffff && (name == 0x1005 || name == 0x1006)) v = (int)(name == 0x1006 ? f->rcvtimeo : f->sndtimeo);
    else if (level == 0xffff && name == 0x0080) {
        struct linger lg;
        socklen_t gl = sizeof(lg);
        if (getsockopt(f->fd, SOL_SOCKET, SO_LINGER, &lg, &gl)) r = -errno;
        uint16_t w[2] = { (uint16_t)lg.l_onoff, (uint16_t)lg.l_linger };
        memcpy(&v, w, 4);
    } else if (!opt_map(level, name, &ll, &ln)) r = -ENOPROTOOPT;
    else if (getsockopt(f->fd, ll, ln, &v, &vl)) r = -errno;
    else if (ln == SO_ERROR && ll == SOL_SOCKET) v = v ? (int)win32_error_from_errno(v, WIN32_ERR_WSA) : 0;
    else if (ll == SOL_SOCKET && (ln == SO_SNDBUF || ln == SO_RCVBUF)) v /= 2;   /* Linux doubles it */
    if (!r) {
        memcpy(val, &v, 4);
        *len = 4;
    }
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_ioctl(uint32_t s, uint32_t cmd, uint32_t *arg)
{
    SOCK_OR_RETURN(f, s);
    int r = 0;
    if (!arg) r = -EFAULT;
    else if (cmd == 0x8004667Eu) {                       /* FIONBIO */
        if (!*arg && f->es_mask) r = -EINVAL;            /* WSAEventSelect forces it */
        else f->nonblock = *arg != 0;
    } else if (cmd == 0x4004667Fu) {                     /* FIONREAD */
        int v = 0;
        if (ioctl(f->fd, FIONREAD, &v) < 0) r = -errno;
        else *arg = (uint32_t)v;
    } else r = -EINVAL;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_ws_poll(struct io_wspollfd *fds, uint32_t n, int timeout_ms)
{
    if (!fds || !n) return -EINVAL;
    if (n > 1024) return -EINVAL;
    struct pollfd p[1024];
    struct io_file *held[1024];
    for (uint32_t i = 0; i < n; i++) {
        int err = 0;
        held[i] = fds[i].fd <= UINT32_MAX ? io_sock_get((uint32_t)fds[i].fd, &err) : NULL;
        p[i].fd = held[i] ? held[i]->fd : -1;
        p[i].events = 0;
        short e = fds[i].events;
        if (e & 0x0300) p[i].events |= POLLIN;           /* POLLRDNORM | POLLRDBAND */
        if (e & 0x0400) p[i].events |= POLLPRI;
        if (e & 0x0030) p[i].events |= POLLOUT;
        p[i].revents = 0;
    }
    int r;
    do r = poll(p, n, timeout_ms); while (r < 0 && errno == EINTR);
    if (r < 0) r = -errno;
    int cnt = 0;
    for (uint32_t i = 0; i < n; i++) {
        short w = 0;
        if (!held[i]) w = 0x0004;                        /* POLLNVAL */
        else {
            if (p[i].revents & POLLIN) w |= fds[i].events & 0x0300 ? 0x0100 : 0;
            if (p[i].revents & POLLPRI) w |= 0x0400;
            if (p[i].revents & POLLOUT) w |= 0x0010;
            if (p[i].revents & POLLERR) w |= 0x0001;
            if (p[i].revents & POLLHUP) w |= 0x0002;
            io_file_put(held[i]);
        }
        fds[i].revents = w;
        if (w) cnt++;
    }
    return r < 0 ? r : cnt;
}
