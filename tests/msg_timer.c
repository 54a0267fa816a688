/* SetTimer/KillTimer: window timers (WM_TIMER to the window, wParam the id), thread
 * timers (hwnd NULL, ids chosen by SetTimer), TIMERPROC callbacks through
 * DispatchMessage (a forged WM_TIMER lParam is not called), coalescing (a timer that
 * expired many times while nobody looked gives one WM_TIMER), posted messages before
 * WM_TIMER, USER_TIMER_MINIMUM, replacing a timer (its pending WM_TIMER goes, the new
 * period counts from the replacement), KillTimer (a pending WM_TIMER goes too), window
 * and thread timers side by side under the window filters, a destroyed window's timers,
 * none early. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static volatile LONG proc_calls;
static UINT_PTR proc_id;
static void CALLBACK tproc(HWND h, UINT m, UINT_PTR id, DWORD t)
{
    if (!h && m == WM_TIMER && id == proc_id) InterlockedIncrement(&proc_calls);
}
static void CALLBACK never(HWND h, UINT m, UINT_PTR id, DWORD t) { InterlockedAdd(&proc_calls, 1000); }

static void drain(void)
{
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {}
}

static double now_ms(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
}

static void test_window_timer(HWND h)
{
    drain();
    double t0 = now_ms();
    CHECK_EQ(SetTimer(h, 7, 20, NULL), 7);
    int n = 0, early = 0, wrong = 0;
    MSG m;
    while (n < 8 && GetMessageW(&m, NULL, 0, 0) > 0) {
        if (m.message != WM_TIMER) continue;
        n++;
        if (m.hwnd != h || m.wParam != 7 || m.lParam != 0) wrong++;
        if (now_ms() - t0 < 20.0 * n - 0.5) early++;
    }
    CHECK_EQ(n, 8);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(early, 0);
    /* coalesced: 150 ms of expiries unseen give one WM_TIMER */
    Sleep(150);
    int got = 0;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE))
        if (m.message == WM_TIMER) got++;
    CHECK_EQ(got, 1);
    /* PM_NOREMOVE leaves it pending */
    Sleep(30);
    CHECK(PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_NOREMOVE));
    CHECK(PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_REMOVE));
    CHECK(!PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_REMOVE));
    /* posted messages come before a due WM_TIMER */
    Sleep(30);
    CHECK(PostMessageW(h, WM_USER, 0, 0));
    CHECK(PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(m.message, WM_USER);
    CHECK(PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    CHECK_EQ(m.message, WM_TIMER);
    CHECK(KillTimer(h, 7));
    SetLastError(0);
    CHECK(!KillTimer(h, 7));
    Sleep(30);
    CHECK(!PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
}

static void test_thread_timer(void)
{
    drain();
    proc_id = SetTimer(NULL, 0, 15, tproc);
    CHECK(proc_id != 0);
    UINT_PTR other = SetTimer(NULL, 0, 1000, NULL);
    CHECK(other != 0 && other != proc_id);
    CHECK_EQ(SetTimer(NULL, other, 2000, NULL), other);   /* its own id: replaced */
    MSG m;
    int n = 0;
    while (n < 3 && GetMessageW(&m, NULL, 0, 0) > 0) {
        CHECK(m.message == WM_TIMER && m.hwnd == NULL && m.wParam == proc_id && m.lParam == (LPARAM)tproc);
        DispatchMessageW(&m);
        n++;
    }
    CHECK_EQ(proc_calls, 3);
    /* a forged lParam is not called */
    MSG f = { NULL, WM_TIMER, proc_id, (LPARAM)never, 0, { 0, 0 } };
    DispatchMessageW(&f);
    CHECK_EQ(proc_calls, 3);
    CHECK(KillTimer(NULL, proc_id));
    CHECK(KillTimer(NULL, other));
    /* USER_TIMER_MINIMUM: 1 ms is 10 ms: the k-th WM_TIMER is not before k * 10 ms */
    drain();
    double t0 = now_ms();
    UINT_PTR id = SetTimer(NULL, 0, 1, NULL);
    n = 0;
    int early = 0;
    while (n < 5 && GetMessageW(&m, NULL, 0, 0) > 0)
        if (m.message == WM_TIMER && m.wParam == id) {
            n++;
            if (now_ms() - t0 < 10.0 * n - 0.5) early++;
        }
    CHECK_EQ(n, 5);
    CHECK_EQ(early, 0);
    KillTimer(NULL, id);
}

static int pending_timers(HWND filter, UINT_PTR id)
{
    MSG m;
    int n = 0;
    while (PeekMessageW(&m, filter, WM_TIMER, WM_TIMER, PM_REMOVE))
        if (m.wParam == id) n++;
    return n;
}

static void test_replace_and_kill_pending(HWND h)
{
    drain();
    /* SetTimer with the id of a timer whose WM_TIMER is pending replaces it: the
     * pending WM_TIMER is gone and the new period runs from now */
    CHECK_EQ(SetTimer(h, 9, 10, NULL), 9);
    Sleep(40);
    MSG m;
    CHECK(PeekMessageW(&m, h, WM_TIMER, WM_TIMER, PM_NOREMOVE) && m.wParam == 9);   /* pending */
    double t0 = now_ms();
    CHECK_EQ(SetTimer(h, 9, 200, NULL), 9);
    CHECK_EQ(pending_timers(h, 9), 0);
    while (GetMessageW(&m, h, WM_TIMER, WM_TIMER) > 0 && m.wParam != 9) {}
    CHECK(now_ms() - t0 >= 200.0 - 0.5);     /* the new period, not the old one */
    /* KillTimer with its WM_TIMER pending: the WM_TIMER goes with it */
    CHECK_EQ(SetTimer(h, 9, 10, NULL), 9);
    Sleep(40);
    CHECK(PeekMessageW(&m, h, WM_TIMER, WM_TIMER, PM_NOREMOVE));
    CHECK(KillTimer(h, 9));
    CHECK_EQ(pending_timers(NULL, 9), 0);
    /* a window timer and a thread timer with the same id are two timers; the filters
     * take each alone: (HWND)-1 the thread's, the window its own */
    UINT_PTR tid_timer = SetTimer(NULL, 0, 10, NULL);
    CHECK(tid_timer != 0);
    CHECK_EQ(SetTimer(h, tid_timer, 10, NULL), tid_timer);
    Sleep(40);
    CHECK(PeekMessageW(&m, (HWND)(LONG_PTR)-1, WM_TIMER, WM_TIMER, PM_REMOVE));
    CHECK(m.hwnd == NULL && m.wParam == tid_timer);
    CHECK(!PeekMessageW(&m, (HWND)(LONG_PTR)-1, WM_TIMER, WM_TIMER, PM_REMOVE));   /* coalesced */
    CHECK(PeekMessageW(&m, h, WM_TIMER, WM_TIMER, PM_REMOVE));
    CHECK(m.hwnd == h && m.wParam == tid_timer);
    CHECK(KillTimer(NULL, tid_timer));
    CHECK(KillTimer(h, tid_timer));
    Sleep(30);
    CHECK(!PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_REMOVE));
}

static HWND other_thread_hwnd;
static DWORD WINAPI other(LPVOID p)
{
    return SetTimer(other_thread_hwnd, 1, 10, NULL) == 0 ? 0 : 1;
}

int main(void)
{
    WNDCLASSW wc = { 0 };
    wc.lpfnWndProc = DefWindowProcW;
    wc.lpszClassName = u"nspa-test-timer";
    CHECK(RegisterClassW(&wc));
    HWND h = CreateWindowExW(0, u"nspa-test-timer", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    CHECK(h != NULL);
    test_window_timer(h);
    test_thread_timer();
    test_replace_and_kill_pending(h);
    /* a window of another thread */
    other_thread_hwnd = h;
    HANDLE t = CreateThread(NULL, 0, other, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    DWORD code = 5;
    GetExitCodeThread(t, &code);
    CHECK_EQ(code, 0);
    CloseHandle(t);
    /* a destroyed window's timers go with it; bad handles */
    CHECK(SetTimer(h, 3, 10, NULL));
    CHECK(DestroyWindow(h));
    Sleep(30);
    MSG m;
    CHECK(!PeekMessageW(&m, NULL, 0, 0, PM_REMOVE));
    SetLastError(0);
    CHECK_EQ(SetTimer(h, 3, 10, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    SetLastError(0);
    CHECK(!KillTimer(h, 3));
    CHECK_EQ(GetLastError(), ERROR_INVALID_WINDOW_HANDLE);
    return nspa_test_done();
}
