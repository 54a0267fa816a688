/*
 * The engine: which one runs (io_uring, or epoll where io_uring cannot be used or
 * NSPA_IO_ENGINE=epoll asks for it), issuing an operation, and completing it exactly
 * once.
 *
 * Issue: under the file's lock, an operation with nothing queued before it in its
 * direction is tried at once without blocking; if it completes (or fails) it never
 * goes near the engine. Otherwise it is linked on the file's pending list and handed
 * to the engine. The lock keeps immediate attempts from overtaking queued operations
 * (the data of two receives would otherwise swap).
 *
 * Completion: the OVERLAPPED gets its bytes and then its status (release), then the
 * event is set, or the packet goes to the port, or the routine is queued as an APC to
 * the issuing thread (in that order of precedence for the packet and the routine, as
 * on NT). An operation that fails at once delivers nothing: the caller gets the error.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "io/io_internal.h"
#include "nspa/io.h"
#include "nspa/rt.h"
#include "common/platform.h"
#include "win32/win32_error.h"

static const struct io_engine *engine;
static const struct io_engine *engine_ready;   /* engine, once picked */
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;

static void engine_pick(void)
{
    /* NSPA_IO_ENGINE=epoll forces the fallback; io_uring otherwise, when it works */
    if (!nspa_env_is("NSPA_IO_ENGINE", "epoll") && io_engine_uring.init() == 0)
        engine = &io_engine_uring;
    else if (io_engine_epoll.init() == 0)
        engine = &io_engine_epoll;
    __atomic_store_n(&engine_ready, engine, __ATOMIC_RELEASE);
}

NSPA_HIDDEN const struct io_engine *io_engine(void)
{
    /* every issue asks: after the pick, one acquire load (no call into pthread_once) */
    const struct io_engine *e = __atomic_load_n(&engine_ready, __ATOMIC_ACQUIRE);
    if (__builtin_expect(e != NULL, 1)) return e;
    pthread_once(&engine_once, engine_pick);
    return engine;
}

NSPA_EXPORT const char *nspa_io_engine(void)
{
    const struct io_engine *e = io_engine();
    return e ? e->name : "none";
}

/* Engine threads run at real-time priority in RT mode (the top of the RT range, as
 * the kernel's own I/O completions would be), so that a real-time caller never waits
 * for a non-real-time thread to move its I/O along. */
