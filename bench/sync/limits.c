/* nspa-bench sync: the physical limits the Win32 figures are held against.
 *
 * Usage: nspa_sync_limits <bench> [arg]
 *   pingpong [ms=1000]       raw futex wait/wake hand-off between two threads, one word
 *                            each way, FUTEX_WAKE on every hand-off: us per round trip
 *                            (impl=futex)
 *   zigzag   [ms=2000]       the zigzag shape (two threads bounce, the main thread sleeps
 *                            2 s) on raw futexes: round trips per 2 s (impl=futex)
 *   mutex    [ms=1000]       two threads contend on one pthread mutex, PI and plain:
 *                            acquisitions per second (impl=pthread_pi, impl=pthread)
 *   contended_wait [n=1e7 [cap_ms=4000]]
 *                            msync's shape on pthread mutexes: n acquisitions over two
 *                            threads, seconds per 10M (impl=pthread_pi, impl=pthread);
 *                            stopped at cap_ms and scaled, as sync_bench does
 *   triple   [ms=500]        the uncontended floor for the SetEvent+wait(0)+ResetEvent
 *                            triple: one pthread mutex lock+unlock pair with a second
 *                            thread alive (impl=pthread_pair), the same while the process
 *                            has one thread (impl=pthread_pair_st: glibc drops the lock
 *                            prefix then) and one atomic CAS acquire + store release
 *                            (impl=atomic_cas), ns per pair
 *   triple_n pthread_pair|atomic_cas n
 *                            exactly n such pairs and nothing else (for callgrind: the
 *                            instruction count per pair)
 *   scale K [ms=1000]        the scale phase's peer (bench/sync/scale.sh): K independent
 *                            pairs of threads, each bouncing its own two futex words (one
 *                            per direction, FUTEX_WAKE on every hand-off, no spinning, each
 *                            word on its own cache line): total round trips per second
 *                            (bench=scale_k<K>, impl=futex)
 *   rt_mutex N [ms=500]      N SCHED_FIFO threads (priority RT_PRIO, default 10) contend on
 *                            one PTHREAD_PRIO_INHERIT mutex around a counter increment,
 *                            started by a futex: acquisitions per second
 *                            (bench=rt_mutex_t<N>, impl=pthread_pi); prints a SKIP line
 *                            and exits 3 when SCHED_FIFO is not permitted
 * Prints RESULT lines in the benchfmt.py format. Everything here is plain Linux/glibc.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void result(const char *bench, const char *impl, const char *unit, double v,
                   const char *better, const char *extra)
{
    printf("RESULT bench=%s impl=%s unit=%s value=%.6g better=%s%s%s\n", bench, impl, unit, v,
           better, extra ? " " : "", extra ? extra : "");
    fflush(stdout);
}

static void die(const char *what, int err)
{
    fprintf(stderr, "limits: %s: %s\n", what, strerror(err));
    exit(2);
}

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
    return syscall(SYS_futex, (uint32_t *)uaddr, op, val, NULL, NULL, 0);
}

/* One word per direction. The owner of the next move is told by the word's value; the
 * waiter sleeps in FUTEX_WAIT while the word holds the old value. The waker always calls
 * FUTEX_WAKE (no "is anyone waiting" bookkeeping): the bare kernel hand-off. */
static _Atomic uint32_t g_ping, g_pong;
static atomic_int g_stop;

static void futex_signal(_Atomic uint32_t *w)
{
    atomic_store_explicit(w, 1, memory_order_release);
    futex(w, FUTEX_WAKE_PRIVATE, 1);
}

static void futex_take(_Atomic uint32_t *w)
{
    for (;;) {
        uint32_t one = 1;
        if (atomic_compare_exchange_strong_explicit(w, &one, 0, memory_order_acquire,
                                                    memory_order_relaxed))
            return;
        if (futex(w, FUTEX_WAIT_PRIVATE, 0) < 0 && errno != EAGAIN && errno != EINTR)
            die("FUTEX_WAIT", errno);
    }
}

