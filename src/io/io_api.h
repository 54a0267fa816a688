/*
 * The I/O module's calls for its Win32 files (win32_*.c), in neutral types: those
 * files see the Windows sockaddr and WSABUF, the rest of the module the Linux ones,
 * and the two sets of headers cannot meet in one file. Handles are nspa handles;
 * results are 0 / a count, or -errno (the Win32 side maps them).
 */
#ifndef NSPA_IO_API_H
#define NSPA_IO_API_H
#include <stddef.h>
#include <stdint.h>
#include "common/export.h"

struct io_wsabuf { uint32_t len; char *buf; };          /* = WSABUF */
struct iovec;
NSPA_HIDDEN int io_fill_iov(struct iovec **iovp, const struct io_wsabuf *b, uint32_t n);   /* sock.c */
struct io_wspollfd { uintptr_t fd; short events, revents; };   /* = WSAPOLLFD */
struct io_entry { uintptr_t key; void *ov; uintptr_t internal; uint32_t bytes; };   /* = OVERLAPPED_ENTRY */

/* sockets: immediate calls (sock.c) */
NSPA_HIDDEN int io_ws_socket(int af, int type, int proto, int overlapped, uint32_t *out);
NSPA_HIDDEN int io_ws_bind(uint32_t s, const void *wa, int wlen);
NSPA_HIDDEN int io_ws_listen(uint32_t s, int backlog);
NSPA_HIDDEN int io_ws_accept(uint32_t s, void *wa, int *wlen, uint32_t *out);
NSPA_HIDDEN int io_ws_connect(uint32_t s, const void *wa, int wlen);
/* send/recv on the socket's blocking mode; *flags: in the call's, out MSG_PARTIAL */
NSPA_HIDDEN int64_t io_ws_send(uint32_t s, const struct io_wsabuf *b, uint32_t n, int flags, const void *to,
                               int tolen);
NSPA_HIDDEN int64_t io_ws_recv(uint32_t s, const struct io_wsabuf *b, uint32_t n, int *flags, void *from,
                               int *fromlen);
NSPA_HIDDEN int io_ws_shutdown(uint32_t s, int how);
NSPA_HIDDEN int io_ws_close(uint32_t s);                /* -ENOTSOCK: not a socket */
NSPA_HIDDEN int io_ws_name(uint32_t s, int peer, void *wa, int *wlen);
NSPA_HIDDEN int io_ws_setopt(uint32_t s, int level, int name, const void *val, int len);
NSPA_HIDDEN int io_ws_getopt(uint32_t s, int level, int name, void *val, int *len);
NSPA_HIDDEN int io_ws_ioctl(uint32_t s, uint32_t cmd, uint32_t *arg);
NSPA_HIDDEN int io_ws_poll(struct io_wspollfd *fds, uint32_t n, int timeout_ms);
NSPA_HIDDEN int io_ws_is_socket(uint32_t s);            /* 1, 0 another handle, -EBADF */
NSPA_HIDDEN int io_ws_event_select(uint32_t s, uint32_t ev, uint32_t mask);
NSPA_HIDDEN int io_ws_enum_events(uint32_t s, uint32_t ev, uint32_t *events, int *errs);

/* overlapped (wsa.c): 0 completed now (*bytes), -EINPROGRESS pending, -errno failed */
NSPA_HIDDEN int io_ws_recv_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, uint32_t *flags, void *from,
                               int *fromlen, void *ov, void *routine, uint32_t *bytes);
NSPA_HIDDEN int io_ws_send_ovl(uint32_t s, const struct io_wsabuf *b, uint32_t n, uint32_t flags, const void *to,
                               int tolen, void *ov, void *routine, uint32_t *bytes);
NSPA_HIDDEN int io_ws_accept_ovl(uint32_t s, uint32_t acc, void *buf, uint32_t rxlen, uint32_t local,
                                 uint32_t remote, uint32_t *bytes, void *ov);
NSPA_HIDDEN int io_ws_connect_ovl(uint32_t s, const void *wa, int wlen, const void *data, uint32_t len,
                                  uint32_t *sent, void *ov);

/* overlapped results, cancels, ports (wsa.c, iocp.c) */
/* wait (until @deadline, 0: no wait) for @ov to complete; the event, or the file
 * handle when it has none. 0 done (*status, *bytes), -EINPROGRESS still pending,
 * -ETIMEDOUT, -EINTR (alertable: an APC ran), -EBADF */
