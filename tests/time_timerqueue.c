/* Timer queues (issue 16): one-shot, periodic, WT_EXECUTEONLYONCE, the timer thread,
 * ChangeTimerQueueTimer, the default queue, the three completion modes of
 * DeleteTimerQueueTimer and DeleteTimerQueueEx, deleting from the own callback, and bad
 * input (NULL callback, bad or twice-deleted handles). */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"


struct ctr {
    LONG n;
    LONG done;
    DWORD tid;
    int sleep_ms;
    HANDLE q, self;
    DWORD del_ret, del_err;
};

static LONG cb_errors;                  /* checks made on pool threads, counted */

static void CALLBACK count_cb(PVOID p, BOOLEAN fired)
{
    struct ctr *c = p;
    if (!fired) InterlockedIncrement(&cb_errors);
    W32T_ST(c->tid, GetCurrentThreadId());
    if (c->sleep_ms) Sleep(c->sleep_ms);
    InterlockedIncrement(&c->n);
    InterlockedExchange(&c->done, 1);
}

static void CALLBACK self_delete_cb(PVOID p, BOOLEAN fired)
{
    struct ctr *c = p;
    InterlockedIncrement(&c->n);
    SetLastError(0);
    DWORD r = DeleteTimerQueueTimer(c->q, c->self, NULL);
    W32T_ST(c->del_err, GetLastError());
    W32T_ST(c->del_ret, r);
}

static void test_basic(void)
{
    HANDLE q = CreateTimerQueue();
    REQUIRE(q != NULL);
    struct ctr a = { 0 }, b = { 0 }, o = { 0 };
    HANDLE ta, tb, to;
    CHECK(CreateTimerQueueTimer(&ta, q, count_cb, &a, 20, 0, WT_EXECUTEDEFAULT));
    double t0 = w32t_now_ms();
    CHECK(CreateTimerQueueTimer(&tb, q, count_cb, &b, 10, 10, 0));
    CHECK(CreateTimerQueueTimer(&to, q, count_cb, &o, 10, 10, WT_EXECUTEONLYONCE));
    Sleep(105);
    CHECK(DeleteTimerQueueTimer(q, tb, INVALID_HANDLE_VALUE));
    LONG nb = W32T_LD(b.n);
    int most = (int)((w32t_now_ms() - t0) / 10) + 1;
    CHECK(nb >= 2 && nb <= most);      /* late under load is fine; more is not */
    if (nb < 2 || nb > most) fprintf(stderr, "periodic 10 ms: %d in 105 ms\n", (int)nb);
    Sleep(40);
    CHECK_EQ(W32T_LD(a.n), 1);
    CHECK_EQ(W32T_LD(o.n), 1);
    CHECK_EQ(W32T_LD(b.n), nb);                               /* nothing after the delete */
    /* twice: the handle is gone */
    SetLastError(0);
    CHECK(!DeleteTimerQueueTimer(q, tb, INVALID_HANDLE_VALUE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* change: a far timer made near */
    struct ctr c = { 0 };
    HANDLE tc;
    CHECK(CreateTimerQueueTimer(&tc, q, count_cb, &c, 100000, 0, 0));
    CHECK(ChangeTimerQueueTimer(q, tc, 10, 0));
    CHECK(W32T_EVENTUALLY(W32T_LD(c.n) == 1));
    CHECK(DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE));  /* ta, to, tc still in it */
    SetLastError(0);
    CHECK(!DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE)); /* a queue deleted twice */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!DeleteTimerQueueTimer(q, ta, NULL));          /* its timers went with it */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

static void test_timer_thread_and_default(void)
{
    struct ctr a = { 0 }, b = { 0 };
    HANDLE ta, tb;
    CHECK(CreateTimerQueueTimer(&ta, NULL, count_cb, &a, 5, 0, WT_EXECUTEINTIMERTHREAD));
    CHECK(CreateTimerQueueTimer(&tb, NULL, count_cb, &b, 15, 0, WT_EXECUTEINTIMERTHREAD));
    CHECK(W32T_EVENTUALLY(W32T_LD(a.n) == 1 && W32T_LD(b.n) == 1));
    CHECK_EQ(W32T_LD(a.tid), W32T_LD(b.tid));                      /* one timer thread */
    CHECK(W32T_LD(a.tid) != GetCurrentThreadId());
    CHECK(DeleteTimerQueueTimer(NULL, ta, INVALID_HANDLE_VALUE));
    CHECK(DeleteTimerQueueTimer(NULL, tb, INVALID_HANDLE_VALUE));
}

