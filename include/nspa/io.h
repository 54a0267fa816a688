/*
 * nspa/io.h — the overlapped I/O engine (Winsock, files, completion ports: the Win32
 * names are in <winsock2.h>, <fileapi.h>, <ioapiset.h>; design in docs/io.md).
 *
 * The engine is io_uring (liburing) where the kernel allows it, else epoll; it is
 * chosen at the first I/O call, and NSPA_IO_ENGINE=epoll forces the fallback.
 */
#ifndef NSPA_IO_H
#define NSPA_IO_H
#ifdef __cplusplus
extern "C" {
#endif

/* nspa_io_engine - the engine in use: "io_uring", "epoll", or "none" (neither can be
 * used: overlapped operations that cannot complete at once fail). Starts it. */
const char *nspa_io_engine(void);

#ifdef __cplusplus
}
#endif
#endif
