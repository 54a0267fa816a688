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
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "nspa/rt.h"
#include "sync/internal.h"

#define ASK_TIMEOUT_S 10

struct ask_msg {
    uint32_t index;                     /* the handle index in the source */
    uint32_t asker;                     /* the asker's pid (checked against SO_PEERCRED) */
};

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
    struct ucred cr;
    socklen_t cl = sizeof(cr);
    int32_t r = -EACCES;
    /* only this user's processes reach the directory; the check is belt and braces */
    if (!getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) && cr.uid == getuid() && (uint32_t)cr.pid == m.asker)
        r = ask_grow(ns, m.index);
    /* our record goes again: a thread left registered keeps the process's slot at its
     * exit (procs.c at_exit releases it only when no thread record is left) */
    nspa__thread_unregister();
    send(c, &r, sizeof(r), MSG_NOSIGNAL);
}

static void *ask_main(void *arg)
{
    struct ns *ns = arg;
    prctl(PR_SET_NAME, "nspa-ask", 0, 0, 0);
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
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&at, 512 * 1024);   /* sanitizer runtimes need room */
        sigset_t all, old;
        sigfillset(&all);                             /* no signals meant for the program */
        pthread_t t;
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64)) {
            close(fd);
        } else {
            memcpy(rq_path, a.sun_path, sizeof(rq_path));
            __atomic_store_n(&rq_fd, fd, __ATOMIC_RELEASE);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            if (pthread_create(&t, &at, ask_main, ns)) {
                /* no thread: no socket (an asker gets -EBADF at once, not a wait) */
                unlink(rq_path);
                close(fd);
                __atomic_store_n(&rq_fd, -1, __ATOMIC_RELEASE);
            }
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        pthread_attr_destroy(&at);
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

/* The asker: grow the object behind handle @remote of process @pid. 0: it is in that
 * process's ledger now; -EBADF: no such handle there, or not an object that grows;
 * -ESRCH: the process is gone or not attached; -ETIMEDOUT: no answer in time. */
NSPA_HIDDEN int nspa__ask_grow(int32_t pid, nspa_obj_t remote)
{
    struct ns *ns = ns_get();
    if (!ns || ns->proc == UINT32_MAX) return ns ? -ESRCH : ns_error();
    if ((remote & 3) || !remote || ((remote >> 2) - 1) >= REMOTE_BASE) return -EBADF;
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
    struct ask_msg m = { .index = (remote >> 2) - 1, .asker = (uint32_t)getpid() };
    int32_t ans = 0;
    int r;
    if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
        /* no request socket: the process never made an arena object (nothing to grow) */
        r = errno == ENOENT || errno == ECONNREFUSED ? -EBADF : errno == EAGAIN ? -ETIMEDOUT : -errno;
    } else if (send(c, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
        r = errno == EAGAIN ? -ETIMEDOUT : -ESRCH;
    } else {
        ssize_t n = recv(c, &ans, sizeof(ans), 0);
        r = n == (ssize_t)sizeof(ans) ? ans : n < 0 && errno == EAGAIN ? -ETIMEDOUT : -ESRCH;
    }
    close(c);
    return r;
}
