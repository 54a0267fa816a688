/*
 * Descriptors given to another process: DuplicateHandle of a file, socket or pipe into
 * another process of the namespace (docs/process.md, "Handles across processes").
 *
 * A file handle names a record of this process over a descriptor (src/io); it cannot
 * grow into the region as sync objects do. What must cross is the descriptor itself,
 * the same open file description (so the file pointer is shared, as NT's duplicated
 * handle shares the file object). Inheritance passes descriptors at exec (src/io/
 * inherit.c); a running process is reached through its MAILBOX: a listening AF_UNIX
 * SOCK_SEQPACKET socket bound, when the process attaches to the namespace, next to the
 * region file (a private 0700 directory: only this user's processes connect), named
 * after its pid and start time (pid reuse cannot mix two processes' mailboxes).
 *
 * The giver, under the registry lock: picks a free handle index of the target from
 * REMOTE_BASE on (as for sync objects, inherit.c), marks that ledger entry GIFT_MARK,
 * connects to the target's mailbox and sends {index, description} with the descriptor
 * (SCM_RIGHTS), and returns the handle value. The kernel holds the descriptor in the
 * pending connection: nothing is open in the target until it takes it, and nothing
 * leaks if it never does (its mailbox dies with it; its ledger's marks are not
 * references). One connection per gift: a listening socket keeps up to its backlog of
 * them (a datagram socket would keep only net.unix.max_dgram_qlen = 10).
 *
 * The target takes its gifts when it first uses such a handle: h_lookup's miss path
 * (handles.c) finds GIFT_MARK in its ledger and drains the mailbox (gift_drain): every
 * pending gift becomes a record of the I/O module (the adopt hook) placed at its index,
 * whose ledger entry then says GIFT_HELD (the index is used by a local object: a later
 * gift must not pick it) until the handle is closed. No thread waits on the mailbox and
 * no wait or wake path looks at it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "sync/internal.h"

#define GIFT_META 96                    /* the description's bytes (text, NUL ended) */

struct gift_msg {
    uint32_t index;                     /* handle index in the target */
    uint32_t giver;                     /* the giver's pid (checked against SO_PEERCRED) */
    char meta[GIFT_META];
};

static int mb_fd = -1;                  /* our mailbox (listening), or -1 */
static char mb_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pthread_mutex_t mb_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*adopt_hook)(int fd, const char *meta, nspa_obj_t *tmp);
static int gift_park(struct ns *ns, uint32_t hs, uint32_t child, int fd, const char *meta, uint32_t access,
                     nspa_obj_t *remote);
static void park_after_fork(void);

NSPA_HIDDEN void nspa__set_gift_hook(int (*fn)(int fd, const char *meta, nspa_obj_t *tmp))
{
    __atomic_store_n(&adopt_hook, fn, __ATOMIC_RELEASE);
}

/* a record over descriptor @fd described by @meta (the I/O module's hook): 0 and *@tmp,
 * or -errno with @fd closed */
NSPA_HIDDEN int gift_adopt(int fd, const char *meta, nspa_obj_t *tmp)
{
    int (*adopt)(int, const char *, nspa_obj_t *) = __atomic_load_n(&adopt_hook, __ATOMIC_ACQUIRE);
    int r = adopt ? adopt(fd, meta, tmp) : -EOPNOTSUPP;
    if (r) close(fd);
    return r;
}

/* The address of socket @what ("mb": the mailbox; "rq": the request socket, ask.c) of
 * the process (@pid, @start); -ENAMETOOLONG when the region's path leaves no room */
NSPA_HIDDEN int proc_sock_addr(const struct ns *ns, const char *what, uint32_t pid, uint64_t start,
                               struct sockaddr_un *a)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path, sizeof(a->sun_path), "%s.%s.%u.%llu", ns->path, what, pid, (unsigned long long)start);
    return n < 0 || (size_t)n >= sizeof(a->sun_path) ? -ENAMETOOLONG : 0;
}

static int mb_addr(const struct ns *ns, uint32_t pid, uint64_t start, struct sockaddr_un *a)
{
    return proc_sock_addr(ns, "mb", pid, start, a);
}

/* Our mailbox, when this process takes its slot (procs.c; no lock held). A stale socket
 * file of a dead process with our pid and start time cannot exist, but one of an
 * earlier image of this very process (exec) can: replaced. Without a mailbox (path too
 * long, no descriptors) files cannot be given to this process: the giver gets an error. */
