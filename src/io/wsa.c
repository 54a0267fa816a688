/*
 * Overlapped operations (the issue side): a record is filled from the call's
 * arguments, then io_issue() completes it at once or makes it pending. Overlapped
 * results, cancels, and the ports' handle-level calls.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

/* hEvent: its low bit set means "no completion packet" (NT's convention) */
static void set_event(struct io_op *op, void *ov)
{
    uintptr_t e = (uintptr_t)((void **)ov)[3];
    op->no_port = (uint8_t)(e & 1);
    op->event = (nspa_obj_t)(e & ~(uintptr_t)1);
}

NSPA_HIDDEN struct io_op *io_op_new(struct io_file *f, int kind, int dir, void *ov, void *routine, int rk)
{
    struct io_op *op = io_op_alloc();
    if (!op) return NULL;
    op->file = f;
    op->kind = (uint8_t)kind;
    op->dir = (uint8_t)dir;
    op->ov = ov;
    op->tid = nspa_thread_id();
    op->port = __atomic_load_n(&f->port, __ATOMIC_ACQUIRE);
    if (op->port) op->key = f->key;      /* written before the port (release) */
    /* with a completion routine, hEvent belongs to the program (ReadFileEx, WSARecv) */
    if (ov && !routine) set_event(op, ov);
    if (routine) {
        op->routine = routine;
        op->routine_kind = (uint8_t)rk;
        nspa__win32_apc_event();         /* the thread's APC record exists before completion */
    }
    return op;
}

/* Issue; the op holds the caller's reference on f. On an immediate completion the
 * OVERLAPPED tells the bytes. */
NSPA_HIDDEN int io_op_issue(struct io_op *op, uint32_t *bytes)
{
    void *ov = op->ov;
    /* the event is reset when the operation starts (NtReadFile / WSARecv do) */
    if (op->event) nspa_event_reset(op->event, NULL);
    else if (ov) op->reset_file = 1;     /* the file object: in io_issue's lock section */
    int r = io_issue(op);
    if (r < 0) {
        io_file_put(op->file);           /* (a continuation moved the op to another file) */
        io_op_free(op);
        return r;
    }
    if (r == 0) return -EINPROGRESS;
    /* completed at once and delivered: the OVERLAPPED may be another thread's by now
     * (its packet taken, the OVERLAPPED reused): the result as io_complete noted it */
    if (bytes) *bytes = io_imm.bytes;
    if (io_imm.status == 0x80000005u) return -EMSGSIZE;  /* a datagram larger than the buffers */
    return 0;
}

/* the buffers into the record's vector; more than IO_MAX_IOV (up to IO_MAX_BUFS) into
 * one allocated on the issue path and freed with the record (io_op_free): a
 * scatter-gather server's 17th buffer is no reason to fail, and the wait and completion
 * paths still allocate nothing */
static int fill(struct io_op *op, const struct io_wsabuf *b, uint32_t n)
{
    struct iovec *v = op->iov;
    int r = io_fill_iov(&v, b, n);
    if (v != op->iov) op->iov_ext = v;
    if (r) return r;
    op->msg.msg_iov = v;
    op->msg.msg_iovlen = n;
    return 0;
}

static int sock_ref(uint32_t s, struct io_file **out)
{
    int err = 0;
    *out = io_sock_get(s, &err);
    return *out ? 0 : -ENOTSOCK;
}

#define FAIL_OP(op, f, r) do { io_op_free(op); io_file_put(f); return (r); } while (0)

/* @rk: the routine's kind: WSARecv's (RT_WSA) or ReadFileEx's on a socket (RT_FILE) */
static int recv_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, uint32_t *flags, void *from, int *fromlen,
                    void *ov, void *routine, uint32_t *bytes, int rk)
{
    struct io_file *f;
    int r = sock_ref(s, &f);
    if (r) return r;
    if (!flags) { io_file_put(f); return -EFAULT; }
    if ((r = io_sock_recv_ready(f))) { io_file_put(f); return r; }
    struct io_op *op = io_op_new(f, OP_RECV, 0, ov, routine, rk);
    if (!op) { io_file_put(f); return -ENOBUFS; }
    if ((r = fill(op, b, n))) FAIL_OP(op, f, r);
    if ((r = io_kernel_writes(op->msg.msg_iov, op->msg.msg_iovlen))) FAIL_OP(op, f, r);
    if (*flags & 2) op->msg_flags |= MSG_PEEK;
    if (*flags & 1) op->msg_flags |= MSG_OOB;
    if (*flags & 8) op->msg_flags |= MSG_WAITALL;
    if (from) {
        if (!fromlen || *fromlen < (f->family == AF_INET ? 16 : 28)) FAIL_OP(op, f, -EFAULT);
        op->from_out = from;
        op->fromlen_out = fromlen;
        op->msg.msg_name = &op->addr;
        op->msg.msg_namelen = sizeof(op->addr);
    }
    *flags = 0;
    if (f->es_mask) io_es_reenable(f, 1);       /* a receive re-enables FD_READ */
    r = io_op_issue(op, bytes);
    if (r == -EMSGSIZE) *flags = 0x8000;          /* MSG_PARTIAL */
    return r;
}

