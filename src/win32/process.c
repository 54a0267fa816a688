/*
 * Process objects: waitable handles to processes, their exit codes, OpenProcess,
 * TerminateProcess, ExitProcess, process and thread times (docs/process.md).
 *
 * A process handle is a handle to a sync-core object of kind NSPA_TYPE_PROCESS (a manual
 * event with the pid and the exit code): WaitForSingleObject / WaitForMultipleObjects
 * take it among any other objects, and the wait code knows nothing of processes.
 *
 * Who signals it: the process watcher, one service thread per process (started on the
 * first process handle), which sleeps in epoll_wait on the pidfds of every process this
 * process holds a handle to. A pidfd becomes readable when its process exits, child or
 * not, so exits are noticed without polling; a waiter's own futex wait could not wait
 * on a file descriptor, hence the thread. In RT mode it runs SCHED_FIFO at NSPA_RT_PRIO
 * (a real-time waiter is woken by it). For a child, the watcher reaps it (wait4 on its
 * pid, which cannot be reused before that) and gets its exit status and its times; for
 * another process, Linux keeps the exit status from everyone but its parent: the exit
 * code is the one TerminateProcess gave when this process killed it, else 0
 * (documented). The watcher holds its own handle to the object until the exit, as a
 * thread record holds its thread object.
 *
 * The watch list (struct pwatch) is under watch_lock: creation, OpenProcess,
 * TerminateProcess and the exit; never a wait or wake path.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nspa/rt.h"
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "win32/win32_private.h"
#include "win32/process_private.h"

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pwatch *watch_list;
static int watch_epfd = -1;
static int watch_started;

/* the times of the last processes that ended (GetProcessTimes after the exit): a ring,
 * found by pid and process object */
#define GRAVE 256
static struct grave { uint32_t pid; uint64_t create_time, exit_time, kernel, user; } graves[GRAVE];
static uint32_t grave_next;

static inline nspa_obj_t H(HANDLE h) { return (nspa_obj_t)(uintptr_t)h; }

static BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

/* ---- exit status ------------------------------------------------------------------ */

NSPA_HIDDEN uint32_t nspa__exit_code_of_signal(int sig)
{
    switch (sig) {
    case SIGSEGV: case SIGBUS: return 0xC0000005u;     /* STATUS_ACCESS_VIOLATION */
    case SIGILL: return 0xC000001Du;                   /* STATUS_ILLEGAL_INSTRUCTION */
    case SIGFPE: return 0xC0000094u;                   /* STATUS_INTEGER_DIVIDE_BY_ZERO */
    case SIGINT: return 0xC000013Au;                   /* STATUS_CONTROL_C_EXIT */
    case SIGABRT: return 3;                            /* abort() of the C runtime */
    default: return 128u + (uint32_t)sig;
    }
}

/* 100 ns units from clock ticks */
static uint64_t ticks_to_100ns(uint64_t t)
{
    static long hz;
    if (!hz) hz = sysconf(_SC_CLK_TCK);
    return t * (10000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

static uint64_t tv_to_100ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 10000000ull + (uint64_t)tv.tv_usec * 10ull;
}

/* FILETIME now (100 ns since 1601) */
static uint64_t filetime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 10000000ull + (uint64_t)ts.tv_nsec / 100 + 116444736000000000ull;
}

/* The FILETIME of a task start (clock ticks since boot) */
static uint64_t filetime_of_start(uint64_t ticks)
{
    struct timespec rt, bt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_BOOTTIME, &bt);
    uint64_t boot = ((uint64_t)rt.tv_sec - (uint64_t)bt.tv_sec) * 10000000ull +
                    ((int64_t)rt.tv_nsec - (int64_t)bt.tv_nsec) / 100;
    return boot + ticks_to_100ns(ticks) + 116444736000000000ull;
}

/* ---- the watcher --------------------------------------------------------------------- */

static struct pwatch *watch_find_locked(pid_t pid);

/* @w's process has ended: its status, its objects signaled. Run once, by whoever
 * claims it: the watcher thread, or a thread waiting on the pidfd itself (proc_wait). */
