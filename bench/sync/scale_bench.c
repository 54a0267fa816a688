/* nspa-bench sync, scale phase: the Win32 side (built natively against NSPA's <windows.h>).
 *
 * These benches measure how NSPA's sync objects scale with independent users: K pairs of
 * threads that share nothing, two processes in the same or in different namespaces, and
 * a contended mutex between SCHED_FIFO threads. The peers (raw futex pairs, a
 * PTHREAD_PRIO_INHERIT mutex) are in limits.c; bench/sync/scale.sh runs both interleaved.
 *
 * The measured work uses only documented Win32 calls: CreateEvent, SetEvent,
 * WaitForSingleObject, WaitForMultipleObjects, CreateMutex, ReleaseMutex, CreateThread,
 * CloseHandle, SetPriorityClass, SetThreadPriority, GetCurrentProcessId, Sleep, and
 * QueryPerformanceCounter/Frequency for the clock. Plain Linux appears only around it:
 * the isolation driver (fork, exec, pipes for the start barrier) and one sched_getscheduler
 * check that SetThreadPriority really made the rt_mutex threads SCHED_FIFO.
 *
 * Usage: nspa_sync_scale <bench> [args]
 *   scale         K [ms=1000]   K pairs of threads, each pair bouncing its own two unnamed
 *                               auto-reset events (SetEvent + WaitForSingleObject each way):
 *                               total round trips per second (bench=scale_k<K>)
 *   scale_waitall K [ms=1000]   the same, but each direction is two auto-reset events: the
 *                               setter sets both, the waiter takes both with
 *                               WaitForMultipleObjects(2, h, TRUE, INFINITE)
 *                               (bench=scale_waitall_k<K>)
 *   scale_named   K [ms=1000]   as scale, every event named bench-scale-<pid>-<k>-a|b
 *                               (bench=scale_named_k<K>)
 *   isolation     K ms named label nsA nsB
 *                               starts two copies of this program, one with
 *                               NSPA_NAMESPACE=nsA and one with nsB (the same value: one
 *                               shared namespace), each running K pairs (unnamed events,
 *                               or named ones with named=1); both are released at once by
 *                               a pipe and run ms; each prints its own round trips/s
 *                               (bench=isolation or isolation_named, impl=<label>)
 *   rt_mutex      N [ms=500]    N SCHED_FIFO threads take and release one NT mutex
 *                               (WaitForSingleObject + ReleaseMutex around a counter
 *                               increment) for ms: acquisitions per second
 *                               (bench=rt_mutex_t<N>). Needs NSPA_RT_PRIO (run.sh sets
 *                               NSPA_RT_PRIO=10 NSPA_RT_POLICY=FF): the process goes to the
 *                               REALTIME class and the workers to TIME_CRITICAL (band 31,
 *                               SCHED_FIFO NSPA_RT_PRIO); the workers start on an event.
 * Every measuring sub-command prints RESULT lines in the benchfmt.py format (impl=nspa,
 * or the isolation label) and exits 0; a failed call prints an ERROR line and exits 2;
 * rt_mutex prints "SKIP ..." and exits 3 when the workers did not get SCHED_FIFO.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* plain Linux, outside the measured work (see above) */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *g_bench = "?", *g_impl = "nspa";

#include "bench_check.h"

static double g_qpf;
static double now_s(void)
{
    LARGE_INTEGER c;
    if (!g_qpf) {
        LARGE_INTEGER f;
        CHECK_BOOL(QueryPerformanceFrequency(&f), "QueryPerformanceFrequency");
        g_qpf = (double)f.QuadPart;
    }
    CHECK_BOOL(QueryPerformanceCounter(&c), "QueryPerformanceCounter");
    return (double)c.QuadPart / g_qpf;
}

/* ---- K independent pairs ---------------------------------------------------------- */
enum pair_mode { PAIR_UNNAMED, PAIR_WAITALL, PAIR_NAMED };

