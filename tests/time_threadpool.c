/* Thread pools (issue 16): work objects, cancel, workers made on demand up to the
 * maximum and retiring when idle, the minimum, callback priorities, simple callbacks,
 * timers, waits, cleanup groups with their cancel callback, the *WhenCallbackReturns
 * calls, DisassociateCurrentThreadFromCallback, CallbackMayRunLong, a callback's
 * priority change undone, and the legacy QueueUserWorkItem / RegisterWaitForSingleObject. */
#include <windows.h>
#include <dirent.h>
#include "nspa_test.h"
#include "win32_testutil.h"


/* pool worker threads of this process (named "nspa-tp"; other threads, a sanitizer's
 * included, do not count) */
static int nthreads(void)
{
    int n = 0;
    char path[300], comm[32];
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "nspa-tp", 7)) n++;
        fclose(f);
    }
    if (d) closedir(d);
    return n;
}

static volatile LONG counter, concurrent, max_concurrent;
static HANDLE gate;

static void CALLBACK work_count(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WORK w) { InterlockedIncrement(&counter); }

static void CALLBACK work_block(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WORK w)
{
    LONG c = InterlockedIncrement(&concurrent);
    for (LONG m = W32T_LD(max_concurrent); c > m && InterlockedCompareExchange(&max_concurrent, c, m) != m;
         m = W32T_LD(max_concurrent))
        ;
    WaitForSingleObject(gate, 5000);
    InterlockedDecrement(&concurrent);
    InterlockedIncrement(&counter);
}

static void test_work(void)
{
    W32T_ST(counter, 0);
    PTP_WORK w = CreateThreadpoolWork(work_count, NULL, NULL);
    REQUIRE(w != NULL);
    for (int i = 0; i < 1000; i++) SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CHECK_EQ(W32T_LD(counter), 1000);
    CloseThreadpoolWork(w);
    SetLastError(0);
    CHECK(CreateThreadpoolWork(NULL, NULL, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
}

static void test_pool_limits(void)
{
    /* the default pool's workers of test_work retire first (TP_IDLE_MS, 1 s) */
    CHECK(W32T_EVENTUALLY(nthreads() == 0));
    int before = nthreads();
    PTP_POOL p = CreateThreadpool(NULL);
    REQUIRE(p != NULL);
    SetThreadpoolThreadMaximum(p, 2);
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, p);
    gate = CreateEventA(NULL, TRUE, FALSE, NULL);
    W32T_ST(counter, 0);
    W32T_ST(concurrent, 0);
    W32T_ST(max_concurrent, 0);
    PTP_WORK w = CreateThreadpoolWork(work_block, NULL, &env);
    for (int i = 0; i < 6; i++) SubmitThreadpoolWork(w);
    CHECK(W32T_EVENTUALLY(W32T_LD(concurrent) == 2));
    Sleep(20);
    CHECK_EQ(W32T_LD(max_concurrent), 2);                      /* never above the maximum */
    CHECK_EQ(nthreads(), before + 2);                 /* made on demand */
    /* cancel: the 4 not started are dropped */
    SetEvent(gate);
    WaitForThreadpoolWorkCallbacks(w, TRUE);
    CHECK(W32T_LD(counter) >= 2 && W32T_LD(counter) <= 6);
    CloseThreadpoolWork(w);
    /* idle workers retire (TP_IDLE_MS, 1 s) */
    CHECK(W32T_EVENTUALLY(nthreads() == before));
    /* the minimum is kept, idle or not */
    CHECK(SetThreadpoolThreadMinimum(p, 2));
    CHECK(W32T_EVENTUALLY(nthreads() == before + 2));   /* (named once they run) */
    Sleep(1300);
    CHECK_EQ(nthreads(), before + 2);
    CloseThreadpool(p);
    CHECK(W32T_EVENTUALLY(nthreads() == before));
    CloseHandle(gate);
}

/* priorities: with one busy worker, high runs before normal before low */
static char order[8];
static volatile LONG norder;
static void CALLBACK work_mark(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WORK w)
{
    order[InterlockedIncrement(&norder) - 1] = *(char *)ctx;
}

static void test_priorities(void)
{
    PTP_POOL p = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(p, 1);
    TP_CALLBACK_ENVIRON env[3];
    PTP_WORK w[3];
    static char tags[3] = { 'H', 'N', 'L' };
    gate = CreateEventA(NULL, TRUE, FALSE, NULL);
    TP_CALLBACK_ENVIRON benv;
    InitializeThreadpoolEnvironment(&benv);
    SetThreadpoolCallbackPool(&benv, p);
    PTP_WORK blocker = CreateThreadpoolWork(work_block, NULL, &benv);
    W32T_ST(concurrent, 0);
    SubmitThreadpoolWork(blocker);
    CHECK(W32T_EVENTUALLY(W32T_LD(concurrent) == 1));
    for (int k = 2; k >= 0; k--) {
        InitializeThreadpoolEnvironment(&env[k]);
        SetThreadpoolCallbackPool(&env[k], p);
        SetThreadpoolCallbackPriority(&env[k], (TP_CALLBACK_PRIORITY)k);
        w[k] = CreateThreadpoolWork(work_mark, &tags[k], &env[k]);
        SubmitThreadpoolWork(w[k]);          /* low first, high last */
    }
    W32T_ST(norder, 0);
    SetEvent(gate);
    for (int k = 0; k < 3; k++) WaitForThreadpoolWorkCallbacks(w[k], FALSE);
    CHECK(memcmp(order, "HNL", 3) == 0);
    for (int k = 0; k < 3; k++) CloseThreadpoolWork(w[k]);
    WaitForThreadpoolWorkCallbacks(blocker, FALSE);
    CloseThreadpoolWork(blocker);
    CloseThreadpool(p);
    CloseHandle(gate);
}

/* checks made on pool threads are counted here and checked by the main thread */
static LONG cb_errors;

/* instance calls and the priority reset */
static CRITICAL_SECTION cs;
static HANDLE ev, sem, mtx;
static int prio_seen = 99;
static void CALLBACK inst_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx)
{
    EnterCriticalSection(&cs);
    WaitForSingleObject(mtx, 1000);
    SetEventWhenCallbackReturns(inst, ev);
    ReleaseSemaphoreWhenCallbackReturns(inst, sem, 2);
    ReleaseMutexWhenCallbackReturns(inst, mtx);
    LeaveCriticalSectionWhenCallbackReturns(inst, &cs);
    if (CallbackMayRunLong(inst)) InterlockedIncrement(&cb_errors);   /* a pool of one: no other thread */
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_ABOVE_NORMAL);
}
static void CALLBACK prio_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx) { W32T_ST(prio_seen, GetThreadPriority(GetCurrentThread())); }

