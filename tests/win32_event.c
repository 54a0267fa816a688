/* Win32 events: CreateEvent{A,W}, CreateEventEx{A,W}, OpenEvent{A,W}, SetEvent,
 * ResetEvent, PulseEvent (sync-semantics.md, "Event"), including the threaded pulse:
 * an auto-reset pulse wakes at most one waiter, a manual one every current waiter,
 * and the event reads unsignaled afterwards. */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

/* WaitForSingleObject(h, 0) without changing a manual event; for auto events it
 * consumes the signal, so callers re-set when they need it. */
static DWORD poll0(HANDLE h) { return WaitForSingleObject(h, 0); }

static void test_create_table(void)
{
    static const struct { BOOL manual, initial; } cases[] = {
        { FALSE, FALSE }, { FALSE, TRUE }, { TRUE, FALSE }, { TRUE, TRUE },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        BOOL manual = cases[i].manual, initial = cases[i].initial;
        for (int form = 0; form < 4; form++) {
            HANDLE h;
            DWORD flags = (manual ? CREATE_EVENT_MANUAL_RESET : 0) | (initial ? CREATE_EVENT_INITIAL_SET : 0);
            SetLastError(0xdead);
            switch (form) {
            case 0: h = CreateEventA(NULL, manual, initial, NULL); break;
            case 1: h = CreateEventW(NULL, manual, initial, NULL); break;
            case 2: h = CreateEventExA(NULL, NULL, flags, EVENT_ALL_ACCESS); break;
            default: h = CreateEventExW(NULL, NULL, flags, EVENT_ALL_ACCESS); break;
            }
            REQUIRE(h != NULL);
            CHECK_EQ(GetLastError(), ERROR_SUCCESS);
            CHECK_EQ((uintptr_t)h % 4, 0);
            /* first poll: the initial state */
            CHECK_EQ(poll0(h), initial ? WAIT_OBJECT_0 : WAIT_TIMEOUT);
            /* second poll: an auto event was consumed, a manual one stays */
            CHECK_EQ(poll0(h), (initial && manual) ? WAIT_OBJECT_0 : WAIT_TIMEOUT);
            CHECK(CloseHandle(h));
        }
    }
}

/* Set, reset and pulse without waiters, for both kinds, from both initial states. */
static void test_ops_table(void)
{
    enum { SET, RESET, PULSE };
    static const struct { BOOL manual, initial; int op; DWORD after; } cases[] = {
        { FALSE, FALSE, SET,   WAIT_OBJECT_0 }, { FALSE, TRUE, SET,   WAIT_OBJECT_0 },
        { FALSE, FALSE, RESET, WAIT_TIMEOUT },  { FALSE, TRUE, RESET, WAIT_TIMEOUT },
        { FALSE, FALSE, PULSE, WAIT_TIMEOUT },  { FALSE, TRUE, PULSE, WAIT_TIMEOUT },
        { TRUE,  FALSE, SET,   WAIT_OBJECT_0 }, { TRUE,  TRUE, SET,   WAIT_OBJECT_0 },
        { TRUE,  FALSE, RESET, WAIT_TIMEOUT },  { TRUE,  TRUE, RESET, WAIT_TIMEOUT },
        { TRUE,  FALSE, PULSE, WAIT_TIMEOUT },  { TRUE,  TRUE, PULSE, WAIT_TIMEOUT },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        HANDLE h = CreateEventA(NULL, cases[i].manual, cases[i].initial, NULL);
        REQUIRE(h != NULL);
        SetLastError(0xdead);
        BOOL ok = cases[i].op == SET ? SetEvent(h) : cases[i].op == RESET ? ResetEvent(h) : PulseEvent(h);
        CHECK_EQ(ok, TRUE);
        CHECK_EQ(GetLastError(), 0xdead);   /* success leaves the last error alone */
        DWORD r = poll0(h);
        if (r != cases[i].after)
            fprintf(stderr, "ops case %zu: got %u\n", i, r);
        CHECK_EQ(r, cases[i].after);
        CHECK(CloseHandle(h));
    }
}

