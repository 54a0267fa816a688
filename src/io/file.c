/*
 * Files, the Linux side: opening with NT's dispositions and share modes, synchronous
 * and overlapped reads and writes, the file pointer, size, truncation, flushing, the
 * standard handles.
 *
 * Share modes are enforced among the opens of this process (a table of the open
 * (device, inode) pairs and their access and share bits, under one mutex taken on open
 * and on the last close only): an open whose access another open does not share, or
 * that does not share an access another open has, fails with ERROR_SHARING_VIOLATION.
 * Other processes are not seen (docs/io.md). FILE_FLAG_DELETE_ON_CLOSE asks for DELETE
 * access (so every other open must share delete) and deletes the name when that open's
 * share access goes. The check comes before an overwrite's
 * truncation (done after it), so a refused open changes nothing. As on NT, the share access goes with the
 * last handle (NT's cleanup), not with the last reference: an operation finishing on
 * the engine thread may hold the record a moment longer.
 *
 * The file pointer is the kernel's offset of the open file description (shared with a
 * child that inherited the handle, as NT's file object is): synchronous calls read and
 * write at it; overlapped handles use the OVERLAPPED's offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

#define A_READ  1
#define A_WRITE 2
#define A_DEL   4
#define A_WATTR 8            /* FILE_WRITE_ATTRIBUTES (SetFileTime); not a share-mode right */

struct share { struct share *next; uint64_t dev, ino; uint32_t n; uint8_t acc[3], sh[3]; };
static struct share *shares;             /* counts per access bit and per share bit */
static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;

static int share_take(struct io_file *f)
{
    pthread_mutex_lock(&share_lock);
    struct share *s = shares;
    while (s && (s->dev != f->dev || s->ino != f->ino)) s = s->next;
    if (s) {
        for (int b = 0; b < 3; b++) {
            /* an access of mine that someone does not share, or one of theirs I do not */
            if ((f->acc_bits >> b & 1) && s->sh[b] != s->n) goto violation;
            if (s->acc[b] && !(f->share_bits >> b & 1)) goto violation;
        }
    } else {
        s = calloc(1, sizeof(*s));
        if (!s) {
            pthread_mutex_unlock(&share_lock);
            return -ENOMEM;
        }
        s->dev = f->dev;
        s->ino = f->ino;
        s->next = shares;
        shares = s;
    }
    s->n++;
    for (int b = 0; b < 3; b++) {
        s->acc[b] += f->acc_bits >> b & 1;
        s->sh[b] += f->share_bits >> b & 1;
    }
    f->shared_in = 1;
    pthread_mutex_unlock(&share_lock);
    return 0;
violation:
    pthread_mutex_unlock(&share_lock);
    return -ETXTBSY;                     /* ERROR_SHARING_VIOLATION */
}

NSPA_HIDDEN int io_share_note(struct io_file *f) { return share_take(f); }

/* FILE_FLAG_DELETE_ON_CLOSE: remember where the name is (its directory open O_PATH, so
 * that a change of the current directory or a rename of the directory does not matter)
 * and delete it when this open's share access goes, unless the name means another file
 * by then. -errno: the directory cannot be held (the open fails). */
static int doc_arm(struct io_file *f, const char *path)
{
    char dir[4096];
    const char *base;
    if (io_path_split(path, dir, sizeof(dir), &base)) return -ENAMETOOLONG;
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -errno;
    char *name = strdup(base);
    if (!name) {
        close(dfd);
        return -ENOMEM;
    }
    f->doc_dirfd = dfd;
    f->doc_name = name;
    return 0;
}