/* ---- ping-pong -------------------------------------------------------------------- */
static void *pingpong_partner(void *arg)
{
    (void)arg;
    for (;;) {
        futex_take(&g_ping);
        int last = atomic_load(&g_stop);
        futex_signal(&g_pong);
        if (last)
            break;
    }
    return NULL;
}

static void bench_pingpong(double secs)
{
    pthread_t t;
    int e = pthread_create(&t, NULL, pingpong_partner, NULL);
    if (e)
        die("pthread_create", e);
    for (int i = 0; i < 16; i++) {
        futex_signal(&g_ping);
        futex_take(&g_pong);
    }
    unsigned long n = 0;
    double t0 = now_s(), t1;
    for (;;) {
        if ((n & 15) == 0 && now_s() - t0 >= secs)
            atomic_store(&g_stop, 1);
        futex_signal(&g_ping);
        futex_take(&g_pong);
        n++;
        if (atomic_load(&g_stop))
            break;
    }
    t1 = now_s();
    pthread_join(t, NULL);
    char extra[64];
    snprintf(extra, sizeof extra, "iters=%lu", n);
    result("pingpong", "futex", "us", (t1 - t0) * 1e6 / n, "lower", extra);
    atomic_store(&g_stop, 0);
}

/* ---- zigzag ----------------------------------------------------------------------- */
static unsigned long g_zz_count;

static void *zigzag_x(void *arg)
{
    (void)arg;
    for (;;) {
        futex_take(&g_ping);
        if (atomic_load(&g_stop))
            break;
        g_zz_count++;
        futex_signal(&g_pong);
    }
    return NULL;
}

static void *zigzag_y(void *arg)
{
    (void)arg;
    for (;;) {
        futex_take(&g_pong);
        if (atomic_load(&g_stop))
            break;
        futex_signal(&g_ping);
    }
    return NULL;
}

static void bench_zigzag(double secs)
{
    pthread_t x, y;
    atomic_store(&g_ping, 0);
    atomic_store(&g_pong, 0);
    if (pthread_create(&x, NULL, zigzag_x, NULL) || pthread_create(&y, NULL, zigzag_y, NULL))
        die("pthread_create", EAGAIN);
    double t0 = now_s();
    futex_signal(&g_ping);
    struct timespec ts = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&g_stop, 1);
    unsigned long n = __atomic_load_n(&g_zz_count, __ATOMIC_RELAXED);
    double t1 = now_s();
    futex_signal(&g_ping);
    futex_signal(&g_pong);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    char extra[96];
    snprintf(extra, sizeof extra, "round_trips=%lu secs=%.3f", n, t1 - t0);
    result("zigzag", "futex", "round_trips_per_2s", n * 2.0 / (t1 - t0), "higher", extra);
    atomic_store(&g_stop, 0);
}

/* ---- contended pthread mutex ------------------------------------------------------ */
static pthread_mutex_t g_mtx;
static pthread_barrier_t g_bar;
static unsigned long g_shared;

struct worker { unsigned long ops, quota; };

static void *mutex_timed(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(&g_bar);
    while (!atomic_load_explicit(&g_stop, memory_order_relaxed)) {
        for (int k = 0; k < 16; k++) {
            pthread_mutex_lock(&g_mtx);
            g_shared++;
            pthread_mutex_unlock(&g_mtx);
        }
        w->ops += 16;
    }
    return NULL;
}

static void *mutex_count(void *arg)
{
    struct worker *w = arg;
    pthread_barrier_wait(&g_bar);
    unsigned long i;
    for (i = 0; i < w->quota; i++) {
        if ((i & 255) == 0 && atomic_load_explicit(&g_stop, memory_order_relaxed))
            break;   /* the wall-time cap */
        pthread_mutex_lock(&g_mtx);
        g_shared++;
        pthread_mutex_unlock(&g_mtx);
    }
    w->ops = i;
    return NULL;
}

