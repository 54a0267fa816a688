/*
 * Thread rings: waits that reap their own I/O (docs/io.md).
 *
 * With one process ring and an engine thread, a pending receive completes in three
 * wake-ups: the kernel runs the receive as task work of the thread that submitted it
 * (waking it), the CQE wakes the engine thread, and the engine thread's SetEvent wakes
 * the waiter. A blocking recv() is one wake-up. So a thread that issues overlapped I/O
 * gets a ring of its own (up to TRING_MAX, lazily, when the kernel has
 * IORING_OP_FUTEX_WAIT, Linux 6.7): its operations are submitted there, and when it
 * sleeps in a wait of the sync core it sleeps in that ring instead of on its futex
 * word: a FUTEX_WAIT request on the word plus its own completions, in one
 * io_uring_enter. Whichever comes first wakes it, once; a completion is reaped and
 * completed (event, packet, routine) by the thread itself, and the wait then finds
 * what it waited for.
 *
 * Nobody waits for a thread that is busy elsewhere: every thread ring has an eventfd
 * that the engine thread watches (a multishot poll on the process ring). The owner
 * turns the eventfd off while it sleeps in its ring (it reaps itself then) and on again
 * before it leaves, then reaps once more what came in between. Reaping takes no lock:
 * a reaper copies CQEs out and claims them by moving the head with one CAS (one CQE,
 * one reaper); completing happens after it.
 *
 * The word's FUTEX_WAIT may stay armed after a completion woke the thread. That is
 * harmless as long as nothing else of the thread sleeps on the word (the next wake
 * simply completes it): the thread sleeps in its ring whenever it has one, and before
 * a futex_waitv sleep (watching mutex owners), a change of the word's kind (private /
 * shared) or the thread's end, the request is cancelled (IORING_ASYNC_CANCEL_ALL on its
 * tag; a futex request is cancelled at once, within the submitting call).
 *
 * Rules kept: no allocation on the sleep path (rings are made at the thread's first
 * pending operation, never on a wait); no lock: the submission queue is the owner's
 * alone (another thread cancels with IORING_REGISTER_SYNC_CANCEL) and reapers claim
 * CQEs by CAS; the wake order of the sync core is unchanged (one sleeper per word). A
 * fork child does not use the parent's rings.
 */
#include <errno.h>
#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "common/platform.h"

/* Linux 6.7's opcode; Debian's liburing 2.3 predates it (probed at start-up) */
#define NSPA_IORING_OP_FUTEX_WAIT 51
#define TRING_MAX     64
#define TRING_SQ      64
#define TRING_CQ      1024
#define TRING_BATCH   32
#define FUTEX_TAG     2ull       /* user_data of the word's FUTEX_WAIT */
#define ALARM_TAG     3ull       /* user_data of the ring's alarm (IORING_OP_TIMEOUT) */

struct tring {
    struct io_uring ring;
    /* the submission queue is the owner's alone (no lock): another thread's cancel
     * goes through io_uring_register (IORING_REGISTER_SYNC_CANCEL), not the queue */
    int efd;                     /* registered eventfd, watched by the engine thread */
    _Atomic uint32_t owner;      /* tid of the thread using it; 0: free for another */
    _Atomic uint32_t armed;      /* FUTEX_WAIT requests in the ring not yet reaped */
    int armed_shared;            /* their kind (owner only) */
    int reg;                     /* the owner's registered ring fd (index), -1: none */
    /* the alarm (tr_alarm): the CLOCK_MONOTONIC deadline of the ring's armed
     * IORING_OP_TIMEOUT, 0: none; set by the owner, cleared by the reaper of its CQE */
    _Atomic uint64_t alarm_at;
    _Atomic uint32_t riding;     /* the owner sleeps with no timer of its own ... */
    _Atomic(_Atomic uint32_t *) ride_word;   /* ... on this word */
} __attribute__((aligned(64)));  /* each owner writes its own (submits, reaps): no line
                                  * shared with a neighbour's ring */