NSPA_HIDDEN int io_ovl_wait(uint32_t h, void *ov, uint64_t deadline, int alertable);
NSPA_HIDDEN int io_cancel_h(uint32_t h, void *ov, int this_thread);   /* count, or -errno */
NSPA_HIDDEN int io_port_new(uint32_t concurrency, uint32_t *out);
NSPA_HIDDEN int io_port_assoc(uint32_t file, uint32_t port, uintptr_t key);
NSPA_HIDDEN int io_port_post_h(uint32_t port, uint32_t bytes, uintptr_t key, void *ov);
NSPA_HIDDEN int io_port_dequeue(uint32_t port, struct io_entry *e, uint32_t n, uint64_t deadline, int alertable);
NSPA_HIDDEN int io_set_notify(uint32_t h, uint8_t modes);
/* the thread pool's I/O objects (src/time/win32_tpio.c): @fn(@ctx) is called, under
 * the port's lock, after each packet is queued on port @port (NULL: no more calls once
 * this returns); take one packet now, without waiting or becoming an active thread of
 * the port: 1, or 0 when none is queued */
NSPA_HIDDEN int io_port_set_notify(uint32_t port, void (*fn)(void *ctx), void *ctx);
NSPA_HIDDEN int io_port_take_entry(uint32_t port, struct io_entry *e);
NSPA_HIDDEN int io_is_port(uint32_t h);

/* files (file.c) */
NSPA_HIDDEN int io_file_open(const char *path, uint32_t access, uint32_t share, uint32_t disp, uint32_t flags,
                             uint32_t *out);
NSPA_HIDDEN int io_file_rw(uint32_t h, int write, void *buf, uint32_t len, uint32_t *done, void *ov,
                           void *routine);
/* DeleteFile: 0, -ETXTBSY (an open of ours does not share delete), -errno */
NSPA_HIDDEN int io_file_delete(const char *path);
/* ENOENT of @path as NT tells it: -ENOTDIR (a directory on the way missing:
 * ERROR_PATH_NOT_FOUND) or -ENOENT (ERROR_FILE_NOT_FOUND) */
NSPA_HIDDEN int io_not_found(const char *path);
/* @path's directory ("." / "/" for a name there) and last component (dir.c) */
NSPA_HIDDEN int io_path_split(const char *path, char *dir, size_t cap, const char **base);
/* all of @in's data into @out, both from their starts (copy_file_range; dir.c) */
NSPA_HIDDEN int io_copy_data(int in, int out);
/* @fn under the share table's lock, unless @p1 / @p2 (NULL: none) is open here without
 * FILE_SHARE_DELETE (-ETXTBSY) */
NSPA_HIDDEN int io_share_guard(const char *p1, const char *p2, int (*fn)(void *arg), void *arg);

/* names and directories (dir.c) */
#define IO_ATTR_READONLY  0x01u
#define IO_ATTR_DIRECTORY 0x10u
#define IO_ATTR_NORMAL    0x80u
struct io_stat { uint32_t attrs; uint64_t size, ctime, atime, mtime; };   /* times: FILETIME */
struct io_find_ent { struct io_stat st; char name[256]; };
#define IO_MOVE_REPLACE       0x1u   /* MOVEFILE_REPLACE_EXISTING */
#define IO_MOVE_COPY          0x2u   /* MOVEFILE_COPY_ALLOWED */
#define IO_MOVE_WRITE_THROUGH 0x8u   /* MOVEFILE_WRITE_THROUGH */
NSPA_HIDDEN int io_path_stat(const char *path, struct io_stat *st);
NSPA_HIDDEN int io_path_set_attrs(const char *path, uint32_t attrs);
struct stat;
NSPA_HIDDEN void io_stat_from(const struct stat *st, struct io_stat *o);
/* a handle's file: GetFileInformationByHandle, GetFileTime, SetFileTime, CopyFile's data */
struct io_file_info { struct io_stat st; uint64_t dev, ino; uint32_t nlink; };
NSPA_HIDDEN int io_file_info(uint32_t h, struct io_file_info *o);
NSPA_HIDDEN int io_file_set_times(uint32_t h, const uint64_t *atime, const uint64_t *mtime);   /* NULL: unchanged */
NSPA_HIDDEN int io_file_copy(uint32_t src, uint32_t dst);
NSPA_HIDDEN int io_dir_create(const char *path);
NSPA_HIDDEN int io_full_path(const char *path, char *out, size_t cap);
NSPA_HIDDEN int io_disk_space(const char *path, uint64_t *avail, uint64_t *total, uint64_t *free_);
NSPA_HIDDEN int io_dir_remove(const char *path);
NSPA_HIDDEN int io_file_move(const char *from, const char *to, uint32_t flags);
/* a search over @pattern's directory with its last component's wildcards: the first
 * match in *e; -ENOTDIR (no such directory), -ENOENT (nothing matches) */
