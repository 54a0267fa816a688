/* Helpers for the sync limit tests (sync_thread_limit, sync_wake_all, sync_proc_churn,
 * sync_named_million): each part of a test runs as a "phase" in a child process under
 * a watchdog, so that a phase that aborts, hangs or dies is reported (with its exit
 * code or signal, or "HANG") and cleaned up — the child's whole process group is
 * killed and every orphan reaped — and the test fails in bounded time with nothing
 * left behind. The parent is single-threaded and makes no NSPA call while a phase runs.
 * Also: a monotonic clock, a quantile, and small-stack thread attributes. */
#ifndef NSPA_TEST_SYNC_PHASE_H
#define NSPA_TEST_SYNC_PHASE_H
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* sanitizers: the limit tests scale down (and skip timing checks) under them */
#if defined(__SANITIZE_THREAD__)
#define PHASE_TSAN 1
#else
#define PHASE_TSAN 0
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PHASE_ASAN 1
#else
#define PHASE_ASAN 0
#endif

static inline double phase_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void phase_sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static int phase_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the @q quantile (0..1) of @n values (n <= 256); the lower quartile (q = 0.25) of
 * samples taken close together is what the timing checks compare: a slowdown of the
 * code raises every sample, a busy machine (another job's real-time threads, a
 * neighbour's build) only some of them */
static inline double phase_quantile(const double *v, int n, double q)
{
    double tmp[256];
    if (n <= 0) return 0;
    if (n > 256) n = 256;
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), phase_cmp_double);
    int k = (int)(q * (n - 1) + 0.5);
    return tmp[k];
}

/* Thread attributes for tests that run thousands of threads: a 64 KiB stack and no
 * guard page (one mapping per thread, so that 30,000 threads stay far below
 * vm.max_map_count). */
static inline void phase_small_stack(pthread_attr_t *a)
{
    pthread_attr_init(a);
    pthread_attr_setstacksize(a, 64 * 1024);
    pthread_attr_setguardsize(a, 0);
}

/* The parent reaps the orphans of a phase (its grandchildren) as their subreaper. */
static inline void phase_init(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

static inline void phase_reap_orphans(void)
{
    int st;
    while (waitpid(-1, &st, WNOHANG) > 0) {}
}

/* Describe a wait status into @buf. */
static inline const char *phase_status(int st, char *buf, size_t n)
{
    if (WIFEXITED(st)) snprintf(buf, n, "exit code %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else snprintf(buf, n, "status 0x%x", st);
    return buf;
}

/* Run fn(arg) in a child process (its own process group, killed if the parent dies)
 * for at most @timeout_s seconds. The child's return value is its exit code (exit():
 * NSPA's atexit cleanup runs). Returns 0 if the phase exited 0; else prints why
 * (exit code, signal, or HANG) and returns 1. Every process of the phase's group is
 * killed and reaped before it returns. */
static inline int run_phase(const char *name, int (*fn)(void *), void *arg, unsigned timeout_s)
{
    fflush(NULL);
    double t0 = phase_now();
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "phase %s: fork: %s\n", name, strerror(errno));
        return 1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(99);
        /* an expected abort of a process with 30,000 threads must not dump core */
        struct rlimit nocore = { 0, 0 };
        setrlimit(RLIMIT_CORE, &nocore);
        int rc = fn(arg);
        fflush(NULL);
        exit(rc);
    }
    setpgid(pid, pid);   /* also here: no race with the kill below */
    int st = 0, hung = 0;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) { st = -1; break; }
        if (phase_now() - t0 > timeout_s) {
            hung = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        phase_sleep_ms(5);
    }
    /* whatever the phase left in its group (children of a dead phase) */
    kill(-pid, SIGKILL);
    for (int i = 0; i < 200; i++) {
        phase_reap_orphans();
        if (kill(-pid, 0) < 0 && errno == ESRCH) break;
        phase_sleep_ms(5);
    }
    phase_reap_orphans();
    double dt = phase_now() - t0;
    char buf[96];
    if (hung) {
        printf("phase %s: FAILED: HANG: still running after %u s, killed\n", name, timeout_s);
        return 1;
    }
    if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        printf("phase %s: passed (%.1f s)\n", name, dt);
        return 0;
    }
    printf("phase %s: FAILED: %s after %.1f s\n", name, st == -1 ? "lost" : phase_status(st, buf, sizeof(buf)), dt);
    return 1;
}

/* Tasks on the machine now (threads of every process), from /proc/loadavg. */
static inline long phase_tasks_now(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    long run = 0, total = 0;
    double a, b, c;
    if (f) {
        if (fscanf(f, "%lf %lf %lf %ld/%ld", &a, &b, &c, &run, &total) != 5) total = 0;
        fclose(f);
    }
    return total;
}

static inline long phase_read_long(const char *path, long dflt)
{
    FILE *f = fopen(path, "r");
    long v = dflt;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = dflt;
        fclose(f);
    }
    return v;
}

/* How many more tasks (threads or processes) the machine allows, keeping @margin
 * for everything else: min(pid_max, threads-max) - tasks now - margin. */
static inline long phase_task_room(long margin)
{
    long pid_max = phase_read_long("/proc/sys/kernel/pid_max", 32768);
    long tmax = phase_read_long("/proc/sys/kernel/threads-max", 32768);
    long lim = pid_max < tmax ? pid_max : tmax;
    return lim - phase_tasks_now() - margin;
}
#endif
