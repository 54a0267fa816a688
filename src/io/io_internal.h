/*
 * The I/O module's private interface (docs/io.md). Files of the module:
 *   pool.c         operation records (a lock-free pool; never unmapped)
 *   objects.c      file/socket and port records, their sync kinds, closing
 *   engine.c       engine choice, the completion of an operation (exactly once)
 *   engine_uring.c io_uring (liburing): the kernel does the operation
 *   engine_epoll.c epoll: readiness, then the operation from the engine thread
 *   ops.c          running an operation's system call (immediate path, epoll engine)
 *   iocp.c         completion ports: packets, the port's word (a sync-core kind)
 *   status.c       errno -> NTSTATUS -> Win32 error / Winsock error
 *   sock.c         the Linux side of sockets: addresses and options translated
 *   win32_*.c      the Win32 names (Winsock, completion ports, overlapped results)
 *
 * EXACTLY ONCE. An operation that goes pending is on its file's pending list (under
 * the file's lock) until it completes; whoever takes it off the list completes it: the
 * engine (a CQE, or readiness for epoll) or, for epoll, a cancel. With io_uring the
 * kernel owns the buffers until the CQE, so a cancel only asks and the CQE completes.
 */
#ifndef NSPA_IO_INTERNAL_H
#define NSPA_IO_INTERNAL_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "common/export.h"
#include "sync/sync_api.h"
#include "win32/win32_private.h"
#include "nspa/vm.h"
#include "common/platform.h"

#define IO_MAX_IOV 16                   /* WSABUFs held in the operation record */
#define IO_MAX_BUFS 1024                /* WSABUFs in one call (Linux's IOV_MAX); beyond
                                         * IO_MAX_IOV the vector is allocated at issue */

enum io_kind { OP_RECV = 1, OP_SEND, OP_ACCEPT, OP_CONNECT, OP_READ, OP_WRITE, OP_POST };
enum io_routine { RT_NONE = 0, RT_FILE, RT_WSA };

struct io_file;
struct tring;

/* One overlapped operation; also the packet a completion port queues. */
struct io_op {
    struct io_op *next, *prev;          /* the file's pending list; the port's queue */
    _Atomic uint64_t free_next;         /* the pool's list (pool.c) */
    uint32_t idx;                       /* index in the pool */
    uint8_t kind;                       /* enum io_kind */
    uint8_t dir;                        /* 0: receive side, 1: send side */
    uint8_t routine_kind;               /* enum io_routine */
    uint8_t no_port;                    /* hEvent's low bit: no packet */
    uint8_t immediate;                  /* completed on the caller's path */
    uint8_t cancel_sent;                /* io_uring: a cancel was submitted */
    uint8_t in_engine;                  /* submitted to the engine */
    struct tring *tr;                   /* io_uring: the thread ring it went to (NULL: the process ring) */
    struct io_file *file;               /* holds a reference while the op lives */
    struct io_file *port;               /* the file's port when issued (the file's ref keeps it) */
    void *ov;                           /* the OVERLAPPED (NULL for a synchronous op) */
    uintptr_t key;                      /* completion key */
    int64_t res;                        /* bytes, or -errno */
    uint32_t status;                    /* the NTSTATUS delivered */
    uint32_t tid;                       /* issuing thread (completion routine) */
    void *routine;
    nspa_obj_t event;
    int msg_flags;                      /* recv: in flags; out: MSG_TRUNC ... */
    uint32_t out_flags;                 /* WSARecv's *lpFlags on completion */
    struct msghdr msg;
    struct iovec *iov_ext;              /* more than IO_MAX_IOV buffers: the vector (malloc) */
    struct iovec iov[IO_MAX_IOV];
    struct sockaddr_storage addr;       /* recvfrom source, sendto/connect target */
    void *from_out;                     /* WSARecvFrom: the caller's sockaddr */
    int *fromlen_out;
    struct io_file *acc;                /* AcceptEx: the accepting socket (a ref) */
    void *acc_buf;
    uint32_t acc_local, acc_remote;
    uint32_t acc_rxlen;                 /* AcceptEx: data to receive; ConnectEx: to send */
    uint8_t went_pending;               /* returned pending to its caller once */
    uint8_t reset_file;                 /* io_issue resets the file object (no event) */
    uint8_t append;                     /* a write at the end (OVERLAPPED offset all ones) */
    int64_t offset;                     /* files */
    struct nspa_apc apc;                /* the completion routine's APC */
} __attribute__((aligned(64)));         /* no line shared with a record another thread uses */

