/* Win32 mutexes: CreateMutex{A,W}, CreateMutexEx{A,W}, OpenMutex{A,W}, ReleaseMutex
 * (sync-semantics.md, "Mutex"): recursion, ERROR_NOT_OWNER for a non-owner (also on
 * an unowned mutex), and abandonment when the owning thread exits — a CreateThread
 * thread (returning or calling ExitThread) and a pthread_create thread — reported
 * once as WAIT_ABANDONED_0 to the next acquirer, WAIT_OBJECT_0 afterwards. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"
#include "win32_testutil.h"

/* Run fn(arg) on a fresh thread and wait for it (a pthread, so that results can be
 * read after the join). */
static void on_other_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, fn, arg) == 0);
    pthread_join(t, NULL);
}

struct probe { HANDLE m; DWORD wait_ms; DWORD wait; BOOL rel; DWORD rel_err; };

/* From another thread: try to acquire; if that fails, try to release. */
static void *probe_main(void *p)
{
    struct probe *pr = p;
    pr->wait = WaitForSingleObject(pr->m, pr->wait_ms);
    if (pr->wait == WAIT_OBJECT_0 || pr->wait == WAIT_ABANDONED_0) {
        pr->rel = ReleaseMutex(pr->m);
        pr->rel_err = 0;
    } else {
        SetLastError(0);
        pr->rel = ReleaseMutex(pr->m);
        pr->rel_err = GetLastError();
    }
    return NULL;
}

/* Is the mutex free for another thread (it can acquire it at once)? */
static int free_for_others(HANDLE m)
{
    struct probe pr = { m, 0, 0, 0, 0 };
    on_other_thread(probe_main, &pr);
    return pr.wait == WAIT_OBJECT_0 && pr.rel;
}

static void test_create_forms(void)
{
    static const struct { int form; BOOL owned; } cases[] = {
        { 0, FALSE }, { 0, TRUE }, { 1, FALSE }, { 1, TRUE },
        { 2, FALSE }, { 2, TRUE }, { 3, FALSE }, { 3, TRUE },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        BOOL owned = cases[i].owned;
        DWORD flags = owned ? CREATE_MUTEX_INITIAL_OWNER : 0;
        HANDLE m;
        SetLastError(0xdead);
        switch (cases[i].form) {
        case 0: m = CreateMutexA(NULL, owned, NULL); break;
        case 1: m = CreateMutexW(NULL, owned, NULL); break;
        case 2: m = CreateMutexExA(NULL, NULL, flags, MUTEX_ALL_ACCESS); break;
        default: m = CreateMutexExW(NULL, NULL, flags, MUTEX_ALL_ACCESS); break;
        }
        REQUIRE(m != NULL);
        CHECK_EQ(GetLastError(), ERROR_SUCCESS);
        CHECK_EQ(free_for_others(m), !owned);
        SetLastError(0);
        CHECK_EQ(ReleaseMutex(m), owned);
        CHECK_EQ(GetLastError(), owned ? 0 : ERROR_NOT_OWNER);
        CHECK(free_for_others(m));
        CloseHandle(m);
    }
}

/* Acquire n times, release n times (all TRUE), then ERROR_NOT_OWNER. */
static void test_recursion_table(void)
{
    static const int depth[] = { 1, 2, 5, 100, 1000 };
    for (size_t i = 0; i < ARRAYSIZE(depth); i++) {
        HANDLE m = CreateMutexA(NULL, FALSE, NULL);
        for (int k = 0; k < depth[i]; k++) CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
        for (int k = 0; k < depth[i]; k++) {
            if (k == 0 || k == depth[i] - 1) CHECK(!free_for_others(m));   /* still owned */
            CHECK_EQ(ReleaseMutex(m), TRUE);
        }
        SetLastError(0);
        CHECK_EQ(ReleaseMutex(m), FALSE);
        CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
        CHECK(free_for_others(m));
        CloseHandle(m);
    }
    /* initially owned + recursive acquisitions */
    HANDLE m = CreateMutexA(NULL, TRUE, NULL);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(m, INFINITE), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CHECK(ReleaseMutex(m));
    CHECK(!free_for_others(m));
    CHECK(ReleaseMutex(m));
    CHECK(!ReleaseMutex(m));
    CloseHandle(m);
}

static void test_non_owner(void)
{
    /* unowned: release fails with ERROR_NOT_OWNER */
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    SetLastError(0);
    CHECK_EQ(ReleaseMutex(m), FALSE);
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);

    /* owned (twice) by this thread: another thread can neither acquire (times out)
     * nor release; the state is unchanged */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    struct probe pr = { m, 50, 0, 0, 0 };
    on_other_thread(probe_main, &pr);
    CHECK_EQ(pr.wait, WAIT_TIMEOUT);
    CHECK_EQ(pr.rel, FALSE);
    CHECK_EQ(pr.rel_err, ERROR_NOT_OWNER);
    CHECK(ReleaseMutex(m));
    CHECK(!free_for_others(m));
    CHECK(ReleaseMutex(m));
    CHECK(free_for_others(m));
    CloseHandle(m);
}

