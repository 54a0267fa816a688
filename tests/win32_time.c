/* Clocks and sleeping: QueryPerformanceFrequency (constant, > 0),
 * QueryPerformanceCounter (monotonic, also across threads), GetTickCount64 and
 * GetTickCount (consistent, advancing across Sleep), Sleep/SleepEx/SwitchToThread.
 * Behaviour checks only: the one lower bound (>= 40 ms across Sleep(50)) is what
 * Sleep promises; nothing asserts an upper bound on time. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"

static void test_frequency(void)
{
    LARGE_INTEGER f1, f2;
    f1.QuadPart = f2.QuadPart = 0;
    CHECK(QueryPerformanceFrequency(&f1));
    CHECK(QueryPerformanceFrequency(&f2));
    CHECK(f1.QuadPart > 0);
    CHECK_EQ(f1.QuadPart, f2.QuadPart);
    SetLastError(0);
    CHECK(!QueryPerformanceFrequency(NULL));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    SetLastError(0);
    CHECK(!QueryPerformanceCounter(NULL));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
}

static void test_counter_monotonic(void)
{
    LARGE_INTEGER prev, now;
    CHECK(QueryPerformanceCounter(&prev));
    CHECK(prev.QuadPart > 0);
    int backwards = 0;
    for (int i = 0; i < 100000; i++) {
        QueryPerformanceCounter(&now);
        if (now.QuadPart < prev.QuadPart) backwards++;
        prev = now;
    }
    CHECK_EQ(backwards, 0);
}

/* A value read in one thread, then (after a hand-off) in another, is not larger. */
static LARGE_INTEGER handed;
static HANDLE handed_ev;
static void *reader(void *p)
{
    int *bad = p;
    for (int i = 0; i < 200; i++) {
        WaitForSingleObject(handed_ev, 10000);
        LARGE_INTEGER now;
        QueryPerformanceCounter(&now);
        if (now.QuadPart < handed.QuadPart) (*bad)++;
        QueryPerformanceCounter(&handed);
        SetEvent(handed_ev);
        Sleep(0);
    }
    return NULL;
}

static void test_counter_across_threads(void)
{
    handed_ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    int bad = 0, bad_main = 0;
    QueryPerformanceCounter(&handed);
    pthread_t t;
    pthread_create(&t, NULL, reader, &bad);
    SetEvent(handed_ev);
    for (int i = 0; i < 200; i++) {
        WaitForSingleObject(handed_ev, 10000);
        LARGE_INTEGER now;
        QueryPerformanceCounter(&now);
        if (now.QuadPart < handed.QuadPart) bad_main++;
        QueryPerformanceCounter(&handed);
        SetEvent(handed_ev);
        Sleep(0);
    }
    pthread_join(t, NULL);
    CHECK_EQ(bad, 0);
    CHECK_EQ(bad_main, 0);
    CloseHandle(handed_ev);
}

static void test_sleep_advances(void)
{
    LARGE_INTEGER f, c0, c1;
    QueryPerformanceFrequency(&f);
    ULONGLONG t0 = GetTickCount64();
    QueryPerformanceCounter(&c0);
    Sleep(50);
    QueryPerformanceCounter(&c1);
    ULONGLONG t1 = GetTickCount64();
    CHECK(t1 >= t0 + 40);
    long long ms = (c1.QuadPart - c0.QuadPart) * 1000 / f.QuadPart;
    CHECK(ms >= 40);
    /* SleepEx, non-alertable and alertable with nothing queued, sleep as long */
    t0 = GetTickCount64();
    CHECK_EQ(SleepEx(50, FALSE), 0);
    CHECK(GetTickCount64() >= t0 + 40);
    t0 = GetTickCount64();
    CHECK_EQ(SleepEx(50, TRUE), 0);
    CHECK(GetTickCount64() >= t0 + 40);
    /* a wait timeout of 50 ms lasts at least ~50 ms too */
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
    t0 = GetTickCount64();
    CHECK_EQ(WaitForSingleObject(e, 50), WAIT_TIMEOUT);
    CHECK(GetTickCount64() >= t0 + 40);
    CloseHandle(e);
}

static void test_tick_consistency(void)
{
    /* GetTickCount is the low 32 bits of GetTickCount64 */
    for (int i = 0; i < 1000; i++) {
        ULONGLONG a = GetTickCount64();
        DWORD t = GetTickCount();
        ULONGLONG b = GetTickCount64();
        CHECK(b >= a);
        CHECK(t == (DWORD)a || t == (DWORD)b || ((DWORD)(t - (DWORD)a) <= (DWORD)(b - a)));
        if (nspa_test_failed) break;
    }
    /* the tick count is milliseconds: it agrees with the performance counter within
     * a coarse tolerance over a 100 ms span (both are monotonic clocks) */
    LARGE_INTEGER f, c0, c1;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c0);
    ULONGLONG t0 = GetTickCount64();
    Sleep(100);
    ULONGLONG t1 = GetTickCount64();
    QueryPerformanceCounter(&c1);
    long long qpc_ms = (c1.QuadPart - c0.QuadPart) * 1000 / f.QuadPart;
    long long tick_ms = (long long)(t1 - t0);
    CHECK(tick_ms >= 90);
    CHECK(tick_ms <= qpc_ms + 20);   /* ticks measured inside the QPC span */
}

static void test_zero_sleeps(void)
{
    Sleep(0);
    CHECK_EQ(SleepEx(0, FALSE), 0);
    CHECK_EQ(SleepEx(0, TRUE), 0);
    SwitchToThread();   /* returns whether it switched: either is correct */
}

int main(void)
{
    test_frequency();
    test_counter_monotonic();
    test_counter_across_threads();
    test_sleep_advances();
    test_tick_consistency();
    test_zero_sleeps();
    return nspa_test_done();
}