NSPA_HIDDEN int io_ws_recv_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, uint32_t *flags, void *from,
                               int *fromlen, void *ov, void *routine, uint32_t *bytes)
{
    return recv_ovl(s, b, n, flags, from, fromlen, ov, routine, bytes, RT_WSA);
}

static int send_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, const void *to, int tolen, void *ov,
                    void *routine, uint32_t *bytes, int rk)
{
    struct io_file *f;
    int r = sock_ref(s, &f);
    if (r) return r;
    struct io_op *op = io_op_new(f, OP_SEND, 1, ov, routine, rk);
    if (!op) { io_file_put(f); return -ENOBUFS; }
    if ((r = fill(op, b, n))) FAIL_OP(op, f, r);
    if (to && f->type == SOCK_DGRAM) {
        int l = io_addr_from_win(to, tolen, &op->addr);
        if (l < 0) FAIL_OP(op, f, l);
        op->msg.msg_name = &op->addr;
        op->msg.msg_namelen = (socklen_t)l;
    }
    return io_op_issue(op, bytes);     /* a stream's EPIPE: io_sock_result (io_op_finish) */
}

NSPA_HIDDEN int io_ws_send_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, uint32_t flags, const void *to,
                               int tolen, void *ov, void *routine, uint32_t *bytes)
{
    (void)flags;
    return send_ovl(s, b, n, to, tolen, ov, routine, bytes, RT_WSA);
}

/* ReadFile / WriteFile (and the Ex forms) on a socket, as Windows allows: without an
 * OVERLAPPED a receive or send that blocks as recv / send do; with one, an overlapped
 * receive or send whose routine is ReadFileEx's kind. Returns as io_file_rw. */
NSPA_HIDDEN int io_sock_file_rw(uint32_t s, int wr, void *buf, uint32_t len, uint32_t *done, void *ov, void *routine)
{
    struct io_wsabuf b = { len, buf };
    if (!ov) {
        if (routine) return -EINVAL;
        int64_t r = wr ? io_ws_send(s, &b, 1, 0, NULL, 0) : io_ws_recv(s, &b, 1, NULL, NULL, NULL);
        if (r < 0) return (int)r;
        if (done) *done = (uint32_t)r;
        return 0;
    }
    uint32_t flags = 0;
    return wr ? send_ovl(s, &b, 1, NULL, 0, ov, routine, done, RT_FILE)
              : recv_ovl(s, &b, 1, &flags, NULL, NULL, ov, routine, done, RT_FILE);
}

NSPA_HIDDEN int io_ws_accept_ovl(uint32_t s, uint32_t acc, void *buf, uint32_t rxlen, uint32_t local,
                                 uint32_t remote, uint32_t *bytes, void *ov)
{
    struct io_file *f, *a;
    int r = sock_ref(s, &f);
    if (r) return r;
    if ((r = sock_ref(acc, &a))) { io_file_put(f); return r; }
    int need = f->family == AF_INET ? 16 + 16 : 28 + 16;
    if (!ov || !buf) r = -EFAULT;
    else if (!f->listening) r = -EINVAL;
    else if ((int)local < need || (int)remote < need) r = -EFAULT;
    else if (nspa_vm_before_kernel_write(buf, (size_t)rxlen + local + remote)) r = -EFAULT;
    struct io_op *op = r ? NULL : io_op_new(f, OP_ACCEPT, 0, ov, NULL, 0);
    if (!op) {
        io_file_put(a);
        io_file_put(f);
        return r ? r : -ENOBUFS;
    }
    op->acc = a;
    op->acc_buf = buf;
    op->acc_local = local;
    op->acc_remote = remote;
    op->acc_rxlen = rxlen;
    r = io_op_issue(op, bytes);
    return r;
}

NSPA_HIDDEN int io_ws_connect_ovl(uint32_t s, const void *wa, int wlen, const void *data, uint32_t len,
                                  uint32_t *sent, void *ov)
{
    struct io_file *f;
    int r = sock_ref(s, &f);
    if (r) return r;
    struct sockaddr_storage me;
    socklen_t ml = sizeof(me);
    if (!ov) r = -EFAULT;
    else if (f->type != SOCK_STREAM) r = -EINVAL;
    else if (len && !data) r = -EFAULT;
    else if (getsockname(f->fd, (struct sockaddr *)&me, &ml) < 0 ||
             (me.ss_family == AF_INET && ((struct sockaddr_in *)&me)->sin_port == 0) ||
             (me.ss_family == AF_INET6 && ((struct sockaddr_in6 *)&me)->sin6_port == 0))
        r = -EINVAL;                             /* ConnectEx needs a bound socket */
    struct io_op *op = r ? NULL : io_op_new(f, OP_CONNECT, 1, ov, NULL, 0);
    if (!op) { io_file_put(f); return r ? r : -ENOBUFS; }
    int l = io_addr_from_win(wa, wlen, &op->addr);
    if (l < 0) FAIL_OP(op, f, l);
    op->msg.msg_namelen = (socklen_t)l;
    op->acc_buf = (void *)data;
    op->acc_rxlen = len;
    uint32_t n = 0;
    r = io_op_issue(op, &n);
    if (sent && !r) *sent = n;
    return r;
}