NSPA_HIDDEN int io_find_first(const char *pattern, uintptr_t *h, struct io_find_ent *e);
NSPA_HIDDEN int io_find_next(uintptr_t h, struct io_find_ent *e);   /* -ENODATA at the end, -EBADF */
NSPA_HIDDEN int io_find_close(uintptr_t h);
NSPA_HIDDEN int io_file_size(uint32_t h, int64_t *size);
NSPA_HIDDEN int io_file_seek(uint32_t h, int64_t dist, int how, int64_t *pos);
NSPA_HIDDEN int io_file_truncate(uint32_t h);
NSPA_HIDDEN int io_file_flush(uint32_t h);
NSPA_HIDDEN int io_is_overlapped(uint32_t h);           /* 1, 0, -EBADF */
NSPA_HIDDEN int io_file_type(uint32_t h);               /* 1 disk, 2 char, 3 pipe, -EBADF */
NSPA_HIDDEN int io_std_handle(int which, uint32_t *out);   /* 0 stdin, 1 stdout, 2 stderr */
NSPA_HIDDEN void io_set_std(int which, uint32_t h);         /* SetStdHandle */
/* the descriptor behind a file handle, for a mapping of it (vm): a new close-on-exec
 * copy in *fd, and whether the handle may write (*can_write). -EBADF: not a file */
NSPA_HIDDEN int io_file_dup_fd(uint32_t h, int *fd, int *can_write);

/* pipes (pipe.c): 0 or -errno; peek: *read bytes copied, *avail bytes buffered,
 * -EPIPE no writer left and nothing buffered, -EINVAL not a pipe */
NSPA_HIDDEN int io_pipe_create(uint32_t size, uint32_t *rd, uint32_t *wr);
NSPA_HIDDEN int io_pipe_peek(uint32_t h, void *buf, uint32_t len, uint32_t *read, uint32_t *avail);

/* CancelSynchronousIo (block.c): 0 the thread's blocked call ends aborted, -ENOENT none */
NSPA_HIDDEN int io_cancel_sync(uint32_t tid);

/* A child process's files (inherit.c; for CreateProcess, src/win32/spawn.c): the
 * descriptors to dup2 in the child (src onto dst; src == dst: keep it across exec) and
 * the environment entries (NULL: none) the child's runtime reads. */
struct io_spawn_fd { int src, dst; };
struct io_spawn {
    struct io_spawn_fd *fds;
    uint32_t n, cap;
    char *env;                          /* NSPA_IOINHERIT=... */
    char *stdenv;                       /* NSPA_STDH=... */
};
/* @stdh: the three STARTUPINFO standard handles (NULL: STARTF_USESTDHANDLES not given);
 * @inherit: bInheritHandles. 0 or -errno (nothing to release then). */
NSPA_HIDDEN int io_spawn_prepare(struct io_spawn *s, const uint32_t *stdh, int inherit);
NSPA_HIDDEN void io_spawn_done(struct io_spawn *s);     /* after the spawn (either way) */
/* DuplicateHandle of file, socket or pipe handle @h into process @pid of the namespace:
 * its descriptor is given (src/sync/gift.c); *@remote: the handle value there.
 * -EOPNOTSUPP for a completion port. */
/* @access: NSPA__ACCESS_INHERIT or 0 (a file keeps its rights in its record) */
NSPA_HIDDEN int io_dup_to_process(uint32_t h, int32_t pid, uint32_t access, uint32_t *remote);
/* a file, socket or pipe handle of process @pid as DuplicateHandle's source (pidfd_getfd):
 * 0 (*@tmp a handle here), -EBADF (none there), -ESRCH, -EACCES (refused), -ENOSYS */
NSPA_HIDDEN int io_dup_from_process(int32_t pid, uint32_t remote, uint32_t *tmp);
/* 1: this process was started with STARTF_USESTDHANDLES (GetStartupInfo) */
NSPA_HIDDEN int io_startup_std(void);
#endif
