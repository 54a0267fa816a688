/*
 * The epoll engine, for kernels or sandboxes without io_uring. Every socket is in one
 * epoll set, edge-triggered for input and output, from its creation; the engine thread
 * runs the queued operations of a socket that became ready, in order, until one would
 * block. An operation is queued under the socket's lock and readiness is handled under
 * the same lock, so an edge that comes between the caller's immediate attempt and its
 * queueing finds the operation queued. Files are never pending with this engine: their
 * operations run on the caller's path (docs/io.md).
 *
 * Waits that do their own I/O: through the engine thread a pending receive completes in
 * two wake-ups (epoll wakes the engine thread, its SetEvent wakes the waiter) where a
 * blocking recv() has one. So a thread whose operation went pending sleeps, in its next
 * waits of the sync core, in poll() on that socket and on its wake eventfd (block.c)
 * instead of on its futex word: the data wakes it and it runs the socket's queue
 * itself (ep_ready, as the engine thread would: whoever unlinks an operation under the
 * file's lock completes it, so exactly once holds); a grant or a poke wakes it through
 * the eventfd (the sync core's poll mark, wake.c). Only for a wait no other process can
 * grant (not shared: an eventfd number means something in this process only) and only
 * while a receive is queued on the socket; otherwise the futex. The engine thread still
 * sees the edge: while a waiter watches the socket's input (f->watch W_ON) it leaves
 * the input to it and says so (W_MISSED), so the two do not fight over the file's lock;
 * the waiter, when it stops watching, runs the input if the engine left it some.
 * NSPA_IO_THREAD_RINGS=0 turns this off along with the io_uring engine's thread rings.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include "io/io_internal.h"

#define W_ON     1u                     /* f->watch: a waiter polls the socket's input */
#define W_MISSED 2u                     /* the engine thread left an input edge to it */
#define W_MARK   2                      /* the waiter's wake mark (block.c) above those */
#define IN_EV    (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)
#define OUT_EV   (EPOLLOUT | EPOLLERR | EPOLLHUP)

static int epfd = -1;
static int ep_own;                       /* waits poll their own socket */
/* the socket of the calling thread's last receive that went pending */
static __thread struct { struct io_file *f; uint32_t gen; } last;

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

/* Socket @f is ready for @ev (epoll and poll bits are the same numbers): run its queued
 * operations, complete the finished ones after the lock. Returns how many finished. */
static int ep_ready(struct io_file *f, uint32_t ev)
{
    struct io_op *done = NULL, *op;
    pthread_mutex_lock(&f->lock);
    if (ev & IN_EV) run_dir(f, 0, &done);
    if (ev & OUT_EV) run_dir(f, 1, &done);
    if (f->es_mask) io_es_poll(f);
    pthread_mutex_unlock(&f->lock);
    /* the chain is newest first: complete in issue order */
    struct io_op *rev = NULL;
    int n = 0;
    while (done) {
        op = done;
        done = op->next;
        op->next = rev;
        rev = op;
        n++;
    }
    while (rev) {
        op = rev;
        rev = op->next;
        op->next = NULL;
        io_finish_complete(op, op->res);
    }
    return n;
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
            uint32_t e = ev[i].events;
            /* a waiter watches the input: it is told, and takes it (ep_sleep) */
            if ((e & IN_EV) && (atomic_fetch_or(&f->watch, W_MISSED) & W_ON)) e &= ~(uint32_t)(EPOLLIN | EPOLLRDHUP);
            else if (e & IN_EV) atomic_fetch_and(&f->watch, ~W_MISSED);
            if (e & (IN_EV | OUT_EV)) ep_ready(f, e);
        }
    }
    return NULL;
}

NSPA_HIDDEN void epoll_note_pending(struct io_op *op)
{
    int efd;
    /* the eventfd is made here, on the issue path, never in a wait */
    if (!ep_own || !op->file->is_socket || op->dir || !io_wake_slot(1, &efd)) return;
    last.f = op->file;
    last.gen = op->file->gen;
}

