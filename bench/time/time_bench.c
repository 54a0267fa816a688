/* nspa-bench time: the Win32 side (built natively against NSPA and with mingw-w64 for
 * stock Wine). Sub-commands, each printing RESULT lines (tools/benchfmt.py):
 *   oneshot <impl> <n>       n one-shot 1 ms waitable timers, set and waited for one after
 *                            the other: wake lateness = wake - (set + 1 ms); p50, p99 (us)
 *   periodic <impl> <s>      a 1 ms periodic waitable timer for s seconds: expiries seen,
 *                            expiries / elapsed periods, lateness p50 / p99 against the
 *                            ideal schedule (expiry i due at start + i ms)
 *   mmperiodic <impl> <s>    the same with timeSetEvent(1, TIME_PERIODIC): lateness of
 *                            each callback, counted in the callback
 *   tp_latency <impl> <n> [gap_us]  thread-pool submit-to-start: SubmitThreadpoolWork at
 *                            t0, the callback reads t1; one at a time. gap_us = 0: the
 *                            next one right after (the worker may still be spinning);
 *                            gap_us > 0: after a pause, so the worker sleeps and is woken
 *   tp_throughput <impl> <n> n tiny work items (an atomic increment) submitted as fast as
 *                            possible, until all ran: items per second
 * The timer benches run in the REALTIME class at TIME_CRITICAL (in NSPA's RT mode:
 * SCHED_FIFO NSPA_RT_PRIO); the pool benches at NORMAL. */
#include <windows.h>
#include <mmsystem.h>

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION   /* older mingw-w64 headers */
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static double now_us(void)
{
    static double us_per_tick;
    LARGE_INTEGER c;
    if (!us_per_tick) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        us_per_tick = 1e6 / (double)f.QuadPart;
    }
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * us_per_tick;
}

static void result(const char *bench, const char *impl, const char *unit, double v, const char *better)
{
    printf("RESULT bench=%s impl=%s unit=%s value=%.6g better=%s\n", bench, impl, unit, v, better);
}

static void enter_rt(void)
{
    SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS);
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL);
}

static LARGE_INTEGER rel_ms(int ms)
{
    LARGE_INTEGER d;
    d.QuadPart = -(LONGLONG)ms * 10000;
    return d;
}

static int oneshot(const char *impl, int n)
{
    enter_rt();
    HANDLE t = CreateWaitableTimerExA(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    if (!t) t = CreateWaitableTimerA(NULL, FALSE, NULL);
    double *v = malloc(sizeof(double) * n);
    LARGE_INTEGER d = rel_ms(1);
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        SetWaitableTimer(t, &d, 0, NULL, NULL, FALSE);
        if (WaitForSingleObject(t, 1000) != WAIT_OBJECT_0) return 1;
        v[i] = now_us() - (t0 + 1000.0);
    }
    result("oneshot_p50", impl, "us", bench_pct(v, n, 50), "lower");
    result("oneshot_p99", impl, "us", bench_pct(v, n, 99), "lower");
    return 0;
}

static double *lat;
static volatile LONG nlat;
static int lat_cap;
static double mm_start;

static void report_periodic(const char *pre, const char *impl, int n, double periods)
{
    char b[64];
    int seen = nlat;
    snprintf(b, sizeof(b), "%s_expiries", pre);
    result(b, impl, "count", seen, "higher");
    snprintf(b, sizeof(b), "%s_seen_ratio", pre);
    result(b, impl, "ratio", seen / periods, "higher");
    int m = seen < lat_cap ? seen : lat_cap;
    int stalls;
    double max;
    bench_stalls(lat, m, &stalls, &max);
    bench_dump_series(pre, impl, lat, m);
    snprintf(b, sizeof(b), "%s_max", pre);
    result(b, impl, "us", max, "lower");
    snprintf(b, sizeof(b), "%s_stalls", pre);
    result(b, impl, "count", stalls, "lower");
    snprintf(b, sizeof(b), "%s_p50", pre);
    result(b, impl, "us", bench_pct(lat, m, 50), "lower");
    snprintf(b, sizeof(b), "%s_p99", pre);
    result(b, impl, "us", bench_pct(lat, m, 99), "lower");
    snprintf(b, sizeof(b), "%s_doubled", pre);
    result(b, impl, "count", seen > periods + 1 ? seen - (periods + 1) : 0, "lower");
}

