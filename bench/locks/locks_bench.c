/* nspa-bench locks: the same Win32 source measures NSPA's Win32 layer (native build),
 * stock Wine (x86_64-w64-mingw32 build run under wine64) and, in the native build only,
 * glibc pthreads doing the same work.
 *
 *   locks_bench --impl nspa|pthread|wine8 [--rt] [--only <bench>]
 *
 * Benches (one RESULT line each):
 *   uncontended   Enter+Leave (pthread_mutex_lock+unlock), ns of thread CPU time per pair,
 *                 with a second (parked) thread alive; uncontended_1thread: the same in a
 *                 still single-threaded process (glibc then skips its lock prefixes)
 *   rapidmutex    4 threads x 500K Enter/++counter/Leave on one section, ops/s
 *                 (--rt: rapidmutex_rt, thread 0 SCHED_FIFO 80, others 73, as the seed's
 *                  REALTIME class, started by an event; the pthread peer is a PTHREAD_PRIO_INHERIT
 *                  mutex; NSPA must run with NSPA_RT_PRIO set, i.e. a PI section)
 *   srw_excl      2 threads x 1M exclusive acquire/++/release, ops/s (pthread_rwlock)
 *   srw_shared    2 threads x 2M shared acquire/read/release, ops/s (pthread_rwlock)
 *   cv_handoff    2 threads pass a token through a CS + condition variable, round trips/s
 *                 (pthread mutex + pthread_cond)
 * Only Win32 calls NSPA implements are used, plus a small thread/clock shim. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#ifdef _WIN32
typedef HANDLE thr_t;
#define THREAD_FN(name) static DWORD WINAPI name(LPVOID arg)
#define THREAD_RET return 0
static thr_t thr_start(LPTHREAD_START_ROUTINE fn, void *arg, int prio)
{
    HANDLE h = CreateThread(NULL, 0, fn, arg, CREATE_SUSPENDED, NULL);
    if (prio)
        SetThreadPriority(h, prio >= 80 ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_NORMAL);
    ResumeThread(h);
    return h;
}
static void thr_join(thr_t t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
static void nap(void) { Sleep(1); }
/* CPU time of the calling thread (immune to preemption by other load on the machine) */
static double thread_cpu_s(void)
{
    FILETIME c, e, k, u;
    GetThreadTimes(GetCurrentThread(), &c, &e, &k, &u);
    return ((double)(((ULONGLONG)k.dwHighDateTime << 32) | k.dwLowDateTime) +
            (double)(((ULONGLONG)u.dwHighDateTime << 32) | u.dwLowDateTime)) * 1e-7;
}
static double now_s(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "nspa/rt.h"
typedef pthread_t thr_t;
#define THREAD_FN(name) static void *name(void *arg)
#define THREAD_RET return NULL
static thr_t thr_start(void *(*fn)(void *), void *arg, int prio)
{
    pthread_attr_t a;
    pthread_t t;
    struct sched_param sp = { .sched_priority = prio };
    pthread_attr_init(&a);
    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&a, prio ? SCHED_FIFO : SCHED_OTHER);
    pthread_attr_setschedparam(&a, &sp);
    if (pthread_create(&t, &a, fn, arg)) {
        fprintf(stderr, "pthread_create failed (SCHED_FIFO needs root/CAP_SYS_NICE)\n");
        exit(2);
    }
    pthread_attr_destroy(&a);
    return t;
}
static void thr_join(thr_t t) { pthread_join(t, NULL); }
static void nap(void) { usleep(1000); }
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static pthread_mutex_t pm;
static pthread_rwlock_t prw;
static pthread_cond_t pcv;
#endif

static int use_pthread __attribute__((unused)), rt;
static const char *impl = "nspa";
static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static volatile long counter;
static volatile LONG go;

static void result(const char *bench, const char *unit, double v, const char *better)
{
    printf("RESULT bench=%s impl=%s unit=%s value=%.6g better=%s\n", bench, impl, unit, v, better);
    fflush(stdout);
}

#ifndef _WIN32
#define LOCK()   (use_pthread ? (void)pthread_mutex_lock(&pm) : EnterCriticalSection(&cs))
#define UNLOCK() (use_pthread ? (void)pthread_mutex_unlock(&pm) : LeaveCriticalSection(&cs))
#else
#define LOCK()   EnterCriticalSection(&cs)
#define UNLOCK() LeaveCriticalSection(&cs)
#endif

