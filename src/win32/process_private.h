/* The Win32 process code's private glue (process.c, spawn.c, cmdline.c, environ.c). */
#ifndef NSPA_WIN32_PROCESS_PRIVATE_H
#define NSPA_WIN32_PROCESS_PRIVATE_H
#include <stdint.h>
#include <sys/types.h>
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"

/* a process this process holds handles to, watched through its pidfd (process.c) */
struct pwatch {
    struct pwatch *next;
    pid_t pid;
    int pidfd;
    int child;                       /* ours to reap: its exit status is known */
    int suspended;                   /* CREATE_SUSPENDED, not resumed yet */
    int terminated;                  /* TerminateProcess killed it with term_code */
    uint32_t term_code;
    uint32_t handoff;                /* the child's handoff slot (inherit.c), or UINT32_MAX */
    nspa_obj_t obj;                  /* the watcher's own handle to the process object */
    nspa_obj_t thread_obj;           /* a child's main thread object (CreateProcess), or 0 */
    uint64_t create_time, exit_time, kernel, user;     /* FILETIME units */
    _Atomic int refs;                /* the list's, and each waiter's on the pidfd */
    _Atomic int ended;               /* watch_end has run (or runs) */
    int listed, in_epoll, pollers;   /* in the list / the epoll set; waiters on the pidfd
                                      * (watch_lock) */
};

NSPA_HIDDEN int nspa__watch_process(pid_t pid, int pidfd, int child, int with_thread, uint32_t handoff,
                                    int suspended, nspa_obj_t *out, nspa_obj_t *thread_out);
NSPA_HIDDEN uint32_t nspa__exit_code_of_signal(int sig);
NSPA_HIDDEN nspa_obj_t nspa__self_process_obj(void);
NSPA_HIDDEN int nspa__proc_resume(uint32_t tid, DWORD *prev);
/* a new handle to the thread object of thread @tid of this process */
NSPA_HIDDEN int nspa__win32_thread_handle_by_tid(uint32_t tid, nspa_obj_t *out);

#include "unicode/wstr.h"           /* nspa__wlen, nspa__w_to_utf8, nspa__utf8_to_w */
/* Windows' command-line rules (CommandLineToArgvW): split @cmd into a NULL-terminated
 * malloc'ed argv of malloc'ed strings (UTF-8) */
NSPA_HIDDEN char **nspa__split_cmdline(const char *cmd, int *argc);
NSPA_HIDDEN void nspa__free_argv(char **argv);
/* the pid behind a process handle given to DuplicateHandle (PROCESS_DUP_HANDLE needed;
 * 0 with the last error set) */
NSPA_HIDDEN int nspa__proc_pid_for_dup(HANDLE h, DWORD *pid);
#endif
