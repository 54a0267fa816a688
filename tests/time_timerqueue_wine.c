/* Timer queues: the behaviours Wine's kernel32 conformance test (test_timer_queue, which
 * runs on Windows) checks, on NSPA (docs/conformance.md):
 * - DeleteTimerQueueEx(q, NULL) on an idle queue: TRUE (Vista+) or ERROR_IO_PENDING;
 * - a timer due at 0 and deleted at once (NULL): FALSE/ERROR_IO_PENDING (or TRUE when the
 *   callback has already returned: NSPA's pool may be that quick), and it runs once (its
 *   callback was handed to the pool by CreateTimerQueueTimer);
 * - a due-0 one-shot timer runs once; a 10 ms periodic one runs more often than a 100 ms
 *   one; a timer due in 10 s never runs; a due-0 timer with a 10 s period runs once;
 *   DeleteTimerQueueTimer(INVALID_HANDLE_VALUE) and DeleteTimerQueueEx(INVALID_HANDLE_VALUE)
 *   return TRUE once the callbacks are done;
 * - DeleteTimerQueueTimer while the callback runs: NULL event -> FALSE/ERROR_IO_PENDING,
 *   an event -> FALSE/ERROR_IO_PENDING and the event set when it ends; on a finished
 *   timer with an event -> TRUE, the last error untouched, the event set at once;
 *   DeleteTimerQueueEx(q, event) sets the event once the callbacks are done;
 * - ChangeTimerQueueTimer on a one-shot timer before it fires makes it fire; a periodic
 *   timer deleting itself from its own callback (FALSE/ERROR_IO_PENDING) never runs
 *   again; one changing itself to a 10 s due time from its callback does not run again;
 *   a one-shot timer whose callback calls ChangeTimerQueueTimer(50, 50) gets TRUE and
 *   runs only once;
 * - a WT_EXECUTELONGFUNCTION timer that deletes itself in its first callback, then
 *   creates and deletes (INVALID_HANDLE_VALUE) another timer and stays in the callback,
 *   never runs a second time;
 * - the default queue (NULL): create, change, delete; a timer of one queue changed or
 *   deleted naming the other queue works; DeleteTimerQueueEx(NULL) is ERROR_INVALID_HANDLE.
 * Callback checks are counted (they run on pool threads) and checked at the end. */
#include <windows.h>
#include "nspa_test.h"

static LONG cb_errors;

static void CALLBACK cb_count(PVOID p, BOOLEAN fired)
{
    if (!fired) InterlockedIncrement(&cb_errors);
    InterlockedIncrement((LONG *)p);
}

struct self_data {
    LONG calls;
    LONG max_calls;
    HANDLE q, t;
    LONG ret_bad;
    LONG done;          /* the delete or change at max_calls returned */
    LONG after;         /* callbacks that started after that */
};

/* deletes itself (NULL event) at its max_calls-th run */
static void CALLBACK cb_self_delete(PVOID p, BOOLEAN fired)
{
    struct self_data *d = p;
    if (!fired) InterlockedIncrement(&cb_errors);
    if (InterlockedCompareExchange(&d->done, 0, 0)) InterlockedIncrement(&d->after);
    HANDLE t = (HANDLE)InterlockedCompareExchangePointer(&d->t, NULL, NULL);
    if (t && InterlockedIncrement(&d->calls) == d->max_calls) {
        SetLastError(0xdeadbeef);
        if (DeleteTimerQueueTimer(d->q, t, NULL) || GetLastError() != ERROR_IO_PENDING)
            InterlockedIncrement(&d->ret_bad);
        InterlockedExchange(&d->done, 1);
    }
}

/* moves itself 10 s away at its max_calls-th run */
static void CALLBACK cb_self_push(PVOID p, BOOLEAN fired)
{
    struct self_data *d = p;
    if (!fired) InterlockedIncrement(&cb_errors);
    if (InterlockedCompareExchange(&d->done, 0, 0)) InterlockedIncrement(&d->after);
    HANDLE t = (HANDLE)InterlockedCompareExchangePointer(&d->t, NULL, NULL);
    if (t && InterlockedIncrement(&d->calls) == d->max_calls) {
        if (!ChangeTimerQueueTimer(d->q, t, 10000, 0)) InterlockedIncrement(&d->ret_bad);
        InterlockedExchange(&d->done, 1);
    }
}

/* a one-shot timer re-timing itself from its own callback */
static void CALLBACK cb_once_change(PVOID p, BOOLEAN fired)
{
    struct self_data *d = p;
    if (!fired) InterlockedIncrement(&cb_errors);
    HANDLE t = (HANDLE)InterlockedCompareExchangePointer(&d->t, NULL, NULL);
    if (t) {
        if (!ChangeTimerQueueTimer(d->q, t, 50, 50)) InterlockedIncrement(&d->ret_bad);
        InterlockedIncrement(&d->calls);
    }
}

static void CALLBACK cb_sleep(PVOID p, BOOLEAN fired)
{
    if (!fired) InterlockedIncrement(&cb_errors);
    if (p) Sleep((DWORD)(ULONG_PTR)p);
}

