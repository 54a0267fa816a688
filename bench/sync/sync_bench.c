/* nspa-bench sync: the Win32 side.
 *
 * One plain Win32 C source, built three ways by bench/sync.cmake and bench/sync/run.sh:
 *   - natively against NSPA's <windows.h> (impl "nspa"),
 *   - with x86_64-w64-mingw32-gcc into a .exe that stock Wine 8 runs (impl "wine"),
 *   - natively against FreeRDP's WinPR headers with -DNSPA_BENCH_WINPR (impl "winpr").
 * Only documented Win32 calls do the measured work: CreateEvent, SetEvent, ResetEvent,
 * WaitForSingleObject, WaitForMultipleObjects, CreateMutex, ReleaseMutex, CreateSemaphore,
 * ReleaseSemaphore, CreateThread, CloseHandle, Sleep; QueryPerformanceCounter/Frequency
 * times it (WinPR has no QueryPerformanceCounter, so that build reads CLOCK_MONOTONIC).
 *
 * Usage: sync_bench <bench> <impl> [arg]
 *   pingpong       [ms=1000]     two threads, two auto-reset events, SetEvent + wait each
 *                                way: microseconds per round trip
 *   zigzag         [ms=2000]     two threads bounce two auto-reset events for 2 s while the
 *                                main thread sleeps: round trips completed (per 2 s)
 *   mutex          [ms=1000]     two threads take and release one mutex as fast as they
 *                                can: acquisitions per second (both threads together)
 *   contended_wait [n=10000000 [cap_ms=4000]]
 *                                msync's "contended wait": two threads, n acquisitions in
 *                                all (n/2 each); wall time, scaled to 10M acquisitions when
 *                                fewer were made (n smaller, or the run stopped at cap_ms);
 *                                the line carries iters= and scaled_to=/capped=
 *   waitall        [ms=1000]     a releaser thread posts 4 semaphores, the main thread's
 *                                WaitForMultipleObjects(bWaitAll=TRUE) takes all 4 and acks
 *                                with an event: microseconds per wait-all round
 *   triple         [ms=1000]     uncontended SetEvent + WaitForSingleObject(0) + ResetEvent
 *                                on a manual-reset event: nanoseconds per triple
 *   triple_n       n             exactly n triples and nothing else (no clock reads, no
 *                                output but one DONE line): run under strace -c to count
 *                                the system calls of the triple
 * Every measuring sub-command prints one line
 *   RESULT bench=<bench> impl=<impl> unit=<unit> value=<v> better=lower|higher
 * and exits 0; any failed call prints an ERROR line and exits 2.
 */
#ifdef NSPA_BENCH_WINPR
#include <winpr/wtypes.h>
#include <winpr/synch.h>
#include <winpr/thread.h>
#include <winpr/handle.h>
#include <winpr/error.h>
#include <time.h>
#else
#include <windows.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *g_bench = "?", *g_impl = "?";

#include "bench_check.h"

/* ---- clock ------------------------------------------------------------------------ */
#ifdef NSPA_BENCH_WINPR
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
#else
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
#endif

static void result(const char *unit, double value, const char *better, const char *extra)
{
    printf("RESULT bench=%s impl=%s unit=%s value=%.6g better=%s%s%s\n", g_bench, g_impl,
           unit, value, better, extra ? " " : "", extra ? extra : "");
    fflush(stdout);
}

/* Written by the timing thread, read by the workers after each wake. The sync calls
 * around every read are full barriers on all three implementations. */
static volatile LONG g_stop;

static HANDLE new_event(BOOL manual, BOOL initial)
{
#ifdef NSPA_BENCH_WINPR
    manual = TRUE;   /* WinPR 2.x: "auto-reset events not yet implemented"; see consume() */
#endif
    HANDLE h = CreateEventA(NULL, manual, initial, NULL);
    CHECK_HANDLE(h, "CreateEvent");
    return h;
}

/* Wait on an auto-reset event. WinPR 2.x has no auto-reset events (CreateEvent logs
 * "auto-reset events not yet implemented" and hands out a manual-reset one), so its
 * build takes the signal by hand with ResetEvent after the wait. Every auto-reset event
 * here is set by one thread and waited on by one other in strict alternation, so the
 * hand reset is exact (nobody can set it between the wake and the reset). */