static volatile LONG disassoc_done;
static void CALLBACK disassoc_cb(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK w)
{
    DisassociateCurrentThreadFromCallback(inst);
    WaitForSingleObject(gate, 5000);
    InterlockedExchange(&disassoc_done, 1);
}

static void test_instance(void)
{
    PTP_POOL p = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(p, 1);                 /* both callbacks on one thread */
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, p);
    InitializeCriticalSection(&cs);
    ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    sem = CreateSemaphoreA(NULL, 0, 10, NULL);
    mtx = CreateMutexA(NULL, FALSE, NULL);
    CHECK(TrySubmitThreadpoolCallback(inst_cb, NULL, &env));
    CHECK_EQ(WaitForSingleObject(ev, 2000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(sem, 1000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(sem, 1000), WAIT_OBJECT_0);   /* count 2 */
    CHECK_EQ(WaitForSingleObject(mtx, 1000), WAIT_OBJECT_0);   /* released by the pool */
    ReleaseMutex(mtx);
    CHECK(TryEnterCriticalSection(&cs));                        /* left by the pool */
    LeaveCriticalSection(&cs);
    CHECK(TrySubmitThreadpoolCallback(prio_cb, NULL, &env));
    CHECK(W32T_EVENTUALLY(W32T_LD(prio_seen) != 99));
    CHECK_EQ(W32T_LD(prio_seen), THREAD_PRIORITY_NORMAL);               /* the change was undone */
    /* a disassociated callback is not waited for */
    gate = CreateEventA(NULL, TRUE, FALSE, NULL);
    PTP_WORK w = CreateThreadpoolWork(disassoc_cb, NULL, NULL);
    SubmitThreadpoolWork(w);
    WaitForThreadpoolWorkCallbacks(w, FALSE);
    CHECK_EQ(W32T_LD(disassoc_done), 0);
    SetEvent(gate);
    CHECK(W32T_EVENTUALLY(W32T_LD(disassoc_done) == 1));
    CloseThreadpoolWork(w);
    CloseThreadpool(p);
    CloseHandle(ev);
    CloseHandle(sem);
    CloseHandle(mtx);
    CloseHandle(gate);
}

static volatile LONG tcount;
static void CALLBACK timer_cb(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_TIMER t) { InterlockedIncrement(&tcount); }

static FILETIME rel_ft(int ms)
{
    ULARGE_INTEGER u;
    u.QuadPart = (ULONGLONG)(-(LONGLONG)ms * 10000);
    FILETIME f = { u.LowPart, u.HighPart };
    return f;
}

static void test_timer(void)
{
    PTP_TIMER t = CreateThreadpoolTimer(timer_cb, NULL, NULL);
    REQUIRE(t != NULL);
    CHECK(!IsThreadpoolTimerSet(t));
    FILETIME due = rel_ft(20);
    W32T_ST(tcount, 0);
    SetThreadpoolTimer(t, &due, 0, 0);
    CHECK(IsThreadpoolTimerSet(t));
    CHECK(W32T_EVENTUALLY(W32T_LD(tcount) == 1));
    CHECK(W32T_EVENTUALLY(!IsThreadpoolTimerSet(t)));
    Sleep(30);
    CHECK_EQ(W32T_LD(tcount), 1);
    /* periodic, then stopped with NULL */
    due = rel_ft(5);
    double t0 = w32t_now_ms();
    CHECK(!SetThreadpoolTimerEx(t, &due, 5, 10));
    Sleep(100);
    CHECK(SetThreadpoolTimerEx(t, NULL, 0, 0));       /* it was set */
    int most = (int)((w32t_now_ms() - t0) / 5) + 2;        /* + the one-shot before */
    WaitForThreadpoolTimerCallbacks(t, TRUE);
    LONG n = W32T_LD(tcount);
    CHECK(n >= 3 && n <= most);        /* late under load is fine; more is not */
    Sleep(30);
    CHECK_EQ(W32T_LD(tcount), n);
    CloseThreadpoolTimer(t);
}

static LONG wres = -1;
static void CALLBACK wait_cb(PTP_CALLBACK_INSTANCE i, PVOID ctx, PTP_WAIT w, TP_WAIT_RESULT r) { W32T_ST(wres, (LONG)r); }

static void test_wait(void)
{
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
    PTP_WAIT w = CreateThreadpoolWait(wait_cb, NULL, NULL);
    SetThreadpoolWait(w, e, NULL);
    Sleep(10);
    CHECK_EQ(W32T_LD(wres), -1);
    SetEvent(e);
    CHECK(W32T_EVENTUALLY(W32T_LD(wres) == WAIT_OBJECT_0));
    W32T_ST(wres, -1);
    FILETIME to = rel_ft(20);
    SetThreadpoolWait(w, e, &to);
    CHECK(W32T_EVENTUALLY(W32T_LD(wres) == (LONG)WAIT_TIMEOUT));
    W32T_ST(wres, -1);
    SetThreadpoolWait(w, e, NULL);
    SetThreadpoolWait(w, NULL, NULL);                 /* cancelled */
    SetEvent(e);
    Sleep(30);
    CHECK_EQ(W32T_LD(wres), -1);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);   /* not consumed by the pool */
    WaitForThreadpoolWaitCallbacks(w, FALSE);
    CloseThreadpoolWait(w);
    CloseHandle(e);
}

