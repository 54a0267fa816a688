/*
 * System information and console control: GetSystemInfo, GetNativeSystemInfo,
 * GetVersion(Ex), SetConsoleCtrlHandler, GenerateConsoleCtrlEvent (docs/process.md).
 *
 * Console control: SIGINT (Ctrl+C), SIGQUIT (Ctrl+Break) and SIGTERM (close) are
 * caught once a handler is registered; the signal handler only writes the event to a
 * pipe (async-signal-safe), and a thread of its own runs the handlers, last registered
 * first, as Windows runs them on a new thread. If none returns TRUE, the process exits
 * (Ctrl+C: STATUS_CONTROL_C_EXIT) through ExitProcess, with the library's exit work.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "win32/win32_error.h"

/* ---- system information ------------------------------------------------------------ */

NSPA_EXPORT void WINAPI GetSystemInfo(LPSYSTEM_INFO si)
{
    if (!si) return;
    memset(si, 0, sizeof(*si));
    si->wProcessorArchitecture = PROCESSOR_ARCHITECTURE_AMD64;
    long page = sysconf(_SC_PAGESIZE);
    si->dwPageSize = page > 0 ? (DWORD)page : 4096;
    si->lpMinimumApplicationAddress = (LPVOID)(uintptr_t)0x10000;
    si->lpMaximumApplicationAddress = (LPVOID)(uintptr_t)0x7ffffffeffffull;
    cpu_set_t set;
    DWORD_PTR mask = 0;
    DWORD n = 0;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int i = 0; i < CPU_SETSIZE; i++)
            if (CPU_ISSET(i, &set)) {
                if (i < 64) mask |= (DWORD_PTR)1 << i;
                n++;
            }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    si->dwNumberOfProcessors = online > 0 ? (DWORD)online : (n ? n : 1);
    si->dwActiveProcessorMask = mask ? mask : 1;
    si->dwProcessorType = PROCESSOR_AMD_X8664;
    si->dwAllocationGranularity = 65536;
    si->wProcessorLevel = 6;
}

NSPA_EXPORT void WINAPI GetNativeSystemInfo(LPSYSTEM_INFO si) { GetSystemInfo(si); }

/* Windows 10 (10.0.19045), as Wine's default; the NT platform */
#define VER_MAJOR 10
#define VER_MINOR 0
#define VER_BUILD 19045

/* Both structures start with the same five DWORDs; the Ex forms end with
 * wProductType at @ptype_off. */