NSPA_HIDDEN void io_engine_thread_setup(void)
{
    int prio = nspa_rt_prio();
    if (prio > 0) {
        struct sched_param sp = { .sched_priority = prio };
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
}

NSPA_HIDDEN void io_pending_unlink(struct io_file *f, struct io_op *op)
{
    struct io_op **q = f->q[op->dir];
    if (op->prev) op->prev->next = op->next;
    else q[0] = op->next;
    if (op->next) op->next->prev = op->prev;
    else q[1] = op->prev;
    op->next = op->prev = NULL;
    f->npending[op->dir]--;
}

static void pending_link(struct io_file *f, struct io_op *op)
{
    struct io_op **q = f->q[op->dir];
    op->next = NULL;
    op->prev = q[1];
    if (q[1]) q[1]->next = op;
    else q[0] = op;
    q[1] = op;
    f->npending[op->dir]++;
}

/* A receive on a thread ring (io_uring): the ring's own inline attempt is the
 * immediate attempt (engine_tring.c, tring_submit_try). File lock held; released. */
static int issue_on_ring(struct io_op *op, struct tring *tr)
{
    struct io_file *f = op->file;
    if (op->ov) {
        ((uintptr_t *)op->ov)[0] = IO_STATUS_PENDING;   /* Internal */
        ((uintptr_t *)op->ov)[1] = 0;
    }
    op->went_pending = 1;
    pending_link(f, op);
    int r = tring_submit_try(tr, op);
    if (r == 0) op->in_engine = 1;
    if (r < 0) {
        io_pending_unlink(f, op);
        pthread_mutex_unlock(&f->lock);
        return r;
    }
    pthread_mutex_unlock(&f->lock);
    int res;
    if (!tring_reap_try(tr, op, &res)) return 0;       /* pending */
    /* it finished in the submitting call: off the list, delivered as immediate */
    struct io_op *failed = NULL;
    pthread_mutex_lock(&f->lock);
    io_pending_unlink(f, op);
    io_submit_next(f, op->dir, &failed);
    pthread_mutex_unlock(&f->lock);
    io_complete_chain(failed);
    if (res == -ECANCELED) {         /* a cancel saw it pending: it completes as such */
        io_finish_complete(op, res);
        return 0;
    }
    op->went_pending = 0;
    op->in_engine = 0;
    int64_t fres = io_op_finish(op, res);
    if (fres == IO_CONTINUE) return io_issue(op);
    if (fres < 0) {                  /* failed at once: nothing delivered */
        if (op->ov)
            __atomic_store_n(&((uintptr_t *)op->ov)[0],
                             (uintptr_t)(uint32_t)win32_status_from_errno((int)fres, WIN32_ERR_IO), __ATOMIC_RELEASE);
        return (int)fres;
    }
    op->immediate = 1;
    io_complete(op, fres);
    return 1;
}

NSPA_HIDDEN int io_issue(struct io_op *op)
{
    struct io_file *f = op->file;
    const struct io_engine *e = io_engine();
    if (!e) return -ENOSYS;
    pthread_mutex_lock(&f->lock);
    if (op->reset_file) {                /* NT clears the file object as the I/O starts */
        op->reset_file = 0;
        io_file_signal_locked(f, 0);
    }
    if (f->closing) {
        pthread_mutex_unlock(&f->lock);
        return -EBADF;
    }
    /* a socket's operations of one direction run one at a time, in issue order
     * (io_uring would wake two pending receives of a socket in any order); file
     * operations carry their offsets and run side by side */
    int first = !f->q[op->dir][0] || !f->is_socket;
    struct tring *tr;
    if (first && op->kind == OP_RECV && f->is_socket && e == &io_engine_uring && io_op_ring_ok(op) &&
        (tr = tring_mine()))
        return issue_on_ring(op, tr);
    if (first) {
        int64_t res = io_op_try(op);
        if (res != -EAGAIN) {
            pthread_mutex_unlock(&f->lock);
            res = io_op_finish(op, res);
            if (res == IO_CONTINUE) return io_issue(op);   /* on its new file */
            if (res < 0) return (int)res;         /* failed at once: nothing delivered */
            op->immediate = 1;
            io_complete(op, res);
            return 1;
        }
    }
    if (op->ov) {
        ((uintptr_t *)op->ov)[0] = IO_STATUS_PENDING;   /* Internal */
        ((uintptr_t *)op->ov)[1] = 0;
    }
    op->went_pending = 1;
    pending_link(f, op);
    int r = first ? io_submit_locked(op) : 0;
    if (r < 0) io_pending_unlink(f, op);
    else if (e == &io_engine_epoll) epoll_note_pending(op);
    pthread_mutex_unlock(&f->lock);
    return r < 0 ? r : 0;
}

NSPA_HIDDEN int io_submit_locked(struct io_op *op)
{
    int r = io_engine()->submit(op);
    if (r == 0) op->in_engine = 1;
    return r;
}

/* After a socket's operation left the list: hand the next one of its direction to the
 * engine. Ops that cannot be submitted are chained on *failed (the caller completes
 * them after the unlock). File lock held. */
NSPA_HIDDEN void io_submit_next(struct io_file *f, int dir, struct io_op **failed)
{
    struct io_op *n;
    while (f->is_socket && (n = f->q[dir][0]) && !n->in_engine) {
        int r = io_submit_locked(n);
        if (r == 0) break;
        io_pending_unlink(f, n);
        n->res = r;
        n->next = *failed;
        *failed = n;
    }
}

/* A completion routine runs in the issuing thread's alertable wait. */
static void apc_run(uintptr_t data, uintptr_t unused2, uintptr_t unused3)
{
    (void)unused2;
    (void)unused3;
    struct io_op *op = (struct io_op *)data;
    void *routine = op->routine, *ov = op->ov;
    int kind = op->routine_kind;
    uint32_t st = op->status, flags = op->out_flags;
    uint32_t bytes = op->res > 0 ? (uint32_t)op->res : 0;
    io_file_put(op->file);
    io_op_free(op);
    if (kind == RT_WSA) {
        ((void (*)(uint32_t, uint32_t, void *, uint32_t))routine)(win32_error_from_status((NTSTATUS)st, WIN32_ERR_IO | WIN32_ERR_WSA), bytes, ov,
                                                                  flags);
    } else {
        ((void (*)(uint32_t, uint32_t, void *))routine)(win32_error_from_status((NTSTATUS)st, WIN32_ERR_IO), bytes, ov);
    }
}

static void apc_release(void *a) { (void)a; }   /* the record is freed by apc_run */

static void apc_drop(void *a)                     /* the issuing thread ended */
{
    struct io_op *op = (struct io_op *)((char *)a - offsetof(struct io_op, apc));
    io_file_put(op->file);
    io_op_free(op);
}

NSPA_HIDDEN __thread struct io_imm io_imm;

NSPA_HIDDEN void io_complete(struct io_op *op, int64_t res)
{
    struct io_file *f = op->file;
    op->res = res;
    /* a truncated datagram is STATUS_BUFFER_OVERFLOW, a success with less data */
    op->status = res >= 0 ? ((op->msg_flags & MSG_TRUNC) ? (uint32_t)STATUS_BUFFER_OVERFLOW : 0)
                          : (uint32_t)win32_status_from_errno((int)res, WIN32_ERR_IO);
    if (op->kind == OP_RECV && (op->msg_flags & MSG_TRUNC)) op->out_flags |= 0x8000;   /* MSG_PARTIAL */
    if (op->immediate) {
        io_imm.bytes = res > 0 ? (uint32_t)res : 0;
        io_imm.status = op->status;
    }
    if (op->ov) {
        uintptr_t *ov = op->ov;
        /* InternalHigh; atomic: an OVERLAPPED reused while pending (a program's error,
         * tests/io_bad_input.c) gets two completions, maybe from two threads at once */
        __atomic_store_n(&ov[1], res > 0 ? (uintptr_t)res : 0, __ATOMIC_RELAXED);
        __atomic_store_n(&ov[0], (uintptr_t)op->status, __ATOMIC_RELEASE);   /* Internal */
        /* the modes may be set while operations are in flight: an atomic */
        uint8_t modes = __atomic_load_n(&f->notify_modes, __ATOMIC_ACQUIRE);
        if (op->event) nspa_event_set(op->event, NULL);
        else if (!(modes & 2)) io_file_signal(f, 1);                    /* SKIP_SET_EVENT_ON_HANDLE */
        int skip = op->immediate && !op->went_pending && op->status == 0 && (modes & 1);   /* SKIP_PORT_ON_SUCCESS */
        /* the port the handle had when the operation was issued (an association made
         * while it completes must not get a packet for it: its event may already have
         * told the program it is done); the file's reference keeps the port until the
         * packet is queued */
        struct io_file *port = op->port;
        if (port && !op->no_port && !skip) {
            op->file = NULL;
            io_port_post(port, op);
            io_file_put(f);
            return;
        }
        if (op->routine_kind) {
            op->apc.fn = apc_run;
            op->apc.a1 = (uintptr_t)op;
            op->apc.release = apc_release;
            op->apc.drop = apc_drop;
            if (nspa__win32_queue_apc_rec(op->tid, &op->apc) == 0) return;
        }
    }
    io_file_put(f);
    io_op_free(op);
}

NSPA_HIDDEN void io_finish_complete(struct io_op *op, int64_t res)
{
    res = io_op_finish(op, res);
    if (res != IO_CONTINUE) {
        io_complete(op, res);
        return;
    }
    /* the caller was told "pending" already: a continuation that fails at once is
     * this operation's completion */
    int r = io_issue(op);
    if (r < 0) io_complete(op, r);
}

NSPA_HIDDEN void io_complete_chain(struct io_op *list)
{
    while (list) {
        struct io_op *op = list;
        list = op->next;
        op->next = NULL;
        io_complete(op, op->res);
    }
}

NSPA_HIDDEN int io_cancel(struct io_file *f, void *ov, uint32_t tid)
{
    const struct io_engine *e = io_engine();
    struct io_op *done = NULL;
    int n = 0;
    pthread_mutex_lock(&f->lock);
    for (int d = 0; d < 2; d++) {
        for (struct io_op *op = f->q[d][0], *next; op; op = next) {
            next = op->next;
            if (ov && op->ov != ov) continue;
            if (tid && op->tid != tid) continue;
            n++;
            if (!op->in_engine || (e && e->cancel(op))) {
                io_pending_unlink(f, op);
                op->next = done;
                done = op;
            }
        }
    }
    struct io_op *failed = NULL;
    for (int d = 0; d < 2; d++) io_submit_next(f, d, &failed);
    pthread_mutex_unlock(&f->lock);
    if (n) epoll_watch_kick(f);
    while (done) {
        struct io_op *op = done;
        done = op->next;
        op->next = NULL;
        io_complete(op, -ECANCELED);
    }
    io_complete_chain(failed);
    return n;
}