/* A file or a socket (NSPA_TYPE_FILE), or a completion port (NSPA_TYPE_IOCP). */
struct io_file {
    pthread_mutex_t lock;               /* PI: the pending lists, the event-select state */
    _Atomic uint32_t refs;              /* 0: the record is free */
    /* epoll: a waiter polls its receives (engine_epoll.c); the engine thread touches it
     * without the lock (also for a stale event of a reused record): kept out of the
     * reset of io_file_new, cleared there atomically */
    _Atomic uint32_t watch;
    uint32_t gen;                       /* bumped at every reuse (stale handles) */
    uint32_t slot;
    uint32_t free_next;                 /* the records' free list (slot + 1) */
    int fd;
    uint8_t is_socket, is_port, listening, closing;
    uint8_t conn_reset;                 /* a stream whose peer reset it (io_sock_result) */
    uint8_t bound_seen;                 /* a datagram socket known to be bound (io_sock_recv_ready) */
    uint8_t nonblock;                   /* FIONBIO / WSAEventSelect */
    uint8_t overlapped;                 /* FILE_FLAG_OVERLAPPED / WSA_FLAG_OVERLAPPED */
    uint8_t notify_modes;               /* FILE_SKIP_* */
    uint8_t is_std;                     /* a standard stream: the fd is not ours to close */
    uint8_t is_pipe;                    /* CreatePipe's end (an AF_UNIX stream, one way) */
    int family, type;
    struct sobj *obj;                   /* the handle's object (file-object signal) */
    struct io_file *port;               /* associated completion port (a ref) */
    uintptr_t key;
    struct io_op *q[2][2];              /* pending ops: [dir][head, tail] */
    uint32_t npending[2];
    uint32_t rcvtimeo, sndtimeo;        /* ms, blocking calls */
    /* WSAEventSelect */
    nspa_obj_t es_event;
    uint32_t es_mask, es_pending, es_armed;
    int es_err[10];
    uint8_t es_connected, es_closed;
    /* disk files: access and share bits (file.c), FILE_FLAG_NO_BUFFERING */
    uint64_t dev, ino;
    uint8_t acc_bits, share_bits, shared_in, no_buffering, can_read, can_write;
    /* FILE_FLAG_DELETE_ON_CLOSE: the name to delete (in the directory open as
     * doc_dirfd, O_PATH) when the share access goes (file.c, io_share_release) */
    char *doc_name;
    int doc_dirfd;
    /* completion port: its packets (under lock), the thread count limit */
    struct io_op *pk_head, *pk_tail;
    /* a port that more than one thread has waited on (a pool of workers): its files'
     * operations go to the process ring (io_op_ring_ok); the first waiter's id */
    _Atomic uint32_t pool, first_waiter;
    /* a port of the thread pool's I/O (io_port_set_notify): called under the lock
     * after each packet is queued */
    void (*notify)(void *ctx);
    void *notify_ctx;
} __attribute__((aligned(64)));         /* records side by side are used by different
                                         * threads (a ping-pong's two sockets): no line
                                         * shared between them */

/* ---- pool.c -------------------------------------------------------------------- */
NSPA_HIDDEN struct io_op *io_op_alloc(void);           /* NULL: no memory */
NSPA_HIDDEN void io_op_free(struct io_op *op);

/* ---- objects.c ----------------------------------------------------------------- */
/* a record and its handle (the handle's reference) over @fd (-1: none), which is
 * closed if this fails */
NSPA_HIDDEN int io_file_new(int is_port, int fd, struct io_file **out, nspa_obj_t *h);
NSPA_HIDDEN struct io_file *io_file_get(nspa_obj_t h, int *err);   /* a ref; *err -EBADF / -ENOTSOCK */
NSPA_HIDDEN struct io_file *io_port_get(nspa_obj_t h);
NSPA_HIDDEN uint32_t io_pack_desc(const struct io_file *f);   /* for the fd map (inherit.c) */
NSPA_HIDDEN void io_file_ref(struct io_file *f);
NSPA_HIDDEN int io_file_tryref(struct io_file *f, uint32_t gen);   /* 1: a ref on that generation */
NSPA_HIDDEN void io_file_put(struct io_file *f);
NSPA_HIDDEN void io_file_signal(struct io_file *f, int set);      /* the file object's own state */
NSPA_HIDDEN void io_file_signal_locked(struct io_file *f, int set);   /* file lock held */
NSPA_HIDDEN void io_init_once(void);
NSPA_HIDDEN void io_file_closed_hook(struct sobj *o);   /* both kinds' `closed` */
NSPA_HIDDEN const struct sync_kind *io_port_kind(void);

