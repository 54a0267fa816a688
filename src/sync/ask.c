/*
 * Another process asks this one to grow an object of its arena into the region: the
 * source side of DuplicateHandle(hSourceProcess = us, hSourceHandle = a handle to an
 * unnamed object we never shared). docs/process.md, "An unshared object of another
 * process as the source".
 *
 * An arena object lives in this process's private memory and its handles in our
 * private table: only this process can grow it (obj_promote switches our handles to
 * the region object, with their ledger entries, and moves our waiters). So the asker
 * sends the handle value to our REQUEST SOCKET, a listening AF_UNIX SOCK_SEQPACKET
 * socket next to the region file (the private 0700 directory), named after our pid and
 * start time as the mailbox is (gift.c); our request thread (nspa-ask) accepts, grows
 * the object under the registry lock and answers 0 or -errno. The asker then finds the
 * object in our ledger and duplicates it as any region object (inherit.c), with
 * DUPLICATE_CLOSE_SOURCE and DUPLICATE_SAME_ACCESS as for those.
 *
 * The same thread serves DUPLICATE_CLOSE_SOURCE of a file, socket or pipe handle of
 * ours (ASK_TAKE): a descriptor cannot be closed from outside, so we close our handle
 * and send a copy of its descriptor with its description (SCM_RIGHTS, as a gift); the
 * asker makes its record over it. Without CLOSE_SOURCE the asker copies the descriptor with
 * pidfd_getfd and does not need us (fdmap.c).
 *
 * Why a thread: the asker must not depend on what our threads are doing — a process
 * whose threads all wait (often on the very object asked for) would never answer at its
 * "next library call". The thread starts with the first arena object of an attached
 * process (or at the attach of a process that made one before): a process with no
 * arena object has nothing to grow, and its missing socket answers at once (-EBADF).
 * It sleeps in accept(), holds a thread record of the region only while it serves a
 * request (obj_promote needs one), and runs at real-time priority in RT mode (an asker of any priority waits
 * for it). A stopped or hung source leaves the asker waiting up to ASK_TIMEOUT_S
 * (-ETIMEDOUT); a source that dies answers at once (the connection closes: -ESRCH).
 * Nothing here is on a wait or wake path.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "nspa/rt.h"
#include "sync/internal.h"

#define ASK_TIMEOUT_S 10

enum { ASK_GROW = 1, ASK_TAKE = 2, ASK_PARKED = 3 };

struct ask_msg {
    uint32_t kind;                      /* ASK_* */
    uint32_t index;                     /* the handle index in the source */
    uint32_t asker;                     /* the asker's pid (checked against SO_PEERCRED) */
};

struct ask_answer {
    int32_t r;                          /* 0 or -errno */
    char meta[64];                      /* ASK_TAKE: the description of the descriptor sent */
};

static int (*give_hook)(nspa_obj_t h, int *fd, char *meta, size_t cap);

NSPA_HIDDEN void nspa__set_give_hook(int (*fn)(nspa_obj_t h, int *fd, char *meta, size_t cap))
{
    __atomic_store_n(&give_hook, fn, __ATOMIC_RELEASE);
}

static int send_answer(int c, const struct ask_answer *a, int fd) { return sock_send_fd(c, a, sizeof(*a), fd); }

/* ASK_TAKE: our file handle index @i goes to the asker on @c, then is closed here. */
static void ask_take(int c, uint32_t i)
{
    struct ask_answer a;
    memset(&a, 0, sizeof(a));
    nspa_obj_t h = (nspa_obj_t)(i + 1) << 2;
    struct sobj *o = i < H_DIR * H_CHUNK ? h_at(i, NULL) : NULL;
    int (*give)(nspa_obj_t, int *, char *, size_t) = __atomic_load_n(&give_hook, __ATOMIC_ACQUIRE);
    int fd = -1;
    a.r = !o || __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) != NSPA_TYPE_FILE ? -EBADF
          : !give                                                            ? -EOPNOTSUPP
                                                                             : give(h, &fd, a.meta, sizeof(a.meta));
    /* closed before the answer goes (our copy of the descriptor stays): when the asker's
     * DuplicateHandle returns, the handle is gone here, as on NT, where CLOSE_SOURCE
     * closes it even if the copy then fails. A protected handle stays open (NT: the
     * close is refused, the copy stands). */
    if (!a.r) nspa_close(h);
    send_answer(c, &a, a.r ? -1 : fd);
    if (fd >= 0) close(fd);
}