static BOOL version_fill(void *v, DWORD base, DWORD ex, size_t ptype_off)
{
    if (!v) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    DWORD size = *(DWORD *)v;
    if (size != base && size != ex) {
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        return FALSE;
    }
    memset(v, 0, size);
    DWORD *d = v;
    d[0] = size;
    d[1] = VER_MAJOR;
    d[2] = VER_MINOR;
    d[3] = VER_BUILD;
    d[4] = VER_PLATFORM_WIN32_NT;
    if (size == ex) ((BYTE *)v)[ptype_off] = 1;    /* VER_NT_WORKSTATION */
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetVersionExA(LPOSVERSIONINFOA v)
{
    return version_fill(v, sizeof(OSVERSIONINFOA), sizeof(OSVERSIONINFOEXA), offsetof(OSVERSIONINFOEXA, wProductType));
}

NSPA_EXPORT BOOL WINAPI GetVersionExW(LPOSVERSIONINFOW v)
{
    return version_fill(v, sizeof(OSVERSIONINFOW), sizeof(OSVERSIONINFOEXW), offsetof(OSVERSIONINFOEXW, wProductType));
}

NSPA_EXPORT DWORD WINAPI GetVersion(void)
{
    return (DWORD)VER_MAJOR | ((DWORD)VER_MINOR << 8) | ((DWORD)VER_BUILD << 16);
}

/* ---- console control handlers ------------------------------------------------------ */

#define MAX_HANDLERS 64
static pthread_mutex_t ctrl_lock = PTHREAD_MUTEX_INITIALIZER;
static PHANDLER_ROUTINE handlers[MAX_HANDLERS];
static int nhandlers;
static int ignore_ctrl_c;
static int ctrl_pipe[2] = { -1, -1 };
static int ctrl_started;

static void ctrl_signal(int sig)
{
    int saved = errno;
    unsigned char ev = sig == SIGINT ? CTRL_C_EVENT : sig == SIGQUIT ? CTRL_BREAK_EVENT : CTRL_CLOSE_EVENT;
    if (write(ctrl_pipe[1], &ev, 1) < 0) { /* full: an event is pending anyway */ }
    errno = saved;
}

static void *ctrl_main(void *arg)
{
    (void)arg;
    for (;;) {
        unsigned char ev;
        ssize_t n = read(ctrl_pipe[0], &ev, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return NULL;
        if (ev == CTRL_C_EVENT && __atomic_load_n(&ignore_ctrl_c, __ATOMIC_ACQUIRE)) continue;
        PHANDLER_ROUTINE list[MAX_HANDLERS];
        pthread_mutex_lock(&ctrl_lock);
        int k = nhandlers;
        memcpy(list, handlers, sizeof(PHANDLER_ROUTINE) * (size_t)k);
        pthread_mutex_unlock(&ctrl_lock);
        int handled = 0;
        while (k-- > 0 && !handled) handled = list[k](ev) != FALSE;
        if (!handled) ExitProcess(ev == CTRL_C_EVENT ? 0xC000013Au : ev == CTRL_BREAK_EVENT ? 0xC000013Au : 0);
    }
}

/* ctrl_lock held */
static int ctrl_start_locked(void)
{
    if (ctrl_started) return 0;
    if (pipe2(ctrl_pipe, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
    fcntl(ctrl_pipe[0], F_SETFL, 0);                 /* the reader blocks */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int r = nspa_thread_detached(ctrl_main, NULL, &t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r) {
        close(ctrl_pipe[0]);
        close(ctrl_pipe[1]);
        ctrl_pipe[0] = ctrl_pipe[1] = -1;
        return -1;
    }
    pthread_setname_np(t, "nspa-ctrl");
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = ctrl_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    ctrl_started = 1;
    return 0;
}

NSPA_EXPORT BOOL WINAPI SetConsoleCtrlHandler(PHANDLER_ROUTINE h, BOOL add)
{
    pthread_mutex_lock(&ctrl_lock);
    BOOL ok = TRUE;
    DWORD err = 0;
    if (!h) {
        __atomic_store_n(&ignore_ctrl_c, add ? 1 : 0, __ATOMIC_RELEASE);
        if (add && ctrl_start_locked()) ok = FALSE, err = ERROR_NOT_ENOUGH_MEMORY;
    } else if (add) {
        if (nhandlers >= MAX_HANDLERS) ok = FALSE, err = ERROR_NOT_ENOUGH_MEMORY;
        else if (ctrl_start_locked()) ok = FALSE, err = ERROR_NOT_ENOUGH_MEMORY;
        else handlers[nhandlers++] = h;
    } else {
        int i = nhandlers;
        while (i-- > 0 && handlers[i] != h)
            ;
        if (i < 0) ok = FALSE, err = ERROR_INVALID_PARAMETER;
        else {
            memmove(&handlers[i], &handlers[i + 1], sizeof(PHANDLER_ROUTINE) * (size_t)(nhandlers - i - 1));
            nhandlers--;
        }
    }
    pthread_mutex_unlock(&ctrl_lock);
    if (!ok) SetLastError(err);
    return ok;
}

NSPA_EXPORT BOOL WINAPI GenerateConsoleCtrlEvent(DWORD ev, DWORD group)
{
    int sig = ev == CTRL_C_EVENT ? SIGINT : ev == CTRL_BREAK_EVENT ? SIGQUIT : 0;
    if (!sig) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    if (kill(group ? -(pid_t)group : 0, sig) < 0) {
        SetLastError(win32_error_from_errno(-errno, WIN32_ERR_PROCESS));   /* -ESRCH: no such group; -EPERM */
        return FALSE;
    }
    return TRUE;
}

/* ---- GlobalMemoryStatusEx --------------------------------------------------------------
 * Physical memory from /proc/meminfo (available = MemAvailable, what can be had without
 * swapping); the "page file" is memory plus swap, as Windows counts its commit limit;
 * the virtual space is this process's: the 47-bit user half of the address space, less
 * what is mapped (VmSize). */
static DWORDLONG kb_field(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    return p ? strtoull(p + strlen(name), NULL, 10) * 1024ull : 0;
}

static size_t read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    return n;
}

NSPA_EXPORT BOOL WINAPI GlobalMemoryStatusEx(LPMEMORYSTATUSEX st)
{
    if (!st || st->dwLength != sizeof(*st)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    char buf[8192];
    if (!read_text("/proc/meminfo", buf, sizeof(buf))) {
        SetLastError(ERROR_NOT_SUPPORTED);
        return FALSE;
    }
    DWORDLONG total = kb_field(buf, "MemTotal:"), avail = kb_field(buf, "MemAvailable:");
    DWORDLONG swap = kb_field(buf, "SwapTotal:"), swap_free = kb_field(buf, "SwapFree:");
    if (!avail) avail = kb_field(buf, "MemFree:");
    DWORDLONG vm = read_text("/proc/self/status", buf, sizeof(buf)) ? kb_field(buf, "VmSize:") : 0;
    const DWORDLONG user_space = (1ull << 47) - 4096;
    st->ullTotalPhys = total;
    st->ullAvailPhys = avail;
    st->dwMemoryLoad = total ? (DWORD)(100 - avail * 100 / total) : 0;
    st->ullTotalPageFile = total + swap;
    st->ullAvailPageFile = avail + swap_free;
    st->ullTotalVirtual = user_space;
    st->ullAvailVirtual = vm < user_space ? user_space - vm : 0;
    st->ullAvailExtendedVirtual = 0;
    return TRUE;
}