NSPA_HIDDEN void gift_open(struct ns *ns)
{
    struct sockaddr_un a;
    const struct ns_proc *p = &ns->procs[ns->proc];
    if (mb_fd >= 0 || mb_addr(ns, (uint32_t)getpid(), p->start_time, &a)) return;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return;
    unlink(a.sun_path);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4096)) {
        close(fd);
        return;
    }
    memcpy(mb_path, a.sun_path, sizeof(mb_path));
    mb_fd = fd;
}

/* process exit: the socket file goes (the kernel drops pending gifts and their
 * descriptors with the socket) */
NSPA_HIDDEN void gift_close(void)
{
    if (mb_fd < 0) return;
    close(mb_fd);
    mb_fd = -1;
    unlink(mb_path);
}

/* a fork child: the parent's mailbox is not its own (it gets its own with its slot) */
NSPA_HIDDEN void gift_after_fork_child(void)
{
    pthread_mutex_init(&mb_lock, NULL);
    park_after_fork();
    if (mb_fd >= 0) close(mb_fd);
    mb_fd = -1;
}

/* the sweep of dead process slot @p (registry lock held): its socket file */
NSPA_HIDDEN void gift_forget(struct ns *ns, const struct ns_proc *p)
{
    struct sockaddr_un a;
    if (!mb_addr(ns, p->pid, p->start_time, &a)) unlink(a.sun_path);
    if (!proc_sock_addr(ns, "rq", p->pid, p->start_time, &a)) unlink(a.sun_path);
}

/* A free index of process slot @s's ledger from REMOTE_BASE on (registry lock held):
 * indices its own handles do not reach before a million of them. NULL: full. */
NSPA_HIDDEN uint32_t *remote_free_index(struct ns *ns, uint32_t s, uint32_t *index)
{
    for (uint32_t i = REMOTE_BASE; i < LEDGER_DIR * LEDGER_CHUNK; i++) {
        uint32_t *l = ledger_slot_of(ns, s, i, 1);
        if (!l) return NULL;
        if (*l) continue;
        *index = i;
        return l;
    }
    return NULL;
}

/* One message of @len bytes on socket @c, with descriptor @fd (SCM_RIGHTS) if it is
 * one: 0 or -errno (the mailbox's gifts, ask.c's answers). */
NSPA_HIDDEN int sock_send_fd(int c, const void *msg, size_t len, int fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof(u));
    struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
    struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fd >= 0) {
        h.msg_control = u.buf;
        h.msg_controllen = sizeof(u.buf);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    }
    return sendmsg(c, &h, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/* Is the peer of @c process @pid of our user? Only this user's processes reach the
 * private directory; the check is belt and braces. */
NSPA_HIDDEN int sock_peer_is(int c, uint32_t pid)
{
    struct ucred cr;
    socklen_t cl = sizeof(cr);
    return !getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) && cr.uid == getuid() && (uint32_t)cr.pid == pid;
}

/* Receive one message of @len bytes from @c; *@fd: a descriptor that came with it
 * (close-on-exec), else left as it was. The byte count, or -1 with errno. */
NSPA_HIDDEN ssize_t sock_recv_fd(int c, void *msg, size_t len, int *fd)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = { .iov_base = msg, .iov_len = len };
    struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
    ssize_t n = recvmsg(c, &h, MSG_CMSG_CLOEXEC);
    struct cmsghdr *cm = n == (ssize_t)len ? CMSG_FIRSTHDR(&h) : NULL;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(fd, CMSG_DATA(cm), sizeof(int));
    return n;
}

static int send_gift(const struct sockaddr_un *a, int fd, const struct gift_msg *m)
{
    int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (c < 0) return -errno;
    int r = 0;
    if (connect(c, (const struct sockaddr *)a, sizeof(*a))) {
        r = errno == EAGAIN ? -ENOSPC : errno == EMFILE || errno == ENFILE || errno == ENOMEM ? -errno : -ESRCH;
    } else {
        r = sock_send_fd(c, m, sizeof(*m), fd);
        if (r == -ETOOMANYREFS) r = -EMFILE;
    }
    close(c);
    return r;
}

