/*
 * Files, sockets and pipes passed to a child process: inheritance (CreateProcess with
 * bInheritHandles and HANDLE_FLAG_INHERIT) and the standard handles of STARTUPINFO
 * (STARTF_USESTDHANDLES). docs/io.md, "Handles in a child process".
 *
 * A handle of this module names a record of this process over a descriptor; it cannot
 * grow into the namespace region as a sync object does (src/sync/inherit.c skips these
 * kinds). What crosses is the descriptor: before the spawn each one is duplicated here
 * (F_DUPFD_CLOEXEC: a fresh number no other descriptor of this process has), and the
 * spawn's file actions dup2 it onto itself in the child (which clears close-on-exec) or
 * onto 0, 1, 2 for the standard handles. The child's runtime (a constructor, before
 * main) reads NSPA_IOINHERIT — "<parent pid>;<handle>:<fd>:<kind>:<bits>[:<family>:
 * <type>],..." — and makes a record over each descriptor with the parent's handle value
 * (nspa__handle_move), inheritable again, and NSPA_STDH — "<parent pid>;<in>,<out>,<err>"
 * — the values GetStdHandle answers with, each plus one (0: the child's own stream). Both are read only if the parent is the one
 * that wrote them (getppid()), and removed from the environment.
 *
 * The standard handles follow NT's rules: a handle that is inherited (bInheritHandles and
 * HANDLE_FLAG_INHERIT) is the child's stream and its GetStdHandle value; a handle that is
 * not inherited gives the child its value and nothing behind it (NT copies the value
 * only: using it fails), so its stream is /dev/null; this process's own standard handles
 * (GetStdHandle) pass as consoles do, inherited or not; NULL or INVALID_HANDLE_VALUE
 * is the child's GetStdHandle value with no stream behind it (/dev/null), as on NT
 * since Windows 8 (docs/process.md).
 *
 * The file pointer of an inherited file is the kernel's offset of the shared open file
 * description (file.c), so parent and child share it as on NT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

static int push(struct io_spawn *s, int src, int dst)
{
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 16;
        struct io_spawn_fd *v = realloc(s->fds, nc * sizeof(*v));
        if (!v) return -ENOMEM;
        s->fds = v;
        s->cap = nc;
    }
    s->fds[s->n].src = src;
    s->fds[s->n].dst = dst;
    s->n++;
    return 0;
}

/* append @one to the malloc'ed string *@str */
static int append(char **str, size_t *len, size_t *cap, const char *one)
{
    int l = (int)strlen(one);
    if (*len + (size_t)l + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 256) + (size_t)l;
        char *n = realloc(*str, nc);
        if (!n) return -ENOMEM;
        *str = n;
        *cap = nc;
    }
    memcpy(*str + *len, one, (size_t)l + 1);
    *len += (size_t)l;
    return 0;
}

static unsigned desc_bits(const struct io_file *f)
{
    return f->can_read | f->can_write << 1 | f->overlapped << 2 | f->no_buffering << 3 | (unsigned)f->acc_bits << 4 |
           (unsigned)f->share_bits << 8;
}

/* what the other side needs to make the same record: "<kind>:<bits>:<family>:<type>" */
static void describe(const struct io_file *f, char *out, size_t cap)
{
    char kind = f->is_socket ? 's' : f->is_pipe ? 'p' : 'f';
    snprintf(out, cap, "%d:%u:%d:%d", kind, desc_bits(f), f->family, f->type);
}

static int adopt_record(int fd, char kind, unsigned bits, int fam, int type, nspa_obj_t *tmp);

/* The same, packed for the fd map (src/sync/fdmap.c): kind (2 bits: 1 file, 2 pipe,
 * 3 socket), the bits (12), family and type (8 each). */
NSPA_HIDDEN uint32_t io_pack_desc(const struct io_file *f)
{
    uint32_t kind = f->is_socket ? 3 : f->is_pipe ? 2 : 1;
    return kind | (desc_bits(f) & 0xfff) << 2 | ((uint32_t)f->family & 0xff) << 14 | ((uint32_t)f->type & 0xff) << 22;
}

/* A file, socket or pipe handle @remote of process @pid, taken without its help (the
 * fd map and pidfd_getfd, src/sync/fdmap.c): a record here over a copy of its
 * descriptor, as handle *@tmp. */