static int watch_end(struct pwatch *w)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&w->ended, &expected, 1)) return 0;
    uint32_t code = 0;
    int status;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    pid_t r = w->child ? wait4(w->pid, &status, WNOHANG | __WALL, &ru) : -1;
    if (r == w->pid) {
        if (WIFEXITED(status)) code = (uint32_t)WEXITSTATUS(status);
        else if (WIFSIGNALED(status)) code = nspa__exit_code_of_signal(WTERMSIG(status));
        w->user = tv_to_100ns(ru.ru_utime);
        w->kernel = tv_to_100ns(ru.ru_stime);
    }
    w->exit_time = filetime_now();
    /* what was given to it and never taken (a suspended child's parked files, its slot)
     * goes before its handle is signaled, as a Windows process's handle table is run
     * down before it is: whoever saw the end has nothing of the child left to count.
     * Run once (ended); watch_unref's own reap is for a record that never ended here. */
    if (w->handoff != UINT32_MAX) {
        nspa__handoff_reap(w->handoff, w->pid);
        w->handoff = UINT32_MAX;
    }
    pthread_mutex_lock(&watch_lock);
    /* TerminateProcess writes these under the lock */
    if (w->terminated && (r != w->pid || WIFSIGNALED(status))) code = w->term_code;
    graves[grave_next % GRAVE] = (struct grave){ (uint32_t)w->pid, w->create_time, w->exit_time, w->kernel, w->user };
    grave_next++;
    pthread_mutex_unlock(&watch_lock);
    nspa__exit_obj_signal(w->obj, NSPA_TYPE_PROCESS, code);
    if (w->thread_obj) nspa__exit_obj_signal(w->thread_obj, NSPA_TYPE_THREAD, code);
    return 1;
}

/* Drop a reference to @w (the watch list holds one, a waiter on its pidfd another);
 * the last one gives back its descriptor, handles and record. */
static void watch_unref(struct pwatch *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1) return;
    close(w->pidfd);
    if (w->thread_obj) nspa_close(w->thread_obj);
    nspa_close(w->obj);
    /* inherited handles the child never took (it was no NSPA program, or died first) */
    if (w->handoff != UINT32_MAX) nspa__handoff_reap(w->handoff, w->pid);
    free(w);
}

/* Out of the list (watch_lock held): 1 when this call took it out (the caller then
 * drops the list's reference). */
static int watch_unlist_locked(struct pwatch *w)
{
    if (!w->listed) return 0;
    for (struct pwatch **pp = &watch_list; *pp; pp = &(*pp)->next)
        if (*pp == w) { *pp = w->next; break; }
    w->listed = 0;
    if (w->in_epoll) {
        epoll_ctl(watch_epfd, EPOLL_CTL_DEL, w->pidfd, NULL);
        w->in_epoll = 0;
    }
    return 1;
}

/* The process of @w ended (seen by whoever holds a reference): end it, take it out. */
static int watch_finish(struct pwatch *w)
{
    int ended = watch_end(w);
    pthread_mutex_lock(&watch_lock);
    int drop = watch_unlist_locked(w);
    pthread_mutex_unlock(&watch_lock);
    if (drop) watch_unref(w);
    return ended;
}

/* The watcher's event for @pid: the record still listed under that pid, if its own
 * pidfd says it ended (an event fetched before a waiter took the pidfd over, or a
 * record of a reused pid, is not acted on). */
static void watch_event(pid_t pid)
{
    pthread_mutex_lock(&watch_lock);
    struct pwatch *w = watch_find_locked(pid);
    if (w) atomic_fetch_add(&w->refs, 1);
    pthread_mutex_unlock(&watch_lock);
    if (!w) return;
    struct pollfd p = { .fd = w->pidfd, .events = POLLIN };
    if (poll(&p, 1, 0) > 0) watch_finish(w);
    watch_unref(w);
}

/* WaitForSingleObject on a process handle that is not signaled (wait.c's hook): the
 * waiting thread takes the pidfd out of the watcher's epoll set and polls it itself,
 * and ends the record when it sees the exit: one thread woken by the exit, not two
 * (pidfd -> watcher -> waiter). Back in the set when the last such waiter leaves
 * without the exit. Returns 0, -ETIMEDOUT, or 1 (not a process we watch: the ordinary
 * wait runs). */
