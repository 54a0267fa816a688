/* TlsAlloc / TlsGetValue / TlsSetValue / TlsFree: per-thread values, a new thread starts
 * with NULL, TlsGetValue clears the last error on success, a freed and re-allocated
 * index reads NULL in every thread, bad indexes, and running out of indexes. */
#include <windows.h>
#include "nspa_test.h"

static DWORD idx;
static volatile LONG phase;

static DWORD WINAPI other(LPVOID arg)
{
    (void)arg;
    CHECK(TlsGetValue(idx) == NULL);                 /* a new thread starts with NULL */
    CHECK(TlsSetValue(idx, (LPVOID)0x2222));
    CHECK(TlsGetValue(idx) == (LPVOID)0x2222);
    InterlockedExchange(&phase, 1);
    while (InterlockedCompareExchange(&phase, 0, 0) != 2) Sleep(1);
    /* the index was freed and allocated again meanwhile: this thread reads NULL */
    CHECK(TlsGetValue(idx) == NULL);
    return 0;
}

int main(void)
{
    idx = TlsAlloc();
    REQUIRE(idx != TLS_OUT_OF_INDEXES);
    SetLastError(1234);
    CHECK(TlsGetValue(idx) == NULL);
    CHECK_EQ(GetLastError(), ERROR_SUCCESS);         /* NULL value, not a failure */
    CHECK(TlsSetValue(idx, (LPVOID)0x1111));
    HANDLE t = CreateThread(NULL, 0, other, NULL, 0, NULL);
    REQUIRE(t);
    while (InterlockedCompareExchange(&phase, 0, 0) != 1) Sleep(1);
    CHECK(TlsGetValue(idx) == (LPVOID)0x1111);       /* the other thread's value is its own */
    CHECK(TlsFree(idx));
    DWORD again = TlsAlloc();
    CHECK(again != TLS_OUT_OF_INDEXES);
    CHECK(TlsGetValue(again) == NULL);              /* no value left from before */
    idx = again;
    InterlockedExchange(&phase, 2);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);

    /* bad indexes */
    SetLastError(0);
    CHECK(TlsGetValue(0x7fffffff) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!TlsSetValue(TLS_OUT_OF_INDEXES, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!TlsFree(TLS_OUT_OF_INDEXES));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* running out: TLS_OUT_OF_INDEXES with ERROR_NO_MORE_ITEMS, and they come back */
    static DWORD all[2048];
    int n = 0;
    while (n < 2048 && (all[n] = TlsAlloc()) != TLS_OUT_OF_INDEXES) n++;
    CHECK(n > 900 && n < 2048);
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_ITEMS);
    for (int i = 0; i < n; i++) CHECK(TlsFree(all[i]));
    DWORD back = TlsAlloc();
    CHECK(back != TLS_OUT_OF_INDEXES);
    CHECK(TlsFree(back));
    CHECK(TlsFree(idx));
    return nspa_test_done();
}