static volatile LONG cancels;
static DWORD WINAPI open_gate_later(LPVOID p)
{
    Sleep(50);
    SetEvent(gate);
    return 0;
}

static void CALLBACK cancel_cb(PVOID obj_ctx, PVOID cleanup_ctx)
{
    if (cleanup_ctx != (PVOID)0x55) InterlockedIncrement(&cb_errors);
    InterlockedIncrement(&cancels);
}

static void test_cleanup_group(void)
{
    PTP_POOL p = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(p, 1);
    PTP_CLEANUP_GROUP g = CreateThreadpoolCleanupGroup();
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, p);
    SetThreadpoolCallbackCleanupGroup(&env, g, cancel_cb);
    gate = CreateEventA(NULL, TRUE, FALSE, NULL);
    W32T_ST(counter, 0);
    W32T_ST(concurrent, 0);
    PTP_WORK blocker = CreateThreadpoolWork(work_block, NULL, &env);
    PTP_WORK w = CreateThreadpoolWork(work_count, NULL, &env);
    PTP_TIMER t = CreateThreadpoolTimer(timer_cb, NULL, &env);
    FILETIME due = rel_ft(1);
    SetThreadpoolTimer(t, &due, 1, 0);
    SubmitThreadpoolWork(blocker);
    CHECK(W32T_EVENTUALLY(W32T_LD(concurrent) == 1));
    SubmitThreadpoolWork(w);
    SubmitThreadpoolWork(w);
    /* the blocker ends 50 ms into the close, so w's two are still pending then */
    HANDLE opener = CreateThread(NULL, 0, open_gate_later, NULL, 0, NULL);
    CloseThreadpoolCleanupGroupMembers(g, TRUE, (PVOID)0x55);
    WaitForSingleObject(opener, INFINITE);
    CloseHandle(opener);
    CHECK(W32T_LD(cancels) >= 1);  /* w had pending submissions */
    CHECK(W32T_LD(counter) <= 3);
    CloseThreadpoolCleanupGroup(g);
    CloseThreadpool(p);
    CloseHandle(gate);
}