static struct tring trings[TRING_MAX];
static pthread_key_t end_key;             /* gives a thread's ring back at its end */
static _Atomic uint32_t nmade;            /* trings[0..nmade) are made */
static pthread_mutex_t make_lock = PTHREAD_MUTEX_INITIALIZER;   /* making, not waits */
static int tring_on;                      /* io_uring engine with FUTEX_WAIT, not disabled */
static __thread struct tring *mine;
static __thread int mine_tried;

/* Make the SQEs queued so far visible to the kernel (liburing's flush; the owner). */
static unsigned tr_flush(struct tring *r)
{
    struct io_uring_sq *sq = &r->ring.sq;
    if (sq->sqe_head != sq->sqe_tail) {
        sq->sqe_head = sq->sqe_tail;
        __atomic_store_n(sq->ktail, sq->sqe_tail, __ATOMIC_RELEASE);
    }
    return sq->sqe_tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
}

/* The owner registers the ring's descriptor with the kernel (IORING_REGISTER_RING_FDS,
 * per thread): its io_uring_enter calls then name the ring by that index and skip the
 * descriptor lookup and its reference count (two atomic operations a call; two calls a
 * message). Only the owner enters with it (tr_enter: its submissions and sleeps); the
 * engine thread's overflow flush names the descriptor itself. Registered by hand, not
 * with liburing's helper, so that no liburing call on the ring ever uses an index
 * another thread registered. Given back at the thread's end; the next owner registers
 * its own (a failed registration: -1, the plain descriptor). */
static void tr_register(struct tring *r)
{
    struct io_uring_rsrc_update up = { .offset = -1u, .data = (uint64_t)r->ring.ring_fd };
    r->reg = io_uring_register((unsigned)r->ring.ring_fd, IORING_REGISTER_RING_FDS, &up, 1) == 1 ? (int)up.offset : -1;
}

static void tr_unregister(struct tring *r)
{
    if (r->reg >= 0) {
        struct io_uring_rsrc_update up = { .offset = (uint32_t)r->reg };
        io_uring_register((unsigned)r->ring.ring_fd, IORING_UNREGISTER_RING_FDS, &up, 1);
    }
    r->reg = -1;
}

static int tr_enter(struct tring *r, unsigned sub, unsigned wait, unsigned flags, void *arg, size_t sz)
{
    if (r->reg >= 0) return io_uring_enter2((unsigned)r->reg, sub, wait, flags | IORING_ENTER_REGISTERED_RING, arg, sz);
    return io_uring_enter2((unsigned)r->ring.ring_fd, sub, wait, flags, arg, sz);
}

/* liburing's io_uring_submit, for the owner: flush, then one enter (-errno, or the
 * number submitted) */
static int tr_submit(struct tring *r)
{
    unsigned n = tr_flush(r);
    return n ? tr_enter(r, n, 0, 0, NULL, _NSIG / 8) : 0;
}

static struct io_uring_sqe *tr_get_sqe(struct tring *r)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);
    if (!sqe) {
        tr_submit(r);
        sqe = io_uring_get_sqe(&r->ring);
    }
    return sqe;
}

/* The ring's alarm rang (its CQE reaped, by anyone). An owner sleeping on it with no
 * timer of its own (riding) that did not see this CQE itself would sleep past its
 * deadline: another reaper claimed the CQE between the owner's own reap and its sleep.
 * So a reaper that finds the owner riding pokes it (its word changes: its sleep ends,
 * or its FUTEX_WAIT completes at once). The owner stores riding before it reads
 * alarm_at, the reaper clears alarm_at before it reads riding (both sequentially
 * consistent): either the owner sees the alarm gone and arms another, or the reaper
 * sees it riding. The owner itself clears riding before it reaps. */
static void tr_alarm_rang(struct tring *r)
{
    if (r != mine) nspa__test_point("tring_alarm_rang");   /* tests/io_ring_alarm.c holds it */
    atomic_store(&r->alarm_at, 0);
    if (atomic_load(&r->riding)) {
        nspa__sleep_poke(atomic_load(&r->ride_word));
    }
}

