/* Waitable timers (issue 16): creation and names, set / cancel / periods, relative and
 * absolute due times, manual wakes all and auto exactly one, WaitForMultipleObjects
 * with an event, completion routines as APCs, a timer closed under its waiter, a
 * cross-process set and cancel of a named timer, and the bad input of the issue. */
#include <windows.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static LARGE_INTEGER rel_ms(int ms)
{
    LARGE_INTEGER d;
    d.QuadPart = -(LONGLONG)ms * 10000;
    return d;
}

static void test_create(void)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-wt-%d", (int)getpid());
    SetLastError(0xdead);
    HANDLE a = CreateWaitableTimerA(NULL, TRUE, name);
    REQUIRE(a != NULL);
    CHECK_EQ(GetLastError(), ERROR_SUCCESS);
    HANDLE b = CreateWaitableTimerExA(NULL, name, 0, TIMER_ALL_ACCESS);
    CHECK(b != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    HANDLE c = OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, name);
    CHECK(c != NULL);
    WCHAR wname[64];
    for (int i = 0; (wname[i] = (WCHAR)name[i]); i++)
        ;
    HANDLE d = OpenWaitableTimerW(TIMER_ALL_ACCESS, FALSE, wname);
    CHECK(d != NULL);
    /* the same object: a set through one is seen through another */
    LARGE_INTEGER due = rel_ms(0);
    CHECK(SetWaitableTimer(c, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(d, 1000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(a, 0), WAIT_OBJECT_0);       /* manual: stays signaled */
    /* a name of another type */
    SetLastError(0);
    CHECK(CreateEventA(NULL, FALSE, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    snprintf(name, sizeof(name), "nspa-wt-ev-%d", (int)getpid());
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, name);
    CHECK(OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    snprintf(name, sizeof(name), "nspa-wt-none-%d", (int)getpid());
    CHECK(OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    /* flags */
    CHECK(CreateWaitableTimerExA(NULL, NULL, 4, TIMER_ALL_ACCESS) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    HANDLE hr = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION |
                                       CREATE_WAITABLE_TIMER_MANUAL_RESET, TIMER_ALL_ACCESS);
    CHECK(hr != NULL);
    CHECK(CloseHandle(hr));
    CloseHandle(ev);
    CloseHandle(a);
    CloseHandle(b);
    CloseHandle(c);
    CloseHandle(d);
}

/* Wine's test_waitable_timer and the timer part of test_temporary_objects: names are
 * case-sensitive (an upper-case copy is another timer, created with ERROR_SUCCESS, not
 * found by Open), Open with a NULL name is ERROR_INVALID_PARAMETER (A and W), and a
 * named timer goes away with its last handle (Open: ERROR_FILE_NOT_FOUND). */
static void test_names_wine(void)
{
    char name[64], upper[64];
    snprintf(name, sizeof(name), "nspa-wt-case-%d: Test WaitableTimer", (int)getpid());
    snprintf(upper, sizeof(upper), "NSPA-WT-CASE-%d: TEST WAITABLETIMER", (int)getpid());
    SetLastError(0xdeadbeef);
    HANDLE h = CreateWaitableTimerA(NULL, FALSE, name);
    REQUIRE(h != NULL);
    CHECK_EQ(GetLastError(), 0);
    SetLastError(0xdeadbeef);
    HANDLE h2 = CreateWaitableTimerA(NULL, FALSE, name);
    CHECK(h2 != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CloseHandle(h2);
    SetLastError(0xdeadbeef);
    h2 = CreateWaitableTimerA(NULL, FALSE, upper);
    CHECK(h2 != NULL);
    CHECK_EQ(GetLastError(), 0);
    CloseHandle(h2);                     /* the last handle: the upper-case one is gone */
    SetLastError(0xdeadbeef);
    h2 = OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, name);
    CHECK(h2 != NULL);
    CloseHandle(h2);
    SetLastError(0xdeadbeef);
    CHECK(OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, upper) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    SetLastError(0xdeadbeef);
    CHECK(OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0xdeadbeef);
    CHECK(OpenWaitableTimerW(TIMER_ALL_ACCESS, FALSE, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CloseHandle(h);
    /* temporary: gone with its last handle */
    SetLastError(0xdeadbeef);
    CHECK(OpenWaitableTimerA(READ_CONTROL, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
}

static void test_bad_input(void)
{
    HANDLE t = CreateWaitableTimerA(NULL, FALSE, NULL);
    LARGE_INTEGER due = rel_ms(10);
    SetLastError(0);
    CHECK(!SetWaitableTimer(t, &due, -1, NULL, NULL, FALSE));       /* negative period */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!SetWaitableTimer(t, NULL, 0, NULL, NULL, FALSE));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    CHECK(!SetWaitableTimer((HANDLE)(uintptr_t)0x7ffc, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK(!SetWaitableTimer(ev, &due, 0, NULL, NULL, FALSE));      /* not a timer */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!CancelWaitableTimer(ev));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* an absurd period (LONG max, ~24.8 days) is a valid one; nothing fires meanwhile */
    CHECK(SetWaitableTimer(t, &due, 0x7fffffff, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(t, 1000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(t, 50), WAIT_TIMEOUT);
    /* a due time in the past (absolute 1601, and 1 s ago) fires at once */
    LARGE_INTEGER past;
    past.QuadPart = 0;
    double t0 = w32t_now_ms();
    CHECK(SetWaitableTimer(t, &past, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(t, 1000), WAIT_OBJECT_0);
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    past.QuadPart = (LONGLONG)(((ULONGLONG)ft.dwHighDateTime << 32 | ft.dwLowDateTime) - 10000000);
    CHECK(SetWaitableTimer(t, &past, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(t, 1000), WAIT_OBJECT_0);
    CHECK(w32t_now_ms() - t0 < 500);
    /* fResume: accepted, succeeds with ERROR_NOT_SUPPORTED as on machines without it */
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, TRUE));
    CHECK_EQ(GetLastError(), ERROR_NOT_SUPPORTED);
    CHECK(CancelWaitableTimer(t));
    CHECK(CancelWaitableTimer(t));                 /* cancelling an idle timer is fine */
    CloseHandle(ev);
    CloseHandle(t);
}

static void test_states(void)
{
    HANDLE m = CreateWaitableTimerA(NULL, TRUE, NULL);
    LARGE_INTEGER due = rel_ms(20);
    double t0 = w32t_now_ms();
    CHECK(SetWaitableTimer(m, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(m, 2000), WAIT_OBJECT_0);
    double el = w32t_now_ms() - t0;
    CHECK(el >= 19.9);                               /* never early */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    /* cancel leaves the state alone; set makes it unsignaled */
    CHECK(CancelWaitableTimer(m));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    due = rel_ms(100000);
    CHECK(SetWaitableTimer(m, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_TIMEOUT);
    /* a re-set replaces the earlier due time */
    due = rel_ms(10);
    CHECK(SetWaitableTimer(m, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(m, 2000), WAIT_OBJECT_0);
    CloseHandle(m);

    /* periodic: auto-reset, 10 ms for ~205 ms, seen about 20 times, never more */
    HANDLE p = CreateWaitableTimerA(NULL, FALSE, NULL);
    due = rel_ms(10);
    CHECK(SetWaitableTimer(p, &due, 10, NULL, NULL, FALSE));
    int n = 0;
    t0 = w32t_now_ms();
    while (w32t_now_ms() - t0 < 205)
        if (WaitForSingleObject(p, 30) == WAIT_OBJECT_0) n++;
    CHECK(CancelWaitableTimer(p));
    /* late under load is fine; more than the periods elapsed is a doubled expiry */
    int most = (int)((w32t_now_ms() - t0) / 10) + 1;
    CHECK(n >= 2 && n <= most);        /* an auto timer's unconsumed expiries coalesce */
    if (n < 2 || n > most) fprintf(stderr, "periodic: %d expiries\n", n);
    WaitForSingleObject(p, 0);          /* an expiry just before the cancel stays signaled */
    CHECK_EQ(WaitForSingleObject(p, 40), WAIT_TIMEOUT);      /* cancelled for good */

    /* with an event in WaitForMultipleObjects (any), and wait-all */
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE hs[2] = { ev, p };
    due = rel_ms(15);
    CHECK(SetWaitableTimer(p, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 2000), WAIT_OBJECT_0 + 1);
    CHECK(SetWaitableTimer(p, &due, 0, NULL, NULL, FALSE));
    SetEvent(ev);
    CHECK_EQ(WaitForMultipleObjects(2, hs, TRUE, 2000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(p, 0), WAIT_TIMEOUT);   /* the wait-all took the auto timer */
    CloseHandle(ev);
    CloseHandle(p);
}

static HANDLE g_t;
static volatile LONG g_woken;
static DWORD WINAPI waiter(LPVOID arg)
{
    if (WaitForSingleObject(g_t, (DWORD)(uintptr_t)arg) == WAIT_OBJECT_0) InterlockedIncrement(&g_woken);
    return 0;
}

static int wake_count(BOOL manual, int nthreads, int close_first)
{
    g_t = CreateWaitableTimerA(NULL, manual, NULL);
    g_woken = 0;
    HANDLE th[4];
    DWORD tid[4];
    for (int i = 0; i < nthreads; i++) th[i] = CreateThread(NULL, 0, waiter, (LPVOID)(uintptr_t)500, 0, &tid[i]);
    for (int i = 0; i < nthreads; i++) w32t_wait_blocked(tid[i]);
    LARGE_INTEGER due = rel_ms(20);
    SetWaitableTimer(g_t, &due, 0, NULL, NULL, FALSE);
    if (close_first) CloseHandle(g_t);       /* the waits hold the object; it still fires */
    for (int i = 0; i < nthreads; i++) {
        WaitForSingleObject(th[i], 5000);
        CloseHandle(th[i]);
    }
    if (!close_first) CloseHandle(g_t);
    return g_woken;
}

static void test_wakes(void)
{
    CHECK_EQ(wake_count(TRUE, 3, 0), 3);
    CHECK_EQ(wake_count(FALSE, 3, 0), 1);
    CHECK_EQ(wake_count(TRUE, 2, 1), 2);
}

static volatile LONG apc_calls;
static DWORD apc_low, apc_high;
static void CALLBACK timer_apc(LPVOID arg, DWORD low, DWORD high)
{
    CHECK(arg == (LPVOID)0x1234);
    apc_low = low;
    apc_high = high;
    InterlockedIncrement(&apc_calls);
}

static void test_completion_routine(void)
{
    HANDLE t = CreateWaitableTimerA(NULL, FALSE, NULL);
    LARGE_INTEGER due = rel_ms(10);
    FILETIME before;
    GetSystemTimePreciseAsFileTime(&before);
    CHECK(SetWaitableTimer(t, &due, 0, timer_apc, (LPVOID)0x1234, FALSE));
    CHECK_EQ(SleepEx(2000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(apc_calls, 1);
    ULONGLONG b = (ULONGLONG)before.dwHighDateTime << 32 | before.dwLowDateTime;
    ULONGLONG f = (ULONGLONG)apc_high << 32 | apc_low;
    CHECK(f >= b && f - b < 10000000);                 /* the expiry's UTC time */
    CHECK_EQ(WaitForSingleObject(t, 0), WAIT_OBJECT_0); /* and the timer was signaled */
    /* periodic with a routine: one APC per expiry */
    apc_calls = 0;
    CHECK(SetWaitableTimer(t, &due, 5, timer_apc, (LPVOID)0x1234, FALSE));
    double t0 = w32t_now_ms();
    while (w32t_now_ms() - t0 < 100) SleepEx(50, TRUE);
    CHECK(CancelWaitableTimer(t));
    int most = (int)((w32t_now_ms() - t0) / 5) + 1;
    SleepEx(0, TRUE);
    LONG n = apc_calls;
    CHECK(n >= 2 && n <= most);
    Sleep(30);
    CHECK_EQ(SleepEx(0, TRUE), 0);                   /* nothing after the cancel */
    CloseHandle(t);
}

/* named, in another process: the child waits for the parent's set; the child's cancel
 * supersedes a set of the parent */
static void test_cross_process(void)
{
    char name[64], evname[64], goname[64];
    snprintf(name, sizeof(name), "nspa-wt-x-%d", (int)getpid());
    snprintf(evname, sizeof(evname), "nspa-wt-xe-%d", (int)getpid());
    snprintf(goname, sizeof(goname), "nspa-wt-xg-%d", (int)getpid());
    HANDLE t = CreateWaitableTimerA(NULL, TRUE, name);
    /* one event each way: an auto-reset event used both ways can be taken back by its
     * own setter on a loaded machine */
    HANDLE ready = CreateEventA(NULL, FALSE, FALSE, evname);     /* child -> parent */
    HANDLE go = CreateEventA(NULL, FALSE, FALSE, goname);        /* parent -> child */
    pid_t pid = fork();
    if (pid == 0) {
        HANDLE c = OpenWaitableTimerA(TIMER_ALL_ACCESS, FALSE, name);
        HANDLE r = OpenEventA(EVENT_ALL_ACCESS, FALSE, evname);
        HANDLE g = OpenEventA(EVENT_ALL_ACCESS, FALSE, goname);
        if (!c || !r || !g) _exit(2);
        SetEvent(r);
        if (WaitForSingleObject(c, 5000) != WAIT_OBJECT_0) _exit(3);
        SetEvent(r);
        /* 2: cancel what the parent set */
        if (WaitForSingleObject(g, 5000) != WAIT_OBJECT_0) _exit(4);
        if (!CancelWaitableTimer(c)) _exit(5);
        SetEvent(r);
        _exit(0);
    }
    CHECK_EQ(WaitForSingleObject(ready, 5000), WAIT_OBJECT_0);
    LARGE_INTEGER due = rel_ms(20);
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(ready, 5000), WAIT_OBJECT_0);   /* the child was woken */
    due = rel_ms(300);
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));
    SetEvent(go);
    CHECK_EQ(WaitForSingleObject(ready, 5000), WAIT_OBJECT_0);   /* the child cancelled */
    CHECK_EQ(WaitForSingleObject(t, 500), WAIT_TIMEOUT);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CloseHandle(go);
    CloseHandle(ready);
    CloseHandle(t);
}

static void test_churn(void)
{
    for (int i = 0; i < 300; i++) {
        HANDLE c = CreateWaitableTimerA(NULL, i & 1, NULL);
        LARGE_INTEGER due = rel_ms(i % 3);
        CHECK(SetWaitableTimer(c, &due, i % 4, NULL, NULL, FALSE));
        if (i % 5 == 0) CHECK_EQ(WaitForSingleObject(c, 1000), WAIT_OBJECT_0);
        if (i % 2) CancelWaitableTimer(c);
        CloseHandle(c);                  /* a periodic one left armed ends by itself */
    }
}

int main(void)
{
    test_create();
    test_names_wine();
    test_bad_input();
    test_states();
    test_wakes();
    test_completion_routine();
    test_cross_process();
    test_churn();
    return nspa_test_done();
}
