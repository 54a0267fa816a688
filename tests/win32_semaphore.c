/* Win32 semaphores: CreateSemaphore{A,W}, CreateSemaphoreEx{A,W}, OpenSemaphore{A,W},
 * ReleaseSemaphore (sync-semantics.md, "Semaphore"): invalid create parameters, the
 * previous count, ERROR_TOO_MANY_POSTS with the state unchanged, a wait takes one,
 * and a release of n wakes up to n waiters. */
#include <windows.h>
#include <limits.h>
#include "nspa_test.h"
#include "win32_testutil.h"

/* The current count, measured by taking it all (then put back). */
static LONG count_of(HANDLE s)
{
    LONG n = 0;
    while (WaitForSingleObject(s, 0) == WAIT_OBJECT_0) n++;
    if (n) ReleaseSemaphore(s, n, NULL);
    return n;
}

static HANDLE create_form(int form, LONG init, LONG maxc)
{
    static const WCHAR none[] = { 0 };
    switch (form) {
    case 0: return CreateSemaphoreA(NULL, init, maxc, NULL);
    case 1: return CreateSemaphoreW(NULL, init, maxc, NULL);
    case 2: return CreateSemaphoreExA(NULL, init, maxc, NULL, 0, SEMAPHORE_ALL_ACCESS);
    case 3: return CreateSemaphoreExW(NULL, init, maxc, NULL, 0, SEMAPHORE_ALL_ACCESS);
    default: return CreateSemaphoreW(NULL, init, maxc, none);   /* "" = unnamed */
    }
}

static void test_create_table(void)
{
    static const struct { LONG init, maxc; int ok; } cases[] = {
        { 0, 1, 1 }, { 1, 1, 1 }, { 0, 10, 1 }, { 10, 10, 1 }, { 3, 10, 1 },
        { 0, INT_MAX, 1 }, { INT_MAX, INT_MAX, 1 },
        { 2, 1, 0 },            /* count > max */
        { -1, 1, 0 },           /* negative count */
        { 0, 0, 0 },            /* max 0 */
        { 0, -1, 0 },           /* negative max */
        { INT_MIN, INT_MAX, 0 }, { 1, INT_MIN, 0 }, { 0, INT_MIN, 0 },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        for (int form = 0; form < 5; form++) {
            SetLastError(0xdead);
            HANDLE s = create_form(form, cases[i].init, cases[i].maxc);
            if (cases[i].ok) {
                CHECK(s != NULL);
                CHECK_EQ(GetLastError(), ERROR_SUCCESS);
                if (s && cases[i].init < 100) CHECK_EQ(count_of(s), cases[i].init);
                if (s) CloseHandle(s);
            } else {
                if (s) fprintf(stderr, "create case %zu form %d: accepted\n", i, form);
                CHECK(s == NULL);
                CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
            }
        }
    }
}

/* ReleaseSemaphore from (init, max) by n: result, last error, previous count and
 * the count afterwards (unchanged on failure). */
static void test_release_table(void)
{
    static const struct { LONG init, maxc, n; BOOL ok; DWORD err; LONG after; } cases[] = {
        { 0, 1, 1, TRUE, 0, 1 },
        { 0, 5, 5, TRUE, 0, 5 },
        { 2, 5, 3, TRUE, 0, 5 },
        { 2, 5, 1, TRUE, 0, 3 },
        { 1, 1, 1, FALSE, ERROR_TOO_MANY_POSTS, 1 },
        { 2, 5, 4, FALSE, ERROR_TOO_MANY_POSTS, 2 },
        { 0, 5, 6, FALSE, ERROR_TOO_MANY_POSTS, 0 },
        { 0, 5, INT_MAX, FALSE, ERROR_TOO_MANY_POSTS, 0 },
        { 5, INT_MAX, INT_MAX, FALSE, ERROR_TOO_MANY_POSTS, 5 },   /* would pass 2^31 */
        { 0, INT_MAX, INT_MAX, TRUE, 0, -1 },
        { 2, 5, 0, FALSE, ERROR_INVALID_PARAMETER, 2 },
        { 2, 5, -1, FALSE, ERROR_INVALID_PARAMETER, 2 },
        { 2, 5, INT_MIN, FALSE, ERROR_INVALID_PARAMETER, 2 },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        HANDLE s = CreateSemaphoreA(NULL, cases[i].init, cases[i].maxc, NULL);
        REQUIRE(s != NULL);
        LONG prev = 0x5a5a;
        SetLastError(0xdead);
        BOOL ok = ReleaseSemaphore(s, cases[i].n, &prev);
        if (ok != cases[i].ok) fprintf(stderr, "release case %zu: got %d\n", i, ok);
        CHECK_EQ(ok, cases[i].ok);
        CHECK_EQ(GetLastError(), cases[i].ok ? 0xdead : cases[i].err);
        if (cases[i].ok) CHECK_EQ(prev, cases[i].init);
        if (cases[i].after >= 0) CHECK_EQ(count_of(s), cases[i].after);
        /* NULL prev is allowed */
        if (cases[i].ok && cases[i].after >= 0 && cases[i].after < cases[i].maxc)
            CHECK(ReleaseSemaphore(s, 1, NULL));
        CloseHandle(s);
    }
}

static void test_prev_sequence(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 0, 10, NULL);
    LONG prev = -1;
    CHECK(ReleaseSemaphore(s, 1, &prev)); CHECK_EQ(prev, 0);
    CHECK(ReleaseSemaphore(s, 2, &prev)); CHECK_EQ(prev, 1);
    CHECK(ReleaseSemaphore(s, 3, &prev)); CHECK_EQ(prev, 3);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK(ReleaseSemaphore(s, 1, &prev)); CHECK_EQ(prev, 4);
    prev = 77;
    CHECK(!ReleaseSemaphore(s, 6, &prev));
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    CHECK(ReleaseSemaphore(s, 5, &prev)); CHECK_EQ(prev, 5);
    /* a wait takes exactly one; at 0 it times out */
    for (int k = 0; k < 10; k++) CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 50), WAIT_TIMEOUT);
    CloseHandle(s);
}

