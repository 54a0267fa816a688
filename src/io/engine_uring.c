/*
 * The io_uring engine (liburing). One ring per process: callers put their pending
 * operations in the submission queue under a priority-inheriting mutex (the queue is
 * shared); one engine thread sleeps in io_uring_enter for completions and completes
 * what the kernel finished. The kernel does the operation itself (recvmsg, sendmsg,
 * accept, connect, readv, writev into the caller's buffers), so the engine thread
 * never runs a system call per operation. A cancel submits IORING_OP_ASYNC_CANCEL;
 * the operation's own completion (-ECANCELED, or its result if it won the race)
 * still arrives, and is the only one delivered.
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <string.h>
#include "io/io_internal.h"
#include "common/platform.h"

static struct io_uring ring;
static pthread_mutex_t sq_lock;
static pthread_t thread;

#define CANCEL_TAG 1ull       /* user_data of cancel requests: never an operation */
static struct io_uring_sqe *get_sqe(void);
#define ES_TAG     3ull       /* the poll request on the event-select epoll set */

/* WSAEventSelect sockets: an edge-triggered epoll set, itself watched by a multishot
 * poll request on the ring (es.c) */
static int es_epfd = -1;
static int es_armed;

static void es_arm_locked(void)
{
    struct io_uring_sqe *sqe = get_sqe();
    if (!sqe) return;
    io_uring_prep_poll_multishot(sqe, __atomic_load_n(&es_epfd, __ATOMIC_RELAXED), POLLIN);
    io_uring_sqe_set_data64(sqe, ES_TAG);
    io_uring_submit(&ring);
    es_armed = 1;
}

static void es_dispatch(void)
{
    struct epoll_event ev[64];
    int n;
    int epfd = __atomic_load_n(&es_epfd, __ATOMIC_ACQUIRE);
    while ((n = epoll_wait(epfd, ev, 64, 0)) > 0) {
        for (int i = 0; i < n; i++) {
            struct io_file *f = ev[i].data.ptr;
            pthread_mutex_lock(&f->lock);
            if (f->es_mask) io_es_poll(f);
            pthread_mutex_unlock(&f->lock);
        }
    }
}

NSPA_HIDDEN int uring_prep_op(struct io_uring_sqe *sqe, struct io_op *op)
{
    int fd = op->file->fd;
    switch (op->kind) {
    case OP_RECV:
        op->msg.msg_flags = 0;
        /* one buffer on a stream socket: IORING_OP_RECV (no message header to copy
         * in, nothing to report back but the count) */
        if (io_op_one_buf(op))
            io_uring_prep_recv(sqe, fd, op->iov[0].iov_base, op->iov[0].iov_len, op->msg_flags);
        else
            io_uring_prep_recvmsg(sqe, fd, &op->msg, op->msg_flags);
        break;
    case OP_SEND:
        if (io_op_one_buf(op)) io_uring_prep_send(sqe, fd, op->iov[0].iov_base, op->iov[0].iov_len, MSG_NOSIGNAL);
        else io_uring_prep_sendmsg(sqe, fd, &op->msg, MSG_NOSIGNAL);
        break;
    case OP_ACCEPT:
        op->msg.msg_namelen = sizeof(op->addr);
        io_uring_prep_accept(sqe, fd, (struct sockaddr *)&op->addr, &op->msg.msg_namelen,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
        break;
    case OP_CONNECT:
        io_uring_prep_connect(sqe, fd, (struct sockaddr *)&op->addr, op->msg.msg_namelen);
        break;
    case OP_READ: io_uring_prep_readv(sqe, fd, op->iov, (unsigned)op->msg.msg_iovlen, (uint64_t)op->offset); break;
    case OP_WRITE:
        io_uring_prep_writev(sqe, fd, op->iov, (unsigned)op->msg.msg_iovlen, (uint64_t)op->offset);
        if (op->append) sqe->rw_flags = RWF_APPEND;   /* at the end, whatever the offset */
        break;
    default: return -EINVAL;
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)op);
    NSPA_TSAN_RELEASE(op);           /* the kernel hands the record to the engine thread */
    return 0;
}

static struct io_uring_sqe *get_sqe(void)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    if (!sqe) {                          /* full: push what is there, then retry */
        io_uring_submit(&ring);
        sqe = io_uring_get_sqe(&ring);
    }
    return sqe;
}

static int uring_submit(struct io_op *op)
{
    struct tring *t = io_op_ring_ok(op) ? tring_mine() : NULL;   /* the caller's own ring, when it has one */
    if (t) return tring_submit(t, op);
    op->tr = NULL;
    pthread_mutex_lock(&sq_lock);
    struct io_uring_sqe *sqe = get_sqe();
    int r = sqe ? uring_prep_op(sqe, op) : -EBUSY;
    if (!r) {
        r = io_uring_submit(&ring);
        r = r < 0 ? r : 0;
    }
    pthread_mutex_unlock(&sq_lock);
    return r;
}