/* ---- engine.c ------------------------------------------------------------------ */
struct io_engine {
    const char *name;
    int (*init)(void);                  /* 0, or -errno: not usable here */
    int (*submit)(struct io_op *op);    /* file lock held; op on the pending list */
    /* file lock held; op on the pending list. 1: the op was taken off the list (the
     * caller completes it, aborted); 0: asked, the engine completes it later */
    int (*cancel)(struct io_op *op);
    void (*file_new)(struct io_file *f);  /* a socket is made (epoll: registration) */
    void (*file_gone)(struct io_file *f); /* the fd is about to close */
    void (*es_watch)(struct io_file *f, int on);   /* WSAEventSelect readiness (file lock held) */
};
extern const struct io_engine io_engine_uring NSPA_HIDDEN, io_engine_epoll NSPA_HIDDEN;
/* epoll engine: @op of the calling thread went pending (file lock held): its sleeps
 * poll that socket themselves (engine_epoll.c) */
NSPA_HIDDEN void epoll_note_pending(struct io_op *op);
NSPA_HIDDEN void epoll_watch_kick(struct io_file *f);   /* its receives were cancelled */
NSPA_HIDDEN const struct io_engine *io_engine(void);  /* started on first use; NULL: none */
NSPA_HIDDEN void io_engine_thread_setup(void);        /* RT priority in RT mode */
/* Issue @op on @f: immediate attempt (when nothing is queued before it), else pending.
 * Returns 1 completed now (delivered), 0 pending, -errno not started (op freed). */
NSPA_HIDDEN int io_issue(struct io_op *op);
/* The operation ended with @res (file lock NOT held; op off the pending list). */
NSPA_HIDDEN void io_complete(struct io_op *op, int64_t res);
/* The calling thread's last immediate completion (op->immediate: on the issuing
 * thread), noted by io_complete before it delivers: once the packet is queued another
 * thread may take it and reuse the OVERLAPPED, so the issue path reads these, never
 * the OVERLAPPED (Windows documents the same race for lpNumberOfBytesSent). */
struct io_imm { uint32_t bytes, status; };
extern __thread struct io_imm io_imm NSPA_HIDDEN;
NSPA_HIDDEN void io_pending_unlink(struct io_file *f, struct io_op *op);
NSPA_HIDDEN int io_submit_locked(struct io_op *op);
NSPA_HIDDEN void io_submit_next(struct io_file *f, int dir, struct io_op **failed);
NSPA_HIDDEN void io_complete_chain(struct io_op *list);   /* each with its op->res */
/* Cancel the pending ops of @f whose OVERLAPPED is @ov (NULL: all; tid: only those of
 * that thread when nonzero). Returns how many were asked to stop. */
NSPA_HIDDEN int io_cancel(struct io_file *f, void *ov, uint32_t tid);

/* ---- engine_uring.c / engine_tring.c: the io_uring engine's own ---------------- */
struct io_uring_sqe;
struct io_uring_probe;
#define TRING_TAG 5ull                  /* process ring: (idx << 3) | 5, a thread ring's eventfd */
NSPA_HIDDEN int uring_prep_op(struct io_uring_sqe *sqe, struct io_op *op);
NSPA_HIDDEN void uring_op_done(struct io_op *op, int res);      /* a CQE of @op: complete it */
NSPA_HIDDEN int uring_watch_fd(int fd, uint64_t tag);           /* multishot poll on the process ring */
NSPA_HIDDEN void tring_init(struct io_uring_probe *probe);
NSPA_HIDDEN struct tring *tring_mine(void);                     /* NULL: use the process ring */
/* May @op go to its issuer's thread ring? Not when its completion goes to a port that a
 * pool of workers waits on (iocp.c): there the engine thread reaps many completions per
 * wake and hands them to whichever worker is free, where a thread ring made each worker
 * wake for its own completions and then wake the other for the packet (docs/io.md,
 * "Thread rings"). */
