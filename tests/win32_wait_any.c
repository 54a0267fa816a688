/* WaitForMultipleObjects(Ex) with bWaitAll = FALSE and WaitForSingleObject(Ex)
 * (sync-semantics.md, "Waits"): the lowest signaled index wins and only that object
 * is consumed; WAIT_ABANDONED_0 + i; duplicates allowed; 1..64 handles, 0 or more
 * than 64 -> ERROR_INVALID_PARAMETER; a NULL array; a bad handle anywhere ->
 * ERROR_INVALID_HANDLE with nothing consumed; a timeout consumes nothing. */
#include <windows.h>
#include <pthread.h>
#include <signal.h>
#include "nspa_test.h"
#include "win32_testutil.h"

enum { SEM, AUTO_EV, MANUAL_EV, MUTEX, NKIND };

/* Objects of kind k, signaled or not. */
static HANDLE make(int kind, int signaled)
{
    switch (kind) {
    case SEM: return CreateSemaphoreA(NULL, signaled ? 1 : 0, 10, NULL);
    case AUTO_EV: return CreateEventA(NULL, FALSE, signaled, NULL);
    case MANUAL_EV: return CreateEventA(NULL, TRUE, signaled, NULL);
    default: {
        /* an unsignaled mutex is one that another (live) thread owns: made by the
         * caller through hold_mutex() */
        return CreateMutexA(NULL, FALSE, NULL);
    }
    }
}


/* Is the object still in the state it was made in (signaled or not)?  Consumes
 * nothing except where it reports 'signaled' of an auto object, which it restores. */
static int is_signaled(int kind, HANDLE h)
{
    if (kind == MUTEX) {
        /* signaled = not owned by another thread; we can acquire and release it */
        DWORD r = WaitForSingleObject(h, 0);
        if (r == WAIT_OBJECT_0 || r == WAIT_ABANDONED_0) { ReleaseMutex(h); return 1; }
        return 0;
    }
    DWORD r = WaitForSingleObject(h, 0);
    if (r != WAIT_OBJECT_0) return 0;
    if (kind == SEM) ReleaseSemaphore(h, 1, NULL);
    if (kind == AUTO_EV) SetEvent(h);
    return 1;
}

/* Every subset of 4 objects of mixed kinds, signaled or not: the result is the
 * lowest signaled index; that object alone is consumed (an auto event reset, a
 * semaphore decremented, a mutex owned by us); a manual event is never consumed. */
static void test_lowest_index_table(void)
{
    static const int kinds[4][4] = {
        { SEM, AUTO_EV, MANUAL_EV, MUTEX },
        { AUTO_EV, AUTO_EV, AUTO_EV, AUTO_EV },
        { MUTEX, SEM, AUTO_EV, MANUAL_EV },
        { MANUAL_EV, MUTEX, SEM, SEM },
    };
    for (int row = 0; row < 4; row++) {
        for (unsigned mask = 0; mask < 16; mask++) {
            HANDLE h[4];
            struct holder hold = { .n = 0 };
            for (int i = 0; i < 4; i++) {
                int k = kinds[row][i], sig = (mask >> i) & 1;
                h[i] = make(k, sig);
                if (k == MUTEX && !sig) hold.m[hold.n++] = h[i];
            }
            if (hold.n) holder_start(&hold, 0);
            int want = -1;
            for (int i = 0; i < 4; i++) if (mask >> i & 1) { want = i; break; }
            DWORD r = WaitForMultipleObjects(4, h, FALSE, 0);
            if (r != (want < 0 ? WAIT_TIMEOUT : WAIT_OBJECT_0 + (DWORD)want))
                fprintf(stderr, "row %d mask %x: got %u\n", row, mask, r);
            CHECK_EQ(r, want < 0 ? WAIT_TIMEOUT : WAIT_OBJECT_0 + (DWORD)want);
            /* the Ex form, non-alertable, agrees (restore first what was taken) */
            for (int i = 0; i < 4; i++) {
                int k = kinds[row][i];
                int expect = (mask >> i) & 1;
                if (i == want && k != MANUAL_EV) {
                    if (k == MUTEX) {
                        /* ours now, recursively acquirable, not free for others */
                        CHECK(ReleaseMutex(h[i]));
                        continue;
                    }
                    expect = 0;   /* consumed */
                }
                CHECK_EQ(is_signaled(k, h[i]), expect);
            }
            if (hold.n) holder_stop(&hold);
            for (int i = 0; i < 4; i++) CloseHandle(h[i]);
        }
    }
}

