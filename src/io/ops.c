/*
 * One attempt at an operation's system call, never blocking (the immediate path and
 * the epoll engine), and finishing what the kernel did (AcceptEx's socket and
 * addresses, a datagram's source, end of file).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "io/io_internal.h"

static inline int64_t ret(ssize_t r) { return r < 0 ? -errno : r; }

NSPA_HIDDEN int64_t io_op_try(struct io_op *op)
{
    int fd = op->file->fd;
    ssize_t r;
    switch (op->kind) {
    case OP_RECV:
        op->msg.msg_flags = 0;
        if (io_op_one_buf(op)) return ret(io_recv1(fd, op->iov[0].iov_base, op->iov[0].iov_len, op->msg_flags | MSG_DONTWAIT));
        return ret(recvmsg(fd, &op->msg, op->msg_flags | MSG_DONTWAIT));
    case OP_SEND:
        if (io_op_one_buf(op)) return ret(io_send1(fd, op->iov[0].iov_base, op->iov[0].iov_len, MSG_DONTWAIT | MSG_NOSIGNAL));
        return ret(sendmsg(fd, &op->msg, MSG_DONTWAIT | MSG_NOSIGNAL));
    case OP_ACCEPT:
        op->msg.msg_namelen = sizeof(op->addr);
        return ret(accept4(fd, (struct sockaddr *)&op->addr, &op->msg.msg_namelen, SOCK_NONBLOCK | SOCK_CLOEXEC));
    case OP_CONNECT:
        /* io_uring connects by itself (a connect already in progress would make its
         * own attempt fail with EALREADY): only epoll drives connect() */
        if (io_engine() == &io_engine_uring) return -EAGAIN;
        r = connect(fd, (struct sockaddr *)&op->addr, op->msg.msg_namelen);
        if (r == 0) return 0;
        if (errno == EINPROGRESS || errno == EALREADY) {
            op->cancel_sent = 1;             /* marks "started" for the epoll engine */
            return -EAGAIN;
        }
        if (errno == EISCONN && op->cancel_sent) return 0;
        return -errno;
    case OP_READ:
    case OP_WRITE: {
        /* io_uring: try the page cache without blocking, else the ring does it;
         * epoll: files do not poll, the caller's path does the operation */
        int nowait = io_engine() == &io_engine_uring ? RWF_NOWAIT : 0;
        if (op->offset < 0) nowait = 0;
        if (op->kind == OP_READ)
            r = preadv2(fd, op->iov, (int)op->msg.msg_iovlen, op->offset, nowait);
        else
            r = pwritev2(fd, op->iov, (int)op->msg.msg_iovlen, op->offset, nowait | (op->append ? RWF_APPEND : 0));
        if (r < 0 && errno == EOPNOTSUPP && nowait) return -EAGAIN;
        return ret(r);
    }
    default:
        return -EINVAL;
    }
}

static void put_addr(void *block, const struct sockaddr *a, socklen_t alen, uint32_t size)
{
    /* the block: the address length (an int), then the Windows sockaddr */
    int wl = (int)size - (int)sizeof(int);
    if (io_addr_to_win(a, alen, (char *)block + sizeof(int), &wl) < 0) wl = 0;
    memcpy(block, &wl, sizeof(int));
}

/* Turn @op into a @kind on @nf (whose reference the op takes over; the one on its
 * current file is dropped) over one buffer. */
static void continue_on(struct io_op *op, struct io_file *nf, int kind, int dir, void *buf, uint32_t len)
{
    struct io_file *old = op->file;
    op->file = nf;
    op->acc = NULL;
    op->kind = (uint8_t)kind;
    op->dir = (uint8_t)dir;
    op->iov[0].iov_base = buf;
    op->iov[0].iov_len = len;
    memset(&op->msg, 0, sizeof(op->msg));
    op->msg.msg_iov = op->iov;
    op->msg.msg_iovlen = 1;
    op->msg_flags = 0;
    op->acc_rxlen = 0;
    io_file_put(old);
}

NSPA_HIDDEN int64_t io_op_finish(struct io_op *op, int64_t res)
{
    switch (op->kind) {
    case OP_SEND:
        return res > 0 ? res : io_sock_result(op->file, 1, res);
    case OP_RECV:
        if (res <= 0) res = io_sock_result(op->file, 0, res);
        op->msg_flags = op->msg.msg_flags;
        if (res >= 0 && op->from_out && op->fromlen_out) {
            int wl = *op->fromlen_out;
            if (io_addr_to_win((struct sockaddr *)&op->addr, op->msg.msg_namelen, op->from_out, &wl) == 0)
                *op->fromlen_out = wl;
        }
        return res;
    case OP_ACCEPT: {
        if (res < 0) return res;
        int nfd = (int)res;
        struct io_file *a = op->acc;
        const struct io_engine *e = io_engine();
        pthread_mutex_lock(&a->lock);
        if (a->fd >= 0 && e) e->file_gone(a);
        int r = a->fd >= 0 ? dup3(nfd, a->fd, O_CLOEXEC) : -1;
        if (r >= 0 && e) e->file_new(a);
        pthread_mutex_unlock(&a->lock);
        close(nfd);
        if (r < 0) return -EBADF;
        /* AcceptEx's buffer: [received data][local address block][remote address block] */
        char *buf = (char *)op->acc_buf + op->acc_rxlen;
        struct sockaddr_storage local;
        socklen_t ll = sizeof(local);
        getsockname(a->fd, (struct sockaddr *)&local, &ll);
        put_addr(buf, (struct sockaddr *)&local, ll, op->acc_local);
        put_addr(buf + op->acc_local, (struct sockaddr *)&op->addr, op->msg.msg_namelen, op->acc_remote);
        if (!op->acc_rxlen) return 0;
        /* the first data comes with the connection: the operation goes on as a receive
         * on the accepted socket (its completion is AcceptEx's) */
        continue_on(op, a, OP_RECV, 0, op->acc_buf, op->acc_rxlen);
        return IO_CONTINUE;
    }
    case OP_CONNECT:
        if (res < 0 || !op->acc_rxlen) return res;
        /* ConnectEx's data: sent once connected (its count is ConnectEx's) */
        io_file_ref(op->file);
        continue_on(op, op->file, OP_SEND, 1, op->acc_buf, op->acc_rxlen);
        return IO_CONTINUE;
    case OP_READ:
        /* a read at or past the end of a file: ERROR_HANDLE_EOF */
        if (res == 0 && op->iov[0].iov_len && !op->file->is_socket) return -ENODATA;
        return res;
    default:
        return res;
    }
}