static void test_delete_modes(void)
{
    HANDLE q = CreateTimerQueue();
    /* INVALID_HANDLE_VALUE: waits for the running callback */
    struct ctr a = { .sleep_ms = 60 };
    HANDLE ta;
    CHECK(CreateTimerQueueTimer(&ta, q, count_cb, &a, 1, 0, 0));
    CHECK(W32T_EVENTUALLY(W32T_LD(a.tid) != 0));
    CHECK(DeleteTimerQueueTimer(q, ta, INVALID_HANDLE_VALUE));
    CHECK_EQ(W32T_LD(a.done), 1);
    /* an event: FALSE + ERROR_IO_PENDING while it runs, the event set when it is done */
    struct ctr b = { .sleep_ms = 60 };
    HANDLE tb, ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK(CreateTimerQueueTimer(&tb, q, count_cb, &b, 1, 0, 0));
    CHECK(W32T_EVENTUALLY(W32T_LD(b.tid) != 0));
    SetLastError(0);
    CHECK(!DeleteTimerQueueTimer(q, tb, ev));
    CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    CHECK_EQ(W32T_LD(b.done), 0);
    CHECK_EQ(WaitForSingleObject(ev, 2000), WAIT_OBJECT_0);
    CHECK_EQ(W32T_LD(b.done), 1);
    /* an event with nothing running: TRUE and the event set at once */
    ResetEvent(ev);
    struct ctr c = { 0 };
    HANDLE tc;
    CHECK(CreateTimerQueueTimer(&tc, q, count_cb, &c, 100000, 0, 0));
    CHECK(DeleteTimerQueueTimer(q, tc, ev));
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_OBJECT_0);
    /* from its own callback, NULL: FALSE + ERROR_IO_PENDING there, never again */
    struct ctr d = { .q = q };
    /* (in the timer thread: a second expiry cannot start on another worker before the
     * first callback deletes the timer; the delete cancels it) */
    CHECK(CreateTimerQueueTimer(&d.self, q, self_delete_cb, &d, 5, 5, WT_EXECUTEINTIMERTHREAD));
    CHECK(W32T_EVENTUALLY(W32T_LD(d.n) >= 1));
    Sleep(40);
    CHECK_EQ(W32T_LD(d.n), 1);
    CHECK_EQ(W32T_LD(d.del_ret), FALSE);
    CHECK_EQ(W32T_LD(d.del_err), ERROR_IO_PENDING);
    /* the queue with an event: set once its timers are gone */
    struct ctr e = { .sleep_ms = 40 };
    HANDLE te;
    CHECK(CreateTimerQueueTimer(&te, q, count_cb, &e, 1, 0, 0));
    CHECK(W32T_EVENTUALLY(W32T_LD(e.tid) != 0));
    ResetEvent(ev);
    SetLastError(0);
    BOOL r = DeleteTimerQueueEx(q, ev);
    CHECK(!r && GetLastError() == ERROR_IO_PENDING);
    CHECK_EQ(WaitForSingleObject(ev, 2000), WAIT_OBJECT_0);
    CHECK_EQ(W32T_LD(e.done), 1);
    /* NULL: returns at once */
    HANDLE q2 = CreateTimerQueue();
    HANDLE tf;
    struct ctr f = { 0 };
    CHECK(CreateTimerQueueTimer(&tf, q2, count_cb, &f, 100000, 0, 0));
    CHECK(DeleteTimerQueue(q2));
    CloseHandle(ev);
}

static void test_bad_input(void)
{
    HANDLE t;
    struct ctr a = { 0 };
    SetLastError(0);
    CHECK(!CreateTimerQueueTimer(&t, NULL, NULL, &a, 1, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!CreateTimerQueueTimer(NULL, NULL, count_cb, &a, 1, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!CreateTimerQueueTimer(&t, (HANDLE)(uintptr_t)0x12345676, count_cb, &a, 1, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!DeleteTimerQueueEx(NULL, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!ChangeTimerQueueTimer(NULL, (HANDLE)(uintptr_t)0x12345676, 1, 1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!CloseHandle(CreateTimerQueue()));           /* not an object handle */
}

/* churn: many timers created and deleted in every mode while they fire */
static void test_churn(void)
{
    HANDLE q = CreateTimerQueue();
    struct ctr c[64] = { 0 };
    HANDLE t[64];
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 64; i++) CHECK(CreateTimerQueueTimer(&t[i], q, count_cb, &c[i], i % 3, 1 + i % 2, 0));
        Sleep(3);
        for (int i = 0; i < 64; i++) {
            BOOL r = DeleteTimerQueueTimer(q, t[i], i % 2 ? INVALID_HANDLE_VALUE : NULL);
            CHECK(r || GetLastError() == ERROR_IO_PENDING);
        }
    }
    CHECK(DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE));
    LONG n[64];
    for (int i = 0; i < 64; i++) n[i] = W32T_LD(c[i].n);
    Sleep(20);
    for (int i = 0; i < 64; i++) CHECK_EQ(W32T_LD(c[i].n), n[i]);    /* nothing after the deletes */
}

int main(void)
{
    test_basic();
    test_timer_thread_and_default();
    test_delete_modes();
    test_bad_input();
    test_churn();
    CHECK_EQ(W32T_LD(cb_errors), 0);
    return nspa_test_done();
}