static void init_mutex(int pi)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    if (pi) {
        int e = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
        if (e)
            die("PTHREAD_PRIO_INHERIT", e);
    }
    pthread_mutex_init(&g_mtx, &a);
    pthread_mutexattr_destroy(&a);
}

static void bench_mutex(int pi, double secs)
{
    init_mutex(pi);
    g_shared = 0;
    atomic_store(&g_stop, 0);
    pthread_barrier_init(&g_bar, NULL, 3);
    struct worker w[2] = {{0, 0}, {0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, mutex_timed, &w[i]))
            die("pthread_create", EAGAIN);
    pthread_barrier_wait(&g_bar);
    double t0 = now_s();
    struct timespec ts = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&g_stop, 1);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    double t1 = now_s();
    unsigned long ops = w[0].ops + w[1].ops;
    if (ops != g_shared)
        die("lost update", EINVAL);
    char extra[96];
    snprintf(extra, sizeof extra, "ops=%lu per_thread=%lu/%lu", ops, w[0].ops, w[1].ops);
    result("mutex", pi ? "pthread_pi" : "pthread", "ops_per_s", ops / (t1 - t0), "higher", extra);
    pthread_mutex_destroy(&g_mtx);
    pthread_barrier_destroy(&g_bar);
    atomic_store(&g_stop, 0);
}

static void bench_contended_wait(int pi, unsigned long n, double cap_s)
{
    atomic_store(&g_stop, 0);
    init_mutex(pi);
    g_shared = 0;
    pthread_barrier_init(&g_bar, NULL, 3);
    struct worker w[2] = {{0, n / 2}, {0, n - n / 2}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, mutex_count, &w[i]))
            die("pthread_create", EAGAIN);
    pthread_barrier_wait(&g_bar);
    double t0 = now_s();
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += (time_t)cap_s;
    dl.tv_nsec += (long)((cap_s - (time_t)cap_s) * 1e9);
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    for (int i = 0; i < 2; i++) {
        int e = pthread_timedjoin_np(t[i], NULL, &dl);
        if (e == ETIMEDOUT) {
            atomic_store(&g_stop, 1);
            pthread_join(t[i], NULL);
        } else if (e) {
            die("pthread_timedjoin_np", e);
        }
    }
    double t1 = now_s();
    unsigned long done = w[0].ops + w[1].ops;
    if (g_shared != done || !done)
        die("lost update", EINVAL);
    char extra[128];
    snprintf(extra, sizeof extra, "iters=%lu measured_s=%.4f%s%s", done, t1 - t0,
             done < 10000000ul ? " scaled_to=10000000" : "", done < n ? " capped=1" : "");
    result("contended_wait", pi ? "pthread_pi" : "pthread", "s_per_10M",
           (t1 - t0) * (10000000.0 / done), "lower", extra);
    atomic_store(&g_stop, 0);
    pthread_mutex_destroy(&g_mtx);
    pthread_barrier_destroy(&g_bar);
}

/* ---- uncontended floor ------------------------------------------------------------ */
static atomic_int g_lockword;

static double pair_ns(double secs, unsigned long *iters)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    unsigned long n = 0;
    double t0 = now_s(), t1;
    do {
        for (int i = 0; i < 1024; i++) {
            pthread_mutex_lock(&m);
            __asm__ volatile("" ::: "memory");
            pthread_mutex_unlock(&m);
        }
        n += 1024;
    } while ((t1 = now_s()) - t0 < secs);
    *iters = n;
    return (t1 - t0) * 1e9 / n;
}

static void *idle_thread(void *arg)
{
    pause();
    return arg;
}