static volatile LONG legacy_n, legacy_timeouts, legacy_fired;
static DWORD WINAPI legacy_item(LPVOID p)
{
    InterlockedIncrement(&legacy_n);
    return 0;
}
static void CALLBACK legacy_wait(PVOID p, BOOLEAN timed_out)
{
    if (timed_out) InterlockedIncrement(&legacy_timeouts);
    else InterlockedIncrement(&legacy_fired);
}

static void test_legacy(void)
{
    for (int i = 0; i < 100; i++) CHECK(QueueUserWorkItem(legacy_item, NULL, i % 2 ? WT_EXECUTELONGFUNCTION : 0));
    CHECK(W32T_EVENTUALLY(W32T_LD(legacy_n) == 100));
    SetLastError(0);
    CHECK(!QueueUserWorkItem(NULL, NULL, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL), w;
    CHECK(RegisterWaitForSingleObject(&w, e, legacy_wait, NULL, INFINITE, 0));
    for (int i = 0; i < 3; i++) {
        SetEvent(e);
        CHECK(W32T_EVENTUALLY(W32T_LD(legacy_fired) == i + 1));
    }
    CHECK(UnregisterWaitEx(w, INVALID_HANDLE_VALUE));
    SetLastError(0);
    CHECK(!UnregisterWait(w));                          /* twice */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* a repeated timeout, and once only */
    CHECK(RegisterWaitForSingleObject(&w, e, legacy_wait, NULL, 10, WT_EXECUTEINWAITTHREAD));
    CHECK(W32T_EVENTUALLY(W32T_LD(legacy_timeouts) >= 3));
    CHECK(UnregisterWaitEx(w, INVALID_HANDLE_VALUE));
    LONG f = W32T_LD(legacy_fired);
    CHECK(RegisterWaitForSingleObject(&w, e, legacy_wait, NULL, INFINITE, WT_EXECUTEONLYONCE));
    SetEvent(e);
    CHECK(W32T_EVENTUALLY(W32T_LD(legacy_fired) == f + 1));
    SetEvent(e);
    Sleep(30);
    CHECK_EQ(W32T_LD(legacy_fired), f + 1);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);     /* the second set was not taken */
    UnregisterWait(w);
    CloseHandle(e);
}

int main(void)
{
    test_work();
    test_pool_limits();
    test_priorities();
    test_instance();
    test_timer();
    test_wait();
    test_cleanup_group();
    test_legacy();
    CHECK_EQ(W32T_LD(cb_errors), 0);
    return nspa_test_done();
}
