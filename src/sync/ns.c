/*
 * Namespaces: the shared region, its lock and journal, thread and process slots,
 * and the reclamation of what dead threads and processes leave behind.
 * The locking rules are in internal.h; the design in docs/sync.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include "sync/internal.h"

struct ns *nspa_ns;
__thread struct nspa_tls *nspa_self;

static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static char ns_name[65];
static pthread_key_t thread_key;

/* ---- layout -------------------------------------------------------------------- */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static void layout(struct ns *ns, int init)
{
    size_t off = align_up(sizeof(struct ns_header), 4096);
    struct ns_header *h = (struct ns_header *)ns->base;
    if (init) {
        h->off_journal = off;  off = align_up(off + sizeof(struct ns_journal_entry) * JOURNAL_MAX, 4096);
        h->off_threads = off;  off = align_up(off + sizeof(struct ns_thread) * MAX_THREADS, 4096);
        h->off_procs = off;    off = align_up(off + sizeof(struct ns_proc) * MAX_PROCS, 4096);
        h->off_objs = off;     off = align_up(off + sizeof(struct ns_obj) * MAX_OBJECTS, 4096);
        h->off_names = off;    off = align_up(off + sizeof(struct ns_name) * MAX_NAMES, 4096);
        h->off_handles = off;  off = align_up(off + sizeof(uint32_t) * (size_t)MAX_HANDLES * MAX_PROCS, 4096);
        h->size = off;
    }
    ns->hdr = h;
    ns->journal = (void *)(ns->base + h->off_journal);
    ns->threads = (void *)(ns->base + h->off_threads);
    ns->procs = (void *)(ns->base + h->off_procs);
    ns->objs = (void *)(ns->base + h->off_objs);
    ns->names = (void *)(ns->base + h->off_names);
}

static size_t region_size(void)
{
    struct ns tmp;
    static struct ns_header h;
    tmp.base = (char *)&h;
    layout(&tmp, 1);
    return h.size;
}

static int valid_ns_name(const char *n)
{
    size_t len = strlen(n);
    if (len < 1 || len > 64) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = n[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return n[0] != '.';
}

NSPA_EXPORT int nspa_set_namespace(const char *name)
{
    if (!name || !valid_ns_name(name)) return -EINVAL;
    pthread_mutex_lock(&attach_lock);
    int ret = 0;
    if (nspa_ns) ret = -EBUSY;
    else snprintf(ns_name, sizeof(ns_name), "%s", name);
    pthread_mutex_unlock(&attach_lock);
    return ret;
}

static void init_region(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&h->lock, &a);
    pthread_mutexattr_destroy(&a);
    h->version = NS_VERSION;
    h->uid = getuid();
}

static uint64_t proc_start_time(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    /* fields after ')' start at field 3; starttime is field 22 */
    int field = 2;
    for (; *p && field < 22; p++)
        if (*p == ' ') field++;
    return strtoull(p, NULL, 10);
}

static int proc_is_dead(struct ns_proc *p)
{
    if (!p->pid) return 0;
    if (kill((pid_t)p->pid, 0) < 0 && errno == ESRCH) return 1;
    uint64_t st = proc_start_time((pid_t)p->pid);
    return st && st != p->start_time;
}

static void thread_key_destructor(void *arg);
static void at_exit(void);

/* fork: the child is a new process of the namespace. Its handles are the parent's,
 * duplicated into a process slot of its own on its first NSPA call (Unix fd
 * semantics); its threads register anew. Nothing is locked across fork: the lock is
 * in shared memory and the parent releases it as usual. */
static struct ns *forked_ns;
static int has_forked;

NSPA_HIDDEN int ns_has_forked(void) { return __atomic_load_n(&has_forked, __ATOMIC_ACQUIRE); }

/* Before fork: from now on this process's waits sleep on shared futexes (its
 * unnamed objects are about to be reachable from the child), and the threads sleeping
 * on private ones now are re-armed to sleep again on shared ones. The lock is not held
 * across the fork. */