static int proc_wait(nspa_obj_t h, uint64_t timeout)
{
    uint32_t pid, ec;
    int sig;
    if (nspa__exit_obj_info(h, NSPA_TYPE_PROCESS, &pid, &ec, &sig)) return 1;
    if (sig) return 0;
    pthread_mutex_lock(&watch_lock);
    /* found in the list while its object is not signaled: it is this object's record
     * (a record leaves the list only after it has signaled its object) */
    struct pwatch *w = watch_find_locked((pid_t)pid);
    if (w) {
        atomic_fetch_add(&w->refs, 1);
        if (w->pollers++ == 0 && w->in_epoll) {
            epoll_ctl(watch_epfd, EPOLL_CTL_DEL, w->pidfd, NULL);
            w->in_epoll = 0;
        }
    }
    pthread_mutex_unlock(&watch_lock);
    if (!w) return 1;
    int r;
    for (;;) {
        if (nspa__exit_obj_info(h, NSPA_TYPE_PROCESS, &pid, &ec, &sig) == 0 && sig) {
            r = 0;
            break;
        }
        struct pollfd p = { .fd = w->pidfd, .events = POLLIN };
        struct timespec ts, *tsp = NULL;
        if (timeout != NSPA_TIMEOUT_INFINITE) {
            uint64_t now = nspa_time_ns();
            if (now >= timeout) {
                r = -ETIMEDOUT;
                break;
            }
            ts = nspa_ts_from_ns(timeout - now);
            tsp = &ts;
        }
        if (ppoll(&p, 1, tsp, NULL) > 0) {
            /* ended by us: signaled; by another: signaled now or soon, and the
             * ordinary wait takes it */
            r = watch_finish(w) ? 0 : 1;
            break;
        }
    }
    pthread_mutex_lock(&watch_lock);
    if (--w->pollers == 0 && w->listed && !w->in_epoll) {
        /* the watcher watches it again (an exit meanwhile fires at once) */
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)(uint32_t)w->pid };
        if (epoll_ctl(watch_epfd, EPOLL_CTL_ADD, w->pidfd, &ev) == 0) w->in_epoll = 1;
    }
    pthread_mutex_unlock(&watch_lock);
    watch_unref(w);
    return r;
}

static void *watch_main(void *arg)
{
    (void)arg;
    int prio = nspa_rt_prio();
    if (prio) {
        struct sched_param sp = { .sched_priority = prio };
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);   /* best effort */
    }
    struct epoll_event ev[16];
    for (;;) {
        int n = epoll_wait(watch_epfd, ev, 16, -1);
        for (int i = 0; i < n; i++) watch_event((pid_t)ev[i].data.u64);
    }
    return NULL;
}

/* watch_lock held */
static int watch_start_locked(void)
{
    if (watch_started) return 0;
    if (watch_epfd < 0) watch_epfd = epoll_create1(EPOLL_CLOEXEC);
    if (watch_epfd < 0) return -errno;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 256 * 1024);
    sigset_t all, old;
    sigfillset(&all);                            /* no signals meant for the program */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int r = pthread_create(&t, &a, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    if (r) return -r;
    pthread_setname_np(t, "nspa-procwatch");
    watch_started = 1;
    return 0;
}

static void watch_atfork_child(void)
{
    /* the watcher and its records are the parent's: a child starts afresh (its copies
     * of process handles reach the parent's objects, which the parent signals) */
    pthread_mutex_init(&watch_lock, NULL);
    watch_list = NULL;
    watch_started = 0;
    if (watch_epfd >= 0) close(watch_epfd);
    watch_epfd = -1;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void atfork_init(void)
{
    pthread_atfork(NULL, NULL, watch_atfork_child);
    nspa__set_proc_wait_hook(proc_wait);
}

static struct pwatch *watch_find_locked(pid_t pid)
{
    for (struct pwatch *w = watch_list; w; w = w->next)
        if (w->pid == pid) return w;
    return NULL;
}

/* A process object for @pid watched through @pidfd (taken over: closed on failure).
 * *@out gets a handle for the caller; *@wout the record (watch_lock held by the caller
 * when @wout is used). */
NSPA_HIDDEN int nspa__watch_process(pid_t pid, int pidfd, int child, int with_thread, uint32_t handoff,
                                    int suspended, nspa_obj_t *out, nspa_obj_t *thread_out)
{
    pthread_once(&atfork_once, atfork_init);
    struct pwatch *w = calloc(1, sizeof(*w));
    if (!w) {
        close(pidfd);
        return -ENOMEM;
    }
    w->pid = pid;
    w->pidfd = pidfd;
    w->handoff = handoff;            /* known before the watcher can see the exit */
    w->suspended = suspended;
    atomic_store(&w->refs, 1);
    w->child = child;
    uint64_t st = 0;
    nspa_task_times(pid, 0, NULL, NULL, &st);
    w->create_time = st ? filetime_of_start(st) : filetime_now();
    int r = nspa__create_exit_obj(NSPA_TYPE_PROCESS, (uint32_t)pid, &w->obj);
    if (!r && (r = nspa_dup(w->obj, out)) < 0) nspa_close(w->obj);
    if (!r && with_thread) {
        r = nspa__create_exit_obj(NSPA_TYPE_THREAD, (uint32_t)pid, &w->thread_obj);
        if (!r && (r = nspa_dup(w->thread_obj, thread_out)) < 0) nspa_close(w->thread_obj);
        if (r) {
            nspa_close(w->obj);
            nspa_close(*out);
        }
    }
    if (r) {
        close(pidfd);
        free(w);
        return r;
    }
    pthread_mutex_lock(&watch_lock);
    r = watch_start_locked();
    if (!r) {
        w->next = watch_list;
        watch_list = w;
        w->listed = 1;
        /* the event names the pid: the watcher finds the record under the lock */
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)(uint32_t)pid };
        if (epoll_ctl(watch_epfd, EPOLL_CTL_ADD, pidfd, &ev) < 0) {
            r = -errno;
            watch_list = w->next;
            w->listed = 0;
        } else {
            w->in_epoll = 1;
        }
    }
    pthread_mutex_unlock(&watch_lock);
    if (r) {
        nspa_close(w->obj);
        nspa_close(*out);
        if (w->thread_obj) {
            nspa_close(w->thread_obj);
            nspa_close(*thread_out);
        }
        close(pidfd);
        free(w);
    }
    return r;
}