#define MAX_PAIRS 64
struct pair {
    HANDLE a[2], b[2];          /* a: pinger -> ponger, b: ponger -> pinger */
    int nev;                    /* events per direction: 1, or 2 for wait-all */
    volatile LONG stop;         /* written by the pinger before its last SetEvent(a) */
    volatile unsigned long n;   /* round trips done, counted by the pinger; read by main */
    double t_start;             /* when the pinger passed the go event */
    HANDLE th_ping, th_pong;
    char pad[64];               /* pairs never share a cache line */
} __attribute__((aligned(64)));

static struct pair g_pairs[MAX_PAIRS];
static HANDLE g_go;             /* manual-reset: releases every pinger at once */
static volatile LONG g_stop;    /* set by the main thread once it has read the counts */

static void signal_dir(HANDLE *e, int nev)
{
    for (int i = 0; i < nev; i++)
        CHECK_BOOL(SetEvent(e[i]), "SetEvent");
}

static void wait_dir(HANDLE *e, int nev)
{
    if (nev == 1)
        CHECK_WAIT(WaitForSingleObject(e[0], INFINITE), WAIT_OBJECT_0, "WaitForSingleObject");
    else
        CHECK_WAIT(WaitForMultipleObjects((DWORD)nev, e, TRUE, INFINITE), WAIT_OBJECT_0,
                   "WaitForMultipleObjects(all)");
}

static DWORD WINAPI pair_pong(LPVOID arg)
{
    struct pair *p = arg;
    for (;;) {
        wait_dir(p->a, p->nev);
        LONG last = p->stop;    /* the value written before this signal, not a later one */
        signal_dir(p->b, p->nev);
        if (last)
            break;
    }
    return 0;
}

