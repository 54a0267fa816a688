/* nt-timer: the seed project's waitable-timer test. REALTIME class, TIME_CRITICAL
 * thread; seven sub-tests, PASS when all seven pass:
 *   1 a 50 ms relative timer fires within 30-200 ms
 *   2 set 200 ms, cancel after 20 ms: a 300 ms wait times out
 *   3 a 25 ms periodic timer fires 7-12 times in 250 ms of 50 ms waits
 *   4 a manual-reset timer wakes both of two waiters
 *   5 an auto-reset timer wakes exactly one of two waiters
 *   6 100 set / cancel / close cycles without a hang
 *   7 an absolute due time now + 50 ms fires within 30-200 ms
 *
 * timer-latency <s>: a 1 ms periodic waitable timer for <s> seconds; the lateness of
 * every wake against the ideal schedule (expiry i due at start + i ms), as a
 * distribution. Pass: no more wakes than periods elapsed (no expiry doubled) and at
 * least half of the periods seen (the timer keeps going; a waiter that is not real-time
 * on a loaded machine misses expiries, which an auto-reset timer coalesces). The figures
 * are the measurement. */
#include "suite.h"

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION   /* older mingw-w64 headers */
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

static LARGE_INTEGER rel_ms(int ms)
{
    LARGE_INTEGER d;
    d.QuadPart = -(LONGLONG)ms * 10000;
    return d;
}

static HANDLE nt_timer;
static volatile LONG nt_woken;

static DWORD WINAPI nt_waiter(LPVOID arg)
{
    if (WaitForSingleObject(nt_timer, 400) == WAIT_OBJECT_0) InterlockedIncrement(&nt_woken);
    return 0;
}

static int two_waiters(BOOL manual)
{
    nt_timer = CreateWaitableTimerA(NULL, manual, NULL);
    nt_woken = 0;
    HANDLE a = suite_thread(nt_waiter, NULL, THREAD_PRIORITY_HIGHEST);
    HANDLE b = suite_thread(nt_waiter, NULL, THREAD_PRIORITY_HIGHEST);
    Sleep(20);                       /* both are waiting */
    LARGE_INTEGER d = rel_ms(30);
    SetWaitableTimer(nt_timer, &d, 0, NULL, NULL, FALSE);
    suite_join(a);
    suite_join(b);
    CloseHandle(nt_timer);
    return nt_woken;
}

