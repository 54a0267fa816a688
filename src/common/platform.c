/* The platform layer's out-of-line part (platform.h): environment options, the start
 * time of a task, test points. */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "common/platform.h"

NSPA_HIDDEN int nspa_ncpu_online(void)
{
    static int cache;
    int n = __atomic_load_n(&cache, __ATOMIC_RELAXED);
    if (!n) {
        long v = sysconf(_SC_NPROCESSORS_ONLN);
        n = v > 0 ? (int)v : 1;
        __atomic_store_n(&cache, n, __ATOMIC_RELAXED);   /* every first caller computes the same */
    }
    return n;
}

NSPA_HIDDEN int nspa_ncpu_usable(void)
{
    static int cache;
    int n = __atomic_load_n(&cache, __ATOMIC_RELAXED);
    if (!n) {
        cpu_set_t set;
        n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
        if (n <= 0 || n > nspa_ncpu_online()) n = nspa_ncpu_online();
        __atomic_store_n(&cache, n, __ATOMIC_RELAXED);
    }
    return n;
}

/* The kernel's count of runnable tasks: the "running" of /proc/loadavg's "running/total".
 * Read with open/read/close (no descriptor kept: a program may close or reuse it), by one
 * thread at a time, at most once per millisecond; the others take the last figure. */
NSPA_HIDDEN int nspa_runnable_hint(void)
{
    static int64_t stamp = -1;
    static int cached = -1;
    int64_t now = (int64_t)(nspa_clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000u);
    int64_t st = __atomic_load_n(&stamp, __ATOMIC_RELAXED);
    if (st == now || !__atomic_compare_exchange_n(&stamp, &st, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return __atomic_load_n(&cached, __ATOMIC_RELAXED);
    int r = -1, fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[128];
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n > 0) {
            buf[n] = 0;
            double a, b, c;
            int running, total;
            if (sscanf(buf, "%lf %lf %lf %d/%d", &a, &b, &c, &running, &total) == 5 && running > 0) r = running;
        }
    }
    __atomic_store_n(&cached, r, __ATOMIC_RELAXED);
    return r;
}

NSPA_HIDDEN int nspa_env_int(const char *name, int def, int lo, int hi)
{
    const char *e = getenv(name);
    if (!e || !*e) return def;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end) return def;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return (int)v;
}

NSPA_HIDDEN int nspa_env_flag(const char *name, int def)
{
    const char *e = getenv(name);
    if (!e) return def;
    return !(e[0] == '0' && e[1] == 0);
}

NSPA_HIDDEN int nspa_env_is(const char *name, const char *value)
{
    const char *e = getenv(name);
    return e && !strcasecmp(e, value);
}

/* Test points. NSPA_TEST_DIE_AT=<name>: a process that reaches that point kills itself
 * with SIGKILL there. NSPA_TEST_PAUSE_AT=<name>:<ms>[,<name>:<ms>...]: a thread that
 * reaches a named point sleeps that long there (to hold a race window open). Both are
 * read at the first test point the process reaches: a test sets them before that, or
 * in the environment of a process it starts (exec), not of one it forks. */
static const char *tp_die, *tp_pause;
static int tp_read;

NSPA_HIDDEN void nspa__test_point(const char *name)
{
    if (!__atomic_load_n(&tp_read, __ATOMIC_ACQUIRE)) {
        /* racing readers store the same (atomics: two threads may be here at once) */
        __atomic_store_n(&tp_die, getenv("NSPA_TEST_DIE_AT"), __ATOMIC_RELAXED);
        __atomic_store_n(&tp_pause, getenv("NSPA_TEST_PAUSE_AT"), __ATOMIC_RELAXED);
        __atomic_store_n(&tp_read, 1, __ATOMIC_RELEASE);
    }
    const char *tp_die_now = __atomic_load_n(&tp_die, __ATOMIC_RELAXED);
    const char *tp_pause_now = __atomic_load_n(&tp_pause, __ATOMIC_RELAXED);
    if (tp_die_now && !strcmp(tp_die_now, name)) raise(SIGKILL);
    if (!tp_pause_now) return;
    size_t n = strlen(name);
    for (const char *p = tp_pause_now; p; p = strchr(p, ',')) {
        if (*p == ',') p++;
        if (strncmp(p, name, n) || p[n] != ':') continue;
        long ms = strtol(p + n + 1, NULL, 10);
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        while (ms > 0 && nanosleep(&ts, &ts) && errno == EINTR) ;
        return;
    }
}

NSPA_HIDDEN int nspa_task_times(int pid, int tid, uint64_t *utime, uint64_t *stime, uint64_t *start)
{
    char path[64], buf[1024];
    if (tid) snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
    else snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -ESRCH;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return -ESRCH;
    buf[n] = 0;
    char *p = strrchr(buf, ')');          /* the name may hold spaces and ')' */
    if (!p) return -ESRCH;
    int field = 2;                        /* fields after ')' start at 3 */
    uint64_t v[3] = { 0, 0, 0 };          /* utime (14), stime (15), starttime (22) */
    for (; *p && field <= 22; p++) {
        if (*p != ' ') continue;
        field++;
        if (field == 14) v[0] = strtoull(p + 1, NULL, 10);
        else if (field == 15) v[1] = strtoull(p + 1, NULL, 10);
        else if (field == 22) v[2] = strtoull(p + 1, NULL, 10);
    }
    if (utime) *utime = v[0];
    if (stime) *stime = v[1];
    if (start) *start = v[2];
    return 0;
}

NSPA_HIDDEN int nspa_task_exited(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return 1;
    buf[n] = 0;
    char *p = strrchr(buf, ')');          /* the name may hold spaces and ')' */
    if (!p || p[1] != ' ' || p[2] == 'X') return 1;
    if (p[2] != 'Z') return 0;
    /* a zombie leader: the process is gone only if no other thread lives (a main thread
     * that called pthread_exit is a zombie while the process runs on); num_threads is
     * field 20 and counts the leader until the process is reaped */
    int field = 2;
    for (; *p && field < 20; p++)
        if (*p == ' ') field++;
    return strtol(p, NULL, 10) <= 1;
}

NSPA_HIDDEN uint64_t nspa_task_start_time(int pid, int tid)
{
    uint64_t st = 0;
    return nspa_task_times(pid, tid, NULL, NULL, &st) ? 0 : st;
}

NSPA_HIDDEN void nspa_pi_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

NSPA_HIDDEN int nspa_service_thread(void *(*fn)(void *), void *arg, const char *name)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 512 * 1024);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    int r = pthread_create(&t, &a, fn, arg);
    if (!r) pthread_setname_np(t, name);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    return r;
}

NSPA_HIDDEN int nspa_thread_detached(void *(*fn)(void *), void *arg, pthread_t *out)
{
    pthread_attr_t a;
    pthread_t t;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int r = pthread_create(&t, &a, fn, arg);
    pthread_attr_destroy(&a);
    if (!r && out) *out = t;
    return r;
}