NSPA_HIDDEN int io_dup_from_process(int32_t pid, uint32_t remote, uint32_t *tmp)
{
    int fd = -1;
    uint32_t d = 0;
    int r = nspa__fdmap_take(pid, remote, &fd, &d);
    if (r) return r;
    static const char kinds[4] = { 0, 'f', 'p', 's' };
    char kind = kinds[d & 3];
    struct stat st;
    /* the descriptor is what the entry says (a socket is one; a file is none; a pipe is
     * a socket pair of ours or an inherited FIFO), and adopt_record's own checks pass
     * (after them, a failure closes the descriptor itself) */
    if (!kind || fd < 3 || fstat(fd, &st) || (kind == 's' && !S_ISSOCK(st.st_mode)) ||
        (kind == 'f' && S_ISSOCK(st.st_mode))) {
        close(fd);
        return -EBADF;
    }
    nspa_obj_t h = 0;
    r = adopt_record(fd, kind, d >> 2 & 0xfff, (int)(d >> 14 & 0xff), (int)(d >> 22 & 0xff), &h);
    if (!r) *tmp = h;
    return r;
}

/* a fresh close-on-exec copy of @fd for the child: in s->fds (closed by io_spawn_done) */
static int dup_for_child(struct io_spawn *s, int fd, int dst)
{
    int t = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (t < 0) return -errno;
    int r = push(s, t, dst < 0 ? t : dst);
    if (r) close(t);
    return r < 0 ? r : t;
}

NSPA_HIDDEN int io_spawn_prepare(struct io_spawn *s, const uint32_t *stdh, int inherit)
{
    memset(s, 0, sizeof(*s));
    size_t len = 0, cap = 0;
    int r = 0;
    if (inherit) {
        uint32_t i = 0, flags = 0;
        nspa_obj_t h;
        char one[96];
        snprintf(one, sizeof one, "NSPA_IOINHERIT=%d;", (int)getpid());
        r = append(&s->env, &len, &cap, one);
        while (!r && (h = nspa__handle_next(&i, NSPA_TYPE_FILE, &flags))) {
            if (!(flags & NSPA_HANDLE_INHERIT)) continue;
            int err = 0;
            struct io_file *f = io_file_get(h, &err);
            if (!f) continue;                          /* closed meanwhile */
            int t = f->fd >= 0 ? dup_for_child(s, f->fd, -1) : -EBADF;
            if (t >= 0) {
                char one[96], d[64];
                describe(f, d, sizeof d);
                snprintf(one, sizeof one, "%u:%d:%s,", h, t, d);
                r = append(&s->env, &len, &cap, one);
            } else if (t != -EBADF) {
                r = t;
            }
            io_file_put(f);
        }
    }
    if (!r && stdh) {
        char *e = NULL;
        size_t el = 0, ec = 0;
        unsigned long long v[3] = { 0, 0, 0 };
        int any = 0;
        for (int k = 0; k < 3 && !r; k++) {
            uint32_t h = stdh[k];
            any = 1;
            int err = 0;
            uint32_t fl = 0;
            /* NULL or INVALID_HANDLE_VALUE: NT gives the child that value and no stream */
            struct io_file *f = h && h != UINT32_MAX ? io_file_get(h & ~3u, &err) : NULL;
            int passes = f && f->fd >= 0 && (f->is_std || (inherit && nspa_handle_get_flags(h & ~3u, &fl) == 0 &&
                                                            (fl & NSPA_HANDLE_INHERIT)));
            if (passes) {
                int t = dup_for_child(s, f->fd, k);
                if (t < 0) r = t;
                v[k] = f->is_std ? 0 : (unsigned long long)h + 1;   /* a std record: the child's own */
            } else {
                int t = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (t >= 0 && t < 3) {
                    int d = fcntl(t, F_DUPFD_CLOEXEC, 3);
                    close(t);
                    t = d;
                }
                if (t < 0) r = -errno;
                else if ((r = push(s, t, k))) close(t);
                v[k] = (unsigned long long)h + 1;       /* NT: the value, nothing behind it */
            }
            if (f) io_file_put(f);
        }
        if (!r && any) {
            char one[96];
            snprintf(one, sizeof one, "NSPA_STDH=%d;%llu,%llu,%llu", (int)getpid(), v[0], v[1], v[2]);
            r = append(&e, &el, &ec, one);
        }
        s->stdenv = e;
        if (r) {
            free(e);
            s->stdenv = NULL;
        }
    }
    if (r) io_spawn_done(s);
    return r;
}

NSPA_HIDDEN void io_spawn_done(struct io_spawn *s)
{
    for (uint32_t i = 0; i < s->n; i++) close(s->fds[i].src);
    free(s->fds);
    free(s->env);
    free(s->stdenv);
    memset(s, 0, sizeof(*s));
}

/* ---- the child ------------------------------------------------------------------- */

static int startup_std;                 /* the parent gave STARTF_USESTDHANDLES */

NSPA_HIDDEN int io_startup_std(void) { return startup_std; }

static int from_parent(const char *v, const char **rest)
{
    char *end;
    unsigned long pid = strtoul(v, &end, 10);
    if (*end != ';' || pid != (unsigned long)getppid()) return 0;
    *rest = end + 1;
    return 1;
}