/* Copy the CQEs out under the lock, complete after it. Returns the operations done.
 * The CQE of @own (if any) is not completed: its result goes to *own_res, and
 * *own_seen is set. */
static int tr_reap_own(struct tring *r, struct io_op *own, int *own_res, int *own_seen)
{
    int done = 0;
    for (;;) {
        struct { uint64_t ud; int res; } got[TRING_BATCH];
        unsigned n = 0, head;
        struct io_uring_cqe *cqe;
        /* nothing posted (the head is moved by other reapers too: atomic reads;
         * liburing's io_uring_cq_ready reads it plainly) */
        if (__atomic_load_n(r->ring.cq.ktail, __ATOMIC_ACQUIRE) == __atomic_load_n(r->ring.cq.khead, __ATOMIC_RELAXED)) {
            /* CQEs that did not fit (more than TRING_CQ in flight) wait in the kernel
             * until an io_uring_enter with GETEVENTS moves them in */
            if (!(__atomic_load_n(r->ring.sq.kflags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW)) return done;
            io_uring_enter2((unsigned)r->ring.ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, _NSIG / 8);
            if (__atomic_load_n(r->ring.cq.ktail, __ATOMIC_ACQUIRE) == __atomic_load_n(r->ring.cq.khead, __ATOMIC_RELAXED))
                return done;
        }
        /* Claim without a lock: copy the CQEs from the head on, then move the head past
         * them with one compare-and-swap. The kernel reuses a slot only after the head
         * has passed it, so what was copied is intact when the CAS succeeds; when it
         * fails, another reaper took them first: copy again from the new head. */
        struct io_uring_cq *cq = &r->ring.cq;
        head = __atomic_load_n(cq->khead, __ATOMIC_ACQUIRE);
        unsigned tail = __atomic_load_n(cq->ktail, __ATOMIC_ACQUIRE);
        for (n = 0; n < TRING_BATCH && head + n != tail; n++) {
            cqe = &cq->cqes[(head + n) & cq->ring_mask];
            got[n].ud = cqe->user_data;
            got[n].res = cqe->res;
        }
        if (!n) continue;                  /* taken meanwhile (or overflow): look again */
        if (!__atomic_compare_exchange_n(cq->khead, &head, head + n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        for (unsigned i = 0; i < n; i++) {
            if (got[i].ud == FUTEX_TAG) {
                atomic_fetch_sub(&r->armed, 1);
            } else if (got[i].ud == ALARM_TAG) {
                tr_alarm_rang(r);
            } else if (own && got[i].ud == (uint64_t)(uintptr_t)own) {
                *own_res = got[i].res;
                *own_seen = 1;
            } else if (got[i].ud > 7) {      /* an operation (tags are small numbers) */
                uring_op_done((struct io_op *)(uintptr_t)got[i].ud, got[i].res);
                done++;
            }
        }
    }
}

static int tr_reap(struct tring *r) { return tr_reap_own(r, NULL, NULL, NULL); }

/* the engine thread: the eventfd of ring @idx fired (@more: its poll stays armed) */
NSPA_HIDDEN void tring_kick(uint32_t idx, int more)
{
    if (idx >= atomic_load_explicit(&nmade, memory_order_acquire)) return;
    nspa__test_point("tring_kick");      /* tests/io_cq_overflow.c holds the reaper off */
    struct tring *r = &trings[idx];
    uint64_t cnt;
    if (!more) uring_watch_fd(r->efd, TRING_TAG | (uint64_t)idx << 3);
    if (read(r->efd, &cnt, sizeof(cnt)) < 0) { /* EAGAIN: nothing counted since */ }
    tr_reap(r);
}

/* No FUTEX_WAIT of ours left on the word: cancel them (done within the submit, the
 * futex request's cancel is synchronous) and reap the cancellations. */
static void tr_disarm(struct tring *r)
{
    if (!atomic_load(&r->armed)) return;
    struct io_uring_sqe *sqe = tr_get_sqe(r);
    if (sqe) {
        io_uring_prep_cancel64(sqe, FUTEX_TAG, IORING_ASYNC_CANCEL_ALL);
        io_uring_sqe_set_data64(sqe, 1);  /* a cancel request: nothing to complete */
    }
    tr_submit(r);
    tr_reap(r);
}

static int tr_make(struct tring *r, uint32_t idx)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof(p));
    p.flags = IORING_SETUP_CQSIZE;
    p.cq_entries = TRING_CQ;
    int err = io_uring_queue_init_params(TRING_SQ, &r->ring, &p);
    if (err < 0) return err;
    r->reg = -1;
    r->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (r->efd < 0 || io_uring_register_eventfd(&r->ring, r->efd) < 0) goto fail;
    if (uring_watch_fd(r->efd, TRING_TAG | (uint64_t)idx << 3) < 0) goto fail;
    return 0;
fail:
    if (r->efd >= 0) close(r->efd);
    io_uring_queue_exit(&r->ring);
    return -ENOMEM;
}

/* The calling thread's ring: one left by an ended thread, or a new one (at its first
 * pending operation; never on a wait). NULL: the process ring serves it. */
NSPA_HIDDEN struct tring *tring_mine(void)
{
    if (mine || mine_tried || !tring_on) return mine;
    mine_tried = 1;
    uint32_t tid = nspa_thread_id();
    uint32_t n = atomic_load_explicit(&nmade, memory_order_acquire);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t z = 0;
        if (atomic_compare_exchange_strong(&trings[i].owner, &z, tid)) {
            mine = &trings[i];
            tr_register(mine);
            pthread_setspecific(end_key, mine);
            return mine;
        }
    }
    pthread_mutex_lock(&make_lock);
    n = atomic_load_explicit(&nmade, memory_order_relaxed);
    if (n < TRING_MAX && tr_make(&trings[n], n) == 0) {
        atomic_store(&trings[n].owner, tid);
        atomic_store_explicit(&nmade, n + 1, memory_order_release);
        mine = &trings[n];
    }
    pthread_mutex_unlock(&make_lock);
    if (mine) {
        tr_register(mine);
        pthread_setspecific(end_key, mine);
    }
    return mine;
}

