/*
 * The namespace region: where it lives, how it is laid out, its registry lock and the
 * undo journal of that lock (types.h, rule 6).
 *
 * WHERE. A region is a file only its user can reach. The directory is the first of:
 *   1. $XDG_RUNTIME_DIR, when it is an absolute path to a directory of ours, mode 0700;
 *   2. /run/user/<uid>, the same checks (systemd's per-user runtime directory);
 *   3. /dev/shm/nspa-<uid>[.<n>], n = 0..7: a directory we own with mode 0700 (made if
 *      missing). A path another user planted (file, symlink, foreign or loose directory)
 *      is skipped for the next n, so a squatter cannot lock us out;
 * and the file is <dir>/nspa-<namespace>. An existing file is used only if it is a
 * regular file of ours (O_NOFOLLOW, fstat), mode 0600, of the expected size, with our
 * magic; anything else is refused with -EACCES (named calls: ERROR_ACCESS_DENIED).
 * Unnamed objects never need the region (arena.c).
 *
 * Every check runs on the opened descriptor or with O_NOFOLLOW|O_DIRECTORY, so a path
 * swapped between the check and the use is caught.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sync/internal.h"

/* ---- layout ------------------------------------------------------------------------ */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static void layout(struct ns *ns, int init)
{
    struct ns_header *h = (struct ns_header *)ns->base;
    if (init) {
        size_t off = align_up(sizeof(struct ns_header), 4096);
#define PLACE(field, bytes) do { h->field = off; off = align_up(off + (bytes), 4096); } while (0)
        PLACE(off_journal, sizeof(struct ns_journal_entry) * JOURNAL_MAX);
        PLACE(off_threads, sizeof(struct thr) * (size_t)MAX_THREADS);
        PLACE(off_procs, sizeof(struct ns_proc) * (size_t)MAX_PROCS);
        PLACE(off_objs, sizeof(struct sobj) * (size_t)MAX_OBJECTS);
        PLACE(off_names, sizeof(struct ns_name) * (size_t)MAX_NAMES);
        PLACE(off_blocks, (size_t)NAME_BLOCK * MAX_NAME_BLOCKS);
        PLACE(off_ledger, sizeof(uint32_t) * (size_t)LEDGER_CHUNK * LEDGER_CHUNKS);
        PLACE(off_name_buckets, sizeof(uint32_t) * (size_t)NAME_BUCKETS);
        PLACE(off_tid_buckets, sizeof(uint32_t) * (size_t)TID_BUCKETS);
        PLACE(off_timers, sizeof(struct ns_timer) * (size_t)MAX_OBJECTS);
        PLACE(off_access, sizeof(uint32_t) * (size_t)LEDGER_CHUNK * LEDGER_CHUNKS);
#undef PLACE
        h->size = off;
    }
    ns->hdr = h;
    ns->journal = (void *)(ns->base + h->off_journal);
    ns->threads = (void *)(ns->base + h->off_threads);
    ns->procs = (void *)(ns->base + h->off_procs);
    ns->objs = (void *)(ns->base + h->off_objs);
    ns->names = (void *)(ns->base + h->off_names);
    ns->blocks = ns->base + h->off_blocks;
    ns->chunks = (void *)(ns->base + h->off_ledger);
    ns->name_buckets = (void *)(ns->base + h->off_name_buckets);
    ns->tid_buckets = (void *)(ns->base + h->off_tid_buckets);
    ns->timers = (void *)(ns->base + h->off_timers);
    ns->access = (void *)(ns->base + h->off_access);
}

static size_t region_size(void)
{
    static struct ns_header h;
    struct ns tmp = { .base = (char *)&h };
    layout(&tmp, 1);
    return h.size;
}

/* ---- where ------------------------------------------------------------------------- */

/* Is @fd a directory of ours that nobody else can write or read? */
static int dir_is_private(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077);
}

static int open_private_dir(const char *path, int create)
{
    if (!path || path[0] != '/') return -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (mkdir(path, 0700) == 0 || errno == EEXIST)
            fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) return -1;
    if (!dir_is_private(fd)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The directory of the user's regions: a descriptor, or -EACCES. */
static int region_dir(char *path, size_t cap)
{
    char buf[512];
    const char *x = getenv("XDG_RUNTIME_DIR");
    int fd = open_private_dir(x, 0);
    if (fd >= 0) {
        snprintf(path, cap, "%s", x);
        return fd;
    }
    snprintf(buf, sizeof(buf), "/run/user/%u", (unsigned)getuid());
    if ((fd = open_private_dir(buf, 0)) >= 0) {
        snprintf(path, cap, "%s", buf);
        return fd;
    }
    for (int n = 0; n < 8; n++) {
        if (n) snprintf(buf, sizeof(buf), "/dev/shm/nspa-%u.%d", (unsigned)getuid(), n);
        else snprintf(buf, sizeof(buf), "/dev/shm/nspa-%u", (unsigned)getuid());
        if ((fd = open_private_dir(buf, 1)) >= 0) {
            snprintf(path, cap, "%s", buf);
            return fd;
        }
    }
    return -EACCES;
}

static void init_region(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    sync_mutex_init(&h->lock, 1);
    h->version = NS_VERSION;
    h->uid = getuid();
}

static int map_existing(struct ns *ns, int fd, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return -EACCES;
    if ((size_t)st.st_size != size) return -EPROTO;      /* another NSPA version */
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (base == MAP_FAILED) return -ENOMEM;
    ns->base = base;
    ns->size = size;
    layout(ns, 0);
    if (ns->hdr->magic != NS_MAGIC || ns->hdr->version != NS_VERSION || ns->hdr->uid != getuid()) {
        munmap(base, size);
        return -EPROTO;
    }
    return 0;
}

/* Build a region in a private temporary file and link it into place: nobody ever
 * sees a half-made one. Returns 0, -EEXIST (someone else won: open theirs), -errno. */
static int create_region(struct ns *ns, int dfd, const char *file, size_t size)
{
    char tmp[128];
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", file, (int)getpid());
    unlinkat(dfd, tmp, 0);
    int fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    int r = 0;
    void *base = MAP_FAILED;
    if (fchmod(fd, 0600) < 0 || ftruncate(fd, (off_t)size) < 0) r = -errno;
    else if ((base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0)) == MAP_FAILED)
        r = -ENOMEM;
    close(fd);
    if (r) {
        unlinkat(dfd, tmp, 0);
        return r;
    }
    ns->base = base;
    ns->size = size;
    layout(ns, 1);
    init_region(ns);
    ns->hdr->magic = NS_MAGIC;
    r = linkat(dfd, tmp, dfd, file, 0) ? -errno : 0;
    unlinkat(dfd, tmp, 0);
    if (r) munmap(base, size);
    return r;
}