/* ---- abandonment ----------------------------------------------------------------- */

enum how { RETURN, EXIT_THREAD, CREATED_OWNED, VIA_WAIT_MULTIPLE };
struct owner_arg {
    HANDLE m;               /* the mutex (made by the thread itself for CREATED_OWNED) */
    int depth;              /* how many times the thread acquires it */
    enum how how;
    DWORD bad;              /* a failed acquisition, 0 if none */
    HANDLE acquired, go;    /* optional: tell when it owns it, wait before exiting */
};

static void owner_body(struct owner_arg *a)
{
    a->bad = 0;
    if (a->how == CREATED_OWNED) {
        a->m = CreateMutexA(NULL, TRUE, NULL);
        if (!a->m) a->bad = 0xbad;
    }
    for (int i = 0; i < a->depth; i++) {
        DWORD r = a->how == VIA_WAIT_MULTIPLE ? WaitForMultipleObjects(1, &a->m, TRUE, 0)
                                              : WaitForSingleObject(a->m, 0);
        if (r != WAIT_OBJECT_0) a->bad = r ? r : 0xbad;
    }
    if (a->acquired) {
        SetEvent(a->acquired);
        WaitForSingleObject(a->go, 10000);
    }
}

static DWORD WINAPI owner_win32(LPVOID p)
{
    struct owner_arg *a = p;
    owner_body(a);
    if (a->how == EXIT_THREAD) {
        ExitThread(5);
        a->bad = 0xdead;   /* not reached */
    }
    return 4;
}

static void *owner_pthread(void *p)
{
    struct owner_arg *a = p;
    owner_body(a);
    if (a->how == EXIT_THREAD) {
        ExitThread(5);   /* ExitThread from a thread made by pthread_create */
        a->bad = 0xdead;
    }
    return NULL;
}

static void check_abandoned_then_normal(HANDLE m)
{
    /* the next acquirer is told once ... */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_ABANDONED_0);
    /* ... and then owns it with count 1 */
    CHECK(!free_for_others(m));
    CHECK_EQ(ReleaseMutex(m), TRUE);
    SetLastError(0);
    CHECK_EQ(ReleaseMutex(m), FALSE);
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    /* the flag is cleared: a normal wait now */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CHECK(free_for_others(m));
}

static const struct { int pthread; enum how how; int depth; } abandon_cases[] = {
    { 0, RETURN, 1 }, { 0, RETURN, 3 }, { 0, EXIT_THREAD, 1 }, { 0, EXIT_THREAD, 2 },
    { 0, VIA_WAIT_MULTIPLE, 1 }, { 0, CREATED_OWNED, 0 }, { 0, CREATED_OWNED, 2 },
    { 1, RETURN, 1 }, { 1, RETURN, 4 }, { 1, VIA_WAIT_MULTIPLE, 2 }, { 1, CREATED_OWNED, 0 },
    { 1, EXIT_THREAD, 2 },
};

/* The owner exits while nobody waits: the next wait reports the abandonment. */
static void test_abandon_on_exit(void)
{
    for (size_t i = 0; i < ARRAYSIZE(abandon_cases); i++) {
        struct owner_arg a = { NULL, abandon_cases[i].depth, abandon_cases[i].how, 0, NULL, NULL };
        if (a.how != CREATED_OWNED) a.m = CreateMutexA(NULL, FALSE, NULL);
        if (abandon_cases[i].pthread) {
            on_other_thread(owner_pthread, &a);
        } else {
            HANDLE t = CreateThread(NULL, 0, owner_win32, &a, 0, NULL);
            REQUIRE(t != NULL);
            CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
            DWORD code = 0;
            CHECK(GetExitCodeThread(t, &code));
            CHECK_EQ(code, a.how == EXIT_THREAD ? 5 : 4);
            CloseHandle(t);
        }
        if (a.bad) fprintf(stderr, "abandon case %zu: owner failed: %u\n", i, a.bad);
        CHECK_EQ(a.bad, 0);
        REQUIRE(a.m != NULL);
        check_abandoned_then_normal(a.m);
        CloseHandle(a.m);
    }
}

struct blocked_waiter { HANDLE m; DWORD result; BOOL released; };

static DWORD WINAPI blocked_waiter_main(LPVOID p)
{
    struct blocked_waiter *w = p;
    w->result = WaitForSingleObject(w->m, 10000);
    w->released = ReleaseMutex(w->m);
    return 0;
}