NSPA_HIDDEN int nspa__gift_send(int32_t pid, int fd, const char *meta, uint32_t access, nspa_obj_t *remote)
{
    struct ns *ns = ns_get();
    if (!ns || ns->proc == UINT32_MAX) return ns ? -EACCES : ns_error();
    struct gift_msg m;
    memset(&m, 0, sizeof(m));
    m.giver = (uint32_t)getpid();
    if (strlen(meta) >= sizeof(m.meta)) return -EINVAL;
    strcpy(m.meta, meta);
    /* a child that has not attached will ask our request thread for a parked gift (a
     * giver of files has arena objects: it runs already, as a rule) */
    __atomic_store_n(&ask_wanted, 1, __ATOMIC_RELAXED);
    ask_start(ns);
    reg_lock(ns);
    uint32_t s = proc_slot_of_pid(ns, (uint32_t)pid);
    /* a child that has not attached has no mailbox yet: the gift is parked here */
    uint32_t hs = s == UINT32_MAX ? proc_handoff_of_pid(ns, (uint32_t)pid) : UINT32_MAX;
    if (hs != UINT32_MAX) {
        int r = gift_park(ns, hs, (uint32_t)pid, fd, meta, access, remote);
        reg_unlock(ns);
        return r;
    }
    int r = -ESRCH;
    struct sockaddr_un a;
    if (s != UINT32_MAX && s != ns->proc && !ns->procs[s].handoff &&
        !(r = mb_addr(ns, ns->procs[s].pid, ns->procs[s].start_time, &a))) {
        uint32_t i = 0, *l = remote_free_index(ns, s, &i);
        r = -EMFILE;
        if (l) {
            /* marked before the send, both under the registry lock: a target that sees
             * the mark and then takes the lock finds the gift in its mailbox */
            ledger_set_access(ns, l, access);   /* NSPA__ACCESS_INHERIT: h_place_gift */
            jset32(ns, l, GIFT_MARK);
            m.index = i;
            r = send_gift(&a, fd, &m);
            if (r) jset32(ns, l, 0);
            else *remote = (i + 1) << 2;
        }
    }
    reg_unlock(ns);
    return r;
}

/* ---- gifts to a child that has not attached (CREATE_SUSPENDED) ---------------------- */

/* Such a child has no mailbox yet, and it is stopped before its exec: nothing can be
 * sent to it. Its parent (the only process that can give it handles before it runs:
 * only it has a process handle for it) parks the descriptor here, marks the index in
 * the child's handoff ledger GIFT_PARKED and returns the value. The child, after it
 * attaches, asks its parent for each parked index (ASK_PARKED through the parent's
 * request thread, ask.c) and places what it gets at that index; it does so as soon as
 * its I/O module is up (the two constructors, whichever runs second), and a first use
 * of the value fetches too. What the child never fetched goes when it ends (the
 * watcher's reap, nspa__handoff_reap). If the parent dies first, the descriptors go
 * with it and the child's values name nothing (ERROR_INVALID_HANDLE). */
#define PARK_MAX 256
static struct park {
    uint32_t child, index;              /* child 0: a free entry */
    int fd;
    char meta[GIFT_META];
} parked[PARK_MAX];
static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fetch_lock = PTHREAD_MUTEX_INITIALIZER;   /* the child's fetches */

/* Registry lock held (the handoff slot @hs cannot go meanwhile). */
static int gift_park(struct ns *ns, uint32_t hs, uint32_t child, int fd, const char *meta, uint32_t access,
                     nspa_obj_t *remote)
{
    uint32_t i = 0, *l = remote_free_index(ns, hs, &i);
    if (!l) return -EMFILE;
    int r = -EMFILE;
    pthread_mutex_lock(&park_lock);
    for (int k = 0; k < PARK_MAX; k++) {
        if (parked[k].child) continue;
        int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0) {
            r = -errno;
            break;
        }
        parked[k] = (struct park){ .child = child, .index = i, .fd = copy };
        snprintf(parked[k].meta, sizeof(parked[k].meta), "%s", meta);
        ledger_set_access(ns, l, access);
        jset32(ns, l, GIFT_PARKED);
        *remote = (i + 1) << 2;
        r = 0;
        break;
    }
    pthread_mutex_unlock(&park_lock);
    return r;
}

/* a fork child: the parent's parked gifts are the parent's to give */
static void park_after_fork(void)
{
    pthread_mutex_init(&park_lock, NULL);
    pthread_mutex_init(&fetch_lock, NULL);
    for (int k = 0; k < PARK_MAX; k++)
        if (parked[k].child) {
            close(parked[k].fd);
            parked[k].child = 0;
        }
}

