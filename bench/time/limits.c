/* nspa-bench time: the raw Linux peers, plain C.
 *   oneshot <n>     n clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, now + 1 ms): lateness
 *   periodic <s>    a clock_nanosleep TIMER_ABSTIME loop, t += 1 ms, for s seconds: periods
 *                   seen, lateness against the same ideal schedule as the Win32 side
 *   handoff <n> [gap_us]  a pthread condition-variable hand-off: the main thread sets a
 *                   flag and signals, a waiting thread reads the clock: p50 / p99 (us);
 *                   gap_us: a pause before each (as the Win32 side's tp_latency)
 *   pool <n>        a fixed pool of pthreads (one per CPU) taking n tiny items (an atomic
 *                   increment) from a mutex + condition-variable queue: items per second
 * oneshot and periodic run at SCHED_FIFO $RAW_RT_PRIO when set (the priority NSPA's RT
 * mode gives the TIME_CRITICAL waiter), else as the caller runs; handoff and pool at
 * the caller's (SCHED_OTHER) priority, as the thread pools' workers. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void result(const char *bench, const char *unit, double v, const char *better)
{
    printf("RESULT bench=%s impl=raw unit=%s value=%.6g better=%s\n", bench, unit, v, better);
}

static void rt(void)
{
    const char *p = getenv("RAW_RT_PRIO");
    if (!p || !atoi(p)) return;
    struct sched_param sp = { .sched_priority = atoi(p) };
    if (sched_setscheduler(0, SCHED_FIFO, &sp)) perror("sched_setscheduler");
}

static struct timespec ts_of(double us)
{
    struct timespec t = { (time_t)(us / 1e6), (long)((us - (double)(time_t)(us / 1e6) * 1e6) * 1e3) };
    return t;
}

static int oneshot(int n)
{
    rt();
    double *v = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        double due = now_us() + 1000.0;
        struct timespec t = ts_of(due);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        v[i] = now_us() - due;
    }
    result("oneshot_p50", "us", bench_pct(v, n, 50), "lower");
    result("oneshot_p99", "us", bench_pct(v, n, 99), "lower");
    return 0;
}

static int periodic(int secs)
{
    rt();
    int cap = secs * 1000 + 1000, seen = 0;
    double *v = malloc(sizeof(double) * cap);
    double start = now_us() + 1000.0;
    for (;; seen++) {
        double due = start + seen * 1000.0;
        if (due - start >= secs * 1e6) break;
        struct timespec t = ts_of(due);
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        if (seen < cap) v[seen] = now_us() - due;
    }
    double periods = (now_us() - start) / 1000.0;
    int m = seen < cap ? seen : cap, stalls;
    double max;
    bench_stalls(v, m, &stalls, &max);
    bench_dump_series("periodic", "raw", v, m);
    result("periodic_expiries", "count", seen, "higher");
    result("periodic_max", "us", max, "lower");
    result("periodic_stalls", "count", stalls, "lower");
    result("periodic_seen_ratio", "ratio", seen / periods, "higher");
    result("periodic_p50", "us", bench_pct(v, m, 50), "lower");
    result("periodic_p99", "us", bench_pct(v, m, 99), "lower");
    /* the same figures stand for the multimedia timer's peer */
    printf("RESULT bench=mmperiodic_expiries impl=raw unit=count value=%d better=higher\n", seen);
    return 0;
}

/* ---- condition-variable hand-off -------------------------------------------------- */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER, back = PTHREAD_COND_INITIALIZER;
static int flag, quit;
static double t_woke;

static void *handoff_worker(void *arg)
{
    pthread_mutex_lock(&m);
    for (;;) {
        while (!flag && !quit) pthread_cond_wait(&cv, &m);
        if (quit) break;
        t_woke = now_us();
        flag = 0;
        pthread_cond_signal(&back);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

static int handoff(int n, int gap_us)
{
    pthread_t t;
    pthread_create(&t, NULL, handoff_worker, NULL);
    double *v = malloc(sizeof(double) * n);
    for (int i = -10; i < n; i++) {
        if (gap_us) usleep((useconds_t)gap_us);
        else sched_yield();
        double t0 = now_us();
        pthread_mutex_lock(&m);
        flag = 1;
        pthread_cond_signal(&cv);
        while (flag) pthread_cond_wait(&back, &m);
        pthread_mutex_unlock(&m);
        if (i >= 0) v[i] = t_woke - t0;
    }
    pthread_mutex_lock(&m);
    quit = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    result(gap_us ? "tp_submit_idle_p50" : "tp_submit_p50", "us", bench_pct(v, n, 50), "lower");
    result(gap_us ? "tp_submit_idle_p99" : "tp_submit_p99", "us", bench_pct(v, n, 99), "lower");
    return 0;
}

/* ---- a fixed pool with a mutex + condvar queue ------------------------------------ */
struct item { struct item *next; };
static struct item *qh, *qt, *items;
static long left;
static _Atomic long done;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER, dcv = PTHREAD_COND_INITIALIZER;

static void *pool_worker(void *arg)
{
    pthread_mutex_lock(&m);
    for (;;) {
        while (!qh && !quit) pthread_cond_wait(&qcv, &m);
        if (!qh && quit) break;
        struct item *it = qh;
        qh = it->next;
        if (!qh) qt = NULL;
        pthread_mutex_unlock(&m);
        atomic_fetch_add(&done, 1);          /* the tiny work */
        pthread_mutex_lock(&m);
        if (--left == 0) pthread_cond_signal(&dcv);
    }
    pthread_mutex_unlock(&m);
    return NULL;
}

static int pool(int n)
{
    int nw = (int)sysconf(_SC_NPROCESSORS_ONLN);
    items = calloc((size_t)n, sizeof(*items));   /* preallocated: no malloc in the loop */
    pthread_t t[64];
    if (nw > 64) nw = 64;
    for (int i = 0; i < nw; i++) pthread_create(&t[i], NULL, pool_worker, NULL);
    double t0 = now_us();
    left = n;
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        items[i].next = NULL;
        if (qt) qt->next = &items[i];
        else qh = &items[i];
        qt = &items[i];
        pthread_cond_signal(&qcv);
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    while (left) pthread_cond_wait(&dcv, &m);
    quit = 1;
    pthread_cond_broadcast(&qcv);
    pthread_mutex_unlock(&m);
    double el = now_us() - t0;
    for (int i = 0; i < nw; i++) pthread_join(t[i], NULL);
    if (atomic_load(&done) != n) return 1;
    result("tp_throughput", "items_per_s", n / (el / 1e6), "higher");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s oneshot|periodic|handoff|pool <n>\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[2]), r = 2;
    if (!strcmp(argv[1], "oneshot")) r = oneshot(n);
    else if (!strcmp(argv[1], "periodic")) r = periodic(n);
    else if (!strcmp(argv[1], "handoff")) r = handoff(n, argc > 3 ? atoi(argv[3]) : 0);
    else if (!strcmp(argv[1], "pool")) r = pool(n);
    fflush(stdout);
    return r;
}