/* the engine thread submits on the process ring (it never sleeps in the sync core) */
NSPA_HIDDEN void tring_opt_out(void) { mine_tried = 1; }

/* the owner (uring_submit submits on the caller's own ring) */
NSPA_HIDDEN int tring_submit(struct tring *r, struct io_op *op)
{
    struct io_uring_sqe *sqe = tr_get_sqe(r);
    int err = sqe ? uring_prep_op(sqe, op) : -EBUSY;
    if (!err) {
        op->tr = r;
        err = tr_submit(r);
        err = err < 0 ? err : 0;
    }
    return err;
}

/* The immediate attempt of a receive done by the ring itself: io_uring tries the
 * receive within the submitting io_uring_enter and posts its CQE there when it
 * finishes at once (else it waits for readiness). One system call where a recvmsg
 * and then a submission were two. The eventfd is off meanwhile (that CQE is ours to
 * see). tring_submit_try: file lock held; tring_reap_try after the unlock: 1 with the
 * result when it finished inline, 0 when it is pending (or another thread reaped it
 * first: then it completes as a pending operation). */
NSPA_HIDDEN int tring_submit_try(struct tring *r, struct io_op *op)
{
    io_uring_cq_eventfd_toggle(&r->ring, false);
    int err = tring_submit(r, op);
    if (err) io_uring_cq_eventfd_toggle(&r->ring, true);
    return err;
}

NSPA_HIDDEN int tring_reap_try(struct tring *r, struct io_op *op, int *res)
{
    int seen = 0;
    tr_reap_own(r, op, res, &seen);
    io_uring_cq_eventfd_toggle(&r->ring, true);
    if (!seen) tr_reap_own(r, op, res, &seen);
    else tr_reap(r);
    return seen;
}