/* ---- the current process ------------------------------------------------------------ */

static nspa_obj_t self_obj;

/* This process's own process object (never signaled while it runs); 0 if none. */
NSPA_HIDDEN nspa_obj_t nspa__self_process_obj(void)
{
    nspa_obj_t p = __atomic_load_n(&self_obj, __ATOMIC_ACQUIRE);
    if (p) return p;
    if (nspa__create_exit_obj(NSPA_TYPE_PROCESS, (uint32_t)getpid(), &p) < 0) return 0;
    nspa_obj_t expected = 0;
    if (!__atomic_compare_exchange_n(&self_obj, &expected, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        nspa_close(p);
        p = expected;
    }
    return p;
}

static void self_atfork_child(void) { self_obj = 0; }   /* the parent's: the child makes its own */
__attribute__((constructor)) static void self_atfork_init(void) { pthread_atfork(NULL, NULL, self_atfork_child); }

/* pid, exit code, signaled of a process handle (the pseudo handle included) */
static int proc_info(HANDLE h, uint32_t *pid, uint32_t *code, int *sig)
{
    if (h == GetCurrentProcess()) {
        *pid = (uint32_t)getpid();
        *code = STILL_ACTIVE;
        *sig = 0;
        return 0;
    }
    return nspa__exit_obj_info(H(h), NSPA_TYPE_PROCESS, pid, code, sig);
}

/* ---- the calls ------------------------------------------------------------------------ */

/* Does process handle @h grant any of @need? (GetCurrentProcess() grants everything) */
static int proc_may(HANDLE h, uint32_t need)
{
    uint32_t acc = 0;
    if (h == GetCurrentProcess()) return 1;
    return nspa__handle_access(H(h), &acc) == 0 && (acc & need) != 0;
}

#define QUERY_ANY (PROCESS_QUERY_INFORMATION | PROCESS_QUERY_LIMITED_INFORMATION)

/* The pid behind process handle @h, which must have a right of @need: 0 or -errno
 * (-EBADF and the like: not a process handle; -EACCES: without that right). */
static int proc_pid_with(HANDLE h, DWORD need, DWORD *pid)
{
    uint32_t p, ec;
    int sig;
    int r = proc_info(h, &p, &ec, &sig);
    if (r) return r;
    if (!proc_may(h, need)) return -EACCES;
    *pid = p;
    return 0;
}

NSPA_HIDDEN int nspa__proc_pid_for_dup(HANDLE h, DWORD *pid) { return proc_pid_with(h, PROCESS_DUP_HANDLE, pid); }

NSPA_EXPORT HANDLE WINAPI OpenProcess(DWORD access, BOOL inherit, DWORD pid)
{
    nspa_obj_t out = 0;
    int r;
    if (!pid || pid > 0x3fffffffu) {                      /* the idle process, garbage */
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    if (pid == (DWORD)getpid()) {
        nspa_obj_t s = nspa__self_process_obj();
        r = s ? nspa_dup(s, &out) : -ENOMEM;
    } else {
        pthread_mutex_lock(&watch_lock);
        struct pwatch *w = watch_find_locked((pid_t)pid);
        r = w ? nspa_dup(w->obj, &out) : -ENOENT;
        pthread_mutex_unlock(&watch_lock);
        if (r == -ENOENT) {
            int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
            if (fd < 0) {
                /* -ESRCH: no such process (ERROR_INVALID_PARAMETER); -EPERM, -EACCES */
                SetLastError(win32_error_from_errno(-errno, WIN32_ERR_PROCESS));
                return NULL;
            }
            fcntl(fd, F_SETFD, FD_CLOEXEC);
            /* our child? (its parent is us: the watcher reaps it) */
            int child = 0;
            siginfo_t si;
            memset(&si, 0, sizeof(si));
            if (waitid(P_PIDFD, (id_t)fd, &si, WEXITED | WNOHANG | WNOWAIT) == 0) child = 1;
            nspa_obj_t t = 0;
            r = nspa__watch_process((pid_t)pid, fd, child, 0, UINT32_MAX, 0, &out, &t);
        }
    }
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return NULL;
    }
    if (inherit) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    nspa__handle_set_access(out, nspa__nt_map_access(NSPA_TYPE_PROCESS, access));
    return (HANDLE)(uintptr_t)out;
}

NSPA_EXPORT BOOL WINAPI GetExitCodeProcess(HANDLE h, LPDWORD code)
{
    uint32_t pid, ec;
    int sig;
    int r = proc_info(h, &pid, &ec, &sig);
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_OBJECT));
    if (!proc_may(h, QUERY_ANY)) return fail(ERROR_ACCESS_DENIED);
    if (!code) return fail(ERROR_NOACCESS);
    *code = sig ? ec : STILL_ACTIVE;
    return TRUE;
}