THREAD_FN(parked_thread)
{
    while (!go)
        nap();
    (void)arg;
    THREAD_RET;
}

/* st: measure in a single-threaded process (glibc then drops the lock prefix of its
 * mutex atomics, which no real user of a lock gets); else with a second thread alive */
static double bench_uncontended(int st)
{
    const long n = 30000000;
    thr_t helper = 0;
    go = 0;
    if (!st)
        helper = thr_start(parked_thread, NULL, 0);
    double t = thread_cpu_s();
#ifndef _WIN32
    if (use_pthread) {
        for (long i = 0; i < n; i++) {
            pthread_mutex_lock(&pm);
            pthread_mutex_unlock(&pm);
        }
    } else
#endif
    for (long i = 0; i < n; i++) {
        EnterCriticalSection(&cs);
        LeaveCriticalSection(&cs);
    }
    t = thread_cpu_s() - t;
    if (!st) {
        go = 1;
        thr_join(helper);
    }
    return t * 1e9 / n;
}

#define RM_THREADS 4
#define RM_ITERS 500000
#define RM_ITERS_RT RM_ITERS /* the 4 x 500K (PI convoys once made this 50K) */
static int rm_iters = RM_ITERS;
/* --rt: the SCHED_FIFO threads wait for the start on an event. Spinning on a flag, two of
 * them starve the (SCHED_OTHER) main thread while it creates the others, so the kernel's
 * RT throttling (950 ms of every second) ran out and paused every RT thread for up to
 * 50 ms in the middle of the measurement: 4M ops/s instead of 14M, for every impl. */
static HANDLE start_evt;
THREAD_FN(rm_thread)
{
    (void)arg;
    if (rt)
        WaitForSingleObject(start_evt, INFINITE);
    while (!go)
        ;
    for (int i = 0; i < rm_iters; i++) {
        LOCK();
        counter++;
        UNLOCK();
    }
    THREAD_RET;
}

static double bench_rapidmutex(void)
{
    thr_t t[RM_THREADS];
    counter = 0;
    go = 0;
    if (rt)
        ResetEvent(start_evt);
    for (int i = 0; i < RM_THREADS; i++)
        t[i] = thr_start(rm_thread, NULL, rt ? (i == 0 ? 80 : 73) : 0);
    double s = now_s();
    go = 1;
    if (rt)
        SetEvent(start_evt);
    for (int i = 0; i < RM_THREADS; i++)
        thr_join(t[i]);
    s = now_s() - s;
    if (counter != (long)RM_THREADS * rm_iters) {
        fprintf(stderr, "rapidmutex: counter %ld wrong\n", counter);
        exit(1);
    }
    return RM_THREADS * (double)rm_iters / s;
}

#define SRW_THREADS 2
#define SRW_EXCL_ITERS 1000000
#define SRW_SHARED_ITERS 2000000
static volatile long shared_sink;
THREAD_FN(srw_excl_thread)
{
    (void)arg;
    while (!go)
        ;
    for (int i = 0; i < SRW_EXCL_ITERS; i++) {
#ifndef _WIN32
        if (use_pthread) {
            pthread_rwlock_wrlock(&prw);
            counter++;
            pthread_rwlock_unlock(&prw);
            continue;
        }
#endif
        AcquireSRWLockExclusive(&srw);
        counter++;
        ReleaseSRWLockExclusive(&srw);
    }
    THREAD_RET;
}

THREAD_FN(srw_shared_thread)
{
    long sum = 0;
    (void)arg;
    while (!go)
        ;
    for (int i = 0; i < SRW_SHARED_ITERS; i++) {
#ifndef _WIN32
        if (use_pthread) {
            pthread_rwlock_rdlock(&prw);
            sum += counter;
            pthread_rwlock_unlock(&prw);
            continue;
        }
#endif
        AcquireSRWLockShared(&srw);
        sum += counter;
        ReleaseSRWLockShared(&srw);
    }
    shared_sink = sum;
    THREAD_RET;
}

static double bench_srw(int shared)
{
    thr_t t[SRW_THREADS];
    counter = 0;
    go = 0;
    for (int i = 0; i < SRW_THREADS; i++)
        t[i] = thr_start(shared ? srw_shared_thread : srw_excl_thread, NULL, 0);
    double s = now_s();
    go = 1;
    for (int i = 0; i < SRW_THREADS; i++)
        thr_join(t[i]);
    s = now_s() - s;
    if (!shared && counter != (long)SRW_THREADS * SRW_EXCL_ITERS) {
        fprintf(stderr, "srw_excl: counter %ld wrong\n", counter);
        exit(1);
    }
    double ops = SRW_THREADS * (double)(shared ? SRW_SHARED_ITERS : SRW_EXCL_ITERS);
    return ops / s;
}