/* The owner exits while another thread is blocked on the mutex: that waiter wakes
 * with WAIT_ABANDONED_0 and owns the mutex. */
static void test_abandon_wakes_waiter(void)
{
    for (size_t i = 0; i < ARRAYSIZE(abandon_cases); i++) {
        struct owner_arg a = { NULL, abandon_cases[i].depth, abandon_cases[i].how, 0, NULL, NULL };
        if (a.how != CREATED_OWNED) a.m = CreateMutexA(NULL, FALSE, NULL);
        a.acquired = CreateEventA(NULL, TRUE, FALSE, NULL);
        a.go = CreateEventA(NULL, TRUE, FALSE, NULL);
        pthread_t pt;
        HANDLE wt = NULL;
        if (abandon_cases[i].pthread) {
            REQUIRE(pthread_create(&pt, NULL, owner_pthread, &a) == 0);
        } else {
            wt = CreateThread(NULL, 0, owner_win32, &a, 0, NULL);
            REQUIRE(wt != NULL);
        }
        CHECK_EQ(WaitForSingleObject(a.acquired, 10000), WAIT_OBJECT_0);
        REQUIRE(a.m != NULL);
        struct blocked_waiter w = { a.m, 0xdead, FALSE };
        DWORD wtid;
        HANDLE waiter = CreateThread(NULL, 0, blocked_waiter_main, &w, 0, &wtid);
        REQUIRE(waiter != NULL);
        CHECK(w32t_wait_blocked(wtid));
        CHECK(SetEvent(a.go));
        CHECK_EQ(WaitForSingleObject(waiter, 10000), WAIT_OBJECT_0);
        CHECK_EQ(w.result, WAIT_ABANDONED_0);
        CHECK_EQ(w.released, TRUE);
        if (abandon_cases[i].pthread) pthread_join(pt, NULL);
        else { CHECK_EQ(WaitForSingleObject(wt, 10000), WAIT_OBJECT_0); CloseHandle(wt); }
        CHECK_EQ(a.bad, 0);
        /* abandonment was reported once: a normal mutex again */
        CHECK_EQ(WaitForSingleObject(a.m, 0), WAIT_OBJECT_0);
        CHECK(ReleaseMutex(a.m));
        CloseHandle(waiter);
        CloseHandle(a.m);
        CloseHandle(a.acquired);
        CloseHandle(a.go);
    }
}

/* A mutex released before its owner exits is not abandoned. */
static void *acquire_release(void *p)
{
    HANDLE m = p;
    if (WaitForSingleObject(m, 0) == WAIT_OBJECT_0) ReleaseMutex(m);
    return NULL;
}

static void test_released_not_abandoned(void)
{
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    on_other_thread(acquire_release, m);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    CloseHandle(m);
}


/* ---- contention: mutual exclusion and hand-off under load ------------------- */

#define CT 4
#define CITERS 2000
static LONG volatile inside, violations;
static long plain_counter;   /* protected by the Win32 mutex alone */

static DWORD WINAPI contender(LPVOID p)
{
    HANDLE m = p;
    for (int i = 0; i < CITERS; i++) {
        DWORD r = WaitForSingleObject(m, 10000);
        if (r != WAIT_OBJECT_0) { InterlockedIncrement(&violations); continue; }
        if (InterlockedIncrement(&inside) != 1) InterlockedIncrement(&violations);
        plain_counter++;
        if (i % 7 == 0) {   /* recursive acquisition inside */
            if (WaitForSingleObject(m, 0) != WAIT_OBJECT_0 || !ReleaseMutex(m)) InterlockedIncrement(&violations);
        }
        InterlockedDecrement(&inside);
        if (!ReleaseMutex(m)) InterlockedIncrement(&violations);
    }
    return 0;
}

static void test_contention(void)
{
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE t[CT];
    for (int i = 0; i < CT; i++) t[i] = CreateThread(NULL, 0, contender, m, 0, NULL);
    CHECK_EQ(WaitForMultipleObjects(CT, t, TRUE, 60000), WAIT_OBJECT_0);
    CHECK_EQ(violations, 0);
    CHECK_EQ(plain_counter, (long)CT * CITERS);
    /* nobody holds it at the end */
    CHECK(free_for_others(m));
    for (int i = 0; i < CT; i++) CloseHandle(t[i]);
    CloseHandle(m);
}

int main(void)
{
    test_create_forms();
    test_recursion_table();
    test_non_owner();
    test_abandon_on_exit();
    test_abandon_wakes_waiter();
    test_released_not_abandoned();
    test_contention();
    return nspa_test_done();
}