static void atfork_prepare(void)
{
    struct ns *ns = nspa_ns;
    if (__atomic_exchange_n(&has_forked, 1, __ATOMIC_ACQ_REL) || !ns) return;
    ns_lock(ns);
    for (uint32_t i = 0; i < MAX_THREADS; i++) {
        struct ns_thread *t = &ns->threads[i];
        if (!t->tid || t->proc != ns->proc || t->kind == WAIT_NONE || !t->wake_private) continue;
        jset32(ns, &t->wake_private, 0);
        /* REARM, woken on the private futex it sleeps on: it re-reads its mode */
        uint32_t zero = WAKE_WAITING;
        atomic_compare_exchange_strong(&t->wake, &zero, WAKE_REARM);
        syscall(SYS_futex, &t->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
    ns_unlock(ns);
}
/* The parent's reaper thread does not come along; the child starts its own on its
 * first named-mutex create or open, like any process (not at fork: a fork child that
 * only execs must not spawn a thread). */
static void atfork_child(void)
{
    if (nspa_ns) {
        forked_ns = nspa_ns;
        nspa_ns = NULL;
    }
    nspa_self = NULL;
    reaper_after_fork();
}

static uint32_t take_proc_slot(struct ns *ns)
{
    for (uint32_t i = 0; i < MAX_PROCS; i++)
        if (!ns->procs[i].pid) return i;
    return UINT32_MAX;
}

static void claim_proc_slot(struct ns *ns, uint32_t slot)
{
    struct ns_proc *p = &ns->procs[slot];
    jset32(ns, &p->pid, (uint32_t)getpid());
    jset64(ns, &p->start_time, proc_start_time(getpid()));
    jset32(ns, &p->handles_hwm, 0);
    jset32(ns, &p->free_handle, 0);
    jset32(ns, &p->nhandles, 0);
}

static uint32_t *proc_handles(struct ns *ns, uint32_t slot)
{
    return (uint32_t *)(ns->base + ns->hdr->off_handles) + (size_t)slot * MAX_HANDLES;
}

/* In a fork child: take a slot and copy the parent's handle table, taking a
 * reference per handle. Commits every few thousand handles so the journal stays
 * small; a child killed half-way leaves a consistent, partly filled table. */
static int reattach_after_fork(struct ns *ns)
{
    uint32_t parent = ns->proc;
    uint32_t *old = proc_handles(ns, parent);
    ns_lock(ns);
    ns_sweep_dead(ns);
    uint32_t slot = take_proc_slot(ns);
    if (slot == UINT32_MAX) {
        ns_unlock(ns);
        return -1;
    }
    claim_proc_slot(ns, slot);
    uint32_t *tab = proc_handles(ns, slot);
    struct ns_proc *pp = &ns->procs[parent], *p = &ns->procs[slot];
    uint32_t hwm = pp->handles_hwm;
    for (uint32_t i = 0; i < hwm; i++) {
        uint32_t v = old[i];
        jset32(ns, &tab[i], v);
        if (v && !(v & 0x80000000u)) {
            jset32(ns, &ns->objs[v - 1].refs, ns->objs[v - 1].refs + 1);
            jset32(ns, &p->nhandles, p->nhandles + 1);
        }
        jset32(ns, &p->handles_hwm, i + 1);
        if ((i & 4095) == 4095) {
            ns_unlock(ns);
            ns_lock(ns);
        }
    }
    jset32(ns, &p->free_handle, pp->free_handle);
    ns->proc = slot;
    ns->handles = tab;
    ns_unlock(ns);
    return 0;
}

/* Open or create the namespace file. Creation is atomic: the region is built in a
 * private temporary file and linked into place, so nobody sees a half-made one. */
static int open_region(struct ns *ns, const char *name)
{
    size_t size = region_size();
    snprintf(ns->path, sizeof(ns->path), "/dev/shm/nspa-%u-%s", (unsigned)getuid(), name);
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = open(ns->path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            struct stat st;
            if (fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077) ||
                !S_ISREG(st.st_mode)) {
                close(fd);
                return -EACCES;
            }
            if ((size_t)st.st_size != size) {   /* made by another NSPA version */
                close(fd);
                return -EPROTO;
            }
            void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
            close(fd);
            if (base == MAP_FAILED) return -ENOMEM;
            ns->base = base;
            ns->size = size;
            layout(ns, 0);
            if (ns->hdr->magic != NS_MAGIC || ns->hdr->version != NS_VERSION) {
                munmap(base, size);
                return -EPROTO;
            }
            return 0;
        }
        if (errno != ENOENT) return -errno;
        char tmp[300];
        snprintf(tmp, sizeof(tmp), "%s.%d.tmp", ns->path, (int)getpid());
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0) return -errno;
        if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t)size) < 0) {
            int e = -errno;
            close(fd);
            unlink(tmp);
            return e;
        }
        void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
        close(fd);
        if (base == MAP_FAILED) { unlink(tmp); return -ENOMEM; }
        ns->base = base;
        ns->size = size;
        layout(ns, 1);
        init_region(ns);
        ns->hdr->magic = NS_MAGIC;
        int r = link(tmp, ns->path);
        unlink(tmp);
        if (r == 0) return 0;
        munmap(base, size);
        if (errno != EEXIST) return -errno;
        /* someone else won the race: open theirs */
    }
    return -EAGAIN;
}