static int periodic(const char *impl, int secs)
{
    enter_rt();
    HANDLE t = CreateWaitableTimerExA(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    if (!t) t = CreateWaitableTimerA(NULL, FALSE, NULL);
    lat_cap = secs * 1000 + 1000;
    lat = malloc(sizeof(double) * lat_cap);
    LARGE_INTEGER d = rel_ms(1);
    double start = now_us() + 1000.0;
    SetWaitableTimer(t, &d, 1, NULL, NULL, FALSE);
    while (now_us() - start < secs * 1e6) {
        if (WaitForSingleObject(t, 100) != WAIT_OBJECT_0) continue;
        double w = now_us();
        if (nlat < lat_cap) lat[nlat] = w - (start + nlat * 1000.0);
        nlat++;
    }
    double periods = (now_us() - start) / 1000.0;
    CancelWaitableTimer(t);
    report_periodic("periodic", impl, secs * 1000, periods);
    return 0;
}

static void CALLBACK mm_cb(UINT id, UINT msg, DWORD_PTR user, DWORD_PTR a, DWORD_PTR b)
{
    double w = now_us();
    LONG i = nlat;
    if (i < lat_cap) lat[i] = w - (mm_start + i * 1000.0);
    nlat = i + 1;
}

static int mmperiodic(const char *impl, int secs)
{
    enter_rt();
    lat_cap = secs * 1000 + 1000;
    lat = malloc(sizeof(double) * lat_cap);
    timeBeginPeriod(1);
    mm_start = now_us() + 1000.0;
    UINT id = timeSetEvent(1, 0, mm_cb, 0, TIME_PERIODIC | TIME_KILL_SYNCHRONOUS);
    if (!id) return 1;
    Sleep(secs * 1000);
    timeKillEvent(id);
    double periods = (now_us() - mm_start) / 1000.0;
    timeEndPeriod(1);
    report_periodic("mmperiodic", impl, secs * 1000, periods);
    return 0;
}

static volatile double t_start_cb;
static HANDLE done_ev;
static volatile LONG items;

static void CALLBACK lat_cb(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WORK w)
{
    t_start_cb = now_us();
    SetEvent(done_ev);
}

/* gap_us > 0: the worker has gone to sleep before each submission (its spin is over) */
static int tp_latency(const char *impl, int n, int gap_us)
{
    done_ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    PTP_WORK w = CreateThreadpoolWork(lat_cb, NULL, NULL);
    double *v = malloc(sizeof(double) * n);
    for (int i = -10; i < n; i++) {          /* 10 warm-up rounds: a worker exists */
        if (gap_us) {
            double until = now_us() + gap_us;
            Sleep((DWORD)(gap_us / 1000));
            while (now_us() < until) Sleep(0);
        } else {
            Sleep(0);
        }
        double t0 = now_us();
        SubmitThreadpoolWork(w);
        WaitForSingleObject(done_ev, INFINITE);
        if (i >= 0) v[i] = t_start_cb - t0;
    }
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CloseThreadpoolWork(w);
    result(gap_us ? "tp_submit_idle_p50" : "tp_submit_p50", impl, "us", bench_pct(v, n, 50), "lower");
    result(gap_us ? "tp_submit_idle_p99" : "tp_submit_p99", impl, "us", bench_pct(v, n, 99), "lower");
    return 0;
}

static void CALLBACK tiny_cb(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WORK w) { InterlockedIncrement(&items); }

static int tp_throughput(const char *impl, int n)
{
    PTP_WORK w = CreateThreadpoolWork(tiny_cb, NULL, NULL);
    double t0 = now_us();
    for (int i = 0; i < n; i++) SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    double el = now_us() - t0;
    CloseThreadpoolWork(w);
    if (items != n) return 1;
    result("tp_throughput", impl, "items_per_s", n / (el / 1e6), "higher");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s oneshot|periodic|mmperiodic|tp_latency|tp_throughput <impl> <n>\n", argv[0]);
        return 2;
    }
    const char *b = argv[1], *impl = argv[2];
    int n = atoi(argv[3]);
    int r = 2;
    if (!strcmp(b, "oneshot")) r = oneshot(impl, n);
    else if (!strcmp(b, "periodic")) r = periodic(impl, n);
    else if (!strcmp(b, "mmperiodic")) r = mmperiodic(impl, n);
    else if (!strcmp(b, "tp_latency")) r = tp_latency(impl, n, argc > 4 ? atoi(argv[4]) : 0);
    else if (!strcmp(b, "tp_throughput")) r = tp_throughput(impl, n);
    fflush(stdout);
    return r;
}
