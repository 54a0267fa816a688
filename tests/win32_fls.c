/* FlsAlloc / FlsGetValue / FlsSetValue / FlsFree (one fiber per thread): the callback
 * runs for a thread's non-NULL value when the thread exits, and at FlsFree for every
 * thread's value (in the freeing thread); NULL values get no call; bad indexes. */
#include <windows.h>
#include "nspa_test.h"

static DWORD idx;
static volatile LONG calls, sum, gate;
#define LD(x) InterlockedCompareExchange(&(x), 0, 0)   /* written by other threads */

static void WINAPI cb(PVOID v)
{
    InterlockedIncrement(&calls);
    InterlockedAdd(&sum, (LONG)(LONG_PTR)v);
}

/* the thread object is signaled before the C library runs its key destructors: wait
 * (bounded) for the count to reach @n */
static LONG calls_reach(LONG n)
{
    for (int i = 0; i < 5000 && InterlockedCompareExchange(&calls, 0, 0) < n; i++) Sleep(1);
    return LD(calls);
}

static DWORD WINAPI setter(LPVOID arg)
{
    CHECK(FlsGetValue(idx) == NULL);
    CHECK(FlsSetValue(idx, arg));
    CHECK(FlsGetValue(idx) == arg);
    return 0;
}

static DWORD WINAPI holder(LPVOID arg)
{
    CHECK(FlsSetValue(idx, arg));
    InterlockedIncrement(&gate);
    while (InterlockedCompareExchange(&gate, 0, 0) < 100) Sleep(1);
    SetLastError(0);
    CHECK(FlsGetValue(idx) == NULL);                 /* the index is gone */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    return 0;
}

int main(void)
{
    idx = FlsAlloc(cb);
    REQUIRE(idx != FLS_OUT_OF_INDEXES);
    SetLastError(99);
    CHECK(FlsGetValue(idx) == NULL);
    CHECK_EQ(GetLastError(), ERROR_SUCCESS);

    /* thread exit: one call per non-NULL value */
    HANDLE t = CreateThread(NULL, 0, setter, (LPVOID)5, 0, NULL);
    REQUIRE(t);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);
    CHECK_EQ(calls_reach(1), 1);
    CHECK_EQ(LD(sum), 5);
    t = CreateThread(NULL, 0, setter, NULL, 0, NULL);   /* a NULL value: no call */
    REQUIRE(t);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);
    Sleep(50);                                       /* a wrong call would come now */
    CHECK_EQ(LD(calls), 1);

    /* FlsFree: every live thread's value, and ours, once each */
    HANDLE h[3];
    for (int i = 0; i < 3; i++) {
        h[i] = CreateThread(NULL, 0, holder, (LPVOID)(LONG_PTR)(10 << i), 0, NULL);
        REQUIRE(h[i]);
    }
    while (InterlockedCompareExchange(&gate, 0, 0) < 3) Sleep(1);
    CHECK(FlsSetValue(idx, (LPVOID)100));
    InterlockedExchange(&calls, 0);
    InterlockedExchange(&sum, 0);
    CHECK(FlsFree(idx));
    CHECK_EQ(LD(calls), 4);
    CHECK_EQ(LD(sum), 10 + 20 + 40 + 100);
    InterlockedExchange(&gate, 100);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(WaitForSingleObject(h[i], 10000), WAIT_OBJECT_0);
        CloseHandle(h[i]);
    }
    Sleep(50);
    CHECK_EQ(LD(calls), 4);                              /* no second call at their exit */

    /* a freed index and bad ones */
    SetLastError(0);
    CHECK(FlsGetValue(idx) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!FlsSetValue(idx, (PVOID)1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!FlsFree(idx));
    CHECK(!FlsFree(FLS_OUT_OF_INDEXES));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* indexes without a callback, many of them, come back after FlsFree */
    static DWORD all[FLS_MAXIMUM_AVAILABLE + 1];
    int n = 0;
    while (n <= FLS_MAXIMUM_AVAILABLE && (all[n] = FlsAlloc(NULL)) != FLS_OUT_OF_INDEXES) n++;
    CHECK_EQ(n, FLS_MAXIMUM_AVAILABLE);
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_ITEMS);
    CHECK(FlsSetValue(all[n - 1], (PVOID)7));        /* the last chunk */
    CHECK(FlsGetValue(all[n - 1]) == (PVOID)7);
    for (int i = 0; i < n; i++) CHECK(FlsFree(all[i]));
    DWORD back = FlsAlloc(NULL);
    CHECK(back != FLS_OUT_OF_INDEXES);
    CHECK(FlsGetValue(back) == NULL);
    CHECK(FlsFree(back));
    return nspa_test_done();
}
