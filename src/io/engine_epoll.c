/*
 * The epoll engine, for kernels or sandboxes without io_uring. Every socket is in one
 * epoll set, edge-triggered for input and output, from its creation; the engine thread
 * runs the queued operations of a socket that became ready, in order, until one would
 * block. An operation is queued under the socket's lock and readiness is handled under
 * the same lock, so an edge that comes between the caller's immediate attempt and its
 * queueing finds the operation queued. Files are never pending with this engine: their
 * operations run on the caller's path (docs/io.md).
 */
#include <errno.h>
#include <signal.h>
#include <sys/epoll.h>
#include "io/io_internal.h"

static int epfd = -1;

static int epoll_submit(struct io_op *op)
{
    if (op->kind == OP_READ || op->kind == OP_WRITE) return -EOPNOTSUPP;   /* never pending */
    return 0;                            /* queued: the next edge runs it */
}

static int epoll_cancel(struct io_op *op) { return 1; }   /* off the list: aborted now */

/* Run the queued ops of one direction until one would block. File lock held; the
 * finished ops are chained on *done. */
static void run_dir(struct io_file *f, int d, struct io_op **done)
{
    struct io_op *op;
    while ((op = f->q[d][0])) {
        int64_t res = io_op_try(op);
        if (res == -EAGAIN) break;
        io_pending_unlink(f, op);
        op->res = res;
        op->next = *done;
        *done = op;
    }
}

static void *epoll_main(void *arg)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    io_engine_thread_setup();
    struct epoll_event ev[64];
    for (;;) {
        int n = epoll_wait(epfd, ev, 64, -1);
        for (int i = 0; i < n; i++) {
            struct io_file *f = ev[i].data.ptr;
            struct io_op *done = NULL, *last;
            pthread_mutex_lock(&f->lock);
            if (ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) run_dir(f, 0, &done);
            if (ev[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) run_dir(f, 1, &done);
            if (f->es_mask) io_es_poll(f);
            pthread_mutex_unlock(&f->lock);
            /* the chain is newest first: complete in issue order */
            struct io_op *rev = NULL;
            while (done) {
                last = done;
                done = last->next;
                last->next = rev;
                rev = last;
            }
            while (rev) {
                struct io_op *op = rev;
                rev = op->next;
                op->next = NULL;
                io_finish_complete(op, op->res);
            }
        }
    }
    return NULL;
}

static int epoll_init(void)
{
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) return -errno;
    pthread_t t;
    if (pthread_create(&t, NULL, epoll_main, NULL)) return -EAGAIN;
    pthread_detach(t);
    return 0;
}

/* A socket's record lives as long as its fd: the fd leaves the set before it closes. */
static void epoll_file_new(struct io_file *f)
{
    struct epoll_event e = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = f };
    epoll_ctl(epfd, EPOLL_CTL_ADD, f->fd, &e);
}

static void epoll_file_gone(struct io_file *f)
{
    epoll_ctl(epfd, EPOLL_CTL_DEL, f->fd, NULL);
}

const struct io_engine io_engine_epoll = {
    "epoll", epoll_init, epoll_submit, epoll_cancel, epoll_file_new, epoll_file_gone, NULL,
};