/* Attach this process to its namespace (once). */
NSPA_HIDDEN struct ns *ns_attach(void)
{
    struct ns *ns = __atomic_load_n(&nspa_ns, __ATOMIC_ACQUIRE);
    if (ns) return ns;
    pthread_mutex_lock(&attach_lock);
    ns = nspa_ns;
    if (ns) goto out;
    if (forked_ns) {
        ns = forked_ns;
        forked_ns = NULL;
        if (reattach_after_fork(ns) < 0) {
            fprintf(stderr, "nspa: namespace %s has no free process slot\n", ns->path);
            ns = NULL;
            goto out;
        }
        __atomic_store_n(&nspa_ns, ns, __ATOMIC_RELEASE);
        goto out;
    }
    if (!ns_name[0]) {
        const char *env = getenv("NSPA_NAMESPACE");
        snprintf(ns_name, sizeof(ns_name), "%s", env && valid_ns_name(env) ? env : "default");
    }
    ns = calloc(1, sizeof(*ns));
    if (!ns) goto out;
    int r = open_region(ns, ns_name);
    if (r < 0) {
        if (r == -EPROTO)
            fprintf(stderr, "nspa: namespace %s was made by an incompatible NSPA version; "
                    "remove it once no program uses it\n", ns->path);
        else
            fprintf(stderr, "nspa: cannot open namespace %s: %s\n", ns->path, strerror(-r));
        free(ns);
        ns = NULL;
        goto out;
    }
    pthread_key_create(&thread_key, thread_key_destructor);
    pthread_atfork(atfork_prepare, NULL, atfork_child);
    /* take a process slot */
    ns_lock(ns);
    if (ns->hdr->dead) {
        /* the last user unlinked this region as we opened it: open (create) anew */
        ns_unlock(ns);
        munmap(ns->base, ns->size);
        memset(ns, 0, sizeof(*ns));
        if (open_region(ns, ns_name) < 0 || (ns_lock(ns), ns->hdr->dead)) {
            fprintf(stderr, "nspa: namespace %s keeps vanishing\n", ns_name);
            abort();
        }
    }
    ns_sweep_dead(ns);
    uint32_t slot = take_proc_slot(ns);
    if (slot == UINT32_MAX) {
        ns_unlock(ns);
        fprintf(stderr, "nspa: namespace %s has no free process slot\n", ns->path);
        munmap(ns->base, ns->size);
        free(ns);
        ns = NULL;
        goto out;
    }
    claim_proc_slot(ns, slot);
    ns->proc = slot;
    ns->handles = proc_handles(ns, slot);
    ns_unlock(ns);
    atexit(at_exit);
    __atomic_store_n(&nspa_ns, ns, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&attach_lock);
    if (!ns) {
        fprintf(stderr, "nspa: fatal: no namespace\n");
        abort();
    }
    return ns;
}

NSPA_EXPORT const char *nspa_namespace_path(void)
{
    struct ns *ns = ns_attach();
    return ns ? ns->path : NULL;
}

/* ---- lock, journal, recovery ------------------------------------------------------ */

#define WAKE_POKE 0x80000000u   /* wake list entry flag: re-arm, not a grant */

/* Wake thread slot @slot's wait: private futex when it sleeps on one (then it is in
 * this process, see sync.c), else shared. */