/* share_lock held: no open of the name slips in between */
static void doc_delete(struct io_file *f)
{
    struct stat st;
    if (fstatat(f->doc_dirfd, f->doc_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == f->dev &&
        st.st_ino == f->ino)
        unlinkat(f->doc_dirfd, f->doc_name, 0);
    close(f->doc_dirfd);
    free(f->doc_name);
    f->doc_name = NULL;
}

NSPA_HIDDEN void io_share_release(struct io_file *f)
{
    pthread_mutex_lock(&share_lock);
    if (f->doc_name) doc_delete(f);
    if (!f->shared_in) {
        pthread_mutex_unlock(&share_lock);
        return;
    }
    for (struct share **pp = &shares; *pp; pp = &(*pp)->next) {
        struct share *s = *pp;
        if (s->dev != f->dev || s->ino != f->ino) continue;
        for (int b = 0; b < 3; b++) {
            s->acc[b] -= f->acc_bits >> b & 1;
            s->sh[b] -= f->share_bits >> b & 1;
        }
        if (--s->n == 0) {
            *pp = s->next;
            free(s);
        }
        break;
    }
    f->shared_in = 0;
    pthread_mutex_unlock(&share_lock);
}

/* An ENOENT from opening or deleting @path: NT says ERROR_PATH_NOT_FOUND when a
 * directory on the way is missing and ERROR_FILE_NOT_FOUND when only the last name is
 * (-ENOTDIR is the former in the errno mapping, -ENOENT the latter). */
NSPA_HIDDEN int io_not_found(const char *path)
{
    char dir[4096];
    const char *base;
    if (io_path_split(path, dir, sizeof(dir), &base)) return -ENOENT;
    struct stat st;                      /* "." and "/" exist: a bare name is FILE_NOT_FOUND */
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? -ENOENT : -ENOTDIR;
}

/* @path's file is open here without FILE_SHARE_DELETE (share_lock held): -ETXTBSY */
static int held_without_delete(const char *path)
{
    struct stat st;
    if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode)) return 0;
    for (struct share *s = shares; s; s = s->next)
        if (s->dev == st.st_dev && s->ino == st.st_ino && s->sh[2] != s->n) return -ETXTBSY;
    return 0;
}

/* Run @fn (an unlink, a rename) under the share table's lock, unless an open of this
 * process holds @p1 or @p2 without sharing delete (-ETXTBSY: NT opens them for DELETE
 * and fails with a sharing violation). Under the lock no open slips in between. */
NSPA_HIDDEN int io_share_guard(const char *p1, const char *p2, int (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&share_lock);
    int r = held_without_delete(p1);
    if (!r) r = held_without_delete(p2);
    if (!r) r = fn(arg);
    pthread_mutex_unlock(&share_lock);
    return r;
}

static int do_unlink(void *arg)
{
    const char *path = arg;
    if (unlink(path) == 0) return 0;
    return errno == ENOENT ? io_not_found(path) : -errno;   /* a directory: -EISDIR, ERROR_ACCESS_DENIED */
}

/* DeleteFile: NT opens the file for DELETE sharing everything, so an open of this
 * process that does not share delete refuses it (ERROR_SHARING_VIOLATION). The name
 * goes at once and the open handles keep the file, as NT's POSIX delete (Windows 10)
 * does. */
NSPA_HIDDEN int io_file_delete(const char *path)
{
    if (!*path) return -ENOTDIR;                   /* "": ERROR_PATH_NOT_FOUND */
    return io_share_guard(path, NULL, do_unlink, (void *)path);
}