/* The parked gift (@child, @index): its descriptor to the caller (who closes it). */
NSPA_HIDDEN int gift_unpark(uint32_t child, uint32_t index, int *fd, char *meta, size_t cap)
{
    int r = -EBADF;
    pthread_mutex_lock(&park_lock);
    for (int k = 0; k < PARK_MAX; k++) {
        if (!child || parked[k].child != child || parked[k].index != index) continue;
        *fd = parked[k].fd;
        snprintf(meta, cap, "%s", parked[k].meta);
        parked[k].child = 0;
        r = 0;
        break;
    }
    pthread_mutex_unlock(&park_lock);
    return r;
}

/* @child ended: what it did not fetch goes */
NSPA_HIDDEN void gift_unpark_all(uint32_t child)
{
    pthread_mutex_lock(&park_lock);
    for (int k = 0; k < PARK_MAX; k++) {
        if (!child || parked[k].child != child) continue;
        close(parked[k].fd);
        parked[k].child = 0;
    }
    pthread_mutex_unlock(&park_lock);
}

/* The child: fetch every parked gift of its ledger from its parent (no lock held; the
 * I/O module's hook must be set: until then nothing is done). */
NSPA_HIDDEN void gift_fetch_parked(struct ns *ns)
{
    if (!__atomic_load_n(&adopt_hook, __ATOMIC_ACQUIRE) || ns->proc == UINT32_MAX) return;
    const struct ns_proc *p = &ns->procs[ns->proc];
    /* one fetcher at a time: a refusal (fetched by the other) must not drop the mark
     * the other is about to replace */
    pthread_mutex_lock(&fetch_lock);
    for (uint32_t c = REMOTE_BASE / LEDGER_CHUNK; c < LEDGER_DIR; c++) {
        uint32_t k = __atomic_load_n(&p->ledger[c], __ATOMIC_ACQUIRE);
        if (!k || k > LEDGER_CHUNKS) continue;
        const uint32_t *chunk = ns->chunks + (size_t)(k - 1) * LEDGER_CHUNK;
        for (uint32_t j = 0; j < LEDGER_CHUNK; j++) {
            if (__atomic_load_n(&chunk[j], __ATOMIC_ACQUIRE) != GIFT_PARKED) continue;
            uint32_t i = c * LEDGER_CHUNK + j;
            nspa_obj_t tmp = 0;
            if (ask_parked((int32_t)getppid(), i, &tmp)) tmp = 0;
            h_place_gift(ns, tmp, i);                 /* or the mark goes */
        }
    }
    pthread_mutex_unlock(&fetch_lock);
}

NSPA_HIDDEN void nspa__gift_fetch_parked(void)
{
    struct ns *ns = nspa_ns;
    if (ns) gift_fetch_parked(ns);
}

/* Take every pending gift (h_lookup's miss on a GIFT_MARK entry; no lock held). Each
 * one's descriptor becomes a record (the adopt hook) placed at its index. */
NSPA_HIDDEN void gift_drain(struct ns *ns)
{
    int (*adopt)(int, const char *, nspa_obj_t *) = __atomic_load_n(&adopt_hook, __ATOMIC_ACQUIRE);
    reg_lock(ns);                       /* a giver between its mark and its send is done */
    reg_unlock(ns);
    pthread_mutex_lock(&mb_lock);
    for (int c; mb_fd >= 0 && (c = accept4(mb_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0; close(c)) {
        struct gift_msg m;
        /* a giver that connected after our look at the registry lock sends at once
         * (it holds that lock from its mark to its send): wait for it, boundedly; a
         * giver that died in between closes the connection (0) and its mark is rolled
         * back with its journal */
        struct timeval tv = { .tv_sec = 2 };
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        int fd = -1;
        if (sock_recv_fd(c, &m, sizeof(m), &fd) != (ssize_t)sizeof(m)) continue;   /* not a gift: dropped */
        if (fd >= 0 && !sock_peer_is(c, m.giver)) {
            close(fd);
            fd = -1;
        }
        m.meta[sizeof(m.meta) - 1] = 0;
        nspa_obj_t tmp = 0;
        if (fd >= 0 && (!adopt || adopt(fd, m.meta, &tmp))) {
            close(fd);
            tmp = 0;
        }
        h_place_gift(ns, tmp, m.index);
    }
    pthread_mutex_unlock(&mb_lock);
}