int ask_wanted;                         /* an arena object was made: serve requests */
static int rq_fd = -1;                  /* our request socket (listening), or -1 */
static char rq_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pthread_mutex_t rq_lock = PTHREAD_MUTEX_INITIALIZER;

/* Grow the object behind our handle index @i into the region (its ledger entry then
 * names it). 0, -EBADF (no such handle, or not a kind that grows: files are taken
 * through the fd map), -EOPNOTSUPP (a mutex owned by a thread without a region record),
 * -ENOSPC. */
static int ask_grow(struct ns *ns, uint32_t i)
{
    if (i >= REMOTE_BASE || !h_at(i, NULL)) return -EBADF;   /* from REMOTE_BASE on: given, never arena */
    nspa_obj_t h = (nspa_obj_t)(i + 1) << 2;
    /* obj_promote needs our thread record: registered first (it takes the registry lock) */
    if (!self()) return -ENOMEM;
    reg_lock(ns);
    struct sobj *o = h_lookup_locked(ns, h);
    int r = !o || !o->type ? -EBADF : 0;
    if (!r && !o->in_region) {
        if (o->type == NSPA_TYPE_FILE || o->type == NSPA_TYPE_IOCP) r = -EBADF;
        else r = obj_promote(ns, o, &o);
        if (r == -EBUSY) r = -EOPNOTSUPP;
    }
    reg_unlock(ns);
    return r;
}

static void ask_serve(struct ns *ns, int c)
{
    struct ask_msg m;
    struct timeval tv = { .tv_sec = 2 };            /* an asker sends right after connecting */
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (recv(c, &m, sizeof(m), 0) != (ssize_t)sizeof(m)) return;
    int32_t r = -EACCES;
    int ok = sock_peer_is(c, m.asker);
    if (ok && m.kind == ASK_TAKE) {
        ask_take(c, m.index);
    } else if (ok && m.kind == ASK_PARKED) {
        /* a child of ours fetching a descriptor parked for it (gift.c) */
        struct ask_answer a;
        memset(&a, 0, sizeof(a));
        int fd = -1;
        a.r = gift_unpark(m.asker, m.index, &fd, a.meta, sizeof(a.meta));   /* the peer's pid */
        send_answer(c, &a, a.r ? -1 : fd);
        if (fd >= 0) close(fd);
    } else {
        if (ok && m.kind == ASK_GROW) r = ask_grow(ns, m.index);
        struct ask_answer a = { .r = r };
        send_answer(c, &a, -1);
    }
    /* our record goes again: a thread left registered keeps the process's slot at its
     * exit (procs.c at_exit releases it only when no thread record is left) */
    nspa__thread_unregister();
}

static void *ask_main(void *arg)
{
    struct ns *ns = arg;
    if (nspa_rt_enabled()) {
        int p = nspa_rt_prio() - 1;
        struct sched_param sp = { .sched_priority = p < 1 ? 1 : p };
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);   /* refused: stays SCHED_OTHER */
    }
    int fd = (int)__atomic_load_n(&rq_fd, __ATOMIC_ACQUIRE);
    for (;;) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            return NULL;                               /* shut down at exit */
        }
        ask_serve(ns, c);
        close(c);
    }
}

/* Our request socket and thread, when this process is attached and has made an arena
 * object (procs.c at attach, ask_want at the first object). */
NSPA_HIDDEN void ask_start(struct ns *ns)
{
    if (!__atomic_load_n(&ask_wanted, __ATOMIC_RELAXED) || __atomic_load_n(&rq_fd, __ATOMIC_ACQUIRE) >= 0) return;
    pthread_mutex_lock(&rq_lock);
    struct sockaddr_un a;
    const struct ns_proc *p = &ns->procs[ns->proc];
    int fd = -1;
    if (rq_fd < 0 && !proc_sock_addr(ns, "rq", (uint32_t)getpid(), p->start_time, &a) &&
        (fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) >= 0) {
        unlink(a.sun_path);                            /* an earlier image of ours (exec) */
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64)) {
            close(fd);
        } else {
            memcpy(rq_path, a.sun_path, sizeof(rq_path));
            __atomic_store_n(&rq_fd, fd, __ATOMIC_RELEASE);
            if (nspa_service_thread(ask_main, ns, "nspa-ask")) {
                /* no thread: no socket (an asker gets -EBADF at once, not a wait) */
                unlink(rq_path);
                close(fd);
                __atomic_store_n(&rq_fd, -1, __ATOMIC_RELEASE);
            }
        }
    }
    pthread_mutex_unlock(&rq_lock);
}