static void test_open(void)
{
    static const WCHAR wname[] = { 'w', '3', '2', 's', 'e', 'm', 0 };
    HANDLE s = CreateSemaphoreW(NULL, 1, 3, wname);
    REQUIRE(s != NULL);
    HANDLE a = OpenSemaphoreA(SEMAPHORE_ALL_ACCESS, FALSE, "w32sem");
    HANDLE w = OpenSemaphoreW(SEMAPHORE_MODIFY_STATE | SYNCHRONIZE, FALSE, wname);
    REQUIRE(a != NULL && w != NULL);
    LONG prev = -1;
    CHECK(ReleaseSemaphore(a, 1, &prev));
    CHECK_EQ(prev, 1);
    CHECK(ReleaseSemaphore(w, 1, &prev));
    CHECK_EQ(prev, 2);
    CHECK(!ReleaseSemaphore(s, 1, &prev));
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    /* opening an existing one by create keeps its count and max */
    HANDLE c = CreateSemaphoreExA(NULL, 0, 100, "w32sem", 0, SEMAPHORE_ALL_ACCESS);
    CHECK(c != NULL);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK_EQ(count_of(c), 3);
    CHECK(!ReleaseSemaphore(c, 1, NULL));
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    CloseHandle(c);
    CloseHandle(a);
    CloseHandle(w);
    CloseHandle(s);
}

/* ---- threaded: a release of n wakes up to n waiters --------------------------- */

#define NW 4
struct sw { HANDLE s, thread; DWORD tid, result; };
static volatile LONG done;

static DWORD WINAPI sem_waiter(LPVOID p)
{
    struct sw *w = p;
    w->result = WaitForSingleObject(w->s, 10000);
    InterlockedIncrement((LONG volatile *)&done);
    return 0;
}

static LONG done_now(void) { return InterlockedCompareExchange((LONG volatile *)&done, 0, 0); }

static void test_release_wakes_n(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 0, 100, NULL);
    struct sw w[NW];
    done = 0;
    for (int i = 0; i < NW; i++) {
        w[i].s = s;
        w[i].result = 0xdead;
        w[i].thread = CreateThread(NULL, 0, sem_waiter, &w[i], 0, &w[i].tid);
        REQUIRE(w[i].thread != NULL);
    }
    for (int i = 0; i < NW; i++) CHECK(w32t_wait_blocked(w[i].tid));
    /* release 2: exactly two wake and the count is back to 0 */
    LONG prev = -1;
    CHECK(ReleaseSemaphore(s, 2, &prev));
    CHECK_EQ(prev, 0);
    CHECK(W32T_EVENTUALLY(done_now() >= 2));
    Sleep(50);
    CHECK_EQ(done_now(), 2);
    /* an overflowing release wakes nobody */
    CHECK(!ReleaseSemaphore(s, 101, NULL));
    CHECK_EQ(GetLastError(), ERROR_TOO_MANY_POSTS);
    Sleep(30);
    CHECK_EQ(done_now(), 2);
    /* release 5 with 2 waiters left: both wake, 3 remain in the count */
    CHECK(ReleaseSemaphore(s, 5, &prev));
    CHECK_EQ(prev, 0);
    for (int i = 0; i < NW; i++) {
        CHECK_EQ(WaitForSingleObject(w[i].thread, 10000), WAIT_OBJECT_0);
        CHECK_EQ(w[i].result, WAIT_OBJECT_0);
        CloseHandle(w[i].thread);
    }
    CHECK_EQ(count_of(s), 3);
    CloseHandle(s);
}


/* A semaphore of 2 admits at most 2 threads at once, under load. */
#define LT 4
#define LITERS 1500
static LONG volatile in_use, max_in_use, sem_bad;
static DWORD WINAPI limited(LPVOID p)
{
    HANDLE s = p;
    for (int i = 0; i < LITERS; i++) {
        if (WaitForSingleObject(s, 10000) != WAIT_OBJECT_0) { InterlockedIncrement(&sem_bad); continue; }
        LONG n = InterlockedIncrement(&in_use);
        for (LONG m = InterlockedCompareExchange(&max_in_use, 0, 0); n > m;
             m = InterlockedCompareExchange(&max_in_use, 0, 0))
            if (InterlockedCompareExchange(&max_in_use, n, m) == m) break;
        if (n > 2) InterlockedIncrement(&sem_bad);
        if (i % 3 == 0) SwitchToThread();
        InterlockedDecrement(&in_use);
        if (!ReleaseSemaphore(s, 1, NULL)) InterlockedIncrement(&sem_bad);
    }
    return 0;
}

static void test_limiter(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 2, 2, NULL);
    HANDLE t[LT];
    for (int i = 0; i < LT; i++) t[i] = CreateThread(NULL, 0, limited, s, 0, NULL);
    CHECK_EQ(WaitForMultipleObjects(LT, t, TRUE, 60000), WAIT_OBJECT_0);
    CHECK_EQ(sem_bad, 0);
    CHECK(max_in_use >= 1 && max_in_use <= 2);
    CHECK_EQ(count_of(s), 2);
    for (int i = 0; i < LT; i++) CloseHandle(t[i]);
    CloseHandle(s);
}

int main(void)
{
    test_create_table();
    test_release_table();
    test_prev_sequence();
    test_open();
    test_release_wakes_n();
    test_limiter();
    return nspa_test_done();
}