static void wait_auto(HANDLE e, const char *call)
{
    CHECK_WAIT(WaitForSingleObject(e, INFINITE), WAIT_OBJECT_0, call);
#ifdef NSPA_BENCH_WINPR
    CHECK_BOOL(ResetEvent(e), "ResetEvent(auto-reset emulation)");
#endif
}

/* ---- event ping-pong -------------------------------------------------------------- */
static HANDLE g_ev_a, g_ev_b;

static DWORD WINAPI pingpong_partner(LPVOID arg)
{
    (void)arg;
    for (;;) {
        wait_auto(g_ev_a, "WaitForSingleObject");
        /* read the flag the main thread wrote before this SetEvent(a), not a later one */
        LONG last = g_stop;
        CHECK_BOOL(SetEvent(g_ev_b), "SetEvent");
        if (last)
            break;
    }
    return 0;
}

static void bench_pingpong(double secs)
{
    g_ev_a = new_event(FALSE, FALSE);
    g_ev_b = new_event(FALSE, FALSE);
    HANDLE t = new_thread(pingpong_partner, NULL);
    /* warm-up: both threads running, first wake paths taken */
    unsigned long n = 0;
    for (int i = 0; i < 16; i++) {
        CHECK_BOOL(SetEvent(g_ev_a), "SetEvent");
        wait_auto(g_ev_b, "WaitForSingleObject");
    }
    double t0 = now_s(), t1 = t0;
    for (;;) {
        if ((n & 15) == 0 && (t1 = now_s()) - t0 >= secs)
            g_stop = 1;
        CHECK_BOOL(SetEvent(g_ev_a), "SetEvent");
        wait_auto(g_ev_b, "WaitForSingleObject");
        n++;
        if (g_stop)
            break;
    }
    t1 = now_s();
    join(t);
    char extra[64];
    snprintf(extra, sizeof extra, "iters=%lu", n);
    result("us", (t1 - t0) * 1e6 / n, "lower", extra);
    CloseHandle(g_ev_a);
    CloseHandle(g_ev_b);
}

/* ---- zigzag ----------------------------------------------------------------------- */
static volatile unsigned long g_zigzag_count;

static DWORD WINAPI zigzag_x(LPVOID arg)
{
    (void)arg;
    for (;;) {
        wait_auto(g_ev_a, "WaitForSingleObject");
        if (g_stop)
            break;
        g_zigzag_count++;
        CHECK_BOOL(SetEvent(g_ev_b), "SetEvent");
    }
    return 0;
}

static DWORD WINAPI zigzag_y(LPVOID arg)
{
    (void)arg;
    for (;;) {
        wait_auto(g_ev_b, "WaitForSingleObject");
        if (g_stop)
            break;
        CHECK_BOOL(SetEvent(g_ev_a), "SetEvent");
    }
    return 0;
}

static void bench_zigzag(double secs)
{
    g_ev_a = new_event(FALSE, FALSE);
    g_ev_b = new_event(FALSE, FALSE);
    HANDLE x = new_thread(zigzag_x, NULL), y = new_thread(zigzag_y, NULL);
    double t0 = now_s();
    CHECK_BOOL(SetEvent(g_ev_a), "SetEvent");
    Sleep((DWORD)(secs * 1000));
    g_stop = 1;
    unsigned long n = g_zigzag_count;
    double t1 = now_s();
    CHECK_BOOL(SetEvent(g_ev_a), "SetEvent");
    CHECK_BOOL(SetEvent(g_ev_b), "SetEvent");
    join(x);
    join(y);
    char extra[96];
    snprintf(extra, sizeof extra, "round_trips=%lu secs=%.3f", n, t1 - t0);
    /* msync reports the count of a 2 s run; normalise to exactly 2 s of wall time */
    result("round_trips_per_2s", n * 2.0 / (t1 - t0), "higher", extra);
    CloseHandle(g_ev_a);
    CloseHandle(g_ev_b);
}

/* ---- contended mutex -------------------------------------------------------------- */
static HANDLE g_mutex, g_go;
static volatile unsigned long g_shared;   /* touched only under the mutex */

struct mutex_worker { unsigned long ops, quota; };