/* The sync core's sleep (wait.c, sleep_once): poll the socket of the thread's pending
 * operation and the thread's wake eventfd (see the top of the file). 1: slept (the
 * caller looks at its word again), 0: sleep on the futex. */
static int ep_sleep(_Atomic uint32_t *word, uint32_t v, int shared, uint64_t deadline, clockid_t clk,
                    int other_words, _Atomic uint32_t *poll_mark)
{
    struct io_file *f = last.f;
    int efd;
    if (!f || shared || other_words) return 0;
    uint32_t mark = io_wake_slot(0, &efd);
    if (!mark || !io_file_tryref(f, last.gen)) {
        last.f = NULL;
        return 0;
    }
    pthread_mutex_lock(&f->lock);            /* PI, held for two loads */
    int fd = f->fd, queued = f->q[0][0] != NULL;
    pthread_mutex_unlock(&f->lock);
    uint32_t z = 0;
    /* one watcher per socket; an edge the engine thread is handling: let it */
    if (!queued || fd < 0 || !atomic_compare_exchange_strong(&f->watch, &z, mark << W_MARK | W_ON)) {
        if (!queued) last.f = NULL;          /* done meanwhile: nothing to watch */
        io_file_put(f);
        return 0;
    }
    struct pollfd p[2] = { { fd, POLLIN | POLLRDHUP, 0 }, { efd, POLLIN, 0 } };
    struct timespec ts, *tsp = NULL;
    if (deadline != UINT64_MAX) {
        uint64_t now = nspa_clock_ns(clk), rel = deadline > now ? deadline - now : 0;
        ts.tv_sec = (time_t)(rel / 1000000000ull);
        ts.tv_nsec = (long)(rel % 1000000000ull);
        tsp = &ts;
    }
    /* the mark, then the word (a waker: the word, then the mark; wake.c) */
    atomic_store_explicit(poll_mark, mark, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    int n = 0;
    if (atomic_load_explicit(word, memory_order_relaxed) == v) n = ppoll(p, 2, tsp, NULL);
    atomic_store_explicit(poll_mark, 0, memory_order_relaxed);
    uint32_t ev = n > 0 ? (uint32_t)p[0].revents : 0;
    if (atomic_exchange(&f->watch, 0) & W_MISSED) ev |= EPOLLIN;   /* the engine left it to us */
    if (n > 0 && p[1].revents) io_wake_drain(efd);      /* a wake, or a stale count */
    /* ready but nothing to do (another thread ran the queue, a spurious readiness):
     * the next sleep is on the futex, so a socket that stays ready never spins us */
    if (ev && !ep_ready(f, ev)) last.f = NULL;
    io_file_put(f);
    return 1;
}

/* The receives of @f were cancelled (CancelIo, closesocket): a waiter watching it
 * stops, and lets the socket go (it holds a reference, hence the descriptor). */
NSPA_HIDDEN void epoll_watch_kick(struct io_file *f)
{
    uint32_t w = atomic_load_explicit(&f->watch, memory_order_acquire);
    if (w & W_ON) io_wake_slot_kick(w >> W_MARK);
}

static void ep_fork_child(void)
{
    /* the engine thread is the parent's; the child's eventfds are not made yet */
    ep_own = 0;
    last.f = NULL;
    nspa__set_sleep_hooks(NULL);
}

/* A thread that watches its socket in its sleeps (ep_sleep) is the one that sees it
 * ready: spinning instead would hold its own receive back. */
static int ep_io_needs_sleep(void) { return last.f != NULL; }

static const struct nspa__sleep_hooks ep_hooks = { ep_sleep, NULL, io_wake_slot_kick, ep_io_needs_sleep };

static int epoll_init(void)
{
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) return -errno;
    pthread_t t;
    if (pthread_create(&t, NULL, epoll_main, NULL)) return -EAGAIN;
    pthread_detach(t);
    if (nspa_env_int("NSPA_IO_THREAD_RINGS", 1, 0, 1)) {
        pthread_atfork(NULL, NULL, ep_fork_child);
        ep_own = 1;
        nspa__set_sleep_hooks(&ep_hooks);
    }
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