static inline int io_op_ring_ok(const struct io_op *op)
{
    return !op->port || !__atomic_load_n(&op->port->pool, __ATOMIC_RELAXED);
}
NSPA_HIDDEN void tring_opt_out(void);                           /* the calling thread never has one */
NSPA_HIDDEN int tring_submit(struct tring *r, struct io_op *op);
NSPA_HIDDEN void tring_cancel(struct io_op *op);
NSPA_HIDDEN int tring_submit_try(struct tring *r, struct io_op *op);
NSPA_HIDDEN int tring_reap_try(struct tring *r, struct io_op *op, int *res);
NSPA_HIDDEN void tring_kick(uint32_t idx, int more);

/* ---- ops.c --------------------------------------------------------------------- */
/* Run the operation's system call once without blocking: bytes, or -errno (-EAGAIN). */
NSPA_HIDDEN int64_t io_op_try(struct io_op *op);
/* Finish what the kernel did (AcceptEx addresses, RecvFrom source, flags). Returns
 * the result, or IO_CONTINUE: the operation goes on as another one (AcceptEx's first
 * receive, ConnectEx's send) and is to be issued again (io_continue). */
#define IO_CONTINUE (-1000000)
NSPA_HIDDEN int64_t io_op_finish(struct io_op *op, int64_t res);
/* an operation that finished in the engine: complete it, or issue its continuation */
NSPA_HIDDEN void io_finish_complete(struct io_op *op, int64_t res);

/* ---- wsa.c: the issue side shared by sockets and files ------------------------------ */
/* a record for an operation on @f (the caller's reference on f goes to it) */
NSPA_HIDDEN struct io_op *io_op_new(struct io_file *f, int kind, int dir, void *ov, void *routine, int rk);
/* issue it: 0 completed now (*bytes), -EINPROGRESS pending, -errno failed (record and
 * reference released) */
NSPA_HIDDEN int io_op_issue(struct io_op *op, uint32_t *bytes);

/* ---- file.c ------------------------------------------------------------------- */
NSPA_HIDDEN void io_share_release(struct io_file *f);   /* the last reference went */
NSPA_HIDDEN int io_share_note(struct io_file *f);       /* an inherited open (inherit.c) */

/* ---- iocp.c -------------------------------------------------------------------- */
NSPA_HIDDEN int io_port_create(uint32_t concurrency, nspa_obj_t *out);
NSPA_HIDDEN int io_port_post(struct io_file *port, struct io_op *op);
/* one packet of port @h, without waiting and without making the caller an active
 * thread of the port (the thread pool's I/O objects); NULL: none */
NSPA_HIDDEN struct io_op *io_port_take(nspa_obj_t h);
/* Dequeue up to @n packets, waiting until @deadline; returns how many (>= 1), or
 * -ETIMEDOUT, -EINTR (an APC ran: alertable), -EOWNERDEAD (port closed), -EBADF. */
NSPA_HIDDEN int io_port_get_packets(nspa_obj_t h, struct io_op **ops, uint32_t n, uint64_t deadline,
                                    int alertable);
NSPA_HIDDEN void io_port_closed(struct io_file *f);
NSPA_HIDDEN void io_port_leave(void);                  /* the thread stops being active */

/* ---- operation statuses (the errno -> status mapping: src/win32/lasterror.c) ---- */
#define IO_STATUS_PENDING  0x103u
#define IO_STATUS_CANCELLED 0xC0000120u

/* ---- sock.c: Winsock numbers on the Linux side ------------------------------------ */
/* Windows sockaddr <-> Linux sockaddr (the families differ: AF_INET6 23 / 10).
 * Returns the Linux length, or -EFAULT/-EINVAL/-EAFNOSUPPORT. */
NSPA_HIDDEN int io_addr_from_win(const void *wa, int wlen, struct sockaddr_storage *out);
/* Linux -> Windows into @wa of *@wlen bytes: *wlen gets the Windows length; -EFAULT
 * when it does not fit. */
