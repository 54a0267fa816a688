/*
 * Names and directories, the Linux side: a path's attributes and times, making and
 * removing directories, moving a name (with NT's share rule and its replace and
 * cross-device choices), and directory searches with Windows' wildcards.
 *
 * Attributes: FILE_ATTRIBUTE_DIRECTORY for a directory, READONLY when nobody may write
 * it (no write bit at all), NORMAL when nothing else applies. Times are FILETIMEs (100 ns
 * since 1601); Linux has no creation time that every filesystem keeps, so the creation
 * time is the status change time.
 *
 * A search is a record (malloc'ed on FindFirstFile: a search is not a wait or a wake
 * path) with its directory stream and pattern; the handle is its address, and every
 * call looks the address up among the live searches first (a mutex-held list: searches
 * are few and short-lived), so a stale or garbage handle is an error, never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

#define FT_EPOCH 116444736000000000ull          /* 1601 -> 1970 in 100 ns */

/* @path's directory into @dir ("." for a bare name, "/" for a name in the root) and its
 * last component in *@base. 0 or -ENAMETOOLONG. */
NSPA_HIDDEN int io_path_split(const char *path, char *dir, size_t cap, const char **base)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (n + 2 > cap) return -ENAMETOOLONG;
    if (n) memcpy(dir, path, n);
    else dir[n++] = '.';
    dir[n] = 0;
    *base = slash ? slash + 1 : path;
    return 0;
}

/* every byte of @in into @out, from the start of each (copy_file_range: in the kernel,
 * and shared extents where the filesystem has them). 0 or -errno. */
NSPA_HIDDEN int io_copy_data(int in, int out)
{
    loff_t i = 0, o = 0;
    for (;;) {
        ssize_t n = copy_file_range(in, &i, out, &o, 1 << 30, 0);
        if (n == 0) return 0;
        if (n < 0) return -errno;
    }
}

static uint64_t ft_of(const struct timespec *t)
{
    return (uint64_t)t->tv_sec * 10000000ull + (uint64_t)t->tv_nsec / 100 + FT_EPOCH;
}

NSPA_HIDDEN void io_stat_from(const struct stat *st, struct io_stat *o)
{
    uint32_t a = 0;
    if (S_ISDIR(st->st_mode)) a |= IO_ATTR_DIRECTORY;
    if (!(st->st_mode & 0222)) a |= IO_ATTR_READONLY;
    o->attrs = a ? a : IO_ATTR_NORMAL;
    o->size = S_ISDIR(st->st_mode) ? 0 : (uint64_t)st->st_size;
    o->ctime = ft_of(&st->st_ctim);
    o->atime = ft_of(&st->st_atim);
    o->mtime = ft_of(&st->st_mtim);
}

NSPA_HIDDEN int io_path_stat(const char *path, struct io_stat *o)
{
    if (!*path) return -ENOTDIR;                 /* "": ERROR_PATH_NOT_FOUND */
    struct stat st;
    if (stat(path, &st) < 0) return errno == ENOENT ? io_not_found(path) : -errno;
    io_stat_from(&st, o);
    return 0;
}

/* SetFileAttributes: READONLY takes every write bit away, clearing it gives the owner
 * write back; the other attributes have no Linux counterpart and are accepted as they
 * are (NORMAL, ARCHIVE, HIDDEN, SYSTEM, TEMPORARY ...) */
NSPA_HIDDEN int io_path_set_attrs(const char *path, uint32_t attrs)
{
    if (!*path) return -ENOTDIR;
    struct stat st;
    if (stat(path, &st) < 0) return errno == ENOENT ? io_not_found(path) : -errno;
    mode_t m = st.st_mode & 07777;
    mode_t nm = (attrs & IO_ATTR_READONLY) ? m & ~(mode_t)0222 : (m & 0222) ? m : m | 0200;
    if (nm != m && chmod(path, nm) < 0) return -errno;
    return 0;
}

NSPA_HIDDEN int io_dir_create(const char *path)
{
    if (!*path) return -ENOTDIR;
    if (mkdir(path, 0777) == 0) return 0;
    return errno == ENOENT ? io_not_found(path) : -errno;
}

/* -ENOTDIR: a directory on the way is missing, or the name is not a directory (the
 * caller tells them apart with io_path_stat: a file there is ERROR_DIRECTORY) */