static int uring_cancel(struct io_op *op)
{
    if (op->cancel_sent) return 0;
    if (op->tr) {
        tring_cancel(op);
        return 0;
    }
    pthread_mutex_lock(&sq_lock);
    struct io_uring_sqe *sqe = get_sqe();
    if (sqe) {
        io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
        io_uring_sqe_set_data64(sqe, CANCEL_TAG);
        io_uring_submit(&ring);
        op->cancel_sent = 1;
    }
    pthread_mutex_unlock(&sq_lock);
    return 0;
}

NSPA_HIDDEN void uring_op_done(struct io_op *op, int res)
{
    NSPA_TSAN_ACQUIRE(op);
    struct io_file *f = op->file;
    struct io_op *failed = NULL;
    pthread_mutex_lock(&f->lock);
    io_pending_unlink(f, op);
    io_submit_next(f, op->dir, &failed);
    pthread_mutex_unlock(&f->lock);
    io_finish_complete(op, res);
    io_complete_chain(failed);
}

static void *uring_main(void *arg)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    io_engine_thread_setup();
    tring_opt_out();
    for (;;) {
        struct io_uring_cqe *cqe;
        int r = io_uring_wait_cqe(&ring, &cqe);
        if (r < 0) continue;                 /* -EINTR */
        struct io_uring_cqe *cqes[64];
        unsigned n = io_uring_peek_batch_cqe(&ring, cqes, 64);
        for (unsigned i = 0; i < n; i++) {
            uint64_t ud = io_uring_cqe_get_data64(cqes[i]);
            int res = cqes[i]->res;
            io_uring_cqe_seen(&ring, cqes[i]);
            if (ud == ES_TAG) {
                if (!(cqes[i]->flags & IORING_CQE_F_MORE)) {   /* the multishot ended: re-arm */
                    pthread_mutex_lock(&sq_lock);
                    es_arm_locked();
                    pthread_mutex_unlock(&sq_lock);
                }
                es_dispatch();
            } else if ((ud & 7) == TRING_TAG) {
                tring_kick((uint32_t)(ud >> 3), (cqes[i]->flags & IORING_CQE_F_MORE) != 0);
            } else if (ud && ud != CANCEL_TAG) {
                uring_op_done((struct io_op *)(uintptr_t)ud, res);
            }
        }
    }
    return NULL;
}

static int uring_init(void)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = 65536;
    int r = io_uring_queue_init_params(1024, &ring, &p);
    if (r < 0) return r;                     /* -ENOSYS, -EPERM (io_uring_disabled, seccomp) */
    struct io_uring_probe *probe = io_uring_get_probe_ring(&ring);
    int ok = probe && io_uring_opcode_supported(probe, IORING_OP_RECVMSG) &&
             io_uring_opcode_supported(probe, IORING_OP_SENDMSG) &&
             io_uring_opcode_supported(probe, IORING_OP_ACCEPT) &&
             io_uring_opcode_supported(probe, IORING_OP_CONNECT) &&
             io_uring_opcode_supported(probe, IORING_OP_ASYNC_CANCEL) &&
             io_uring_opcode_supported(probe, IORING_OP_READV);
    if (ok) tring_init(probe);
    if (probe) io_uring_free_probe(probe);
    if (!ok) {
        io_uring_queue_exit(&ring);
        return -ENOSYS;
    }
    nspa_pi_mutex_init(&sq_lock);
    if (pthread_create(&thread, NULL, uring_main, NULL)) {
        io_uring_queue_exit(&ring);
        return -EAGAIN;
    }
    pthread_detach(thread);
    return 0;
}

NSPA_HIDDEN int uring_watch_fd(int fd, uint64_t tag)
{
    pthread_mutex_lock(&sq_lock);
    struct io_uring_sqe *sqe = get_sqe();
    if (sqe) {
        io_uring_prep_poll_multishot(sqe, fd, POLLIN);
        io_uring_sqe_set_data64(sqe, tag);
        io_uring_submit(&ring);
    }
    pthread_mutex_unlock(&sq_lock);
    return sqe ? 0 : -EBUSY;
}

static void uring_file_new(struct io_file *f) { (void)f; }

static void uring_es_watch(struct io_file *f, int on)
{
    pthread_mutex_lock(&sq_lock);
    int epfd = __atomic_load_n(&es_epfd, __ATOMIC_RELAXED);
    if (epfd < 0) {
        epfd = epoll_create1(EPOLL_CLOEXEC);
        __atomic_store_n(&es_epfd, epfd, __ATOMIC_RELEASE);
    }
    if (epfd >= 0 && !es_armed) es_arm_locked();
    pthread_mutex_unlock(&sq_lock);
    if (epfd < 0) return;
    struct epoll_event e = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = f };
    epoll_ctl(epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, f->fd, on ? &e : NULL);
}

static void uring_file_gone(struct io_file *f)
{
    int epfd = __atomic_load_n(&es_epfd, __ATOMIC_ACQUIRE);
    if (f->es_mask && epfd >= 0) epoll_ctl(epfd, EPOLL_CTL_DEL, f->fd, NULL);
}

const struct io_engine io_engine_uring = {
    "io_uring", uring_init, uring_submit, uring_cancel, uring_file_new, uring_file_gone, uring_es_watch,
};