/* Any thread (CancelIoEx, closesocket; the op's file lock held): a synchronous cancel
 * through io_uring_register, which does not touch the owner's submission queue. The
 * operation's CQE (-ECANCELED, or its result if it finished first) reaches the ring as
 * any other; -ENOENT: it completed already. Thread rings serve socket receives, which
 * wait for readiness (a poll): their cancel is immediate. */
NSPA_HIDDEN void tring_cancel(struct io_op *op)
{
    struct tring *r = op->tr;
    struct io_uring_sync_cancel_reg reg;
    memset(&reg, 0, sizeof(reg));
    reg.addr = (uint64_t)(uintptr_t)op;
    reg.fd = -1;
    reg.timeout.tv_sec = -1;             /* no time limit */
    reg.timeout.tv_nsec = -1;
    io_uring_register_sync_cancel(&r->ring, &reg);
    op->cancel_sent = 1;
}

/* The alarm: a finite sleep arms no timer of its own when the ring's alarm (one
 * IORING_OP_TIMEOUT with an absolute CLOCK_MONOTONIC deadline, left armed across sleeps)
 * rings no later than the sleep's deadline. A timer per sleep (io_uring_enter's
 * timeout) is an hrtimer started and cancelled in the kernel plus a clock read here at
 * every sleep, and a program that waits with a timeout (GetQueuedCompletionStatus(port,
 * ..., 5000) in a loop) sleeps with a deadline that only moves later: the first sleep
 * arms the alarm at its deadline and the next ones ride it. When it rings, the sleep
 * it wakes finds its own deadline not yet due (the sync core's wait loop) and sleeps
 * again, arming the alarm at that deadline. A sleep with an earlier deadline than the
 * armed alarm has its own timer, as before. Only the owner arms; whoever reaps the
 * CQE disarms (tr_alarm_rang, which also covers an owner riding an alarm that another
 * reaper took). Returns 1 when this sleep rides the alarm (riding set; the caller
 * clears it when it wakes); an alarm armed now is prepared in @ats / the SQ. */
static int tr_alarm(struct tring *r, _Atomic uint32_t *word, uint64_t deadline, struct __kernel_timespec *ats)
{
    if (!deadline) return 0;
    atomic_store_explicit(&r->ride_word, word, memory_order_relaxed);
    atomic_store(&r->riding, 1);
    uint64_t at = atomic_load(&r->alarm_at);
    if (at && at <= deadline) return 1;
    if (!at) {
        struct io_uring_sqe *sqe = tr_get_sqe(r);
        if (sqe) {
            ats->tv_sec = (long long)(deadline / 1000000000ull);
            ats->tv_nsec = (long long)(deadline % 1000000000ull);
            io_uring_prep_timeout(sqe, ats, 0, IORING_TIMEOUT_ABS);
            io_uring_sqe_set_data64(sqe, ALARM_TAG);
            atomic_store(&r->alarm_at, deadline);
            return 1;
        }
    }
    atomic_store(&r->riding, 0);
    return 0;
}

