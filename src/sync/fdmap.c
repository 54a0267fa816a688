/*
 * The fd map: which descriptor each file, socket or pipe handle of this process stands
 * for, so that another process can take it as DuplicateHandle's SOURCE without this
 * process doing anything (docs/process.md, "Handles across processes").
 *
 * NT duplicates a handle out of another process in the kernel, without that process's
 * cooperation. The Linux peer is pidfd_getfd(2): the caller takes a copy of a
 * descriptor of another process (the same open file description), if it may ptrace it
 * (PTRACE_MODE_ATTACH_REALCREDS: same user and dumpable, or CAP_SYS_PTRACE; Yama's
 * ptrace_scope 1 also wants an ancestor) — the counterpart of PROCESS_DUP_HANDLE. What
 * it needs to know is the descriptor number behind a handle value: this map says it.
 *
 * The map is a file next to the region file (the private 0700 directory), named after
 * the process's pid and start time as its mailbox is (gift.c), mapped MAP_SHARED: one
 * 64-bit entry per handle index (4M entries, a sparse 32 MiB file: only the pages of
 * indices that ever held a file are real), written by this process with plain stores
 * and read by others with pread. An entry is 0 (no file there) or fd + 1 in its low 32
 * bits and the record's description (FDMAP_DESC bits, from the I/O module's hook) in
 * its high 32 bits. It is made at the first file handle of an attached process (or at
 * the attach, when files exist already); it goes at exit, with the sweep of a dead
 * process's slot, or with the namespace's last process.
 *
 * Writers: the handle table (handles.c) on every change of an index holding a file
 * (h_lock held: allocation, close, move) and the I/O module once a new record's
 * description is complete (nspa__fdmap_note). Nothing on a wait or wake path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sync/internal.h"

#define FDMAP_ENTRIES ((size_t)H_DIR * H_CHUNK)

static _Atomic(uint64_t *) fm;          /* our map, or NULL */
static char fm_path[PATH_MAX];
static pthread_mutex_t fm_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t (*fm_hook)(const struct sobj *o);

NSPA_HIDDEN void nspa__set_fdmap_hook(uint64_t (*fn)(const struct sobj *o))
{
    __atomic_store_n(&fm_hook, fn, __ATOMIC_RELEASE);
}

static int fm_name(const struct ns *ns, uint32_t pid, uint64_t start, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s.fd.%u.%llu", ns->path, pid, (unsigned long long)start);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Our map, made if needed (an attached process only). NULL: none (not attached, no
 * room, no descriptors): other processes then cannot take our files. */
static uint64_t *fm_make(void)
{
    uint64_t *m = __atomic_load_n(&fm, __ATOMIC_ACQUIRE);
    struct ns *ns = nspa_ns;
    if (m || !ns || ns->proc == UINT32_MAX) return m;
    pthread_mutex_lock(&fm_lock);
    m = __atomic_load_n(&fm, __ATOMIC_ACQUIRE);
    char path[PATH_MAX];
    if (!m && !fm_name(ns, (uint32_t)getpid(), ns->procs[ns->proc].start_time, path, sizeof(path))) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            void *p = MAP_FAILED;
            if (!ftruncate(fd, (off_t)(FDMAP_ENTRIES * sizeof(uint64_t))))
                p = mmap(NULL, FDMAP_ENTRIES * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p != MAP_FAILED) {
                memcpy(fm_path, path, sizeof(path));
                m = p;
                __atomic_store_n(&fm, m, __ATOMIC_RELEASE);
            } else {
                unlink(path);
            }
        }
    }
    pthread_mutex_unlock(&fm_lock);
    return m;
}

/* Index @i now holds @o (a file object) or nothing (@o NULL). h_lock held. */
NSPA_HIDDEN void fdmap_put(uint32_t i, const struct sobj *o)
{
    if (i >= FDMAP_ENTRIES) return;
    uint64_t *m = __atomic_load_n(&fm, __ATOMIC_ACQUIRE);
    if (!o) {
        if (m) __atomic_store_n(&m[i], 0, __ATOMIC_RELEASE);
        return;
    }
    uint64_t (*hook)(const struct sobj *) = __atomic_load_n(&fm_hook, __ATOMIC_ACQUIRE);
    uint64_t v = hook ? hook(o) : 0;
    if (!m && v) m = fm_make();
    if (m) __atomic_store_n(&m[i], v, __ATOMIC_RELEASE);
}