NSPA_EXPORT DWORD WINAPI GetProcessId(HANDLE h)
{
    DWORD pid = 0;
    int r = proc_pid_with(h, QUERY_ANY, &pid);
    if (r) SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));   /* -EACCES: ERROR_ACCESS_DENIED */
    return pid;
}

NSPA_EXPORT DWORD WINAPI GetProcessIdOfThread(HANDLE h)
{
    DWORD tid = GetThreadId(h);        /* THREAD_QUERY_LIMITED_INFORMATION */
    if (!tid) return 0;
    /* thread handles name threads of this process, or the main thread of a child
     * (CreateProcess's hThread), whose id is its pid: watched, or among the ended ones
     * remembered */
    if (tid == (DWORD)getpid() || !syscall(SYS_tgkill, getpid(), (pid_t)tid, 0)) return (DWORD)getpid();
    pthread_mutex_lock(&watch_lock);
    int child = watch_find_locked((pid_t)tid) != NULL;
    for (uint32_t i = 0; !child && i < GRAVE && i < grave_next; i++) child = graves[i].pid == tid;
    pthread_mutex_unlock(&watch_lock);
    return child ? tid : (DWORD)getpid();
}

NSPA_EXPORT BOOL WINAPI TerminateProcess(HANDLE h, UINT code)
{
    if (h == GetCurrentProcess()) _exit((int)code);       /* no exit work, as NT */
    uint32_t pid, ec;
    int sig;
    int r = nspa__exit_obj_info(H(h), NSPA_TYPE_PROCESS, &pid, &ec, &sig);
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_OBJECT));
    if (!proc_may(h, PROCESS_TERMINATE)) return fail(ERROR_ACCESS_DENIED);
    if (pid == (uint32_t)getpid()) _exit((int)code);
    if (sig) return fail(ERROR_ACCESS_DENIED);             /* it has ended (NT: the same) */
    pthread_mutex_lock(&watch_lock);
    struct pwatch *w = watch_find_locked((pid_t)pid);
    r = -ESRCH;
    if (w) {
        w->term_code = code;
        w->terminated = 1;
        /* through the pidfd: never a process that reused the pid */
        r = syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0) < 0 ? -errno : 0;
        if (r == -ESRCH) r = 0;                            /* ending anyway */
        /* a stopped (CREATE_SUSPENDED) child must run to die */
        if (!r) syscall(SYS_pidfd_send_signal, w->pidfd, SIGCONT, NULL, 0);
    }
    pthread_mutex_unlock(&watch_lock);
    /* -ESRCH: not ours to end, or ended (STATUS_PROCESS_IS_TERMINATING); -EPERM */
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_PROCESS | WIN32_ERR_TERMINATE));
    return TRUE;
}