/* process exit: the socket file goes; the thread's accept fails and it returns */
NSPA_HIDDEN void ask_close(void)
{
    int fd = __atomic_exchange_n(&rq_fd, -1, __ATOMIC_ACQ_REL);
    if (fd < 0) return;
    unlink(rq_path);
    shutdown(fd, SHUT_RDWR);
}

/* a fork child: no thread; it starts its own with its slot */
NSPA_HIDDEN void ask_after_fork_child(void)
{
    pthread_mutex_init(&rq_lock, NULL);
    if (rq_fd >= 0) close(rq_fd);
    rq_fd = -1;
}

/* The asker: request @kind about handle @remote of process @pid; *@fd (ASK_TAKE) the
 * descriptor received, @a the answer. 0 or -errno: -EBADF no such handle there (or
 * nothing of that kind), -ESRCH the process is gone or not attached, -ETIMEDOUT no
 * answer in time. */
static int ask(uint32_t kind, int32_t pid, nspa_obj_t remote, struct ask_answer *an, int *fd)
{
    /* attached already (not ns_get: a child fetching its parked files asks from inside
     * its attach, under the attach lock) */
    struct ns *ns = __atomic_load_n(&nspa_ns, __ATOMIC_ACQUIRE);
    if (!ns || ns->proc == UINT32_MAX) return -ESRCH;
    if ((remote & 3) || !remote || ((remote >> 2) - 1) >= H_DIR * H_CHUNK) return -EBADF;
    reg_lock(ns);
    uint32_t s = proc_slot_of_pid(ns, (uint32_t)pid);
    uint64_t start = s != UINT32_MAX ? ns->procs[s].start_time : 0;
    reg_unlock(ns);
    struct sockaddr_un a;
    if (s == UINT32_MAX || s == ns->proc) return -ESRCH;
    if (proc_sock_addr(ns, "rq", (uint32_t)pid, start, &a)) return -EBADF;
    int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (c < 0) return -errno;
    struct timeval tv = { .tv_sec = ASK_TIMEOUT_S };
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    struct ask_msg m = { .kind = kind, .index = (remote >> 2) - 1, .asker = (uint32_t)getpid() };
    int r;
    if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
        /* no request socket: the process never made an arena object (nothing to grow) */
        r = errno == ENOENT || errno == ECONNREFUSED ? -EBADF : errno == EAGAIN ? -ETIMEDOUT : -errno;
    } else if (send(c, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
        r = errno == EAGAIN ? -ETIMEDOUT : -ESRCH;
    } else {
        ssize_t n = sock_recv_fd(c, an, sizeof(*an), fd);
        r = n == (ssize_t)sizeof(*an) ? an->r : n < 0 && errno == EAGAIN ? -ETIMEDOUT : -ESRCH;
        an->meta[sizeof(an->meta) - 1] = 0;
    }
    close(c);
    if (r && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return r;
}

/* Grow the object behind handle @remote of process @pid: 0, it is in that process's
 * ledger now; -EBADF also for an object that does not grow. */
NSPA_HIDDEN int nspa__ask_grow(int32_t pid, nspa_obj_t remote)
{
    struct ask_answer an;
    int fd = -1;
    if (((remote >> 2) - 1) >= REMOTE_BASE) return -EBADF;     /* given to it: never arena */
    int r = ask(ASK_GROW, pid, remote, &an, &fd);
    if (fd >= 0) close(fd);
    return r;
}

/* A child: the descriptor its @parent parked for handle index @index (gift.c). */
NSPA_HIDDEN int ask_parked(int32_t parent, uint32_t index, nspa_obj_t *tmp)
{
    struct ask_answer an;
    int fd = -1;
    int r = ask(ASK_PARKED, parent, (nspa_obj_t)(index + 1) << 2, &an, &fd);
    if (!r && fd < 0) r = -EBADF;
    if (!r) r = gift_adopt(fd, an.meta, tmp);
    return r;
}

NSPA_HIDDEN int nspa__ask_take(int32_t pid, nspa_obj_t remote, nspa_obj_t *tmp)
{
    struct ask_answer an;
    int fd = -1;
    int r = ask(ASK_TAKE, pid, remote, &an, &fd);
    if (!r && fd < 0) r = -EBADF;
    if (!r) r = gift_adopt(fd, an.meta, tmp);
    return r;
}