static DWORD WINAPI pair_ping(LPVOID arg)
{
    struct pair *p = arg;
    /* warm-up: both threads of the pair running, the wake paths taken once */
    for (int i = 0; i < 16; i++) {
        signal_dir(p->a, p->nev);
        wait_dir(p->b, p->nev);
    }
    CHECK_WAIT(WaitForSingleObject(g_go, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(go)");
    p->t_start = now_s();
    for (;;) {
        if (g_stop)
            p->stop = 1;
        LONG last = p->stop;
        signal_dir(p->a, p->nev);
        wait_dir(p->b, p->nev);
        p->n++;
        if (last)
            break;
    }
    return 0;
}

static HANDLE make_event(enum pair_mode mode, int k, const char *dir)
{
    char name[96];
    if (mode == PAIR_NAMED)
        snprintf(name, sizeof name, "bench-scale-%lu-%d-%s", (unsigned long)GetCurrentProcessId(),
                 k, dir);
    SetLastError(0);
    HANDLE h = CreateEventA(NULL, FALSE, FALSE, mode == PAIR_NAMED ? name : NULL);
    CHECK_HANDLE(h, mode == PAIR_NAMED ? "CreateEvent(named)" : "CreateEvent");
    if (mode == PAIR_NAMED && GetLastError() == ERROR_ALREADY_EXISTS)
        fail("CreateEvent(named): name already exists");
    return h;
}

/* Sets up K pairs (threads warmed up and parked on the go event), calls barrier() if
 * given (the isolation start), releases them, sleeps secs, then reads every pair's count
 * and the clock at the same moment (as zigzag does) before telling the pairs to stop.
 * Returns total round trips/s over that window, the round-trip count in *total and the
 * latest pinger start after the go in *late_ms (a diagnostic for a loaded machine). */
static double run_pairs(int k, enum pair_mode mode, double secs, void (*barrier)(void),
                        unsigned long *total, double *late_ms)
{
    if (k < 1 || k > MAX_PAIRS)
        fail("pair count out of range");
    g_go = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK_HANDLE(g_go, "CreateEvent(go)");
    for (int i = 0; i < k; i++) {
        struct pair *p = &g_pairs[i];
        p->nev = mode == PAIR_WAITALL ? 2 : 1;
        for (int j = 0; j < p->nev; j++) {
            char da[8], db[8];
            snprintf(da, sizeof da, j ? "a%d" : "a", j);
            snprintf(db, sizeof db, j ? "b%d" : "b", j);
            p->a[j] = make_event(mode, i, da);
            p->b[j] = make_event(mode, i, db);
        }
    }
    for (int i = 0; i < k; i++) {
        g_pairs[i].th_pong = new_thread(pair_pong, &g_pairs[i]);
        g_pairs[i].th_ping = new_thread(pair_ping, &g_pairs[i]);
    }
    Sleep(20);   /* let every pair finish its warm-up and park on the go event */
    if (barrier)
        barrier();
    double t0 = now_s();
    CHECK_BOOL(SetEvent(g_go), "SetEvent(go)");
    Sleep((DWORD)(secs * 1000));
    unsigned long n = 0;
    for (int i = 0; i < k; i++)
        n += g_pairs[i].n;
    double t1 = now_s();
    g_stop = 1;
    double late = 0;
    for (int i = 0; i < k; i++) {
        struct pair *p = &g_pairs[i];
        join(p->th_ping);
        join(p->th_pong);
        if (p->t_start - t0 > late)
            late = p->t_start - t0;
        for (int j = 0; j < p->nev; j++) {
            CHECK_BOOL(CloseHandle(p->a[j]), "CloseHandle(event)");
            CHECK_BOOL(CloseHandle(p->b[j]), "CloseHandle(event)");
        }
    }
    CloseHandle(g_go);
    *total = n;
    *late_ms = late * 1e3;
    return n / (t1 - t0);
}

static void bench_scale(int k, enum pair_mode mode, double secs)
{
    static const char *prefix[] = {"scale", "scale_waitall", "scale_named"};
    char bench[48];
    snprintf(bench, sizeof bench, "%s_k%d", prefix[mode], k);
    g_bench = bench;
    unsigned long n;
    double late;
    double rate = run_pairs(k, mode, secs, NULL, &n, &late);
    printf("RESULT bench=%s impl=nspa unit=round_trips_per_s value=%.6g better=higher "
           "pairs=%d round_trips=%lu start_late_ms=%.2f\n", bench, rate, k, n, late);
    fflush(stdout);
}

/* ---- isolation: two processes, one namespace or two -------------------------------- */
static int g_ready_fd = -1, g_go_fd = -1;

static void child_barrier(void)
{
    char c = 1;
    if (write(g_ready_fd, &c, 1) != 1)
        fail("write(ready pipe)");
    close(g_ready_fd);
    /* released by EOF when the driver closes the write end: both children at once */
    while (read(g_go_fd, &c, 1) < 0 && errno == EINTR)
        ;
    close(g_go_fd);
}

/* iso_child K ms named label proc ready_fd go_fd (started by bench_isolation only) */
static int iso_child(char **argv)
{
    int k = atoi(argv[0]);
    double secs = atof(argv[1]) / 1000;
    int named = atoi(argv[2]);
    const char *label = argv[3], *proc = argv[4];
    g_ready_fd = atoi(argv[5]);
    g_go_fd = atoi(argv[6]);
    g_bench = named ? "isolation_named" : "isolation";
    g_impl = label;
    unsigned long n;
    double late;
    double rate = run_pairs(k, named ? PAIR_NAMED : PAIR_UNNAMED, secs, child_barrier, &n, &late);
    const char *ns = getenv("NSPA_NAMESPACE");
    printf("RESULT bench=%s impl=%s unit=round_trips_per_s value=%.6g better=higher "
           "proc=%s pairs=%d round_trips=%lu start_late_ms=%.2f ns=%s\n", g_bench, label, rate,
           proc, k, n, late, ns ? ns : "default");
    fflush(stdout);
    return 0;
}

static int bench_isolation(char **argv)
{
    const char *k = argv[0], *ms = argv[1], *named = argv[2], *label = argv[3];
    const char *ns[2] = {argv[4], argv[5]};
    g_bench = atoi(named) ? "isolation_named" : "isolation";
    g_impl = label;
    int ready[2], go[2];
    if (pipe(ready) || pipe(go))
        fail("pipe");
    pid_t pid[2];
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] < 0)
            fail("fork");
        if (pid[i] == 0) {
            close(ready[0]);
            close(go[1]);
            char rfd[16], gfd[16], proc[8];
            snprintf(rfd, sizeof rfd, "%d", ready[1]);
            snprintf(gfd, sizeof gfd, "%d", go[0]);
            snprintf(proc, sizeof proc, "%d", i + 1);
            setenv("NSPA_NAMESPACE", ns[i], 1);
            execl("/proc/self/exe", "nspa_sync_scale", "iso_child", k, ms, named, label, proc,
                  rfd, gfd, (char *)NULL);
            _exit(127);
        }
    }
    close(ready[1]);
    close(go[0]);
    /* both children set up (threads warmed up, parked), then release them together */
    int got = 0;
    while (got < 2) {
        struct pollfd pf = {ready[0], POLLIN, 0};
        int r = poll(&pf, 1, 20000);
        if (r <= 0)
            break;
        char c;
        ssize_t m = read(ready[0], &c, 1);
        if (m <= 0)
            break;
        got++;
    }
    close(go[1]);
    close(ready[0]);
    int bad = got < 2;
    for (int i = 0; i < 2; i++) {
        int st;
        if (bad)
            kill(pid[i], SIGKILL);
        if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
            bad = 1;
    }
    if (bad) {
        printf("ERROR bench=%s impl=%s call=children (ready %d of 2, or a child failed)\n",
               g_bench, label, got);
        return 2;
    }
    return 0;
}

