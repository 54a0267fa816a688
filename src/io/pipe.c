/*
 * Anonymous pipes (CreatePipe, PeekNamedPipe) and synchronous reads and writes on byte
 * streams (pipes, terminals, FIFOs: the standard streams) — docs/io.md, "Pipes".
 *
 * A pipe is an AF_UNIX stream socket pair used one way (the read end's sending side and
 * the write end's receiving side are shut down), not a Linux pipe, because NT's
 * PeekNamedPipe reads without consuming (MSG_PEEK; a Linux pipe cannot), and because a
 * socket takes MSG_DONTWAIT and MSG_NOSIGNAL per call: the descriptor stays blocking,
 * which matters because a child process shares it (an O_NONBLOCK set here would make a
 * child's plain read() fail with EAGAIN), and a write to a pipe whose reader is gone is
 * ERROR_NO_DATA instead of a SIGPIPE. For the child, either end is an ordinary stream
 * on its fd 0/1/2 (GetFileType: FILE_TYPE_PIPE, as NT's anonymous pipes).
 *
 * NT's rules: ReadFile on a pipe whose write handles are all closed fails with
 * ERROR_BROKEN_PIPE once the data is read; WriteFile on a pipe whose read handles are all
 * closed fails with ERROR_NO_DATA; a read returns what is there (at least one byte),
 * a write returns when everything is written. Both block in io_block (block.c), so
 * CancelSynchronousIo ends them with ERROR_OPERATION_ABORTED.
 */
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

static int is_sock(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int is_pipe_like(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode));
}

NSPA_HIDDEN int io_stream_rw(struct io_file *f, int wr, void *buf, uint32_t len, uint32_t *done)
{
    int fd = f->fd, sock = f->is_pipe || is_sock(fd);
    uint32_t moved = 0;
    *done = 0;
    if (!len) return 0;                               /* nothing to wait for */
    for (;;) {
        ssize_t n;
        if (!sock) {
            /* a FIFO or a terminal cannot be asked not to block per call (and its flags are
             * shared with other processes): when it is not ready, wait for it where a
             * cancel can reach the thread, then read or write (a ready one, e.g. a
             * console being written, needs no wake record) */
            struct pollfd p = { fd, (short)(wr ? POLLOUT : POLLIN), 0 };
            int r = poll(&p, 1, 0) == 1 ? 0 : io_block(fd, p.events, 0);
            if (r) {
                *done = moved;
                return r;
            }
        }
        if (sock) n = wr ? send(fd, (char *)buf + moved, len - moved, MSG_DONTWAIT | MSG_NOSIGNAL)
                         : recv(fd, buf, len, MSG_DONTWAIT);
        else n = wr ? write(fd, (char *)buf + moved, len - moved) : read(fd, buf, len);
        if (n > 0) {
            moved += (uint32_t)n;
            if (!wr || moved == len) break;           /* a read returns what is there */
            continue;
        }
        if (n == 0 && !wr) {                          /* the writers are gone */
            if (sock || is_pipe_like(fd)) {
                *done = 0;
                return -EPIPE;
            }
            break;                                    /* a terminal's end of input */
        }
        int e = n < 0 ? errno : EAGAIN;
        if (e == EINTR) continue;
        if (e == ENOTSOCK && sock) { sock = 0; continue; }
        if (e != EAGAIN) {
            *done = moved;
            return e == ECONNRESET ? -EPIPE : -e;
        }
        if (!sock) continue;                          /* an O_NONBLOCK stream: poll again */
        /* a socket (our pipes) waits here for readiness and tries again */
        int r = io_block(fd, wr ? POLLOUT : POLLIN, 0);
        if (r) {
            *done = moved;
            return r;
        }
    }
    *done = moved;
    return 0;
}

NSPA_HIDDEN int io_pipe_create(uint32_t size, uint32_t *rd, uint32_t *wr)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return -errno;
    /* one way: the read end never sends, the write end never receives */
    shutdown(sv[0], SHUT_WR);
    if (size) {
        int s = (int)(size > (1u << 24) ? 1u << 24 : size);
        setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &s, sizeof s);   /* a hint, as nSize */
    }
    struct io_file *fr, *fw;
    int r = io_file_new(0, sv[0], &fr, rd);
    if (r) {
        close(sv[1]);
        return r;
    }
    r = io_file_new(0, sv[1], &fw, wr);
    if (r) {
        nspa_close(*rd);
        return r;
    }
    fr->is_pipe = fw->is_pipe = 1;
    fr->can_read = 1;
    fw->can_write = 1;
    nspa__fdmap_note(*rd);                               /* described: others may take them */
    nspa__fdmap_note(*wr);
    return 0;
}

NSPA_HIDDEN int io_pipe_peek(uint32_t h, void *buf, uint32_t len, uint32_t *read, uint32_t *avail)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    int r = 0;
    if (f->is_socket || f->is_port || !is_pipe_like(f->fd)) r = -EINVAL;   /* not a pipe */
    int n = 0;
    if (!r && ioctl(f->fd, FIONREAD, &n) < 0) r = -errno;
    if (!r && n == 0) {
        /* nothing buffered: is anyone left to write? (a pipe of ours: a zero-byte peek) */
        struct pollfd p = { f->fd, POLLIN, 0 };
        if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR))) r = -EPIPE;
    }
    uint32_t got = 0;
    if (!r && buf && len && nspa_vm_before_kernel_write(buf, len)) r = -EFAULT;
    if (!r && buf && len && n > 0) {
        /* a Linux FIFO (a standard stream) cannot be read without consuming: its data is
         * not copied, only counted (docs/io.md) */
        ssize_t k = f->is_pipe || is_sock(f->fd) ? recv(f->fd, buf, len, MSG_PEEK | MSG_DONTWAIT) : 0;
        if (k > 0) got = (uint32_t)k;
        else if (k < 0 && errno != EAGAIN) r = -errno;
    }
    if (!r) {
        if (read) *read = got;
        if (avail) *avail = (uint32_t)n;
    }
    io_file_put(f);
    return r;
}
