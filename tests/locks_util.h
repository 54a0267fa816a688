/* Helpers shared by the locks tests: run a test body in both lock modes (plain and
 * RT/PI, which are chosen per process from the environment), wait until a thread
 * sleeps in the kernel, real-time helpers. */
#ifndef LOCKS_UTIL_H
#define LOCKS_UTIL_H
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nspa/rt.h"

static inline uint64_t lu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void lu_sleep_ms(unsigned ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static inline pid_t lu_gettid(void) { return (pid_t)syscall(SYS_gettid); }

/* Reads /proc/self/task/<tid>/stat into buf; returns the text after the command name
 * (" S ..." : field 3 onwards), or NULL. */
static inline char *lu_thread_stat(pid_t tid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p + 1 : NULL;
}

/* 1 when thread tid of this process is blocked in the kernel (state S). */
static inline int lu_thread_sleeping(pid_t tid)
{
    char buf[512];
    char *p = lu_thread_stat(tid, buf, sizeof buf);
    return p && p[1] == 'S';
}

/* Waits (up to 20 s) until tid sleeps; returns 1 when it does. */
static inline int lu_wait_sleeping(pid_t tid)
{
    for (int i = 0; i < 20000; i++) {
        if (lu_thread_sleeping(tid))
            return 1;
        lu_sleep_ms(1);
    }
    return 0;
}

/* Re-runs this program in each mode: "plain" (no RT) and "pi" (NSPA_RT_PRIO=80).
 * Returns the mode name in the child (argv[1]), or exits with the combined result. */
static inline const char *lu_modes(int argc, char **argv)
{
    if (argc > 1)
        return argv[1];
    const char *modes[] = { "plain", "pi" };
    int failed = 0;
    for (int i = 0; i < 2; i++) {
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            if (!strcmp(modes[i], "pi")) {
                setenv("NSPA_RT_PRIO", "80", 1);
                setenv("NSPA_RT_POLICY", "FF", 1);
            } else {
                unsetenv("NSPA_RT_PRIO");
            }
            unsetenv("NSPA_PI");
            execl("/proc/self/exe", argv[0], modes[i], (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(p, &st, 0);
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        printf("mode %s: %s\n", modes[i], ok ? "ok" : "FAILED");
        failed |= !ok;
    }
    exit(failed);
}

static inline int lu_set_fifo(pthread_t t, int prio)
{
    struct sched_param sp = { .sched_priority = prio };
    return pthread_setschedparam(t, prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* Creates a thread that starts with the given policy (prio 0: SCHED_OTHER, else
 * SCHED_FIFO prio) and, if cpu >= 0, pinned to cpu: nothing is inherited from the
 * creator, so a SCHED_FIFO creator spinning on its CPU cannot starve the new thread. */
static inline int lu_thread(pthread_t *t, void *(*fn)(void *), void *arg, int prio, int cpu)
{
    pthread_attr_t a;
    struct sched_param sp = { .sched_priority = prio };
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, prio ? SCHED_FIFO : SCHED_OTHER);
    pthread_attr_setschedparam(&a, &sp);
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        pthread_attr_setaffinity_np(&a, sizeof set, &set);
    }
    int r = pthread_create(t, &a, fn, arg);
    pthread_attr_destroy(&a);
    return r;
}

static inline void lu_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
#endif