NSPA_EXPORT void WINAPI ExitProcess(UINT code)
{
    exit((int)code);            /* atexit: the library's exit work (handles, mutexes) */
}

/* ResumeThread on the main thread of a CREATE_SUSPENDED child (thread.c asks us first
 * when the id is not one of our threads). 1: resumed (previous count 1), 0: not ours. */
NSPA_HIDDEN int nspa__proc_resume(uint32_t tid, DWORD *prev)
{
    pthread_mutex_lock(&watch_lock);
    struct pwatch *w = watch_find_locked((pid_t)tid);
    int r = 0;
    if (w && w->thread_obj) {
        *prev = w->suspended ? 1 : 0;
        if (w->suspended) syscall(SYS_pidfd_send_signal, w->pidfd, SIGCONT, NULL, 0);
        w->suspended = 0;
        r = 1;
    }
    pthread_mutex_unlock(&watch_lock);
    return r;
}

/* ---- times ------------------------------------------------------------------------------ */

static void put_ft(LPFILETIME f, uint64_t v)
{
    if (!f) return;
    f->dwLowDateTime = (DWORD)v;
    f->dwHighDateTime = (DWORD)(v >> 32);
}

NSPA_EXPORT BOOL WINAPI GetProcessTimes(HANDLE h, LPFILETIME creation, LPFILETIME exit_t, LPFILETIME kernel,
                                        LPFILETIME user)
{
    if (!creation || !exit_t || !kernel || !user) return fail(ERROR_NOACCESS);
    uint32_t pid, ec;
    int sig;
    int r = proc_info(h, &pid, &ec, &sig);
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_OBJECT));
    if (!proc_may(h, QUERY_ANY)) return fail(ERROR_ACCESS_DENIED);
    uint64_t c = 0, e = 0, k = 0, u = 0, st = 0, ut = 0, kt = 0;
    if (pid == (uint32_t)getpid()) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        u = tv_to_100ns(ru.ru_utime);
        k = tv_to_100ns(ru.ru_stime);
        nspa_task_times((int)pid, 0, NULL, NULL, &st);
        c = filetime_of_start(st);
    } else if (sig || nspa_task_times((int)pid, 0, &ut, &kt, &st)) {
        /* ended: the newest record of that pid */
        pthread_mutex_lock(&watch_lock);
        for (uint32_t i = grave_next; i-- > 0 && grave_next - i <= GRAVE;) {
            struct grave *g = &graves[i % GRAVE];
            if (g->pid != pid) continue;
            c = g->create_time, e = g->exit_time, k = g->kernel, u = g->user;
            break;
        }
        pthread_mutex_unlock(&watch_lock);
    } else {
        {
            c = filetime_of_start(st);
            u = ticks_to_100ns(ut);
            k = ticks_to_100ns(kt);
        }
    }
    put_ft(creation, c);
    put_ft(exit_t, e);
    put_ft(kernel, k);
    put_ft(user, u);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetThreadTimes(HANDLE h, LPFILETIME creation, LPFILETIME exit_t, LPFILETIME kernel,
                                       LPFILETIME user)
{
    if (!creation || !exit_t || !kernel || !user) return fail(ERROR_NOACCESS);
    DWORD tid = GetThreadId(h);        /* THREAD_QUERY_(LIMITED_)INFORMATION */
    if (!tid) return FALSE;            /* its error set */
    uint64_t ut = 0, kt = 0, st = 0;
    int pid = getpid();
    if (nspa_task_times(pid, (int)tid, &ut, &kt, &st) && nspa_task_times((int)tid, 0, &ut, &kt, &st)) {
        put_ft(creation, 0);           /* ended: its times are gone with it */
        put_ft(exit_t, 0);
        put_ft(kernel, 0);
        put_ft(user, 0);
        return TRUE;
    }
    put_ft(creation, filetime_of_start(st));
    put_ft(exit_t, 0);
    put_ft(kernel, ticks_to_100ns(kt));
    put_ft(user, ticks_to_100ns(ut));
    return TRUE;
}

NSPA_EXPORT HANDLE WINAPI OpenThread(DWORD access, BOOL inherit, DWORD tid)
{
    nspa_obj_t out = 0;
    int r = nspa__win32_thread_handle_by_tid(tid, &out);
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_PROCESS));   /* -ESRCH: no such thread */
        return NULL;
    }
    if (inherit) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    nspa__handle_set_access(out, nspa__nt_map_access(NSPA_TYPE_THREAD, access));
    return (HANDLE)(uintptr_t)out;
}