static void test_ex_and_single(void)
{
    HANDLE h[3];
    for (int i = 0; i < 3; i++) h[i] = CreateEventA(NULL, TRUE, i == 2, NULL);
    CHECK_EQ(WaitForMultipleObjectsEx(3, h, FALSE, 0, FALSE), WAIT_OBJECT_0 + 2);
    CHECK_EQ(WaitForMultipleObjectsEx(2, h, FALSE, 50, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObjectEx(h[2], 0, FALSE), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObjectEx(h[0], 50, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(WaitForMultipleObjects(1, &h[2], FALSE, INFINITE), WAIT_OBJECT_0);
    for (int i = 0; i < 3; i++) CloseHandle(h[i]);
}

static void test_duplicates_allowed(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 1, 10, NULL);
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE h[4] = { e, s, s, e };
    CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_OBJECT_0 + 1);
    /* one unit taken, not two */
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_TIMEOUT);
    SetEvent(e);
    CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_TIMEOUT);
    /* the same mutex twice: acquired once (recursion count 1) */
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE mm[2] = { m, m };
    CHECK_EQ(WaitForMultipleObjects(2, mm, FALSE, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CHECK(!ReleaseMutex(m));
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    CloseHandle(s);
    CloseHandle(e);
    CloseHandle(m);
}

/* An abandoned mutex at index i: WAIT_ABANDONED_0 + i, and we own it. A lower
 * signaled index still wins over it. */
static void test_abandoned_index(void)
{
    for (int i = 0; i < 4; i++) {
        HANDLE h[4];
        for (int j = 0; j < 4; j++) h[j] = CreateEventA(NULL, FALSE, FALSE, NULL);
        CloseHandle(h[i]);
        h[i] = CreateMutexA(NULL, FALSE, NULL);
        struct holder hold = { .m = { h[i] }, .n = 1 };
        holder_start(&hold, 1);
        holder_stop(&hold);   /* exits owning it: abandoned */
        if (i > 0) {
            /* a lower signaled index wins; the abandoned mutex is left alone */
            SetEvent(h[0]);
            CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_OBJECT_0);
        }
        CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_ABANDONED_0 + (DWORD)i);
        CHECK(ReleaseMutex(h[i]));
        CHECK(!ReleaseMutex(h[i]));
        CHECK_EQ(WaitForMultipleObjects(4, h, FALSE, 0), WAIT_OBJECT_0 + (DWORD)i);
        CHECK(ReleaseMutex(h[i]));
        for (int j = 0; j < 4; j++) CloseHandle(h[j]);
    }
}