/* ---- overlapped results ------------------------------------------------------------ */

NSPA_HIDDEN int io_ovl_wait(uint32_t h, void *ov, uint64_t deadline, int alertable)
{
    uintptr_t *o = ov;
    if (__atomic_load_n(&o[0], __ATOMIC_ACQUIRE) != IO_STATUS_PENDING) return 0;
    if (!deadline && !alertable) return -EINPROGRESS;
    nspa_obj_t w = (nspa_obj_t)((uintptr_t)((void **)ov)[3] & ~(uintptr_t)1);
    if (!w) w = h;                       /* no event: the file handle is signaled */
    for (;;) {
        struct nspa_wait_args a = {
            .timeout = deadline, .objs = &w, .count = 1, .owner = nspa_thread_id(),
            .alert = alertable ? nspa__win32_apc_event() : 0,
        };
        int r = nspa_wait_any(&a);
        if (__atomic_load_n(&o[0], __ATOMIC_ACQUIRE) != IO_STATUS_PENDING) return 0;
        if (r == 0 && alertable && a.index == 1) {
            if (nspa__win32_run_apcs()) return -EINTR;
            continue;
        }
        if (r == -ETIMEDOUT) return -ETIMEDOUT;
        if (r < 0 && r != -EOWNERDEAD) return r == -EINVAL ? -EBADF : r;
        /* the event was set for something else (reused events): look again */
    }
}

NSPA_HIDDEN int io_cancel_h(uint32_t h, void *ov, int this_thread)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    int n = io_cancel(f, ov, this_thread ? nspa_thread_id() : 0);
    io_file_put(f);
    return n;
}

NSPA_HIDDEN int io_is_port(uint32_t h)
{
    struct io_file *p = io_port_get(h);
    if (!p) return 0;
    io_file_put(p);
    return 1;
}

NSPA_HIDDEN int io_port_new(uint32_t concurrency, uint32_t *out) { return io_port_create(concurrency, out); }

NSPA_HIDDEN int io_port_assoc(uint32_t h, uint32_t port, uintptr_t key)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    struct io_file *p = io_port_get(port);
    int r = 0;
    if (!p) r = -EBADF;
    else {
        pthread_mutex_lock(&f->lock);
        if (f->port) r = -EINVAL;        /* a handle is associated once */
        else {
            f->key = key;
            __atomic_store_n(&f->port, p, __ATOMIC_RELEASE);   /* the file keeps the reference */
            p = NULL;
        }
        pthread_mutex_unlock(&f->lock);
        if (p) io_file_put(p);
    }
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_port_post_h(uint32_t port, uint32_t bytes, uintptr_t key, void *ov)
{
    struct io_file *p = io_port_get(port);
    if (!p) return -EBADF;
    struct io_op *op = io_op_alloc();
    if (!op) { io_file_put(p); return -ENOMEM; }
    op->kind = OP_POST;
    op->key = key;
    op->ov = ov;
    op->res = bytes;
    op->status = 0;
    io_port_post(p, op);
    io_file_put(p);
    return 0;
}

/* a packet as an OVERLAPPED_ENTRY; the record goes back to the pool */
static void entry_of(struct io_op *op, struct io_entry *e)
{
    e->key = op->key;
    e->ov = op->ov;
    e->internal = op->status;
    e->bytes = op->kind == OP_POST ? (uint32_t)op->res : op->res > 0 ? (uint32_t)op->res : 0;
    io_op_free(op);
}

NSPA_HIDDEN int io_port_dequeue(uint32_t port, struct io_entry *e, uint32_t n, uint64_t deadline, int alertable)
{
    struct io_op *ops[64];
    if (n > 64) n = 64;
    int r = io_port_get_packets(port, ops, n, deadline, alertable);
    if (r <= 0) return r;
    for (int i = 0; i < r; i++) entry_of(ops[i], &e[i]);
    return r;
}

NSPA_HIDDEN int io_port_take_entry(uint32_t port, struct io_entry *e)
{
    struct io_op *op = io_port_take(port);
    if (!op) return 0;
    entry_of(op, e);
    return 1;
}

NSPA_HIDDEN int io_set_notify(uint32_t h, uint8_t modes)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    if (modes & ~3u) { io_file_put(f); return -EINVAL; }
    __atomic_fetch_or(&f->notify_modes, modes, __ATOMIC_RELEASE);   /* NT: they cannot be turned off */
    io_file_put(f);
    return 0;
}