/* access: GENERIC_READ/WRITE/ALL and the FILE_* data rights; disp: NT's 1..5 */
NSPA_HIDDEN int io_file_open(const char *path, uint32_t access, uint32_t share, uint32_t disp, uint32_t flags,
                             uint32_t *out)
{
    if (!path) return -EFAULT;
    if (!*path) return -ENOTDIR;                   /* "": ERROR_PATH_NOT_FOUND */
    /* The rights that share modes and the Linux open care about: reading data
     * (GENERIC_READ/EXECUTE/ALL, MAXIMUM_ALLOWED, FILE_READ_DATA, FILE_EXECUTE), writing
     * it (GENERIC_WRITE/ALL, FILE_WRITE_DATA, FILE_APPEND_DATA), DELETE. The attribute,
     * EA, SYNCHRONIZE and READ_CONTROL bits of FILE_GENERIC_READ/WRITE are not data
     * access: FILE_READ_ATTRIBUTES | SYNCHRONIZE opens to read no data and a read-only
     * file opens for it. FILE_APPEND_DATA without FILE_WRITE_DATA writes at the end only
     * (O_APPEND), as NT's does. */
    uint8_t acc = 0;
    if (access & (0x80000000u | 0x20000000u | 0x10000000u | 0x02000000u | 0x0001u | 0x0020u)) acc |= A_READ;
    if (access & (0x40000000u | 0x10000000u | 0x0002u | 0x0004u)) acc |= A_WRITE;
    if (access & (0x00010000u | 0x10000000u)) acc |= A_DEL;                               /* DELETE */
    if (access & (0x40000000u | 0x10000000u | 0x02000000u | 0x0100u)) acc |= A_WATTR;
    int append_only = (access & 0x0004u) && !(access & (0x40000000u | 0x10000000u | 0x0002u));
    int doc = (flags & 0x04000000u) != 0;               /* FILE_FLAG_DELETE_ON_CLOSE */
    if (doc) acc |= A_DEL;                              /* asks for DELETE access (NT's CreateFile) */
    int o = O_CLOEXEC | O_NOCTTY;
    o |= (acc & A_WRITE) ? ((acc & A_READ) ? O_RDWR : O_WRONLY) : O_RDONLY;
    if (append_only) o |= O_APPEND;
    switch (disp) {
    case 1: o |= O_CREAT | O_EXCL; break;               /* CREATE_NEW */
    case 2: o |= O_CREAT | O_TRUNC; break;              /* CREATE_ALWAYS */
    case 3: break;                                      /* OPEN_EXISTING */
    case 4: o |= O_CREAT; break;                        /* OPEN_ALWAYS */
    case 5:                                             /* TRUNCATE_EXISTING */
        if (!(acc & A_WRITE)) return -EINVAL;
        o |= O_TRUNC;
        break;
    default: return -EINVAL;
    }
    if ((o & O_TRUNC) && !(acc & A_WRITE)) o = (o & ~O_ACCMODE) | O_RDWR;   /* truncation needs a writer */
    /* NT checks the share access before it overwrites: a refused CREATE_ALWAYS or
     * TRUNCATE_EXISTING leaves the file as it was, so the truncation comes after the
     * check (ftruncate below), not with the open */
    int trunc = (o & O_TRUNC) != 0;
    o &= ~O_TRUNC;
    struct stat st;
    int existed = stat(path, &st) == 0;
    if (existed && S_ISDIR(st.st_mode)) return -EISDIR;
    int no_buf = (flags & 0x20000000u) != 0;            /* FILE_FLAG_NO_BUFFERING */
    int fd = -1;
    if (no_buf) fd = open(path, o | O_DIRECT, 0666);
    if (fd < 0) fd = open(path, o, 0666);               /* no O_DIRECT here (tmpfs): cached */
    if (fd < 0) return errno == ENOENT ? io_not_found(path) : -errno;
    if (fstat(fd, &st) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    struct io_file *f;
    int r = io_file_new(0, fd, &f, out);
    if (r) return r;
    f->overlapped = (flags & 0x40000000u) != 0;         /* FILE_FLAG_OVERLAPPED */
    f->no_buffering = (uint8_t)no_buf;
    f->can_read = (acc & A_READ) != 0;
    f->can_write = (acc & A_WRITE) != 0;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->acc_bits = acc;
    f->share_bits = (uint8_t)(share & 7);
    if (S_ISREG(st.st_mode) && (r = share_take(f))) {
        nspa_close(*out);
        return r;
    }
    if (trunc && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
        r = -errno;
        nspa_close(*out);
        return r;
    }
    if (doc && S_ISREG(st.st_mode) && (r = doc_arm(f, path))) {
        nspa_close(*out);
        return r;
    }
    nspa__fdmap_note(*out);                              /* described: others may take it */
    return existed && (disp == 2 || disp == 4) ? 1 : 0;  /* 1: ERROR_ALREADY_EXISTS, with success */
}

static struct io_file *file_ref(uint32_t h, int *err)
{
    struct io_file *f = io_file_get(h, err);
    if (f && f->is_socket) {
        io_file_put(f);
        *err = -EBADF;
        return NULL;
    }
    return f;
}

NSPA_HIDDEN int io_file_rw(uint32_t h, int wr, void *buf, uint32_t len, uint32_t *done, void *ov, void *routine)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    if (f->is_socket) {                  /* a SOCKET is a file handle: ReadFile on it works */
        io_file_put(f);
        return io_sock_file_rw(h, wr, buf, len, done, ov, routine);
    }
    int r = 0;
    if (wr ? !f->can_write : !f->can_read) r = -EACCES;
    else if (!buf && len) r = -EFAULT;
    else if (!wr && nspa_vm_before_kernel_write(buf, len)) r = -EFAULT;   /* guard pages, watches */
    else if (f->overlapped && !ov) r = -EINVAL;          /* an overlapped handle needs one */
    else if (routine && !f->overlapped) r = -EINVAL;
    int64_t off = -1;
    int append = 0;
    if (!r && ov) {
        uint32_t lo = ((uint32_t *)ov)[4], hi = ((uint32_t *)ov)[5];   /* Offset, OffsetHigh */
        off = (int64_t)((uint64_t)hi << 32 | lo);
        /* NT's FILE_WRITE_TO_END_OF_FILE: a write whose offset is all ones appends */
        if (wr && lo == 0xFFFFFFFFu && hi == 0xFFFFFFFFu) {
            append = 1;
            off = 0;
        }
    }
    /* NO_BUFFERING: buffer, length and offset sector aligned (512) */
    if (!r && f->no_buffering && (((uintptr_t)buf & 511) || (len & 511) || (off > 0 && (off & 511))))
        r = -EINVAL;
    if (r) {
        io_file_put(f);
        return r;
    }
    if (!f->overlapped) {
        struct stat st;
        int seekable = fstat(f->fd, &st) == 0 && S_ISREG(st.st_mode);
        ssize_t n;
        if (!seekable) {
            /* pipes, terminals, sockets-as-files: may block for ever; no lock held, and
             * CancelSynchronousIo can end the wait (pipe.c, block.c) */
            uint32_t moved = 0;
            r = io_stream_rw(f, wr, buf, len, &moved);
            n = r ? -1 : (ssize_t)moved;
            if (r) errno = -r;
        } else {
            /* synchronous: at the OVERLAPPED's offset if one is given (the file pointer
             * then moves past it, as NT's does), else at the file pointer. The pointer
             * is the kernel's offset of the open file description, so that a child that
             * inherited the handle shares it, as on NT. */
            pthread_mutex_lock(&f->lock);
            do {
                if (append) {                /* at the end; the pointer then past it */
                    struct iovec v = { buf, len };
                    n = pwritev2(f->fd, &v, 1, -1, RWF_APPEND);
                } else if (off >= 0) {
                    n = wr ? pwrite(f->fd, buf, len, off) : pread(f->fd, buf, len, off);
                    if (n >= 0) lseek(f->fd, off + n, SEEK_SET);
                } else {
                    n = wr ? write(f->fd, buf, len) : read(f->fd, buf, len);
                }
            } while (n < 0 && errno == EINTR);
            pthread_mutex_unlock(&f->lock);
        }
        if (n < 0 && errno == EAGAIN) n = 0;             /* a non-blocking std stream */
        r = n < 0 ? -errno : 0;
        if (!r && done) *done = (uint32_t)n;
        if (!r && ov) {                                  /* NT fills it and sets the event */
            uintptr_t *o = ov;
            o[1] = (uintptr_t)n;
            __atomic_store_n(&o[0], 0, __ATOMIC_RELEASE);
            nspa_obj_t ev = (nspa_obj_t)((uintptr_t)((void **)ov)[3] & ~(uintptr_t)1);
            if (ev) nspa_event_set(ev, NULL);
        }
        io_file_put(f);
        return r;
    }
    struct io_op *op = io_op_new(f, wr ? OP_WRITE : OP_READ, wr, ov, routine, RT_FILE);
    if (!op) {
        io_file_put(f);
        return -ENOMEM;
    }
    op->iov[0].iov_base = buf;
    op->iov[0].iov_len = len;
    op->msg.msg_iov = op->iov;
    op->msg.msg_iovlen = 1;
    op->offset = off;
    op->append = (uint8_t)append;
    return io_op_issue(op, done);
}