#define HANDOFFS 20000
static volatile long token; /* even: ping's turn, odd: pong's turn */
static void cv_wait(void)
{
#ifndef _WIN32
    if (use_pthread) {
        pthread_cond_wait(&pcv, &pm);
        return;
    }
#endif
    SleepConditionVariableCS(&cv, &cs, INFINITE);
}
static void cv_wake_all(void)
{
#ifndef _WIN32
    if (use_pthread) {
        pthread_cond_broadcast(&pcv);
        return;
    }
#endif
    WakeAllConditionVariable(&cv);
}
THREAD_FN(cv_thread)
{
    long me = (long)(intptr_t)arg;
    for (int i = 0; i < HANDOFFS; i++) {
        LOCK();
        while ((token & 1) != me)
            cv_wait();
        token++;
        cv_wake_all();
        UNLOCK();
    }
    THREAD_RET;
}

static double bench_cv(void)
{
    thr_t a, b;
    token = 0;
    double s = now_s();
    a = thr_start(cv_thread, (void *)(intptr_t)0, 0);
    b = thr_start(cv_thread, (void *)(intptr_t)1, 0);
    thr_join(a);
    thr_join(b);
    s = now_s() - s;
    return HANDOFFS / s;
}

/* One sample per round = the median of REPS back-to-back trials (the machine is shared
 * and noisy; the run script interleaves the implementations round by round). */
#define REPS 3
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
#define MEDIAN_OF(expr, out) do { double v_[REPS]; \
        for (int r_ = 0; r_ < REPS; r_++) v_[r_] = (expr); \
        qsort(v_, REPS, sizeof v_[0], cmp_d); (out) = v_[REPS / 2]; } while (0)

int main(int argc, char **argv)
{
    double v;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--impl") && i + 1 < argc)
            impl = argv[++i];
        else if (!strcmp(argv[i], "--rt"))
            rt = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
#ifndef _WIN32
    alarm(120); /* a safety bound: SCHED_FIFO threads must not run away */
    use_pthread = !strncmp(impl, "pthread", 7);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    if (rt)
        pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(&pm, &ma);
    pthread_rwlock_init(&prw, NULL);
    pthread_cond_init(&pcv, NULL);
    if (!use_pthread && rt && !nspa_pi_enabled()) {
        fprintf(stderr, "--rt with impl nspa needs NSPA_RT_PRIO set (RT mode)\n");
        return 2;
    }
#endif
    InitializeCriticalSection(&cs);
    start_evt = CreateEventA(NULL, TRUE, FALSE, NULL);
    if (getenv("LOCKS_BENCH_SPIN"))
        SetCriticalSectionSpinCount(&cs, atoi(getenv("LOCKS_BENCH_SPIN")));
    if (rt) {
        /* all-FIFO PI hand-offs are bimodal (a convoy or, by luck, none): the median
         * of three shorter trials */
        rm_iters = RM_ITERS_RT;
        MEDIAN_OF(bench_rapidmutex(), v);
        result("rapidmutex_rt", "ops/s", v, "higher");
        return 0;
    }
    if (!only || !strcmp(only, "uncontended_1thread")) {
        /* one trial only: the process must still be single-threaded */
        result("uncontended_1thread", "ns", bench_uncontended(1), "lower");
    }
    if (!only || !strcmp(only, "uncontended")) {
        MEDIAN_OF(bench_uncontended(0), v);
        result("uncontended", "ns", v, "lower");
    }
    if (!only || !strcmp(only, "rapidmutex")) {
        MEDIAN_OF(bench_rapidmutex(), v);
        result("rapidmutex", "ops/s", v, "higher");
    }
    if (!only || !strcmp(only, "srw_excl")) {
        MEDIAN_OF(bench_srw(0), v);
        result("srw_excl", "ops/s", v, "higher");
    }
    if (!only || !strcmp(only, "srw_shared")) {
        MEDIAN_OF(bench_srw(1), v);
        result("srw_shared", "ops/s", v, "higher");
    }
    if (!only || !strcmp(only, "cv_handoff")) {
        MEDIAN_OF(bench_cv(), v);
        result("cv_handoff", "roundtrips/s", v, "higher");
    }
    DeleteCriticalSection(&cs);
    return 0;
}
