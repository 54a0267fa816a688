/*
 * WSAEventSelect / WSAEnumNetworkEvents with Winsock's re-enabling rules.
 *
 * A socket has a mask of events asked for, a record of events seen (es_pending, with
 * an error per event) and the set that may be recorded now (es_armed). An event that
 * is recorded is not recorded again until the call that re-enables it: FD_READ by a
 * receive, FD_ACCEPT by accept, FD_WRITE by a send that failed with WSAEWOULDBLOCK;
 * FD_CONNECT and FD_CLOSE are recorded once. After a re-enabling call the condition is
 * looked at again at once (data left after a receive records FD_READ again).
 * Readiness comes from the engine: the epoll engine's own edge-triggered set, or for
 * io_uring an epoll set of the event-selecting sockets watched by a poll request on the
 * ring. Every look is a poll() of the socket under its lock. WSAEventSelect makes the
 * socket non-blocking (and FIONBIO cannot turn that off while a mask is set).
 */
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include "io/io_internal.h"
#include "io/io_api.h"
#include "win32/win32_error.h"

#define E_READ    0x01
#define E_WRITE   0x02
#define E_ACCEPT  0x08
#define E_CONNECT 0x10
#define E_CLOSE   0x20
#define E_KNOWN   (E_READ | E_WRITE | 0x04 | E_ACCEPT | E_CONNECT | E_CLOSE)

static void record(struct io_file *f, uint32_t ev, int bit, int err, uint32_t *newly)
{
    if (!(f->es_mask & f->es_armed & ev)) return;
    f->es_pending |= ev;
    f->es_armed &= ~ev;
    f->es_err[bit] = err;
    *newly |= ev;
}

/* file lock held */
NSPA_HIDDEN void io_es_poll(struct io_file *f)
{
    if (!f->es_mask || f->fd < 0) return;
    /* Whether the stream is connected is read BEFORE the poll: a socket that is not
     * connected yet polls as POLLHUP, so a poll taken before a connect completed and a
     * getpeername() taken after it would record FD_CLOSE together with FD_CONNECT (and
     * never again when the peer really closes). Read in this order, a connection seen
     * here existed when the poll looked, so a hang-up in the poll is the peer's; a
     * connect that completes in between is seen by the engine's next edge. */
    int connected = 0;
    if (!f->listening && f->type == SOCK_STREAM) {
        struct sockaddr_storage a;
        socklen_t al = sizeof(a);
        connected = getpeername(f->fd, (struct sockaddr *)&a, &al) == 0;
    }
    struct pollfd p = { f->fd, POLLIN | POLLOUT | POLLRDHUP, 0 };
    if (poll(&p, 1, 0) < 0) return;
    uint32_t newly = 0;
    int soerr = 0;
    if (p.revents & POLLERR) {
        socklen_t l = sizeof(soerr);
        getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
    }
    if (f->listening) {
        if (p.revents & POLLIN) record(f, E_ACCEPT, 3, 0, &newly);
    } else if (f->type == SOCK_STREAM) {
        if (!f->es_connected && (connected || soerr) && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
            f->es_connected = 1;
            record(f, E_CONNECT, 4, soerr ? (int)win32_error_from_errno(soerr, WIN32_ERR_WSA) : 0, &newly);
            /* a connect that failed was never a connection: no FD_CLOSE follows */
            if (soerr && !connected) f->es_closed = 1;
        }
        int avail = 0;
        if (p.revents & POLLIN) ioctl(f->fd, FIONREAD, &avail);
        if (avail > 0) record(f, E_READ, 0, 0, &newly);
        if (connected && (p.revents & POLLOUT) && !soerr) record(f, E_WRITE, 1, 0, &newly);
        if (f->es_connected && !f->es_closed && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) && avail == 0) {
            f->es_closed = 1;
            record(f, E_CLOSE, 5, soerr ? (int)win32_error_from_errno(soerr, WIN32_ERR_WSA) : 0, &newly);
        }
    } else {
        if (p.revents & POLLIN) record(f, E_READ, 0, 0, &newly);
        if (p.revents & POLLOUT) record(f, E_WRITE, 1, 0, &newly);
    }
    if (newly && f->es_event) nspa_event_set(f->es_event, NULL);
}

NSPA_HIDDEN void io_es_reenable(struct io_file *f, int ev)
{
    pthread_mutex_lock(&f->lock);
    if (f->es_mask) {
        f->es_armed |= (uint32_t)ev;
        io_es_poll(f);
    }
    pthread_mutex_unlock(&f->lock);
}

NSPA_HIDDEN int io_ws_event_select(uint32_t s, uint32_t ev, uint32_t mask)
{
    int err = 0;
    struct io_file *f = io_sock_get(s, &err);
    if (!f) return -ENOTSOCK;
    nspa_obj_t dup = 0;
    int r = 0;
    if (mask & ~(uint32_t)0x3ff) r = -EINVAL;
    else if (mask && (!ev || nspa_obj_type(ev) != NSPA_TYPE_EVENT)) r = -EINVAL;
    else if (mask && nspa_dup(ev, &dup)) r = -ENOMEM;
    if (r) {
        io_file_put(f);
        return r;
    }
    const struct io_engine *e = io_engine();
    pthread_mutex_lock(&f->lock);
    nspa_obj_t old = f->es_event;
    int was = f->es_mask != 0;
    f->es_event = dup;
    f->es_mask = mask & E_KNOWN;
    f->es_pending = 0;                   /* the record is cleared */
    f->es_armed = E_KNOWN;
    for (int i = 0; i < 10; i++) f->es_err[i] = 0;
    if (mask) f->nonblock = 1;
    if (e && e->es_watch && (mask != 0) != was) e->es_watch(f, mask != 0);
    io_es_poll(f);                       /* conditions already true are recorded now */
    pthread_mutex_unlock(&f->lock);
    if (old) nspa_close(old);
    io_file_put(f);
    return 0;
}

NSPA_HIDDEN int io_ws_enum_events(uint32_t s, uint32_t ev, uint32_t *events, int *errs)
{
    int err = 0;
    struct io_file *f = io_sock_get(s, &err);
    if (!f) return -ENOTSOCK;
    if (ev && nspa_obj_type(ev) != NSPA_TYPE_EVENT) {
        io_file_put(f);
        return -EINVAL;
    }
    pthread_mutex_lock(&f->lock);
    *events = f->es_pending;
    for (int i = 0; i < 10; i++) errs[i] = f->es_err[i];
    f->es_pending = 0;
    /* reset under the lock: a record made after this sets it again */
    if (ev) nspa_event_reset(ev, NULL);
    pthread_mutex_unlock(&f->lock);
    io_file_put(f);
    return 0;
}