NSPA_HIDDEN int io_dir_remove(const char *path)
{
    if (!*path) return -ENOTDIR;
    if (rmdir(path) == 0) return 0;
    int e = errno;
    if (e == ENOENT) return io_not_found(path);
    if (e == EEXIST) e = ENOTEMPTY;              /* POSIX allows either */
    return -e;
}

/* GetFullPathName: @path made absolute against the current directory and its "." and
 * ".." taken away by their names alone (as Windows does: no link is followed, the name
 * need not exist). 0, -ENAMETOOLONG, -errno of getcwd. */
NSPA_HIDDEN int io_full_path(const char *path, char *out, size_t cap)
{
    char buf[4096 * 2];
    size_t n = 0;
    if (path[0] != '/') {
        if (!getcwd(buf, 4096)) return -errno;
        n = strlen(buf);
    }
    if (n + strlen(path) + 2 > sizeof(buf)) return -ENAMETOOLONG;
    buf[n++] = '/';
    strcpy(buf + n, path);
    /* walk the components, keeping a stack of where each kept one starts */
    size_t o = 0;
    const char *p = buf;
    while (*p) {
        while (*p == '/') p++;
        const char *e = p;
        while (*e && *e != '/') e++;
        size_t l = (size_t)(e - p);
        if (l == 0) break;
        if (l == 1 && p[0] == '.') {
            /* nothing */
        } else if (l == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 0 && out[o - 1] != '/') o--;   /* back over the last component */
            if (o > 0) o--;                           /* and its separator */
        } else {
            if (o + 1 + l + 1 > cap) return -ENAMETOOLONG;
            out[o++] = '/';
            memcpy(out + o, p, l);
            o += l;
        }
        p = e;
    }
    int dir = buf[strlen(buf) - 1] == '/' && o > 0;  /* a name ending in a separator keeps it */
    if (o == 0 || dir) {
        if (o + 2 > cap) return -ENAMETOOLONG;
        out[o++] = '/';
    }
    out[o] = 0;
    return 0;
}

/* GetDiskFreeSpaceEx: bytes free to the caller, in all, free in all, of the filesystem
 * holding @path */
NSPA_HIDDEN int io_disk_space(const char *path, uint64_t *avail, uint64_t *total, uint64_t *free_)
{
    struct statvfs v;
    if (statvfs(path, &v) < 0) return errno == ENOENT ? -ENOTDIR : -errno;   /* no such directory */
    *avail = (uint64_t)v.f_bavail * v.f_frsize;
    *total = (uint64_t)v.f_blocks * v.f_frsize;
    *free_ = (uint64_t)v.f_bfree * v.f_frsize;
    return 0;
}

/* ---- moving a name ---------------------------------------------------------------- */

/* a regular file copied to @to (MOVEFILE_COPY_ALLOWED across filesystems); -errno */
static int copy_file(const char *from, const char *to, int replace)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -errno;
    struct stat st;
    int e = fstat(in, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EXDEV;   /* a directory does not cross */
    if (e) {
        close(in);
        return e;
    }
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (replace ? 0 : O_EXCL), st.st_mode & 07777);
    if (out < 0) {
        int e = -errno;
        close(in);
        return e;
    }
    int r = io_copy_data(in, out);
    close(in);
    if (close(out) < 0 && !r) r = -errno;
    if (r) unlink(to);
    return r;
}

struct move { const char *from, *to; uint32_t flags; };