/* The pthread pair twice. While a process has one thread, glibc's lock and unlock drop
 * the lock prefix (nothing else can race), so that pair (pthread_pair_st) is two plain
 * read-modify-writes, not a lock. A sync object is only used with more than one thread
 * (or process) about, where glibc's pair is two atomic operations: pthread_pair is
 * measured with a second, idle thread alive, and is the yardstick of the triple.
 * Order matters: glibc never goes back to single-threaded mode. */
static void bench_triple(double secs)
{
    unsigned long n;
    char extra[80];
    double st = pair_ns(secs, &n);
    snprintf(extra, sizeof extra, "iters=%lu what=lock+unlock threads=1", n);
    result("triple", "pthread_pair_st", "ns", st, "lower", extra);
    pthread_t t;
    if (pthread_create(&t, NULL, idle_thread, NULL)) die("pthread_create", EAGAIN);
    double mt = pair_ns(secs, &n);
    snprintf(extra, sizeof extra, "iters=%lu what=lock+unlock threads=2", n);
    result("triple", "pthread_pair", "ns", mt, "lower", extra);

    double t0, t1;
    n = 0;
    t0 = now_s();
    do {
        for (int i = 0; i < 1024; i++) {
            int z = 0;
            if (!atomic_compare_exchange_strong_explicit(&g_lockword, &z, 1, memory_order_acquire,
                                                         memory_order_relaxed))
                die("CAS on a free word failed", EINVAL);
            atomic_store_explicit(&g_lockword, 0, memory_order_release);
        }
        n += 1024;
    } while ((t1 = now_s()) - t0 < secs);
    snprintf(extra, sizeof extra, "iters=%lu what=cas+store", n);
    result("triple", "atomic_cas", "ns", (t1 - t0) * 1e9 / n, "lower", extra);
}

/* exactly n pairs and nothing else: for callgrind/strace (instructions per pair) */
static void pair_n(const char *what, unsigned long n)
{
    static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    if (!strcmp(what, "pthread_pair")) {
        for (unsigned long i = 0; i < n; i++) {
            pthread_mutex_lock(&m);
            __asm__ volatile("" ::: "memory");
            pthread_mutex_unlock(&m);
        }
    } else {
        for (unsigned long i = 0; i < n; i++) {
            int z = 0;
            if (!atomic_compare_exchange_strong_explicit(&g_lockword, &z, 1, memory_order_acquire,
                                                         memory_order_relaxed))
                die("CAS on a free word failed", EINVAL);
            atomic_store_explicit(&g_lockword, 0, memory_order_release);
        }
    }
    printf("DONE bench=triple_n impl=%s n=%lu\n", what, n);
}

/* ---- scale: K independent futex pairs (the peer of sync_scale's scale*) ------------ */
#define MAX_PAIRS 64
struct fpair {
    _Alignas(64) _Atomic uint32_t ping;   /* pinger -> ponger */
    _Alignas(64) _Atomic uint32_t pong;   /* ponger -> pinger */
    _Alignas(64) atomic_int stop;         /* written by the pinger before its last signal */
    _Atomic unsigned long n;              /* round trips done (pinger), read by main */
    double t_start;
    pthread_t th_ping, th_pong;
};
static struct fpair g_fpairs[MAX_PAIRS];
static _Atomic uint32_t g_go;

static void wait_go(void)
{
    while (!atomic_load_explicit(&g_go, memory_order_acquire))
        if (futex(&g_go, FUTEX_WAIT_PRIVATE, 0) < 0 && errno != EAGAIN && errno != EINTR)
            die("FUTEX_WAIT(go)", errno);
}

static void release_go(void)
{
    atomic_store_explicit(&g_go, 1, memory_order_release);
    futex(&g_go, FUTEX_WAKE_PRIVATE, INT_MAX);
}

static void *fpair_pong(void *arg)
{
    struct fpair *p = arg;
    for (;;) {
        futex_take(&p->ping);
        int last = atomic_load(&p->stop);
        futex_signal(&p->pong);
        if (last)
            break;
    }
    return NULL;
}