static void test_counts(void)
{
    HANDLE h[MAXIMUM_WAIT_OBJECTS + 1];
    for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) h[i] = CreateEventA(NULL, TRUE, FALSE, NULL);
    /* 64 is fine; the last index can win */
    SetEvent(h[MAXIMUM_WAIT_OBJECTS - 1]);
    CHECK_EQ(WaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, h, FALSE, 0), WAIT_OBJECT_0 + MAXIMUM_WAIT_OBJECTS - 1);
    ResetEvent(h[MAXIMUM_WAIT_OBJECTS - 1]);
    CHECK_EQ(WaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, h, FALSE, 0), WAIT_TIMEOUT);
    /* 0 and 65, also with everything signaled, also with the Ex form */
    SetEvent(h[0]);
    static const DWORD bad[] = { 0, MAXIMUM_WAIT_OBJECTS + 1, 1000, 0x80000000u, 0xFFFFFFFFu };
    for (size_t i = 0; i < ARRAYSIZE(bad); i++) {
        DWORD n = bad[i];
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjects(n, h, FALSE, 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjectsEx(n, h, FALSE, 0, TRUE), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    /* NULL array */
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(1, NULL, FALSE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(0, NULL, FALSE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) CloseHandle(h[i]);
}

/* A bad handle anywhere in the array fails the whole wait, and consumes nothing,
 * even when a lower index is signaled. */
static void test_bad_handle_in_array(void)
{
    /* [1] is a closed handle, made anew each time (values are reused after a close) */
    HANDLE bad[] = { NULL, NULL, (HANDLE)(uintptr_t)0x12345678, (HANDLE)(uintptr_t)3,
                     (HANDLE)(uintptr_t)0xfffffff0u };
    for (size_t b = 0; b < ARRAYSIZE(bad); b++) {
        for (int pos = 0; pos < 3; pos++) {
            HANDLE s = CreateSemaphoreA(NULL, 1, 1, NULL);
            if (b == 1) {
                bad[1] = CreateEventA(NULL, TRUE, TRUE, NULL);
                CloseHandle(bad[1]);
            }
            HANDLE h[3] = { s, s, s };
            h[pos] = bad[b];
            SetLastError(0);
            CHECK_EQ(WaitForMultipleObjects(3, h, FALSE, 0), WAIT_FAILED);
            CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
            CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);   /* not consumed */
            CloseHandle(s);
        }
        SetLastError(0);
        CHECK_EQ(WaitForSingleObject(bad[b], 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        SetLastError(0);
        CHECK_EQ(WaitForSingleObjectEx(bad[b], 10, TRUE), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
}

/* ---- threaded: a blocked wait-any wakes for the object that is signaled ------- */

struct anyw { HANDLE *h; DWORD n; DWORD result; };
static DWORD WINAPI any_waiter(LPVOID p)
{
    struct anyw *w = p;
    w->result = WaitForMultipleObjects(w->n, w->h, FALSE, 10000);
    return 0;
}

static void test_threaded_wake(void)
{
    for (int which = 0; which < 3; which++) {
        HANDLE h[3];
        h[0] = CreateEventA(NULL, FALSE, FALSE, NULL);
        h[1] = CreateSemaphoreA(NULL, 0, 5, NULL);
        h[2] = CreateEventA(NULL, TRUE, FALSE, NULL);
        struct anyw w = { h, 3, 0xdead };
        DWORD tid;
        HANDLE t = CreateThread(NULL, 0, any_waiter, &w, 0, &tid);
        CHECK(w32t_wait_blocked(tid));
        if (which == 0) SetEvent(h[0]);
        else if (which == 1) ReleaseSemaphore(h[1], 2, NULL);
        else SetEvent(h[2]);
        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        CHECK_EQ(w.result, WAIT_OBJECT_0 + (DWORD)which);
        /* exactly one unit consumed */
        if (which == 0) CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_TIMEOUT);
        if (which == 1) {
            CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_OBJECT_0);
            CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_TIMEOUT);
        }
        if (which == 2) CHECK_EQ(WaitForSingleObject(h[2], 0), WAIT_OBJECT_0);
        CloseHandle(t);
        for (int i = 0; i < 3; i++) CloseHandle(h[i]);
    }
}

/* A waiter blocked on a mutex that another thread owns wakes when it is released. */
static void test_threaded_mutex_handoff(void)
{
    HANDLE m = CreateMutexA(NULL, TRUE, NULL);
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE h[2] = { e, m };
    struct anyw w = { h, 2, 0xdead };
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, any_waiter, &w, 0, &tid);
    CHECK(w32t_wait_blocked(tid));
    CHECK(ReleaseMutex(m));
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(w.result, WAIT_OBJECT_0 + 1);
    /* the waiter exited owning it: abandoned now */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_ABANDONED_0);
    CHECK(ReleaseMutex(m));
    CloseHandle(t);
    CloseHandle(m);
    CloseHandle(e);
}


