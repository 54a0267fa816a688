/*
 * Processor affinity: SetThreadAffinityMask, GetProcessAffinityMask,
 * SetProcessAffinityMask, SetThreadIdealProcessor(Ex)/GetThreadIdealProcessorEx.
 *
 * A thread's mask is its Linux CPU set (sched_setaffinity on its tid: the thread ids of
 * NSPA are the kernel's). Windows masks are one bit per processor of group 0: CPUs 0..63.
 * A process's mask, as Windows keeps it, is the set its threads may be given: NSPA keeps
 * it for this process (every CPU the process may use at start, narrowed by
 * SetProcessAffinityMask), applies a new one to every thread of the process
 * (/proc/self/task) and refuses thread masks outside it (ERROR_INVALID_PARAMETER, as
 * Windows does). Threads made later inherit their creator's set, as on Linux. Another
 * process's mask is read and set the same way through its threads, when Linux lets us.
 * The ideal processor is a hint the Linux scheduler has no place for: the calling
 * thread's is recorded and returned (another thread's reads as 0, Windows' default),
 * and it never moves a thread.
 */

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"

static DWORD_PTR to_mask(const cpu_set_t *s)
{
    DWORD_PTR m = 0;
    for (int c = 0; c < 64 && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, s)) m |= (DWORD_PTR)1 << c;
    return m;
}

static void from_mask(DWORD_PTR m, cpu_set_t *s)
{
    CPU_ZERO(s);
    for (int c = 0; c < 64; c++)
        if (m & ((DWORD_PTR)1 << c)) CPU_SET(c, s);
}

/* every CPU of the machine that is online (the "system" mask) */
static DWORD_PTR system_mask(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n <= 0) n = 1;
    return n >= 64 ? ~(DWORD_PTR)0 : (((DWORD_PTR)1 << n) - 1);
}

static DWORD_PTR proc_mask;                   /* this process's; 0 until first asked */
static pthread_mutex_t proc_lock = PTHREAD_MUTEX_INITIALIZER;

static DWORD_PTR own_process_mask(void)
{
    pthread_mutex_lock(&proc_lock);
    if (!proc_mask) {
        cpu_set_t s;
        proc_mask = sched_getaffinity(0, sizeof(s), &s) == 0 ? to_mask(&s) : system_mask();
    }
    DWORD_PTR m = proc_mask;
    pthread_mutex_unlock(&proc_lock);
    return m;
}

/* the pid a process handle names (0: not a process handle) */
static pid_t pid_of(HANDLE process)
{
    if (process == GetCurrentProcess()) return getpid();
    DWORD pid = GetProcessId(process);
    return (pid_t)pid;
}

/* Every thread of process @pid: @fn(tid, ctx) for each; -errno (the directory), or the
 * first error @fn gave (a thread gone meanwhile, ESRCH, is not one) */
static int each_thread(pid_t pid, int (*fn)(int tid, void *ctx), void *ctx)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -errno;
    int r = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int tid = atoi(e->d_name);
        int x = tid > 0 ? fn(tid, ctx) : 0;
        if (x && x != -ESRCH && !r) r = x;
    }
    closedir(d);
    return r;
}

static int get_one(int tid, void *ctx)
{
    cpu_set_t s;
    if (sched_getaffinity(tid, sizeof(s), &s)) return -errno;
    *(DWORD_PTR *)ctx |= to_mask(&s);
    return 0;
}

static int set_one(int tid, void *ctx)
{
    return sched_setaffinity(tid, sizeof(cpu_set_t), ctx) ? -errno : 0;
}

/* the union of the CPU sets of a process's threads; -errno */
static int read_process_mask(pid_t pid, DWORD_PTR *out)
{
    DWORD_PTR m = 0;
    int r = each_thread(pid, get_one, &m);
    *out = m;
    return r ? r : m ? 0 : -ESRCH;
}

static int write_process_mask(pid_t pid, DWORD_PTR m)
{
    cpu_set_t s;
    from_mask(m, &s);
    return each_thread(pid, set_one, &s);
}

/* sched_[gs]etaffinity's and /proc's failures: -EPERM/-EACCES not allowed, -ESRCH/-ENOENT
 * the thread or process behind the handle has ended, -EINVAL a mask the kernel refuses */
static DWORD affinity_error(int r) { return win32_error_from_errno(r, WIN32_ERR_PROCESS | WIN32_ERR_BY_HANDLE); }

NSPA_EXPORT BOOL WINAPI GetProcessAffinityMask(HANDLE process, PDWORD_PTR proc, PDWORD_PTR sys)
{
    pid_t pid = pid_of(process);
    if (!pid) return FALSE;                  /* GetProcessId set the error */
    if (!proc || !sys) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    DWORD_PTR m;
    if (pid == getpid()) {
        m = own_process_mask();
    } else {
        int r = read_process_mask(pid, &m);
        if (r) {
            SetLastError(affinity_error(r));
            return FALSE;
        }
    }
    *proc = m;
    *sys = system_mask();
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetProcessAffinityMask(HANDLE process, DWORD_PTR mask)
{
    pid_t pid = pid_of(process);
    if (!pid) return FALSE;
    if (!mask || (mask & ~system_mask())) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    int r = write_process_mask(pid, mask);
    if (r) {
        SetLastError(affinity_error(r));
        return FALSE;
    }
    if (pid == getpid()) {
        pthread_mutex_lock(&proc_lock);
        proc_mask = mask;
        pthread_mutex_unlock(&proc_lock);
    }
    return TRUE;
}

/* the previous mask, or 0 */
NSPA_EXPORT DWORD_PTR WINAPI SetThreadAffinityMask(HANDLE thread, DWORD_PTR mask)
{
    DWORD tid = GetThreadId(thread);         /* THREAD_QUERY_(LIMITED_)INFORMATION */
    if (!tid) return 0;                      /* ERROR_INVALID_HANDLE / ACCESS_DENIED set */
    DWORD e = nspa__thread_access(thread, THREAD_SET_INFORMATION | THREAD_SET_LIMITED_INFORMATION);
    if (e) {
        SetLastError(e);
        return 0;
    }
    if (!mask || (mask & ~own_process_mask())) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    cpu_set_t old, s;
    if (sched_getaffinity((pid_t)tid, sizeof(old), &old)) {
        SetLastError(affinity_error(-errno));
        return 0;
    }
    from_mask(mask, &s);
    if (sched_setaffinity((pid_t)tid, sizeof(s), &s)) {
        SetLastError(affinity_error(-errno));
        return 0;
    }
    return to_mask(&old);
}

/* ---- the ideal processor: a recorded hint ------------------------------------------- */

static __thread DWORD ideal_self = 0;

NSPA_EXPORT DWORD WINAPI SetThreadIdealProcessor(HANDLE thread, DWORD cpu)
{
    if (!GetThreadId(thread)) return (DWORD)-1;
    DWORD e = nspa__thread_access(thread, THREAD_SET_INFORMATION | THREAD_SET_LIMITED_INFORMATION);
    if (e) {
        SetLastError(e);
        return (DWORD)-1;
    }
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (cpu == MAXIMUM_PROCESSORS)                              /* a query */
        return GetThreadId(thread) == GetCurrentThreadId() ? ideal_self : 0;
    if (cpu > MAXIMUM_PROCESSORS || (n > 0 && cpu >= (DWORD)n)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return (DWORD)-1;
    }
    /* only the calling thread's is recorded; another thread's reads as 0, its default */
    if (GetThreadId(thread) != GetCurrentThreadId()) return 0;
    DWORD old = ideal_self;
    ideal_self = cpu;
    return old;
}