#define FILE_OR_RETURN(f, h) int err_ = 0; struct io_file *f = file_ref(h, &err_); if (!f) return err_

NSPA_HIDDEN int io_file_size(uint32_t h, int64_t *size)
{
    FILE_OR_RETURN(f, h);
    struct stat st;
    int r = fstat(f->fd, &st) < 0 ? -errno : 0;
    if (!r) *size = st.st_size;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_file_seek(uint32_t h, int64_t dist, int how, int64_t *pos)
{
    FILE_OR_RETURN(f, h);
    int r = how < 0 || how > 2 ? -EINVAL : 0;
    pthread_mutex_lock(&f->lock);
    if (!r) {
        /* the kernel's offset (shared with a child that inherited the handle) */
        off_t base = how == 0 ? 0 : lseek(f->fd, 0, how == 1 ? SEEK_CUR : SEEK_END);
        if (base < 0) r = -errno;
        else if (base + dist < 0) r = -ENXIO;       /* ERROR_NEGATIVE_SEEK */
        else if (lseek(f->fd, base + dist, SEEK_SET) < 0) r = -errno;
        else if (pos) *pos = base + dist;
    }
    pthread_mutex_unlock(&f->lock);
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_file_truncate(uint32_t h)
{
    FILE_OR_RETURN(f, h);
    int r = !f->can_write ? -EACCES : 0;
    pthread_mutex_lock(&f->lock);
    off_t at = r ? 0 : lseek(f->fd, 0, SEEK_CUR);
    if (!r && (at < 0 || ftruncate(f->fd, at) < 0)) r = -errno;
    pthread_mutex_unlock(&f->lock);
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_file_flush(uint32_t h)
{
    FILE_OR_RETURN(f, h);
    int r = !f->can_write ? -EACCES : fsync(f->fd) < 0 && errno != EINVAL ? -errno : 0;
    io_file_put(f);
    return r;
}

NSPA_HIDDEN int io_file_type(uint32_t h)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    struct stat st;
    int t = f->is_socket ? 3 : fstat(f->fd, &st) < 0 ? 0 : S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ? 1
            : S_ISCHR(st.st_mode) ? 2 : S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? 3 : 0;
    io_file_put(f);
    return t;
}

/* 1: opened for overlapped I/O (FILE_FLAG_OVERLAPPED, WSA_FLAG_OVERLAPPED), 0: not,
 * -EBADF: not a file, socket or pipe handle */
NSPA_HIDDEN int io_is_overlapped(uint32_t h)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    int o = f->overlapped != 0;
    io_file_put(f);
    return o;
}

static uint32_t std_h[3];
static uint8_t std_given[3];         /* set by SetStdHandle or the parent */
static pthread_mutex_t std_lock = PTHREAD_MUTEX_INITIALIZER;

NSPA_HIDDEN int io_std_handle(int which, uint32_t *out)
{
    if (which < 0 || which > 2) return -EINVAL;
    pthread_mutex_lock(&std_lock);
    int r = 0;
    if (!std_h[which] && !std_given[which]) {
        struct io_file *f;
        r = io_file_new(0, -1, &f, &std_h[which]);
        if (!r) {
            f->is_std = 1;              /* before the fd: the fd is never ours to close */
            f->fd = which;
            f->can_read = which == 0;
            f->can_write = which != 0;
        }
    }
    *out = std_h[which];
    pthread_mutex_unlock(&std_lock);
    return r;
}

NSPA_HIDDEN void io_set_std(int which, uint32_t h)
{
    if (which < 0 || which > 2) return;
    pthread_mutex_lock(&std_lock);
    std_h[which] = h;                   /* NT: the value only; nothing is opened or closed */
    std_given[which] = 1;               /* NULL included: GetStdHandle answers NULL */
    pthread_mutex_unlock(&std_lock);
}

/* GetFileInformationByHandle, GetFileTime: the handle's file */
NSPA_HIDDEN int io_file_info(uint32_t h, struct io_file_info *o)
{
    FILE_OR_RETURN(f, h);
    struct stat st;
    int r = fstat(f->fd, &st) < 0 ? -errno : 0;
    if (!r) {
        io_stat_from(&st, &o->st);
        o->dev = st.st_dev;
        o->ino = st.st_ino;
        o->nlink = (uint32_t)st.st_nlink;
    }
    io_file_put(f);
    return r;
}

static struct timespec ts_of_ft(const uint64_t *ft)
{
    /* NULL or 0: unchanged (NT's FILE_BASIC_INFORMATION); -1 (stop updating): unchanged
     * too, which Linux cannot keep from later writes */
    struct timespec t = { 0, UTIME_OMIT };
    if (ft && *ft && *ft != UINT64_MAX && *ft >= 116444736000000000ull) {
        uint64_t u = *ft - 116444736000000000ull;
        t.tv_sec = (time_t)(u / 10000000ull);
        t.tv_nsec = (long)(u % 10000000ull) * 100;
    }
    return t;
}

/* SetFileTime: needs FILE_WRITE_ATTRIBUTES (GENERIC_WRITE has it); the creation
 * time has no Linux counterpart and is left alone */
NSPA_HIDDEN int io_file_set_times(uint32_t h, const uint64_t *atime, const uint64_t *mtime)
{
    FILE_OR_RETURN(f, h);
    int r = (f->acc_bits & A_WATTR) ? 0 : -EACCES;
    struct timespec ts[2] = { ts_of_ft(atime), ts_of_ft(mtime) };
    if (!r && futimens(f->fd, ts) < 0) r = -errno;
    io_file_put(f);
    return r;
}

/* CopyFile's data, mode and times from @src to @dst (both open: read, write) */
NSPA_HIDDEN int io_file_copy(uint32_t src, uint32_t dst)
{
    FILE_OR_RETURN(s, src);
    struct io_file *d = file_ref(dst, &err_);
    if (!d) {
        io_file_put(s);
        return err_;
    }
    struct stat st;
    int r = fstat(s->fd, &st) < 0 ? -errno : 0;
    if (!r) r = io_copy_data(s->fd, d->fd);
    if (!r && fchmod(d->fd, st.st_mode & 07777) < 0) r = -errno;
    struct timespec ts[2] = { st.st_atim, st.st_mtim };
    if (!r && futimens(d->fd, ts) < 0) r = -errno;
    io_file_put(d);
    io_file_put(s);
    return r;
}

NSPA_HIDDEN int io_file_dup_fd(uint32_t h, int *fd, int *can_write)
{
    FILE_OR_RETURN(f, h);
    int r = f->fd < 0 ? -EBADF : !f->can_read ? -EACCES : 0;   /* NT: mapping needs read access */
    if (!r && (*fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 3)) < 0) r = -errno;
    if (!r) *can_write = f->can_write;
    io_file_put(f);
    return r;
}