/* the rename itself, under the share table's lock (io_share_guard) */
static int do_move(void *arg)
{
    const struct move *m = arg;
    const char *from = m->from, *to = m->to;
    uint32_t flags = m->flags;
    int replace = (flags & IO_MOVE_REPLACE) != 0, r;
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, replace ? 0 : RENAME_NOREPLACE) == 0) {
        r = 0;
    } else if (errno == EINVAL && !replace) {
        /* a filesystem without RENAME_NOREPLACE: look, then rename (a window in which
         * another process may create the target) */
        struct stat st;
        r = lstat(to, &st) == 0 ? -EEXIST : rename(from, to) == 0 ? 0 : -errno;
    } else {
        r = -errno;
    }
    if (r == -EXDEV && (flags & IO_MOVE_COPY)) {
        r = copy_file(from, to, replace);
        if (!r && unlink(from) < 0) r = -errno;
    }
    if (r == -ENOENT) {                          /* the source's path, or the target's */
        struct stat st;
        r = lstat(from, &st) == 0 ? io_not_found(to) : io_not_found(from);
    }
    if (!r && (flags & IO_MOVE_WRITE_THROUGH)) {
        int fd = open(to, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    return r;
}

/* NT opens the source for DELETE: an open of ours that does not share delete refuses
 * the move (as DeleteFile), and so does one of a target it replaces */
NSPA_HIDDEN int io_file_move(const char *from, const char *to, uint32_t flags)
{
    if (!*from || !*to) return -ENOTDIR;
    struct move m = { from, to, flags };
    return io_share_guard(from, (flags & IO_MOVE_REPLACE) ? to : NULL, do_move, &m);
}

/* ---- searches ---------------------------------------------------------------------- */

struct search {
    struct search *next;
    DIR *dir;
    int dfd;                                     /* the directory's fd (fstatat) */
    char pat[256];                               /* the last component: the pattern */
};

static struct search *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static int fold(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Windows' wildcards: '*' any run, '?' one character (one UTF-8 sequence), ASCII
 * letters without case; "*.*" is "*" (DOS: also names without a dot). */
static int match(const char *p, const char *n)
{
    if (!strcmp(p, "*.*")) p = "*";
    const char *star = NULL, *back = NULL;
    while (*n) {
        if (*p == '*') {
            star = ++p;
            back = n;
        } else if (*p == '?' || fold((unsigned char)*p) == fold((unsigned char)*n)) {
            if (*p == '?')                        /* a whole character */
                while ((n[1] & 0xC0) == 0x80) n++;
            p++;
            n++;
        } else if (star) {
            p = star;
            n = ++back;
        } else {
            return 0;
        }
    }
    while (*p == '*') p++;
    return !*p;
}

/* the next entry of @s that matches (0), or -ENOENT at the end */
static int next_of(struct search *s, struct io_find_ent *e)
{
    for (struct dirent *d; (d = readdir(s->dir));) {
        if (!match(s->pat, d->d_name)) continue;
        struct stat st;
        if (fstatat(s->dfd, d->d_name, &st, 0) < 0 && fstatat(s->dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;                            /* gone meanwhile */
        io_stat_from(&st, &e->st);
        snprintf(e->name, sizeof(e->name), "%s", d->d_name);
        return 0;
    }
    return -ENOENT;
}

static struct search *find_live(uintptr_t h)
{
    for (struct search *s = live; s; s = s->next)
        if ((uintptr_t)s == h) return s;
    return NULL;
}

NSPA_HIDDEN int io_find_first(const char *pattern, uintptr_t *h, struct io_find_ent *e)
{
    if (!*pattern) return -ENOENT;
    char dir[4096];
    const char *pat;
    if (io_path_split(pattern, dir, sizeof(dir), &pat)) return -ENAMETOOLONG;
    if (!*pat || strlen(pat) >= sizeof(((struct search *)0)->pat)) return -ENOENT;   /* "dir\": no name */
    struct search *s = calloc(1, sizeof(*s));
    if (!s) return -ENOMEM;
    s->dir = opendir(dir);
    if (!s->dir) {
        int e2 = errno;
        free(s);
        return e2 == ENOENT || e2 == ENOTDIR ? -ENOTDIR : -e2;   /* the directory: PATH_NOT_FOUND */
    }
    s->dfd = dirfd(s->dir);
    strcpy(s->pat, pat);
    int r = next_of(s, e);
    if (r) {                                     /* nothing matches: FILE_NOT_FOUND */
        closedir(s->dir);
        free(s);
        return r;
    }
    pthread_mutex_lock(&live_lock);
    s->next = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *h = (uintptr_t)s;
    return 0;
}

/* -EBADF: not a live search; -ENODATA: no more entries (ERROR_NO_MORE_FILES). The
 * list's lock is held across the read: two threads reading one search take turns. */
NSPA_HIDDEN int io_find_next(uintptr_t h, struct io_find_ent *e)
{
    pthread_mutex_lock(&live_lock);
    struct search *s = find_live(h);
    int r = s ? next_of(s, e) : -EBADF;
    pthread_mutex_unlock(&live_lock);
    return r == -ENOENT ? -ENODATA : r;
}

NSPA_HIDDEN int io_find_close(uintptr_t h)
{
    pthread_mutex_lock(&live_lock);
    struct search **pp = &live;
    while (*pp && (uintptr_t)*pp != h) pp = &(*pp)->next;
    struct search *s = *pp;
    if (s) *pp = s->next;
    pthread_mutex_unlock(&live_lock);
    if (!s) return -EBADF;
    closedir(s->dir);
    free(s);
    return 0;
}