/* POSIX signals delivered to a waiting thread neither end nor fail its wait: it
 * goes on to its timeout, or to the object being signaled. */
static volatile sig_atomic_t got_signals;
static void on_usr1(int sig) { (void)sig; got_signals++; }

struct sigw { HANDLE ev; DWORD ms; DWORD result; ULONGLONG elapsed; DWORD tid; HANDLE started; };
static void *sig_waiter(void *p)
{
    struct sigw *w = p;
    w->tid = GetCurrentThreadId();
    SetEvent(w->started);
    ULONGLONG t0 = GetTickCount64();
    w->result = WaitForSingleObject(w->ev, w->ms);
    w->elapsed = GetTickCount64() - t0;
    return NULL;
}

static void test_signals_do_not_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;   /* no SA_RESTART */
    sigaction(SIGUSR1, &sa, NULL);
    for (int setit = 0; setit < 2; setit++) {
        struct sigw w = { CreateEventA(NULL, FALSE, FALSE, NULL), setit ? 10000 : 300, 0xdead, 0, 0,
                          CreateEventA(NULL, TRUE, FALSE, NULL) };
        pthread_t t;
        pthread_create(&t, NULL, sig_waiter, &w);
        WaitForSingleObject(w.started, 10000);
        CHECK(w32t_wait_blocked(w.tid));
        for (int i = 0; i < 5; i++) {
            pthread_kill(t, SIGUSR1);
            Sleep(10);
        }
        CHECK(w32t_wait_blocked(w.tid));   /* still waiting */
        if (setit) SetEvent(w.ev);
        pthread_join(t, NULL);
        CHECK_EQ(w.result, setit ? WAIT_OBJECT_0 : WAIT_TIMEOUT);
        if (!setit) CHECK(w.elapsed >= 250);   /* it was not cut short */
        CloseHandle(w.ev);
        CloseHandle(w.started);
    }
    CHECK(got_signals >= 10);
    signal(SIGUSR1, SIG_DFL);
}


/* The pseudo handles GetCurrentThread() and GetCurrentProcess() are waitable objects
 * that are never signaled while the caller runs in WaitForSingleObject(Ex); in
 * WaitForMultipleObjects they are not objects: WAIT_FAILED, ERROR_INVALID_HANDLE, with
 * nothing consumed (Windows, per Wine's test_WaitForMultipleObjects). */
static void test_pseudo_handles(void)
{
    HANDLE pseudo[2] = { GetCurrentThread(), GetCurrentProcess() };
    for (int p = 0; p < 2; p++) {
        CHECK_EQ(WaitForSingleObject(pseudo[p], 0), WAIT_TIMEOUT);
        CHECK_EQ(WaitForSingleObject(pseudo[p], 30), WAIT_TIMEOUT);
        CHECK_EQ(WaitForSingleObjectEx(pseudo[p], 0, TRUE), WAIT_TIMEOUT);
        HANDLE e = CreateEventA(NULL, FALSE, TRUE, NULL);
        HANDLE h[2] = { e, pseudo[p] };
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjects(2, h, FALSE, 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        CHECK_EQ(WaitForMultipleObjects(1, &pseudo[p], FALSE, 30), WAIT_FAILED);
        CHECK_EQ(WaitForMultipleObjectsEx(2, h, TRUE, 30, TRUE), WAIT_FAILED);
        CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);   /* not consumed */
        CloseHandle(e);
    }
}

int main(void)
{
    test_lowest_index_table();
    test_ex_and_single();
    test_duplicates_allowed();
    test_abandoned_index();
    test_counts();
    test_bad_handle_in_array();
    test_threaded_wake();
    test_threaded_mutex_handoff();
    test_signals_do_not_interrupt();
    test_pseudo_handles();
    return nspa_test_done();
}