NSPA_HIDDEN int io_addr_to_win(const struct sockaddr *a, socklen_t alen, void *wa, int *wlen);
/* a reference to the socket behind @s; NULL with *err -EBADF or -ENOTSOCK */
NSPA_HIDDEN struct io_file *io_sock_get(uint32_t s, int *err);
/* wait for readiness of a blocking socket (poll), honouring SO_RCVTIMEO/SNDTIMEO */
NSPA_HIDDEN int io_sock_block(struct io_file *f, int events, uint32_t timeout_ms);
NSPA_HIDDEN void io_es_reenable(struct io_file *f, int ev);
NSPA_HIDDEN void io_es_poll(struct io_file *f);   /* look at readiness now (file lock held) */

/* One buffer, no address, no control data: the call can be send()/recv() (and
 * IORING_OP_SEND/RECV), which the kernel takes as one user buffer, instead of the
 * sendmsg()/recvmsg() forms that copy a message header in and import an iovec. A
 * receive also needs a stream socket (a datagram's MSG_TRUNC comes back only in the
 * header's flags). */
static inline int io_op_one_buf(const struct io_op *op)
{
    return op->msg.msg_iovlen == 1 && !op->msg.msg_name && !op->msg.msg_control &&
           (op->kind == OP_SEND || op->file->type == SOCK_STREAM);
}

/* The one-buffer calls as plain system calls: libc's send()/recv() are cancellation
 * points (two more calls around every system call, to switch asynchronous cancel on
 * and off); a Winsock call is not one, and NSPA never cancels a thread. -1 and errno
 * as the libc calls. */
/* A stream socket's result as Winsock reports it (sock.c): once a reset was seen, every
 * receive and send says WSAECONNRESET (Linux says it once, then end of stream / EPIPE);
 * a send's EPIPE is told apart (never connected, own shutdown, gone). @dir: 0 receive,
 * 1 send. */
NSPA_HIDDEN int64_t io_sock_result(struct io_file *f, int dir, int64_t res);
/* A receive on a datagram socket never bound fails (Winsock: WSAEINVAL; Linux would
 * wait forever): 0 or -EINVAL. Looked at until the socket is seen bound. */
NSPA_HIDDEN int io_sock_recv_ready(struct io_file *f);
/* ReadFile / WriteFile on a socket (wsa.c): returns as io_file_rw */
NSPA_HIDDEN int io_sock_file_rw(uint32_t s, int wr, void *buf, uint32_t len, uint32_t *done, void *ov, void *routine);

static inline ssize_t io_send1(int fd, const void *buf, size_t len, int flags)
{
#if NSPA_TSAN   /* its send/recv interceptors carry happens-before through the socket */
    return send(fd, buf, len, flags);
#else
    return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
#endif
}

static inline ssize_t io_recv1(int fd, void *buf, size_t len, int flags)
{
#if NSPA_TSAN
    return recv(fd, buf, len, flags);
#else
    return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
#endif
}

/* The kernel is about to write into these buffers for the program: write-watched pages
 * are counted and opened, a guard page loses its guard and fails the call (src/vm,
 * nspa_vm_before_kernel_write). 0 or -EFAULT. */
static inline int io_kernel_writes(const struct iovec *iov, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (nspa_vm_before_kernel_write(iov[i].iov_base, iov[i].iov_len)) return -EFAULT;
    return 0;
}

/* ---- block.c: synchronous waits that CancelSynchronousIo can end ------------------ */
/* wait until @fd is ready for @events (poll), at most @timeout_ms (0: no limit):
 * 0, -ETIMEDOUT, -ECANCELED (CancelSynchronousIo), -ENOMEM (no record for the thread) */
NSPA_HIDDEN int io_block(int fd, int events, uint32_t timeout_ms);
/* the calling thread's wake eventfd (claimed when @claim_now; an issue path, never a
 * wait): its slot + 1 and *efd, or 0; its wake (a write), 1 when written; a drain */
NSPA_HIDDEN uint32_t io_wake_slot(int claim_now, int *efd);
NSPA_HIDDEN int io_wake_slot_kick(uint32_t mark);
NSPA_HIDDEN void io_wake_drain(int efd);

/* ---- pipe.c: pipes and other byte streams, synchronous -------------------------- */
/* read or write on a stream (a pipe, a terminal, a FIFO): blocks in io_block. *done:
 * bytes moved. -EPIPE: read, the write side is gone; write, the read side is gone. */
NSPA_HIDDEN int io_stream_rw(struct io_file *f, int wr, void *buf, uint32_t len, uint32_t *done);

#endif