/* first run: delete itself (pends), add and remove a timer due before its next run,
 * stay in the callback; there must be no second run */
static void CALLBACK cb_long_self_delete(PVOID p, BOOLEAN fired)
{
    struct self_data *d = p;
    if (!fired) InterlockedIncrement(&cb_errors);
    HANDLE q = (HANDLE)InterlockedCompareExchangePointer(&d->q, NULL, NULL);
    if (q && InterlockedIncrement(&d->calls) == 1) {
        SetLastError(0xdeadbeef);
        if (DeleteTimerQueueTimer(q, d->t, NULL) || GetLastError() != ERROR_IO_PENDING)
            InterlockedIncrement(&d->ret_bad);
        HANDLE t = NULL;
        LONG dummy = 0;
        if (!CreateTimerQueueTimer(&t, q, cb_count, &dummy, 100, 0, 0) || !t) InterlockedIncrement(&d->ret_bad);
        else if (!DeleteTimerQueueTimer(q, t, INVALID_HANDLE_VALUE)) InterlockedIncrement(&d->ret_bad);
        Sleep(500);
    }
}

static void test_async_queue_delete(void)
{
    HANDLE q = CreateTimerQueue();
    REQUIRE(q != NULL);
    SetLastError(0xdeadbeef);
    BOOL r = DeleteTimerQueueEx(q, NULL);
    CHECK(r || GetLastError() == ERROR_IO_PENDING);
}

static void test_runs(void)
{
    HANDLE q = CreateTimerQueue(), t0, t1, t2, t3, t4, t5;
    LONG n0 = 0, n1 = 0, n2 = 0, n3 = 0, n4 = 0, n5 = 0;
    REQUIRE(q != NULL);
    /* due at 0, deleted at once: its callback is already outstanding and runs once */
    CHECK(CreateTimerQueueTimer(&t0, q, cb_count, &n0, 0, 300, 0));
    SetLastError(0xdeadbeef);
    if (DeleteTimerQueueTimer(q, t0, NULL))
        CHECK_EQ(InterlockedCompareExchange(&n0, 0, 0), 1);   /* TRUE only if it already ran */
    else
        CHECK_EQ(GetLastError(), ERROR_IO_PENDING);             /* Windows' usual answer */
    CHECK(CreateTimerQueueTimer(&t1, q, cb_count, &n1, 0, 0, 0));
    CHECK(CreateTimerQueueTimer(&t2, q, cb_count, &n2, 0, 100, 0));
    CHECK(CreateTimerQueueTimer(&t3, q, cb_count, &n3, 0, 10, 0));
    CHECK(CreateTimerQueueTimer(&t4, q, cb_count, &n4, 10000, 10, 0));
    CHECK(CreateTimerQueueTimer(&t5, q, cb_count, &n5, 0, 10000, 0));
    Sleep(500);
    CHECK(DeleteTimerQueueTimer(q, t1, INVALID_HANDLE_VALUE));   /* a one-shot that ran */
    CHECK(DeleteTimerQueueTimer(q, t2, INVALID_HANDLE_VALUE));
    CHECK(DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE));
    CHECK_EQ(n0, 1);
    CHECK_EQ(n1, 1);
    CHECK(n2 < n3);
    CHECK_EQ(n4, 0);
    CHECK_EQ(n5, 1);
}

static void test_delete_while_running(void)
{
    HANDLE e = CreateEventW(NULL, TRUE, FALSE, NULL), et1 = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE et2 = CreateEventW(NULL, TRUE, FALSE, NULL), q = CreateTimerQueue(), t1, t2, t3, t4;
    REQUIRE(e && et1 && et2 && q);
    CHECK(CreateTimerQueueTimer(&t1, q, cb_sleep, NULL, 0, 0, 0));                /* quick */
    CHECK(CreateTimerQueueTimer(&t2, q, cb_sleep, (PVOID)(ULONG_PTR)1000, 0, 0, 0)); /* slow */
    CHECK(CreateTimerQueueTimer(&t3, q, cb_sleep, NULL, 0, 0, 0));
    CHECK(CreateTimerQueueTimer(&t4, q, cb_sleep, (PVOID)(ULONG_PTR)1000, 0, 0, 0));
    Sleep(400);
    SetLastError(0xdeadbeef);
    BOOL r = DeleteTimerQueueTimer(q, t1, NULL);
    CHECK(r || GetLastError() == ERROR_IO_PENDING);
    SetLastError(0xdeadbeef);
    CHECK(!DeleteTimerQueueTimer(q, t2, NULL));
    CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    SetLastError(0xdeadbeef);
    CHECK(DeleteTimerQueueTimer(q, t3, et1));
    CHECK_EQ(GetLastError(), 0xdeadbeef);
    CHECK_EQ(WaitForSingleObject(et1, 250), WAIT_OBJECT_0);
    SetLastError(0xdeadbeef);
    CHECK(!DeleteTimerQueueTimer(q, t4, et2));
    CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(et2, 1000), WAIT_OBJECT_0);
    SetLastError(0xdeadbeef);
    r = DeleteTimerQueueEx(q, e);
    CHECK(r || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(e, 250), WAIT_OBJECT_0);
    CloseHandle(e);
    CloseHandle(et1);
    CloseHandle(et2);
}