static DWORD WINAPI mutex_worker_timed(LPVOID arg)
{
    struct mutex_worker *w = arg;
    CHECK_WAIT(WaitForSingleObject(g_go, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(go)");
    while (!g_stop) {
        for (int k = 0; k < 16; k++) {
            CHECK_WAIT(WaitForSingleObject(g_mutex, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(mutex)");
            g_shared++;
            CHECK_BOOL(ReleaseMutex(g_mutex), "ReleaseMutex");
        }
        w->ops += 16;
    }
    return 0;
}

static DWORD WINAPI mutex_worker_count(LPVOID arg)
{
    struct mutex_worker *w = arg;
    CHECK_WAIT(WaitForSingleObject(g_go, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(go)");
    unsigned long i;
    for (i = 0; i < w->quota; i++) {
        if ((i & 255) == 0 && g_stop)   /* the wall-time cap (see bench_contended_wait) */
            break;
        CHECK_WAIT(WaitForSingleObject(g_mutex, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(mutex)");
        g_shared++;
        CHECK_BOOL(ReleaseMutex(g_mutex), "ReleaseMutex");
    }
    w->ops = i;
    return 0;
}

static void bench_mutex(double secs)
{
    g_mutex = CreateMutexA(NULL, FALSE, NULL);
    CHECK_HANDLE(g_mutex, "CreateMutex");
    g_go = new_event(TRUE, FALSE);
    struct mutex_worker w[2] = {{0, 0}, {0, 0}};
    HANDLE t[2] = {new_thread(mutex_worker_timed, &w[0]), new_thread(mutex_worker_timed, &w[1])};
    Sleep(10);
    double t0 = now_s();
    CHECK_BOOL(SetEvent(g_go), "SetEvent(go)");
    Sleep((DWORD)(secs * 1000));
    g_stop = 1;
    join(t[0]);
    join(t[1]);
    double t1 = now_s();
    unsigned long ops = w[0].ops + w[1].ops;
    if (g_shared != ops)
        fail("mutual exclusion (lost update)");
    char extra[96];
    snprintf(extra, sizeof extra, "ops=%lu per_thread=%lu/%lu", ops, w[0].ops, w[1].ops);
    result("ops_per_s", ops / (t1 - t0), "higher", extra);
    CloseHandle(g_mutex);
    CloseHandle(g_go);
}

/* n acquisitions over two threads (n/2 each), wall time from the go signal until both
 * are done. A run that would exceed cap_s (a loaded machine, Wine) is stopped there and
 * the time scaled to 10M from the acquisitions actually made; the line says so. */
static void bench_contended_wait(unsigned long n, double cap_s)
{
    g_mutex = CreateMutexA(NULL, FALSE, NULL);
    CHECK_HANDLE(g_mutex, "CreateMutex");
    g_go = new_event(TRUE, FALSE);
    struct mutex_worker w[2] = {{0, n / 2}, {0, n - n / 2}};
    HANDLE t[2] = {new_thread(mutex_worker_count, &w[0]), new_thread(mutex_worker_count, &w[1])};
    Sleep(10);
    double t0 = now_s();
    CHECK_BOOL(SetEvent(g_go), "SetEvent(go)");
    for (int i = 0; i < 2 && !g_stop; i++) {
        double left = cap_s - (now_s() - t0);
        DWORD r = WaitForSingleObject(t[i], left > 0 ? (DWORD)(left * 1000) : 0);
        if (r == WAIT_TIMEOUT)
            g_stop = 1;
        else
            CHECK_WAIT(r, WAIT_OBJECT_0, "WaitForSingleObject(thread)");
    }
    join(t[0]);
    join(t[1]);
    double t1 = now_s();
    unsigned long done = w[0].ops + w[1].ops;
    if (g_shared != done || !done)
        fail("mutual exclusion (lost update)");
    char extra[128];
    snprintf(extra, sizeof extra, "iters=%lu measured_s=%.4f%s%s", done, t1 - t0,
             done < 10000000ul ? " scaled_to=10000000" : "", done < n ? " capped=1" : "");
    result("s_per_10M", (t1 - t0) * (10000000.0 / done), "lower", extra);
    CloseHandle(g_mutex);
    CloseHandle(g_go);
}

/* ---- wait-all over 4 semaphores --------------------------------------------------- */
static HANDLE g_sems[4], g_ack;

static DWORD WINAPI waitall_releaser(LPVOID arg)
{
    (void)arg;
    for (;;) {
        for (int i = 0; i < 4; i++)
            CHECK_BOOL(ReleaseSemaphore(g_sems[i], 1, NULL), "ReleaseSemaphore");
        wait_auto(g_ack, "WaitForSingleObject(ack)");
        if (g_stop)
            break;
    }
    return 0;
}

static void bench_waitall(double secs)
{
    for (int i = 0; i < 4; i++) {
        g_sems[i] = CreateSemaphoreA(NULL, 0, 1, NULL);
        CHECK_HANDLE(g_sems[i], "CreateSemaphore");
    }
    g_ack = new_event(FALSE, FALSE);
    HANDLE t = new_thread(waitall_releaser, NULL);
    unsigned long n = 0;
    double t0 = now_s(), t1;
    for (;;) {
        CHECK_WAIT(WaitForMultipleObjects(4, g_sems, TRUE, INFINITE), WAIT_OBJECT_0,
                   "WaitForMultipleObjects(all)");
        n++;
        if ((n & 15) == 0 && now_s() - t0 >= secs)
            g_stop = 1;
        CHECK_BOOL(SetEvent(g_ack), "SetEvent(ack)");
        if (g_stop)
            break;
    }
    t1 = now_s();
    join(t);
    /* every semaphore was taken exactly once per round: all must be back at 0 */
    for (int i = 0; i < 4; i++)
        CHECK_WAIT(WaitForSingleObject(g_sems[i], 0), WAIT_TIMEOUT, "semaphore count after run");
    char extra[64];
    snprintf(extra, sizeof extra, "iters=%lu", n);
    result("us", (t1 - t0) * 1e6 / n, "lower", extra);
    for (int i = 0; i < 4; i++)
        CloseHandle(g_sems[i]);
    CloseHandle(g_ack);
}

/* ---- SetEvent + zero-time wait + ResetEvent, uncontended -------------------------- */
static inline void one_triple(HANDLE e)
{
    CHECK_BOOL(SetEvent(e), "SetEvent");
    CHECK_WAIT(WaitForSingleObject(e, 0), WAIT_OBJECT_0, "WaitForSingleObject(0)");
    CHECK_BOOL(ResetEvent(e), "ResetEvent");
}

static void bench_triple(double secs)
{
    HANDLE e = new_event(TRUE, FALSE);
    for (int i = 0; i < 64; i++)
        one_triple(e);
    unsigned long n = 0;
    double t0 = now_s(), t1;
    do {
        for (int i = 0; i < 256; i++)
            one_triple(e);
        n += 256;
    } while ((t1 = now_s()) - t0 < secs);
    CHECK_WAIT(WaitForSingleObject(e, 0), WAIT_TIMEOUT, "event state after run");
    char extra[64];
    snprintf(extra, sizeof extra, "iters=%lu", n);
    result("ns", (t1 - t0) * 1e9 / n, "lower", extra);
    CloseHandle(e);
}

static void bench_triple_n(unsigned long n)
{
    HANDLE e = new_event(TRUE, FALSE);
    for (unsigned long i = 0; i < n; i++)
        one_triple(e);
    CloseHandle(e);
    printf("DONE bench=triple_n impl=%s n=%lu\n", g_impl, n);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s pingpong|zigzag|mutex|contended_wait|waitall|triple|triple_n"
                        " <impl> [ms|n]\n", argv[0]);
        return 1;
    }
    g_bench = argv[1];
    g_impl = argv[2];
    double arg = argc > 3 ? atof(argv[3]) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(g_bench, "pingpong"))
        bench_pingpong(arg > 0 ? arg / 1000 : 1.0);
    else if (!strcmp(g_bench, "zigzag"))
        bench_zigzag(arg > 0 ? arg / 1000 : 2.0);
    else if (!strcmp(g_bench, "mutex"))
        bench_mutex(arg > 0 ? arg / 1000 : 1.0);
    else if (!strcmp(g_bench, "contended_wait"))
        bench_contended_wait(arg >= 2 ? (unsigned long)arg : 10000000ul,
                             argc > 4 && atof(argv[4]) > 0 ? atof(argv[4]) / 1000 : 4.0);
    else if (!strcmp(g_bench, "waitall"))
        bench_waitall(arg > 0 ? arg / 1000 : 1.0);
    else if (!strcmp(g_bench, "triple"))
        bench_triple(arg > 0 ? arg / 1000 : 1.0);
    else if (!strcmp(g_bench, "triple_n"))
        bench_triple_n((unsigned long)arg);
    else {
        fprintf(stderr, "unknown bench %s\n", g_bench);
        return 1;
    }
    return 0;
}