NSPA_HIDDEN int region_open(struct ns *ns, const char *name)
{
    size_t size = region_size();
    char dir[512], file[128];
    int dfd = region_dir(dir, sizeof(dir));
    if (dfd < 0) return dfd;
    snprintf(file, sizeof(file), "nspa-%s", name);
    snprintf(ns->path, sizeof(ns->path), "%s/%s", dir, file);
    int r = -EAGAIN;
    for (int attempt = 0; attempt < 100 && r == -EAGAIN; attempt++) {
        int fd = openat(dfd, file, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            r = map_existing(ns, fd, size);
            close(fd);
        } else if (errno == ENOENT) {
            r = create_region(ns, dfd, file, size);
            if (r == -EEXIST) r = -EAGAIN;        /* lost the race: open theirs */
        } else {
            r = errno == ELOOP ? -EACCES : -errno;
        }
    }
    close(dfd);
    if (r == -EPROTO) r = -EACCES;
    return r;
}

/* ---- the registry lock and its journal --------------------------------------------- */

#define J_64 1ull

/* A process died holding the registry lock: undo its unfinished section. */
static void recover(struct ns *ns)
{
    struct ns_header *h = ns->hdr;
    uint32_t n = __atomic_load_n(&h->journal_len, __ATOMIC_ACQUIRE);
    if (n > JOURNAL_MAX) n = JOURNAL_MAX;
    for (uint32_t i = n; i-- > 0;) {
        struct ns_journal_entry *e = &ns->journal[i];
        char *p = ns->base + (e->off & ~3ull);
        if (e->off & J_64) __atomic_store_n((uint64_t *)p, e->old, __ATOMIC_RELAXED);
        else __atomic_store_n((uint32_t *)p, (uint32_t)e->old, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&h->journal_len, 0, __ATOMIC_RELEASE);
}

/* the registry lock was taken with EOWNERDEAD: its holder died mid-section */
static int reg_taken(struct ns *ns, int r)
{
    if (r == EOWNERDEAD) {
        atomic_fetch_add(&ns->hdr->reg_recoveries, 1);
        recover(ns);
        pthread_mutex_consistent(&ns->hdr->lock);
        r = 0;
    }
    return r;
}

NSPA_HIDDEN void reg_lock(struct ns *ns) { reg_taken(ns, pthread_mutex_lock(&ns->hdr->lock)); }

NSPA_HIDDEN int reg_trylock(struct ns *ns) { return reg_taken(ns, pthread_mutex_trylock(&ns->hdr->lock)) == 0; }

NSPA_HIDDEN void reg_unlock(struct ns *ns)
{
    __atomic_store_n(&ns->hdr->journal_len, 0, __ATOMIC_RELEASE);   /* commit */
    pthread_mutex_unlock(&ns->hdr->lock);
}

/* A section that would overflow the journal commits what it has and goes on: callers
 * keep their sections small enough that each committed prefix is consistent (the
 * longest, a fork child copying its parent's ledger, commits every 4096 handles). */
static inline void jlog(struct ns *ns, void *p, uint64_t old, uint64_t flags)
{
    struct ns_header *h = ns->hdr;
    uint32_t n = h->journal_len;
    if (__builtin_expect(n >= JOURNAL_MAX, 0)) n = 0;
    ns->journal[n].off = (uint64_t)((char *)p - ns->base) | flags;
    ns->journal[n].old = old;
    __atomic_store_n(&h->journal_len, n + 1, __ATOMIC_RELEASE);
}

NSPA_HIDDEN void jset32(struct ns *ns, uint32_t *p, uint32_t v)
{
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
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

static inline uint32_t *rec_link(void *base, size_t stride, size_t link, uint32_t i)
{
    return (uint32_t *)((char *)base + (size_t)i * stride + link);
}

NSPA_HIDDEN uint32_t region_take(struct ns *ns, uint32_t *free_head, uint32_t *hwm, uint32_t max, void *base,
                                 size_t stride, size_t link)
{
    uint32_t i;
    if (*free_head) {
        i = *free_head - 1;
        jset32(ns, free_head, *rec_link(base, stride, link, i));
    } else if (*hwm < max) {
        i = *hwm;
        jset32(ns, hwm, i + 1);
    } else {
        return UINT32_MAX;
    }
    return i;
}

NSPA_HIDDEN void region_give(struct ns *ns, uint32_t *free_head, void *base, size_t stride, size_t link, uint32_t i)
{
    jset32(ns, rec_link(base, stride, link, i), *free_head);
    jset32(ns, free_head, i + 1);
}