/* ---- contended NT mutex between SCHED_FIFO threads -------------------------------- */
#define MAX_RT 32
static HANDLE g_mutex;
static volatile unsigned long g_shared;   /* touched only under the mutex */
static volatile LONG g_not_fifo;
static volatile LONG64 g_first_ns;   /* when the first worker passed the go event */
static double g_secs;
static struct rt_worker { unsigned long ops; double t_end; int prio; char pad[44]; } g_rtw[MAX_RT];

static DWORD WINAPI rt_worker(LPVOID arg)
{
    struct rt_worker *w = arg;
    CHECK_BOOL(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL),
               "SetThreadPriority(TIME_CRITICAL)");
    struct sched_param sp;
    if (sched_getscheduler(0) != SCHED_FIFO || sched_getparam(0, &sp))
        InterlockedExchange(&g_not_fifo, 1);
    else
        w->prio = sp.sched_priority;
    CHECK_WAIT(WaitForSingleObject(g_go, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(go)");
    /* the run lasts secs from the first worker's start (the go can reach SCHED_FIFO 10
     * threads late when other real-time work shares the machine) */
    InterlockedCompareExchange64(&g_first_ns, (LONG64)(now_s() * 1e9), 0);
    double deadline = g_first_ns * 1e-9 + g_secs;
    unsigned long n = 0;
    for (;;) {
        for (int i = 0; i < 16; i++) {
            CHECK_WAIT(WaitForSingleObject(g_mutex, INFINITE), WAIT_OBJECT_0,
                       "WaitForSingleObject(mutex)");
            g_shared++;
            CHECK_BOOL(ReleaseMutex(g_mutex), "ReleaseMutex");
        }
        n += 16;
        if (now_s() >= deadline)
            break;
    }
    w->t_end = now_s();
    w->ops = n;
    return 0;
}

static int bench_rt_mutex(int nthreads, double secs)
{
    static char bench[32];
    snprintf(bench, sizeof bench, "rt_mutex_t%d", nthreads);
    g_bench = bench;
    if (nthreads < 1 || nthreads > MAX_RT)
        fail("thread count out of range");
    alarm(30);   /* a safety bound: SCHED_FIFO threads must not run away */
    if (!getenv("NSPA_RT_PRIO")) {
        printf("SKIP bench=%s impl=nspa reason=NSPA_RT_PRIO not set (no RT mode)\n", bench);
        return 3;
    }
    CHECK_BOOL(SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS),
               "SetPriorityClass(REALTIME)");
    g_mutex = CreateMutexA(NULL, FALSE, NULL);
    CHECK_HANDLE(g_mutex, "CreateMutex");
    g_go = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK_HANDLE(g_go, "CreateEvent(go)");
    HANDLE t[MAX_RT];
    for (int i = 0; i < nthreads; i++)
        t[i] = new_thread(rt_worker, &g_rtw[i]);
    Sleep(20);   /* every worker promoted and parked on the go event */
    g_secs = secs;
    double t0 = now_s();
    CHECK_BOOL(SetEvent(g_go), "SetEvent(go)");
    for (int i = 0; i < nthreads; i++)
        join(t[i]);
    if (g_not_fifo) {
        printf("SKIP bench=%s impl=nspa reason=SetThreadPriority(TIME_CRITICAL) did not give "
               "SCHED_FIFO (RT scheduling not permitted?)\n", bench);
        return 3;
    }
    unsigned long ops = 0;
    int pmin = 1000, pmax = -1;
    double start = g_first_ns * 1e-9, t1 = start;
    for (int i = 0; i < nthreads; i++) {
        ops += g_rtw[i].ops;
        t1 = g_rtw[i].t_end > t1 ? g_rtw[i].t_end : t1;
        pmin = g_rtw[i].prio < pmin ? g_rtw[i].prio : pmin;
        pmax = g_rtw[i].prio > pmax ? g_rtw[i].prio : pmax;
    }
    if (ops != g_shared)
        fail("mutual exclusion (lost update)");
    char prios[32];
    if (pmin == pmax)
        snprintf(prios, sizeof prios, "%d", pmin);
    else
        snprintf(prios, sizeof prios, "%d-%d", pmin, pmax);
    printf("RESULT bench=%s impl=nspa unit=ops_per_s value=%.6g better=higher threads=%d "
           "ops=%lu policy=FIFO rt_prio=%s start_late_ms=%.2f\n", bench, ops / (t1 - start),
           nthreads, ops, prios, (start - t0) * 1e3);
    fflush(stdout);
    CloseHandle(g_mutex);
    CloseHandle(g_go);
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *b = argc > 1 ? argv[1] : "";
    double ms = argc > 3 ? atof(argv[3]) : 0;
    if (!strcmp(b, "scale") && argc > 2)
        bench_scale(atoi(argv[2]), PAIR_UNNAMED, ms > 0 ? ms / 1000 : 1.0);
    else if (!strcmp(b, "scale_waitall") && argc > 2)
        bench_scale(atoi(argv[2]), PAIR_WAITALL, ms > 0 ? ms / 1000 : 1.0);
    else if (!strcmp(b, "scale_named") && argc > 2)
        bench_scale(atoi(argv[2]), PAIR_NAMED, ms > 0 ? ms / 1000 : 1.0);
    else if (!strcmp(b, "isolation") && argc == 8)
        return bench_isolation(argv + 2);
    else if (!strcmp(b, "iso_child") && argc == 9)
        return iso_child(argv + 2);
    else if (!strcmp(b, "rt_mutex") && argc > 2)
        return bench_rt_mutex(atoi(argv[2]), ms > 0 ? ms / 1000 : 0.5);
    else {
        fprintf(stderr,
                "usage: %s scale|scale_waitall|scale_named K [ms]\n"
                "       %s isolation K ms named(0|1) label nsA nsB\n"
                "       %s rt_mutex N [ms]   (with NSPA_RT_PRIO set)\n",
                argv[0], argv[0], argv[0]);
        return 1;
    }
    return 0;
}