static int tr_sleep(_Atomic uint32_t *word, uint32_t v, int shared, uint64_t deadline, clockid_t clk,
                    int other_words, _Atomic uint32_t *poll_mark)
{
    (void)poll_mark;                     /* a FUTEX_WAKE reaches the ring's FUTEX_WAIT */
    struct tring *r = mine;
    if (!r) return 0;
    if (other_words || (atomic_load(&r->armed) && r->armed_shared != shared)) tr_disarm(r);
    if (other_words) return 0;
    io_uring_cq_eventfd_toggle(&r->ring, false);   /* we reap our own completions now */
    if (!tr_reap(r)) {
        /* the word's request still armed (the last wake was a completion): nothing to
         * submit */
        unsigned sub = 0;
        if (!atomic_load(&r->armed)) {
            struct io_uring_sqe *sqe = tr_get_sqe(r);
            if (!sqe) {
                io_uring_cq_eventfd_toggle(&r->ring, true);
                tr_reap(r);
                return 0;
            }
            /* FUTEX_WAIT: fd = futex2 flags, addr = word, addr2 = value, addr3 = mask */
            io_uring_prep_rw(NSPA_IORING_OP_FUTEX_WAIT, sqe, NSPA_FUTEX2_U32 | (shared ? 0 : NSPA_FUTEX2_PRIVATE),
                             (void *)word, 0, v);
            sqe->addr3 = 0xffffffffull;
            io_uring_sqe_set_data64(sqe, FUTEX_TAG);
            atomic_fetch_add(&r->armed, 1);
            r->armed_shared = shared;
            sub = tr_flush(r);
        }
        struct __kernel_timespec ts, ats;
        struct io_uring_getevents_arg arg;
        memset(&arg, 0, sizeof(arg));
        unsigned flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG;
        int ride = deadline != UINT64_MAX && clk == CLOCK_MONOTONIC && tr_alarm(r, word, deadline, &ats);
        if (ride) {
            sub = tr_flush(r);           /* with the alarm's SQE, if armed now */
        } else if (deadline != UINT64_MAX) {
            uint64_t now = nspa_clock_ns(clk), rel = deadline > now ? deadline - now : 0;
            ts.tv_sec = (long long)(rel / 1000000000ull);
            ts.tv_nsec = (long long)(rel % 1000000000ull);
            arg.ts = (uint64_t)(uintptr_t)&ts;
        }
        /* An armed request (left from an earlier sleep) waits for a FUTEX_WAKE, which a
         * waker that saw us still on the CPU does not send (sync's wake.c,
         * futex_wake_thr): the word itself says whether we were woken meanwhile.
         * sleep_marked's fence orders our T_SLEEP before this load; a fresh request was
         * compared by the kernel and completes at once if the word moved. */
        if (atomic_load_explicit(word, memory_order_acquire) == v) tr_enter(r, sub, 1, flags, &arg, sizeof(arg));
        else if (sub) tr_enter(r, sub, 0, 0, NULL, _NSIG / 8);
        if (ride) atomic_store(&r->riding, 0);
        tr_reap(r);
    }
    io_uring_cq_eventfd_toggle(&r->ring, true);
    tr_reap(r);                          /* what came while the eventfd was off */
    return 1;
}

/* The thread ends: no request of ours on its word, the ring free for the next thread
 * (operations still in flight are cancelled by the kernel at the thread's exit; their
 * completions reach the engine thread through the eventfd). */
static void tr_thread_end(void)
{
    struct tring *r = mine;
    if (!r) return;
    mine = NULL;
    tr_disarm(r);
    tr_unregister(r);
    io_uring_cq_eventfd_toggle(&r->ring, true);
    tr_reap(r);
    atomic_store(&r->owner, 0);
}

/* A thread with a ring of its own: its receives run as its task work, which waits for
 * it to enter the kernel, so a wait that spun would hold its own I/O back. */
static int tr_io_needs_sleep(void) { return mine != NULL; }

static const struct nspa__sleep_hooks hooks = { tr_sleep, tr_thread_end, NULL, tr_io_needs_sleep };

static void end_key_fn(void *unused)
{
    (void)unused;
    tr_thread_end();
}

static void tr_fork_child(void)
{
    /* the rings and the engine thread are the parent's */
    tring_on = 0;
    mine = NULL;
    nspa__set_sleep_hooks(NULL);
}

/* io_uring engine start-up (probe is the process ring's) */
NSPA_HIDDEN void tring_init(struct io_uring_probe *probe)
{
    if (!nspa_env_int("NSPA_IO_THREAD_RINGS", 1, 0, 1)) return;
    if (!io_uring_opcode_supported(probe, NSPA_IORING_OP_FUTEX_WAIT)) return;
    if (pthread_key_create(&end_key, end_key_fn)) return;
    pthread_atfork(NULL, NULL, tr_fork_child);
    tring_on = 1;
    nspa__set_sleep_hooks(&hooks);
}
