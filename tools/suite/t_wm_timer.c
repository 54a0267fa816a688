/* wm-timer <count> <period ms>: a message-only window (HWND_MESSAGE) with SetTimer(period)
 * on a TIME_CRITICAL thread (REALTIME class), <count> WM_TIMER messages through a
 * GetMessage/DispatchMessage loop. The k-th WM_TIMER is due at start + k * period;
 * its lateness is arrival - due. Pass: all <count> arrive (the loop is bounded by a
 * thread timer) and none is early (more than 0.5 ms before its due time). */
#include "suite.h"

#define MAXN 5000
static double late[MAXN];
static int n, early, want;
static double t0, period;

static LRESULT CALLBACK wt_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_TIMER && wp == 1 && n < want) {
        double now = suite_now_us();
        double due = t0 + (n + 1) * period * 1000.0;
        late[n] = (now - due) / 1000.0;
        if (late[n] < -0.5) early++;
        n++;
        return 0;
    }
    return DefWindowProcA(h, m, wp, lp);
}

int t_wm_timer(int argc, char **argv)
{
    want = (int)suite_arg(argc, argv, 1, 100);
    period = (double)suite_arg(argc, argv, 2, 10);
    if (want < 1 || want > MAXN || period < 1) return suite_fail("bad arguments");
    WNDCLASSEXA wc;
    memset(&wc, 0, sizeof(wc));
    wc.cbSize = sizeof(wc);
    wc.lpfnWndProc = wt_proc;
    wc.lpszClassName = "nspa-suite-wm-timer";
    if (!RegisterClassExA(&wc)) return suite_fail("RegisterClassExA: error %lu", (unsigned long)GetLastError());
    HWND h = CreateWindowExA(0, wc.lpszClassName, "wm-timer", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    if (!h) return suite_fail("CreateWindowExA(HWND_MESSAGE): error %lu", (unsigned long)GetLastError());
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    t0 = suite_now_us();
    if (!SetTimer(h, 1, (UINT)period, NULL)) {
        suite_leave_rt();
        return suite_fail("SetTimer: error %lu", (unsigned long)GetLastError());
    }
    /* a GetMessage loop, bounded by a thread timer at 3x the nominal time plus 2 s */
    UINT_PTR guard = SetTimer(NULL, 0, (UINT)(want * period * 3.0 + 2000.0), NULL);
    while (n < want && GetMessageA(&m, NULL, 0, 0) > 0) {
        if (!m.hwnd && m.message == WM_TIMER && m.wParam == guard) break;
        DispatchMessageA(&m);
    }
    KillTimer(NULL, guard);
    double el = (suite_now_us() - t0) / 1000.0;
    KillTimer(h, 1);
    suite_leave_rt();
    DestroyWindow(h);
    UnregisterClassA(wc.lpszClassName, NULL);
    suite_stats s = suite_stat(late, n);
    suite_fig("received", n, "count", "higher", "WM_TIMER received");
    suite_fig("late_p50", s.p50, "ms", "lower", "Lateness p50");
    suite_fig("late_p99", s.p99, "ms", "lower", "Lateness p99");
    suite_fig("late_max", s.max, "ms", "lower", "Lateness max");
    suite_fig("late_min", s.min, "ms", "info", "Lateness min");
    suite_fig("elapsed", el, "ms", "info", "Elapsed");
    suite_samples("lateness", "ms", late, n);
    if (n < want) return suite_fail("%d of %d WM_TIMER in %.0f ms", n, want, el);
    if (early) return suite_fail("%d WM_TIMER early (min lateness %.3f ms)", early, s.min);
    return suite_pass();
}