/* The I/O module finished a record's description: handle @h's entry again. */
NSPA_HIDDEN void nspa__fdmap_note(nspa_obj_t h)
{
    if ((h & 3) || !h) return;
    h_fdmap_refresh((h >> 2) - 1);
}

/* Attach (procs.c, no lock held): the files this process had before it attached. */
NSPA_HIDDEN void fdmap_fill(void)
{
    uint32_t i = 0;
    for (nspa_obj_t h; (h = nspa__handle_next(&i, NSPA_TYPE_FILE, NULL));) h_fdmap_refresh((h >> 2) - 1);
}

/* Process exit: the file goes. */
NSPA_HIDDEN void fdmap_close(void)
{
    uint64_t *m = __atomic_exchange_n(&fm, NULL, __ATOMIC_ACQ_REL);
    if (!m) return;
    unlink(fm_path);
    munmap(m, FDMAP_ENTRIES * sizeof(uint64_t));
}

/* A fork child: the parent's map is not its own (writing it would lie about the
 * parent); it makes its own at its first call (procs.c). */
NSPA_HIDDEN void fdmap_after_fork_child(void)
{
    pthread_mutex_init(&fm_lock, NULL);
    uint64_t *m = __atomic_exchange_n(&fm, NULL, __ATOMIC_ACQ_REL);
    if (m) munmap(m, FDMAP_ENTRIES * sizeof(uint64_t));
}

/* The sweep of dead process slot @p (registry lock held). */
NSPA_HIDDEN void fdmap_forget(struct ns *ns, const struct ns_proc *p)
{
    char path[PATH_MAX];
    if (!fm_name(ns, p->pid, p->start_time, path, sizeof(path))) unlink(path);
}

/* ---- the reading side ------------------------------------------------------------- */

static uint64_t fm_read(int fd, uint32_t i)
{
    uint64_t v = 0;
    if (pread(fd, &v, sizeof(v), (off_t)i * (off_t)sizeof(v)) != (ssize_t)sizeof(v)) v = 0;
    return v;
}

/* A copy of the descriptor behind handle @remote of process @pid (attached to the
 * namespace): *@fd (close-on-exec), *@desc its description. -EBADF: no file, socket or
 * pipe there; -ESRCH: no such process in the namespace; -EACCES: the kernel refuses
 * (pidfd_getfd needs ptrace rights over it); -ENOSYS: no pidfd_getfd (before 5.6). */
NSPA_HIDDEN int nspa__fdmap_take(int32_t pid, nspa_obj_t remote, int *fd, uint32_t *desc)
{
    struct ns *ns = ns_get();
    if (!ns) return ns_error();
    if ((remote & 3) || !remote || (remote >> 2) - 1 >= FDMAP_ENTRIES) return -EBADF;
    uint32_t i = (remote >> 2) - 1;
    char path[PATH_MAX];
    reg_lock(ns);
    uint32_t s = proc_slot_of_pid(ns, (uint32_t)pid);
    uint64_t start = s != UINT32_MAX ? ns->procs[s].start_time : 0;
    int r = s == UINT32_MAX ? -ESRCH : fm_name(ns, (uint32_t)pid, start, path, sizeof(path));
    reg_unlock(ns);
    if (r) return r;
    int mf = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (mf < 0) return -EBADF;                      /* it never had a file */
    uint64_t v = fm_read(mf, i);
    int pfd = v ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    r = !v ? -EBADF : pfd < 0 ? -ESRCH : 0;
    /* the map file is this process's (its name has the start time): the pidfd opened
     * after it names the same process unless it died meanwhile, which the slot says */
    if (!r && proc_gone(ns, s, (uint32_t)pid)) r = -ESRCH;
    int got = -1;
    if (!r) {
        got = (int)syscall(SYS_pidfd_getfd, pfd, (int)(uint32_t)v - 1, 0);
        if (got < 0) r = errno == EPERM ? -EACCES : errno == ENOSYS ? -ENOSYS : errno == EBADF ? -EBADF : -errno;
    }
    /* the handle closed (and its descriptor number reused) while we took it: what we
     * hold may be another file; the entry changed then */
    if (!r && fm_read(mf, i) != v) r = -EBADF;
    if (r && got >= 0) close(got);
    if (pfd >= 0) close(pfd);
    close(mf);
    if (r) return r;
    *fd = got;
    *desc = (uint32_t)(v >> 32);
    return 0;
}