static void test_set_twice_auto(void)
{
    /* an auto event holds one signal, not a count */
    HANDLE h = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK(SetEvent(h));
    CHECK(SetEvent(h));
    CHECK_EQ(poll0(h), WAIT_OBJECT_0);
    CHECK_EQ(poll0(h), WAIT_TIMEOUT);
    CloseHandle(h);
}

static void test_timeout(void)
{
    HANDLE h = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK_EQ(WaitForSingleObject(h, 50), WAIT_TIMEOUT);
    CHECK(SetEvent(h));
    CHECK_EQ(WaitForSingleObject(h, 50), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(h, INFINITE), WAIT_OBJECT_0);
    CloseHandle(h);
}

static void test_open(void)
{
    static const WCHAR wname[] = { 'w', '3', '2', 'e', 'v', '-', 'o', 'p', 'e', 'n', 0 };
    HANDLE h = CreateEventA(NULL, FALSE, FALSE, "w32ev-open");
    REQUIRE(h != NULL);
    HANDLE o1 = OpenEventA(EVENT_ALL_ACCESS, FALSE, "w32ev-open");
    HANDLE o2 = OpenEventW(EVENT_MODIFY_STATE | SYNCHRONIZE, FALSE, wname);
    REQUIRE(o1 != NULL && o2 != NULL);
    CHECK(o1 != h && o2 != h && o1 != o2);
    /* one object behind three handles */
    CHECK(SetEvent(o1));
    CHECK_EQ(poll0(o2), WAIT_OBJECT_0);
    CHECK_EQ(poll0(h), WAIT_TIMEOUT);   /* auto: consumed through o2 */
    CHECK(SetEvent(h));
    CHECK(ResetEvent(o2));
    CHECK_EQ(poll0(o1), WAIT_TIMEOUT);
    /* the object outlives its creating handle */
    CHECK(CloseHandle(h));
    CHECK(SetEvent(o2));
    CHECK_EQ(poll0(o1), WAIT_OBJECT_0);
    /* Ex with a name */
    HANDLE ex = CreateEventExA(NULL, "w32ev-open", 0, EVENT_ALL_ACCESS);
    CHECK(ex != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    HANDLE exw = CreateEventExW(NULL, wname, CREATE_EVENT_INITIAL_SET, EVENT_ALL_ACCESS);
    CHECK(exw != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK_EQ(poll0(exw), WAIT_TIMEOUT);   /* existing object: initial state ignored */
    CloseHandle(ex);
    CloseHandle(exw);
    CloseHandle(o1);
    CloseHandle(o2);
    /* every handle closed: the name is gone */
    SetLastError(0);
    CHECK(OpenEventA(EVENT_ALL_ACCESS, FALSE, "w32ev-open") == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
}

/* ---- threaded: set wakes, pulse wakes at most one / every current waiter ----- */

#define NWAITERS 3
struct waiter {
    HANDLE ev;
    HANDLE thread;
    DWORD tid;
    DWORD timeout;
    DWORD result;          /* written by the waiter before it exits */
};
static volatile LONG woken;

static DWORD WINAPI waiter_main(LPVOID p)
{
    struct waiter *w = p;
    w->result = WaitForSingleObject(w->ev, w->timeout);
    InterlockedIncrement((LONG volatile *)&woken);
    return 0;
}

static void start_waiters(struct waiter *w, HANDLE ev, DWORD timeout)
{
    woken = 0;
    for (int i = 0; i < NWAITERS; i++) {
        w[i].ev = ev;
        w[i].timeout = timeout;
        w[i].result = 0xdead;
        w[i].thread = CreateThread(NULL, 0, waiter_main, &w[i], 0, &w[i].tid);
        REQUIRE(w[i].thread != NULL);
    }
    for (int i = 0; i < NWAITERS; i++) CHECK(w32t_wait_blocked(w[i].tid));
}

static void join_waiters(struct waiter *w)
{
    for (int i = 0; i < NWAITERS; i++) {
        CHECK_EQ(WaitForSingleObject(w[i].thread, 10000), WAIT_OBJECT_0);
        CloseHandle(w[i].thread);
    }
}

static LONG woken_now(void) { return InterlockedCompareExchange((LONG volatile *)&woken, 0, 0); }

static void test_set_wakes_threaded(void)
{
    struct waiter w[NWAITERS];
    /* manual: one SetEvent wakes every waiter */
    HANDLE m = CreateEventA(NULL, TRUE, FALSE, NULL);
    start_waiters(w, m, 10000);
    CHECK_EQ(woken_now(), 0);
    CHECK(SetEvent(m));
    join_waiters(w);
    for (int i = 0; i < NWAITERS; i++) CHECK_EQ(w[i].result, WAIT_OBJECT_0);
    CHECK_EQ(poll0(m), WAIT_OBJECT_0);   /* still set */
    CloseHandle(m);

    /* auto: each SetEvent wakes exactly one, and the signal is consumed */
    HANDLE a = CreateEventA(NULL, FALSE, FALSE, NULL);
    start_waiters(w, a, 10000);
    for (LONG k = 1; k <= NWAITERS; k++) {
        CHECK(SetEvent(a));
        CHECK(W32T_EVENTUALLY(woken_now() >= k));
        Sleep(30);
        CHECK_EQ(woken_now(), k);
    }
    join_waiters(w);
    for (int i = 0; i < NWAITERS; i++) CHECK_EQ(w[i].result, WAIT_OBJECT_0);
    CHECK_EQ(poll0(a), WAIT_TIMEOUT);
    CloseHandle(a);
}

static void test_pulse_auto_threaded(void)
{
    struct waiter w[NWAITERS];
    HANDLE a = CreateEventA(NULL, FALSE, FALSE, NULL);
    start_waiters(w, a, 10000);
    CHECK(PulseEvent(a));
    /* exactly one waiter wakes ... */
    CHECK(W32T_EVENTUALLY(woken_now() >= 1));
    Sleep(50);
    CHECK_EQ(woken_now(), 1);
    /* ... and the event reads unsignaled */
    CHECK_EQ(poll0(a), WAIT_TIMEOUT);
    /* the others are still waiting; release them one by one */
    for (LONG k = 2; k <= NWAITERS; k++) {
        CHECK(SetEvent(a));
        CHECK(W32T_EVENTUALLY(woken_now() >= k));
    }
    join_waiters(w);
    for (int i = 0; i < NWAITERS; i++) CHECK_EQ(w[i].result, WAIT_OBJECT_0);
    CloseHandle(a);
}

static void test_pulse_manual_threaded(void)
{
    struct waiter w[NWAITERS];
    HANDLE m = CreateEventA(NULL, TRUE, FALSE, NULL);
    start_waiters(w, m, 10000);
    CHECK(PulseEvent(m));
    /* every current waiter wakes, with success (not by its timeout) */
    join_waiters(w);
    CHECK_EQ(woken_now(), NWAITERS);
    for (int i = 0; i < NWAITERS; i++) CHECK_EQ(w[i].result, WAIT_OBJECT_0);
    /* and the event is unsignaled afterwards */
    CHECK_EQ(poll0(m), WAIT_TIMEOUT);
    CloseHandle(m);
}

/* A pulse with no waiters is lost: a waiter that comes later is not woken. */
static void test_pulse_no_waiters_threaded(void)
{
    struct waiter w[NWAITERS];
    HANDLE m = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK(PulseEvent(m));
    start_waiters(w, m, 100);
    join_waiters(w);
    for (int i = 0; i < NWAITERS; i++) CHECK_EQ(w[i].result, WAIT_TIMEOUT);
    CloseHandle(m);
}


/* Equal-priority waiters are served first come, first served: three threads block
 * one after the other on an auto event; each SetEvent wakes the earliest left. */
struct fifo_w { HANDLE ev; DWORD tid; LONG order; };
static LONG volatile fifo_seq;
static DWORD WINAPI fifo_main(LPVOID p)
{
    struct fifo_w *w = p;
    if (WaitForSingleObject(w->ev, 10000) == WAIT_OBJECT_0) w->order = InterlockedIncrement(&fifo_seq);
    return 0;
}

static void test_fifo_among_equals(void)
{
    for (int manual_sem = 0; manual_sem < 2; manual_sem++) {
        /* an auto event, then a semaphore released one unit at a time */
        HANDLE obj = manual_sem ? CreateSemaphoreA(NULL, 0, 10, NULL) : CreateEventA(NULL, FALSE, FALSE, NULL);
        struct fifo_w w[NWAITERS];
        HANDLE t[NWAITERS];
        fifo_seq = 0;
        for (int i = 0; i < NWAITERS; i++) {
            w[i].ev = obj;
            w[i].order = 0;
            t[i] = CreateThread(NULL, 0, fifo_main, &w[i], 0, &w[i].tid);
            CHECK(w32t_wait_blocked(w[i].tid));   /* queued before the next one starts */
        }
        for (int k = 0; k < NWAITERS; k++) {
            if (manual_sem) ReleaseSemaphore(obj, 1, NULL);
            else SetEvent(obj);
            /* the k-th oldest waiter, and no other, ends */
            CHECK_EQ(WaitForSingleObject(t[k], 10000), WAIT_OBJECT_0);
            CHECK_EQ(w[k].order, k + 1);
            for (int j = k + 1; j < NWAITERS; j++) CHECK_EQ(WaitForSingleObject(t[j], 0), WAIT_TIMEOUT);
        }
        for (int i = 0; i < NWAITERS; i++) CloseHandle(t[i]);
        CloseHandle(obj);
    }
}


/* Pulse and wait-all: a manual pulse wakes a wait-all whose other objects are
 * ready at that instant (it takes them), and not one whose others are not; the
 * latter stays blocked after the pulse, with the event reset. */
struct allw { HANDLE h[2]; DWORD tid; DWORD result; };
static DWORD WINAPI all_main(LPVOID p)
{
    struct allw *w = p;
    w->result = WaitForMultipleObjects(2, w->h, TRUE, 10000);
    return 0;
}

static void test_pulse_wait_all(void)
{
    HANDLE m = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE ready = CreateSemaphoreA(NULL, 1, 1, NULL), empty = CreateSemaphoreA(NULL, 0, 1, NULL);
    struct allw a = { { m, ready }, 0, 0xdead }, b = { { m, empty }, 0, 0xdead };
    HANDLE ta = CreateThread(NULL, 0, all_main, &a, 0, &a.tid);
    HANDLE tb = CreateThread(NULL, 0, all_main, &b, 0, &b.tid);
    CHECK(w32t_wait_blocked(a.tid));
    CHECK(w32t_wait_blocked(b.tid));
    CHECK(PulseEvent(m));
    CHECK_EQ(WaitForSingleObject(ta, 10000), WAIT_OBJECT_0);
    CHECK_EQ(a.result, WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(ready, 0), WAIT_TIMEOUT);   /* a took it */
    CHECK_EQ(poll0(m), WAIT_TIMEOUT);
    Sleep(30);
    CHECK_EQ(WaitForSingleObject(tb, 0), WAIT_TIMEOUT);     /* b still waits */
    CHECK(w32t_wait_blocked(b.tid));
    ReleaseSemaphore(empty, 1, NULL);
    CHECK(SetEvent(m));
    CHECK_EQ(WaitForSingleObject(tb, 10000), WAIT_OBJECT_0);
    CHECK_EQ(b.result, WAIT_OBJECT_0);
    CloseHandle(ta);
    CloseHandle(tb);
    CloseHandle(m);
    CloseHandle(ready);
    CloseHandle(empty);
}

int main(void)
{
    test_create_table();
    test_ops_table();
    test_set_twice_auto();
    test_timeout();
    test_open();
    test_set_wakes_threaded();
    test_pulse_auto_threaded();
    test_pulse_manual_threaded();
    test_pulse_no_waiters_threaded();
    test_fifo_among_equals();
    test_pulse_wait_all();
    return nspa_test_done();
}