static void *fpair_ping(void *arg)
{
    struct fpair *p = arg;
    for (int i = 0; i < 16; i++) {   /* warm-up, as in sync_scale */
        futex_signal(&p->ping);
        futex_take(&p->pong);
    }
    wait_go();
    p->t_start = now_s();
    for (;;) {
        if (atomic_load_explicit(&g_stop, memory_order_relaxed))
            atomic_store(&p->stop, 1);
        int last = atomic_load(&p->stop);
        futex_signal(&p->ping);
        futex_take(&p->pong);
        atomic_store_explicit(&p->n, atomic_load_explicit(&p->n, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (last)
            break;
    }
    return NULL;
}

static void bench_scale(int k, double secs)
{
    if (k < 1 || k > MAX_PAIRS)
        die("pair count out of range", EINVAL);
    for (int i = 0; i < k; i++) {
        struct fpair *p = &g_fpairs[i];
        if (pthread_create(&p->th_pong, NULL, fpair_pong, p) ||
            pthread_create(&p->th_ping, NULL, fpair_ping, p))
            die("pthread_create", EAGAIN);
    }
    struct timespec ts = {0, 20000000};   /* warm-ups done, pingers parked on go */
    nanosleep(&ts, NULL);
    /* as sync_scale: sleep, then read every count and the clock at once, then stop */
    double t0 = now_s();
    release_go();
    struct timespec run = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&run, NULL);
    unsigned long total = 0;
    for (int i = 0; i < k; i++)
        total += atomic_load_explicit(&g_fpairs[i].n, memory_order_relaxed);
    double t1 = now_s();
    atomic_store(&g_stop, 1);
    double rate = total / (t1 - t0), late = 0;
    for (int i = 0; i < k; i++) {
        struct fpair *p = &g_fpairs[i];
        pthread_join(p->th_ping, NULL);
        pthread_join(p->th_pong, NULL);
        if (p->t_start - t0 > late)
            late = p->t_start - t0;
    }
    atomic_store(&g_stop, 0);
    char bench[32], extra[96];
    snprintf(bench, sizeof bench, "scale_k%d", k);
    snprintf(extra, sizeof extra, "pairs=%d round_trips=%lu start_late_ms=%.2f", k, total,
             late * 1e3);
    result(bench, "futex", "round_trips_per_s", rate, "higher", extra);
}

/* ---- rt_mutex: a PI mutex between SCHED_FIFO threads -------------------------------- */
#define MAX_RT 32
static struct rt_worker { unsigned long ops; double t_end; char pad[48]; } g_rtw[MAX_RT];
static _Atomic int64_t g_first_ns;   /* when the first worker passed the go futex */
static double g_secs;

static void *rt_worker(void *arg)
{
    struct rt_worker *w = arg;
    wait_go();
    /* secs from the first worker's start, as in sync_scale */
    int64_t zero = 0;
    atomic_compare_exchange_strong(&g_first_ns, &zero, (int64_t)(now_s() * 1e9));
    double deadline = atomic_load(&g_first_ns) * 1e-9 + g_secs;
    unsigned long n = 0;
    for (;;) {
        for (int i = 0; i < 16; i++) {
            pthread_mutex_lock(&g_mtx);
            g_shared++;
            pthread_mutex_unlock(&g_mtx);
        }
        n += 16;
        if (now_s() >= deadline)
            break;
    }
    w->t_end = now_s();
    w->ops = n;
    return NULL;
}

static int bench_rt_mutex(int nthreads, double secs)
{
    char bench[32];
    snprintf(bench, sizeof bench, "rt_mutex_t%d", nthreads);
    if (nthreads < 1 || nthreads > MAX_RT)
        die("thread count out of range", EINVAL);
    alarm(30);   /* a safety bound: SCHED_FIFO threads must not run away */
    const char *env = getenv("RT_PRIO");
    int prio = env && atoi(env) > 0 ? atoi(env) : 10;
    init_mutex(1);
    g_shared = 0;
    pthread_attr_t a;
    struct sched_param sp = {.sched_priority = prio};
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, SCHED_FIFO);
    pthread_attr_setschedparam(&a, &sp);
    pthread_t t[MAX_RT];
    for (int i = 0; i < nthreads; i++) {
        int e = pthread_create(&t[i], &a, rt_worker, &g_rtw[i]);
        if (e == EPERM) {
            printf("SKIP bench=%s impl=pthread_pi reason=SCHED_FIFO not permitted\n", bench);
            fflush(stdout);
            g_secs = -1;              /* let the ones already made finish at once */
            atomic_store(&g_go, 1);
            futex(&g_go, FUTEX_WAKE_PRIVATE, INT_MAX);
            for (int j = 0; j < i; j++)
                pthread_join(t[j], NULL);
            return 3;
        }
        if (e)
            die("pthread_create(SCHED_FIFO)", e);
    }
    pthread_attr_destroy(&a);
    struct timespec ts = {0, 20000000};   /* every worker parked on go */
    nanosleep(&ts, NULL);
    g_secs = secs;
    double t0 = now_s();
    release_go();
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    unsigned long ops = 0;
    double start = atomic_load(&g_first_ns) * 1e-9, t1 = start;
    for (int i = 0; i < nthreads; i++) {
        ops += g_rtw[i].ops;
        t1 = g_rtw[i].t_end > t1 ? g_rtw[i].t_end : t1;
    }
    if (ops != g_shared)
        die("lost update", EINVAL);
    char extra[128];
    snprintf(extra, sizeof extra, "threads=%d ops=%lu policy=FIFO rt_prio=%d start_late_ms=%.2f",
             nthreads, ops, prio, (start - t0) * 1e3);
    result(bench, "pthread_pi", "ops_per_s", ops / (t1 - start), "higher", extra);
    pthread_mutex_destroy(&g_mtx);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s pingpong|zigzag|mutex|contended_wait|triple [ms|n]\n"
                        "       %s scale K [ms] | rt_mutex N [ms]\n", argv[0], argv[0]);
        return 1;
    }
    const char *b = argv[1];
    double arg = argc > 2 ? atof(argv[2]) : 0;
    if (!strcmp(b, "pingpong"))
        bench_pingpong(arg > 0 ? arg / 1000 : 1.0);
    else if (!strcmp(b, "zigzag"))
        bench_zigzag(arg > 0 ? arg / 1000 : 2.0);
    else if (!strcmp(b, "mutex")) {
        bench_mutex(1, arg > 0 ? arg / 1000 : 1.0);
        bench_mutex(0, arg > 0 ? arg / 1000 : 1.0);
    } else if (!strcmp(b, "contended_wait")) {
        unsigned long n = arg >= 2 ? (unsigned long)arg : 10000000ul;
        double cap = argc > 3 && atof(argv[3]) > 0 ? atof(argv[3]) / 1000 : 4.0;
        bench_contended_wait(1, n, cap);
        bench_contended_wait(0, n, cap);
    } else if (!strcmp(b, "triple"))
        bench_triple(arg > 0 ? arg / 1000 : 0.5);
    else if (!strcmp(b, "scale") && argc > 2)
        bench_scale(atoi(argv[2]), argc > 3 && atof(argv[3]) > 0 ? atof(argv[3]) / 1000 : 1.0);
    else if (!strcmp(b, "rt_mutex") && argc > 2)
        return bench_rt_mutex(atoi(argv[2]), argc > 3 && atof(argv[3]) > 0 ? atof(argv[3]) / 1000 : 0.5);
    else if (!strcmp(b, "triple_n") && argc > 3)   /* triple_n pthread_pair|atomic_cas n */
        pair_n(argv[2], strtoul(argv[3], NULL, 0));
    else {
        fprintf(stderr, "unknown bench %s\n", b);
        return 1;
    }
    return 0;
}