int t_nt_timer(int argc, char **argv)
{
    int ok = 0;
    char why[256] = "";
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);

    /* 1: relative 50 ms */
    HANDLE t = CreateWaitableTimerA(NULL, FALSE, NULL);
    LARGE_INTEGER d = rel_ms(50);
    double t0 = suite_now_us();
    SetWaitableTimer(t, &d, 0, NULL, NULL, FALSE);
    DWORD w = WaitForSingleObject(t, 1000);
    double el = (suite_now_us() - t0) / 1000;
    int p1 = w == WAIT_OBJECT_0 && el >= 30 && el <= 200;
    suite_fig("t1_ms", el, "ms", "info", "1: 50 ms relative timer fired after");
    if (p1) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 1(%.1f ms, %lu)", el, (unsigned long)w);

    /* 2: cancel */
    d = rel_ms(200);
    SetWaitableTimer(t, &d, 0, NULL, NULL, FALSE);
    Sleep(20);
    CancelWaitableTimer(t);
    w = WaitForSingleObject(t, 300);
    if (w == WAIT_TIMEOUT) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 2(%lu)", (unsigned long)w);

    /* 3: periodic 25 ms, 250 ms of 50 ms waits */
    d = rel_ms(25);
    SetWaitableTimer(t, &d, 25, NULL, NULL, FALSE);
    int fires = 0;
    t0 = suite_now_us();
    while (suite_now_us() - t0 < 250000)
        if (WaitForSingleObject(t, 50) == WAIT_OBJECT_0) fires++;
    CancelWaitableTimer(t);
    suite_fig("t3_fires", fires, "count", "info", "3: 25 ms periodic, expiries seen in 250 ms");
    if (fires >= 7 && fires <= 12) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 3(%d)", fires);
    CloseHandle(t);

    /* 4, 5: two waiters */
    int m = two_waiters(TRUE);
    if (m == 2) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 4(%d woken)", m);
    int a = two_waiters(FALSE);
    if (a == 1) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 5(%d woken)", a);

    /* 6: churn */
    t0 = suite_now_us();
    int cyc = 0;
    for (; cyc < 100; cyc++) {
        HANDLE c = CreateWaitableTimerA(NULL, cyc & 1, NULL);
        if (!c) break;
        d = rel_ms(1 + cyc % 3);
        SetWaitableTimer(c, &d, cyc % 5, NULL, NULL, FALSE);
        if (cyc % 3 == 0) WaitForSingleObject(c, 10);
        CancelWaitableTimer(c);
        CloseHandle(c);
    }
    el = (suite_now_us() - t0) / 1000;
    if (cyc == 100 && el < 5000) ok++; else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 6(%d cycles, %.0f ms)", cyc, el);

    /* 7: absolute now + 50 ms */
    t = CreateWaitableTimerA(NULL, FALSE, NULL);
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    d.QuadPart = (LONGLONG)(((ULONGLONG)ft.dwHighDateTime << 32 | ft.dwLowDateTime) + 500000);
    t0 = suite_now_us();
    SetWaitableTimer(t, &d, 0, NULL, NULL, FALSE);
    w = WaitForSingleObject(t, 1000);
    el = (suite_now_us() - t0) / 1000;
    suite_fig("t7_ms", el, "ms", "info", "7: absolute now + 50 ms fired after");
    if (w == WAIT_OBJECT_0 && el >= 30 && el <= 200) ok++;
    else snprintf(why + strlen(why), sizeof(why) - strlen(why), " 7(%.1f ms, %lu)", el, (unsigned long)w);
    CloseHandle(t);

    suite_fig("subtests", ok, "of 7", "higher", "Sub-tests passed");
    if (ok != 7) return suite_fail("%d/7 passed; failed:%s", ok, why);
    return suite_pass();
}

#define LAT_MAX 600000
static double lat[LAT_MAX];

int t_timer_latency(int argc, char **argv)
{
    int secs = (int)suite_arg(argc, argv, 1, 10);
    if (secs < 1 || secs * 1000 > LAT_MAX) return suite_fail("bad arguments");
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE t = CreateWaitableTimerExA(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    if (!t) t = CreateWaitableTimerA(NULL, FALSE, NULL);   /* before Windows 10 1803 */
    LARGE_INTEGER d = rel_ms(1);
    int n = secs * 1000, seen = 0;
    double start = suite_now_us() + 1000;          /* the first due time */
    SetWaitableTimer(t, &d, 1, NULL, NULL, FALSE);
    /* expiry i is due at start + i ms; an auto-reset timer is seen once per expiry,
     * so more wakes than elapsed periods would be a doubled expiry */
    while (suite_now_us() - start < n * 1000.0) {
        if (WaitForSingleObject(t, 100) != WAIT_OBJECT_0) continue;
        double now = suite_now_us();
        if (seen < LAT_MAX) lat[seen] = now - (start + seen * 1000.0);
        seen++;
    }
    double periods = (suite_now_us() - start) / 1000.0 + 1;
    int doubled = seen > periods;
    CancelWaitableTimer(t);
    CloseHandle(t);
    suite_stats s = suite_stat(lat, seen);
    suite_fig("expiries", seen, "count", "higher", "Expiries seen");
    suite_fig("expected", n, "count", "info", "Periods");
    suite_fig("late_p50", s.p50, "us", "lower", "Lateness p50");
    suite_fig("late_p99", s.p99, "us", "lower", "Lateness p99");
    suite_fig("late_max", s.max, "us", "lower", "Lateness max");
    suite_samples("lateness", "us", lat, seen);
    if (seen < n / 2 || doubled) return suite_fail("%d wakes for %d periods (%.0f elapsed)", seen, n, periods);
    return suite_pass();
}