/* A record over inherited or given descriptor @fd, described by the parent or giver
 * (kind 'f' file, 'p' pipe, 's' socket; the bits of describe()), as handle *@tmp. */
static int adopt_record(int fd, char kind, unsigned bits, int fam, int type, nspa_obj_t *tmp)
{
    struct stat st;
    if (fd < 3 || fstat(fd, &st) < 0) return -EBADF;
    fcntl(fd, F_SETFD, FD_CLOEXEC);                   /* ours now: not for our children */
    struct io_file *f;
    int r = io_file_new(0, fd, &f, tmp);
    if (r) return r;
    f->can_read = bits & 1;
    f->can_write = bits >> 1 & 1;
    f->overlapped = bits >> 2 & 1;
    f->no_buffering = bits >> 3 & 1;
    f->acc_bits = (uint8_t)(bits >> 4 & 15);
    f->share_bits = (uint8_t)(bits >> 8 & 15);
    f->is_pipe = kind == 'p';
    if (kind == 's') {
        f->is_socket = 1;
        f->family = fam;
        f->type = type;
        const struct io_engine *e = io_engine();
        if (e) e->file_new(f);
    } else if (kind == 'f') {
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        io_share_note(f);
    }
    nspa__fdmap_note(*tmp);
    return 0;
}

static void adopt_one(unsigned long long h, int fd, char kind, unsigned bits, int fam, int type)
{
    nspa_obj_t tmp;
    if (adopt_record(fd, kind, bits, fam, type, &tmp)) return;
    if (nspa__handle_move(tmp, (nspa_obj_t)h) == 0)
        nspa_handle_set_flags((nspa_obj_t)h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    else
        nspa_close(tmp);                              /* the value is taken: not inherited */
}

/* ---- DuplicateHandle of a file into another process (src/sync/gift.c) -------------- */

/* the receiving side: a gift from another process's DuplicateHandle */
static int adopt_gift(int fd, const char *meta, nspa_obj_t *tmp)
{
    int kind, fam, type;
    unsigned bits;
    if (sscanf(meta, "%d:%u:%d:%d", &kind, &bits, &fam, &type) != 4) return -EINVAL;
    return adopt_record(fd, (char)kind, bits, fam, type, tmp);
}

NSPA_HIDDEN int io_dup_to_process(uint32_t h, int32_t pid, uint32_t access, uint32_t *remote)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    int r = -EOPNOTSUPP;                              /* completion ports stay here */
    if (f->fd >= 0 && !f->is_port) {
        char meta[64];
        describe(f, meta, sizeof meta);
        r = nspa__gift_send(pid, f->fd, meta, access, remote);
    }
    io_file_put(f);
    return r;
}

/* the source side of DUPLICATE_CLOSE_SOURCE from another process (src/sync/ask.c):
 * a copy of handle @h's descriptor and its description, to send before the close */
static int give_out(nspa_obj_t h, int *fd, char *meta, size_t cap)
{
    int err = 0;
    struct io_file *f = io_file_get(h, &err);
    if (!f) return err;
    int r = -EOPNOTSUPP;                              /* completion ports stay here */
    if (f->fd >= 0 && !f->is_port) {
        describe(f, meta, cap);
        *fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 3);
        r = *fd < 0 ? -errno : 0;
    }
    io_file_put(f);
    return r;
}

__attribute__((constructor)) static void io_inherit_attach(void)
{
    nspa__set_gift_hook(adopt_gift);
    nspa__set_give_hook(give_out);
    const char *v = getenv("NSPA_IOINHERIT"), *p;
    if (v && from_parent(v, &p)) {
        while (*p) {
            unsigned long long h, fd, kind, bits;
            int fam, type, used = 0;
            if (sscanf(p, "%llu:%llu:%llu:%llu:%d:%d,%n", &h, &fd, &kind, &bits, &fam, &type, &used) < 6 || !used)
                break;
            adopt_one(h, (int)fd, (char)kind, (unsigned)bits, fam, type);
            p += used;
        }
    }
    if (v) unsetenv("NSPA_IOINHERIT");
    v = getenv("NSPA_STDH");
    unsigned long long s[3];
    if (v && from_parent(v, &p) && sscanf(p, "%llu,%llu,%llu", &s[0], &s[1], &s[2]) == 3) {
        for (int k = 0; k < 3; k++)                   /* value + 1; 0: our own stream */
            if (s[k]) io_set_std(k, (uint32_t)(s[k] - 1));
        startup_std = 1;                              /* GetStartupInfo says so */
    }
    if (v) unsetenv("NSPA_STDH");
    nspa__gift_fetch_parked();                        /* if attached already: files given while suspended */
}