static void wake_slot(struct ns *ns, uint32_t slot, int priv)
{
    _Atomic uint32_t *w = &ns->threads[slot].wake;
    syscall(SYS_futex, w, priv ? FUTEX_WAKE_PRIVATE : FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Publish a grant (GRANTED) or a re-arm request (REARM, only over WAITING). */
static void publish(struct ns_thread *t, uint32_t w)
{
    if (!(w & WAKE_POKE)) {
        atomic_store_explicit(&t->wake, WAKE_GRANTED, memory_order_release);
    } else {
        uint32_t zero = WAKE_WAITING;
        atomic_compare_exchange_strong(&t->wake, &zero, WAKE_REARM);
    }
}

#define J_64    1ull
#define J_CLAIM 2ull

static void do_wakes(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    for (uint32_t i = 0; i < h->nwake; i++) {
        uint32_t w = h->wake[i];
        struct ns_thread *t = &ns->threads[w & ~WAKE_POKE];
        publish(t, w);
        /* a private sleeper is in the process of the section's owner; recovery by
         * another process wakes shared (that private sleeper died with its process) */
        wake_slot(ns, w & ~WAKE_POKE, t->wake_private && t->proc == ns->proc);
    }
    h->nwake = 0;
}

/* A process died inside the lock: undo its unfinished section, or finish its wakes. */
static void recover(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    uint32_t n = __atomic_load_n(&h->journal_len, __ATOMIC_ACQUIRE);
    if (n > JOURNAL_MAX) n = JOURNAL_MAX;
    if (n) {
        for (uint32_t i = n; i-- > 0;) {
            struct ns_journal_entry *e = &ns->journal[i];
            char *p = ns->base + (e->off & ~3ull);
            if (e->off & J_CLAIM) {
                uint64_t cur = e->old | OBJ_CLAIMED;
                atomic_compare_exchange_strong((_Atomic uint64_t *)p, &cur, e->old);
            } else if (e->off & J_64) {
                __atomic_store_n((uint64_t *)p, e->old, __ATOMIC_RELAXED);
            } else {
                __atomic_store_n((uint32_t *)p, (uint32_t)e->old, __ATOMIC_RELAXED);
            }
        }
        __atomic_store_n(&h->journal_len, 0, __ATOMIC_RELEASE);
        h->nwake = 0;
    } else {
        do_wakes(ns);
    }
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Critical sections are short (a few hundred ns, plus at most the futex wakes of the
 * waiters they grant), so a contender spins a little before it sleeps in the kernel's
 * PI futex: sleeping there costs two context switches. The spin is bounded (~10 us). */
#define LOCK_SPIN 256

NSPA_HIDDEN void ns_lock(struct ns *ns)
{
    pthread_mutex_t *m = &ns->hdr->lock;
    int r = pthread_mutex_trylock(m);
    if (__builtin_expect(r == 0, 1))
        return;
    if (r == EBUSY) {
        for (int i = 0; i < LOCK_SPIN; i++) {
            cpu_relax();
            if (__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0) {
                r = pthread_mutex_trylock(m);
                if (r != EBUSY) break;
            }
        }
        if (r == EBUSY) r = pthread_mutex_lock(m);
    }
    if (__builtin_expect(r == 0, 1))
        return;
    if (r == EOWNERDEAD) {
        recover(ns);
        pthread_mutex_consistent(&ns->hdr->lock);
        return;
    }
    fprintf(stderr, "nspa: namespace lock failed: %s\n", strerror(r));
    abort();
}

/* Unlock: commit, publish the grants (wake words set under the lock), release the
 * lock, and only then make the FUTEX_WAKE system calls, so that nobody waits for the
 * lock while its holder is in the kernel waking someone — in a ping-pong the woken
 * thread wants the lock at once.
 *
 * If the waker dies between the unlock and its FUTEX_WAKE, a granted waiter that was
 * already asleep has its wake word set but nobody to wake it: waiters therefore never
 * sleep longer than WAKE_BACKSTOP_NS at a time and look at their wake word when they
 * return (sync.c), which bounds that case to 1 s without taking any lock.
 *
 * With priority lowerings pending (pi.c) the wakes stay under the lock: a releasing
 * owner must not lose its boost before the waiter it granted is runnable, and lowering
 * must happen under the lock. */
#define UNLOCKED_WAKES 64

NSPA_HIDDEN void ns_unlock(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    __atomic_store_n(&h->journal_len, 0, __ATOMIC_RELEASE);   /* commit */
    uint32_t n = h->nwake;
    if (n && (n > UNLOCKED_WAKES || pi_deferred_pending())) {
        do_wakes(ns);
        pi_apply_deferred();   /* priority lowerings, after the wakes (pi.c) */
        pthread_mutex_unlock(&h->lock);
        return;
    }
    uint32_t local[UNLOCKED_WAKES];
    uint8_t priv[UNLOCKED_WAKES];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = h->wake[i];
        struct ns_thread *t = &ns->threads[w & ~WAKE_POKE];
        local[i] = w & ~WAKE_POKE;
        priv[i] = t->wake_private && t->proc == ns->proc;
        publish(t, w);
    }
    h->nwake = 0;
    pi_apply_deferred();
    pthread_mutex_unlock(&h->lock);
    for (uint32_t i = 0; i < n; i++)
        wake_slot(ns, local[i], priv[i]);
}

static inline void jlog(struct ns *ns, void *p, uint64_t old, uint64_t flags)
{
    struct ns_header *h = ns->hdr;
    uint32_t n = h->journal_len;
    if (__builtin_expect(n >= JOURNAL_MAX, 0)) {
        fprintf(stderr, "nspa: journal overflow\n");
        abort();
    }
    ns->journal[n].off = (uint64_t)((char *)p - ns->base) | flags;
    ns->journal[n].old = old;
    __atomic_store_n(&h->journal_len, n + 1, __ATOMIC_RELEASE);
}

NSPA_HIDDEN void jset32(struct ns *ns, uint32_t *p, uint32_t v)
{
    uint32_t old = *p;
    if (old == v) return;
    jlog(ns, p, old, 0);
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

NSPA_HIDDEN void jset64(struct ns *ns, uint64_t *p, uint64_t v)
{
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    if (old == v) return;
    jlog(ns, p, old, J_64);
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

NSPA_HIDDEN void ns_queue_wake(struct ns *ns, uint32_t slot)
{
    struct ns_header *h = ns->hdr;
    if (h->nwake < MAX_THREADS)
        h->wake[h->nwake++] = slot;
}

/* Wake a waiter without granting anything, so that it re-evaluates (e.g. re-arms its
 * watch on a mutex owner that changed). */
NSPA_HIDDEN void ns_queue_poke(struct ns *ns, uint32_t slot);
NSPA_HIDDEN void ns_queue_poke(struct ns *ns, uint32_t slot)
{
    ns_queue_wake(ns, slot | WAKE_POKE);
}

/* Claim an object for the lock holder (rule 2). Returns its word, CLAIMED set. */
NSPA_HIDDEN uint64_t obj_claim(struct ns *ns, uint32_t idx)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    for (;;) {
        if (w & OBJ_CLAIMED) return w;
        jlog(ns, &o->word, w, J_64 | J_CLAIM);
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, w | OBJ_CLAIMED,
                                                  memory_order_acq_rel, memory_order_acquire))
            return w | OBJ_CLAIMED;
        __atomic_store_n(&ns->hdr->journal_len, ns->hdr->journal_len - 1, __ATOMIC_RELEASE);
    }
}

NSPA_HIDDEN void obj_store(struct ns *ns, uint32_t idx, uint64_t word)
{
    jset64(ns, (uint64_t *)&ns->objs[idx].word, word | OBJ_CLAIMED);
}

NSPA_HIDDEN void obj_unclaim_if_idle(struct ns *ns, uint32_t idx)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
    if ((w & OBJ_CLAIMED) && !o->q_head && o->type != NSPA_TYPE_NONE) {
        /* a mutex whose count lives in ext stays claimed (the fast path cannot hold it) */
        if (o->type == NSPA_TYPE_MUTEX && ((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK) == MTX_CNT_BIG)
            return;
        jset64(ns, (uint64_t *)&o->word, w & ~OBJ_CLAIMED);
    }
}

/* ---- threads ------------------------------------------------------------------- */

static uint32_t tid_hash(uint32_t tid) { return (tid * 2654435761u) % TID_BUCKETS; }

NSPA_HIDDEN uint32_t ns_tid_slot(struct ns *ns, uint32_t tid)
{
    uint32_t s = ns->hdr->tid_buckets[tid_hash(tid)];
    while (s) {
        if (ns->threads[s - 1].tid == tid) return s - 1;
        s = ns->threads[s - 1].tid_next;
    }
    return UINT32_MAX;
}

static void tid_remove(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    uint32_t *pp = &ns->hdr->tid_buckets[tid_hash(t->tid)];
    while (*pp) {
        if (*pp == slot + 1) {
            jset32(ns, pp, t->tid_next);
            return;
        }
        pp = &ns->threads[*pp - 1].tid_next;
    }
}

/* Free a thread slot whose thread has gone (exited or died): abandon the mutexes it
 * owns, withdraw its pending wait, unhash it. Lock held. */
static void release_thread_slot(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    if (t->kind != WAIT_NONE)
        sync_cancel_wait(ns, slot);
    sync_abandon_thread(ns, slot);
    pi_forget(ns, slot);
    tid_remove(ns, slot);
    jset32(ns, &t->tid, 0);
}

/* Is thread @tid of this namespace dead? If so reclaim its slot (abandoning its
 * mutexes). Returns 1 if it was dead, 0 if alive or unknown. Lock held. */
NSPA_HIDDEN int ns_thread_dead_check(struct ns *ns, uint32_t tid)
{
    uint32_t slot = ns_tid_slot(ns, tid);
    if (slot == UINT32_MAX) return 0;
    struct ns_thread *t = &ns->threads[slot];
    int r = pthread_mutex_trylock(&t->alive);
    if (r == EBUSY) return 0;
    /* EOWNERDEAD: the kernel marked it at the thread's death. 0: the slot's holder
     * unlocked without freeing it (cannot happen: exit frees under the lock). */
    release_thread_slot(ns, slot);
    if (r == EOWNERDEAD) pthread_mutex_consistent(&t->alive);
    pthread_mutex_unlock(&t->alive);
    /* wake anyone else watching this thread's death */
    syscall(SYS_futex, &t->alive.__data.__lock, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return 1;
}

NSPA_HIDDEN struct nspa_tls *ns_thread_register(void)
{
    struct ns *ns = ns_attach();
    struct nspa_tls *s = calloc(1, sizeof(*s));
    if (!s) abort();
    uint32_t tid = (uint32_t)syscall(SYS_gettid);
    ns_lock(ns);
    /* a stale slot with our tid (a dead thread whose tid was reused): reclaim it */
    uint32_t old = ns_tid_slot(ns, tid);
    if (old != UINT32_MAX && !ns_thread_dead_check(ns, tid)) {
        /* cannot be alive: it has our tid. Force it out. */
        release_thread_slot(ns, old);
    }
    uint32_t slot = UINT32_MAX;
    for (uint32_t i = 0; i < MAX_THREADS; i++) {
        if (ns->threads[i].tid) continue;
        slot = i;
        break;
    }
    if (slot == UINT32_MAX) {
        ns_sweep_dead(ns);
        for (uint32_t i = 0; i < MAX_THREADS; i++)
            if (!ns->threads[i].tid) { slot = i; break; }
    }
    if (slot == UINT32_MAX) {
        ns_unlock(ns);
        fprintf(stderr, "nspa: fatal: no free thread slot in %s\n", ns->path);
        abort();
    }
    struct ns_thread *t = &ns->threads[slot];
    /* (Re)initialise the alive mutex: only slots with tid == 0 are taken, and those
     * have no holder (freed under the lock after an unlock). */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&t->alive, &a);
    pthread_mutexattr_destroy(&a);
    int r = pthread_mutex_trylock(&t->alive);
    if (r != 0) abort();
    jset32(ns, &t->proc, ns->proc);
    jset32(ns, &t->kind, WAIT_NONE);
    jset32(ns, &t->result, 0);
    jset32(ns, &t->wake_private, 0);
    jset32(ns, &t->boost, 0);
    jset32(ns, (uint32_t *)&t->nt_prio, 0);
    jset32(ns, &t->nt_prio_set, 0);
    atomic_store(&t->nowned, 0);
    atomic_store(&t->owned_overflow, 0);
    jset32(ns, &t->tid_next, ns->hdr->tid_buckets[tid_hash(tid)]);
    jset32(ns, &ns->hdr->tid_buckets[tid_hash(tid)], slot + 1);
    jset32(ns, &t->tid, tid);
    ns_unlock(ns);
    s->slot = slot;
    s->tid = tid;
    s->t = t;
    nspa_self = s;
    pthread_setspecific(thread_key, s);
    return s;
}

/* Normal thread exit: abandon what it owns, free its slot. */
static void thread_key_destructor(void *arg)
{
    struct nspa_tls *s = arg;
    struct ns *ns = nspa_ns;
    if (!s || !ns) return;
    ns_lock(ns);
    if (ns->threads[s->slot].tid == s->tid) {
        release_thread_slot(ns, s->slot);
        pthread_mutex_unlock(&ns->threads[s->slot].alive);
    }
    ns_unlock(ns);
    nspa_self = NULL;
    free(s);
}

/* The calling thread is leaving (its mutexes are abandoned now, not at its exit). */
NSPA_HIDDEN void nspa__thread_unregister(void);
NSPA_HIDDEN void nspa__thread_unregister(void)
{
    struct nspa_tls *s = nspa_self;
    if (!s) return;
    pthread_setspecific(thread_key, NULL);
    thread_key_destructor(s);
}

/* Process exit: the exiting thread's mutexes are abandoned (other threads' are when
 * the kernel marks their alive mutexes at process teardown), handles are closed. */
static void at_exit(void)
{
    struct ns *ns = nspa_ns;
    if (!ns) return;
    struct nspa_tls *s = nspa_self;
    if (s) {
        pthread_setspecific(thread_key, NULL);
        thread_key_destructor(s);
    }
    ns_lock(ns);
    struct ns_proc *p = &ns->procs[ns->proc];
    for (uint32_t i = 0; i < p->handles_hwm; i++) {
        uint32_t v = ns->handles[i];
        if (v & 0x80000000u || !v) continue;   /* free-list links have the top bit */
        jset32(ns, &ns->handles[i], 0);
        ns_obj_unref(ns, v - 1);
    }
    jset32(ns, &p->handles_hwm, 0);
    jset32(ns, &p->nhandles, 0);
    /* threads of this process still registered: leave them; they are reclaimed via
     * their alive mutexes once the kernel marks them dead. */
    int others = 0;
    for (uint32_t i = 0; i < MAX_THREADS; i++)
        if (ns->threads[i].tid && ns->threads[i].proc == ns->proc) others = 1;
    if (!others) jset32(ns, &p->pid, 0);
    /* the last process of a namespace with no objects left removes its file */
    int last = !others && ns->hdr->nobjs == 0;
    for (uint32_t i = 0; i < MAX_PROCS && last; i++)
        if (ns->procs[i].pid && i != ns->proc && !proc_is_dead(&ns->procs[i])) last = 0;
    if (last) {
        jset32(ns, &ns->hdr->dead, 1);
        unlink(ns->path);
    }
    ns_unlock(ns);
}

/* Reclaim dead processes: their threads' slots and their handles. Lock held.
 * Costs one kill(pid, 0) per live process slot; called on attach, on named
 * create/open and when a table is full, never on a hot path. */
NSPA_HIDDEN void ns_sweep_dead(struct ns *ns)
{
    for (uint32_t i = 0; i < MAX_PROCS; i++) {
        struct ns_proc *p = &ns->procs[i];
        if (!p->pid || (ns->handles && i == ns->proc))
            continue;
        /* a slot with our own pid that is not ours: left by our image before an
         * exec (handles do not survive exec); else ask whether the pid lives */
        if (p->pid != (uint32_t)getpid() && !proc_is_dead(p)) continue;
        int busy = 0;
        for (uint32_t s = 0; s < MAX_THREADS; s++) {
            struct ns_thread *t = &ns->threads[s];
            if (!t->tid || t->proc != i) continue;
            int r = pthread_mutex_trylock(&t->alive);
            if (r == EBUSY) {
                /* the kernel has not processed its robust list yet (it is exiting) or
                 * the pid check raced; leave the whole process for the next sweep, so
                 * that no thread slot is left pointing at a freed process slot */
                busy = 1;
                continue;
            }
            release_thread_slot(ns, s);
            if (r == EOWNERDEAD) pthread_mutex_consistent(&t->alive);
            pthread_mutex_unlock(&t->alive);
            syscall(SYS_futex, &t->alive.__data.__lock, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        }
        if (busy) continue;
        uint32_t *tab = (uint32_t *)(ns->base + ns->hdr->off_handles) + (size_t)i * MAX_HANDLES;
        for (uint32_t h = 0; h < p->handles_hwm; h++) {
            uint32_t v = tab[h];
            if (!v || (v & 0x80000000u)) continue;
            jset32(ns, &tab[h], 0);
            ns_obj_unref(ns, v - 1);
        }
        jset32(ns, &p->handles_hwm, 0);
        jset32(ns, &p->nhandles, 0);
        jset32(ns, &p->free_handle, 0);
        jset32(ns, &p->pid, 0);
    }
}

NSPA_EXPORT uint32_t nspa_thread_id(void)
{
    return self()->tid;
}

NSPA_EXPORT uint64_t nspa_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