static void test_change_in_callbacks(void)
{
    HANDLE q = CreateTimerQueue(), t1, t2, t3, t4;
    LONG n1 = 0;
    struct self_data d2 = { 0, 3, q, NULL, 0, 0, 0 }, d3 = { 0, 4, q, NULL, 0, 0, 0 }, d4 = { 0, 0, q, NULL, 0, 0, 0 };
    REQUIRE(q != NULL);
    CHECK(CreateTimerQueueTimer(&t1, q, cb_count, &n1, 10000, 0, 0));
    CHECK(ChangeTimerQueueTimer(q, t1, 0, 0));         /* before it fired: allowed */
    /* Wine: 10 ms periods; 50 here, so that a loaded machine does not pile up expiries
     * in the pool while a callback waits for a CPU (the checks below would then count
     * callbacks that were queued before the delete, which run, as on Windows) */
    CHECK(CreateTimerQueueTimer(&t2, q, cb_self_delete, &d2, 50, 50, 0));
    InterlockedExchangePointer(&d2.t, t2);
    CHECK(CreateTimerQueueTimer(&t3, q, cb_self_push, &d3, 50, 50, 0));
    InterlockedExchangePointer(&d3.t, t3);
    CHECK(CreateTimerQueueTimer(&t4, q, cb_once_change, &d4, 10, 0, 0));
    InterlockedExchangePointer(&d4.t, t4);
    Sleep(500);
    CHECK(DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE));
    CHECK_EQ(n1, 1);
    /* Wine checks calls == max_calls (on an idle machine nothing else is in flight). An
     * expiry already handed to the pool when the delete or change came still runs (as
     * on Windows), and on a loaded machine one may be queued or overlapping then; what
     * must hold: it happened, and the timer produced no expiry after it (at most the one
     * already queued starts later) */
    CHECK(d2.calls >= d2.max_calls && d2.calls <= d2.max_calls + 1);
    CHECK(d3.calls >= d3.max_calls && d3.calls <= d3.max_calls + 1);
    CHECK(d2.after <= 1 && d3.after <= 1);
    CHECK_EQ(d4.calls, 1);
    CHECK_EQ(d2.ret_bad + d3.ret_bad + d4.ret_bad, 0);
}

static void test_long_self_delete(void)
{
    HANDLE q = CreateTimerQueue(), t1;
    struct self_data d1 = { 0, 0, NULL, NULL, 0, 0, 0 };
    REQUIRE(q != NULL);
    /* Wine: period 100; 400 here (its next own expiry still after the 100 ms timer the
     * callback adds), so that a late first callback does not find its second expiry
     * already queued */
    CHECK(CreateTimerQueueTimer(&t1, q, cb_long_self_delete, &d1, 100, 400, WT_EXECUTELONGFUNCTION));
    d1.t = t1;
    InterlockedExchangePointer(&d1.q, q);
    Sleep(750);
    SetLastError(0xdeadbeef);
    BOOL r = DeleteTimerQueueEx(q, NULL);
    CHECK(r || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(d1.calls, 1);
    CHECK_EQ(d1.ret_bad, 0);
}

static void test_default_queue(void)
{
    HANDLE t1, t2, q;
    LONG n1 = 0, n2 = 0;
    CHECK(CreateTimerQueueTimer(&t1, NULL, cb_count, &n1, 1000, 1000, 0));
    CHECK(ChangeTimerQueueTimer(NULL, t1, 2000, 2000));
    CHECK(DeleteTimerQueueTimer(NULL, t1, INVALID_HANDLE_VALUE));
    q = CreateTimerQueue();
    REQUIRE(q != NULL);
    CHECK(CreateTimerQueueTimer(&t1, q, cb_count, &n1, 1000, 1000, 0));
    CHECK(CreateTimerQueueTimer(&t2, NULL, cb_count, &n2, 1000, 1000, 0));
    CHECK(ChangeTimerQueueTimer(NULL, t1, 2000, 2000));   /* mixing queues works */
    CHECK(ChangeTimerQueueTimer(q, t2, 2000, 2000));
    CHECK(DeleteTimerQueueTimer(NULL, t1, INVALID_HANDLE_VALUE));
    CHECK(DeleteTimerQueueTimer(q, t2, INVALID_HANDLE_VALUE));
    SetLastError(0xdeadbeef);
    CHECK(!DeleteTimerQueueEx(NULL, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0xdeadbeef);
    BOOL r = DeleteTimerQueueEx(q, NULL);
    CHECK(r || GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(n1 + n2, 0);
}

int main(void)
{
    test_async_queue_delete();
    test_runs();
    test_delete_while_running();
    test_change_in_callbacks();
    test_long_self_delete();
    test_default_queue();
    CHECK_EQ(cb_errors, 0);
    return nspa_test_done();
}
