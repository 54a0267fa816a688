/* The Interlocked family (winnt_interlocked.h): every function's return value and
 * effect, table-driven over edge values (wrap-around at the type's limits, CAS hit
 * and miss), MemoryBarrier/YieldProcessor and the Acquire/Release aliases; then
 * threads hammering shared counters with each read-modify-write, checked exactly. */
#include <windows.h>
#include <limits.h>
#include "nspa_test.h"

static void test_long(void)
{
    static const LONG vals[] = { 0, 1, -1, 2, INT_MAX, INT_MIN, 0x55555555, (LONG)0xAAAAAAAAu };
    for (size_t i = 0; i < ARRAYSIZE(vals); i++) {
        for (size_t j = 0; j < ARRAYSIZE(vals); j++) {
            LONG v = vals[i], o = vals[j];
            LONG volatile x;
            LONG sum = (LONG)((DWORD)v + (DWORD)o);   /* wraps like the hardware */
            x = v; CHECK_EQ(InterlockedExchangeAdd(&x, o), v); CHECK_EQ(x, sum);
            x = v; CHECK_EQ(InterlockedAdd(&x, o), sum); CHECK_EQ(x, sum);
            x = v; CHECK_EQ(InterlockedExchange(&x, o), v); CHECK_EQ(x, o);
            x = v; CHECK_EQ(InterlockedAnd(&x, o), v); CHECK_EQ(x, v & o);
            x = v; CHECK_EQ(InterlockedOr(&x, o), v); CHECK_EQ(x, v | o);
            x = v; CHECK_EQ(InterlockedXor(&x, o), v); CHECK_EQ(x, v ^ o);
            /* CompareExchange(dest, exchange, comparand): returns the old value and
             * stores exchange only when old == comparand */
            x = v; CHECK_EQ(InterlockedCompareExchange(&x, 12345, o), v);
            CHECK_EQ(x, v == o ? 12345 : v);
            x = v; CHECK_EQ(InterlockedCompareExchangeAcquire(&x, o, v), v); CHECK_EQ(x, o);
            x = v; CHECK_EQ(InterlockedCompareExchangeRelease(&x, o, v), v); CHECK_EQ(x, o);
        }
        LONG v = vals[i];
        LONG volatile x = v;
        LONG inc = (LONG)((DWORD)v + 1), dec = (LONG)((DWORD)v - 1);
        CHECK_EQ(InterlockedIncrement(&x), inc); CHECK_EQ(x, inc);
        x = v; CHECK_EQ(InterlockedDecrement(&x), dec); CHECK_EQ(x, dec);
        x = v; CHECK_EQ(InterlockedIncrementAcquire(&x), inc);
        x = v; CHECK_EQ(InterlockedIncrementRelease(&x), inc);
        x = v; CHECK_EQ(InterlockedDecrementAcquire(&x), dec);
        x = v; CHECK_EQ(InterlockedDecrementRelease(&x), dec);
    }
    /* the documented wrap-around cases */
    LONG volatile w = INT_MAX;
    CHECK_EQ(InterlockedIncrement(&w), INT_MIN);
    CHECK_EQ(InterlockedDecrement(&w), INT_MAX);
}

static void test_short(void)
{
    static const SHORT vals[] = { 0, 1, -1, SHRT_MAX, SHRT_MIN, 0x5555 };
    for (size_t i = 0; i < ARRAYSIZE(vals); i++) {
        SHORT v = vals[i];
        SHORT volatile x = v;
        SHORT inc = (SHORT)(USHORT)((USHORT)v + 1), dec = (SHORT)(USHORT)((USHORT)v - 1);
        CHECK_EQ(InterlockedIncrement16(&x), inc); CHECK_EQ(x, inc);
        x = v; CHECK_EQ(InterlockedDecrement16(&x), dec); CHECK_EQ(x, dec);
        for (size_t j = 0; j < ARRAYSIZE(vals); j++) {
            x = v;
            CHECK_EQ(InterlockedCompareExchange16(&x, 77, vals[j]), v);
            CHECK_EQ(x, v == vals[j] ? 77 : v);
        }
    }
    /* a 16-bit operation touches its 16 bits only */
    union { SHORT s[2]; LONG l; } u;
    u.l = 0;
    u.s[0] = SHRT_MAX;
    InterlockedIncrement16(&u.s[0]);
    CHECK_EQ(u.s[0], SHRT_MIN);
    CHECK_EQ(u.s[1], 0);
}

static void test_long64(void)
{
    static const LONG64 vals[] = { 0, 1, -1, INT64_MAX, INT64_MIN, 0x100000000ll, 0xFFFFFFFFll,
                                   0x5555555555555555ll };
    for (size_t i = 0; i < ARRAYSIZE(vals); i++) {
        for (size_t j = 0; j < ARRAYSIZE(vals); j++) {
            LONG64 v = vals[i], o = vals[j];
            LONG64 volatile x;
            LONG64 sum = (LONG64)((ULONGLONG)v + (ULONGLONG)o);
            x = v; CHECK_EQ(InterlockedExchangeAdd64(&x, o), v); CHECK_EQ(x, sum);
            x = v; CHECK_EQ(InterlockedAdd64(&x, o), sum); CHECK_EQ(x, sum);
            x = v; CHECK_EQ(InterlockedExchange64(&x, o), v); CHECK_EQ(x, o);
            x = v; CHECK_EQ(InterlockedAnd64(&x, o), v); CHECK_EQ(x, v & o);
            x = v; CHECK_EQ(InterlockedOr64(&x, o), v); CHECK_EQ(x, v | o);
            x = v; CHECK_EQ(InterlockedXor64(&x, o), v); CHECK_EQ(x, v ^ o);
            x = v; CHECK_EQ(InterlockedCompareExchange64(&x, 0x123456789ll, o), v);
            CHECK_EQ(x, v == o ? 0x123456789ll : v);
        }
        LONG64 v = vals[i];
        LONG64 volatile x = v;
        LONG64 inc = (LONG64)((ULONGLONG)v + 1), dec = (LONG64)((ULONGLONG)v - 1);
        CHECK_EQ(InterlockedIncrement64(&x), inc); CHECK_EQ(x, inc);
        x = v; CHECK_EQ(InterlockedDecrement64(&x), dec); CHECK_EQ(x, dec);
    }
    /* carries cross the 32-bit halves */
    LONG64 volatile c = 0xFFFFFFFFll;
    CHECK_EQ(InterlockedIncrement64(&c), 0x100000000ll);
    CHECK_EQ(InterlockedDecrement64(&c), 0xFFFFFFFFll);
}

static void test_pointers(void)
{
    int a, b;
    PVOID volatile p = &a;
    CHECK(InterlockedExchangePointer(&p, &b) == &a);
    CHECK(p == &b);
    CHECK(InterlockedCompareExchangePointer(&p, &a, &a) == &b);   /* miss */
    CHECK(p == &b);
    CHECK(InterlockedCompareExchangePointer(&p, &a, &b) == &b);   /* hit */
    CHECK(p == &a);
    CHECK(InterlockedCompareExchangePointer(&p, NULL, &a) == &a);
    CHECK(p == NULL);
    /* full 64-bit pointer values */
    PVOID hi = (PVOID)(uintptr_t)0xFFFF800000001000ull;
    CHECK(InterlockedExchangePointer(&p, hi) == NULL);
    CHECK(InterlockedCompareExchangePointer(&p, NULL, hi) == hi);
    CHECK(p == NULL);
    MemoryBarrier();
    YieldProcessor();
}

/* ---- threads --------------------------------------------------------------------- */

#define NTHREADS 4
#define ITERS 20000
static LONG volatile c_inc, c_add, c_cas, c_xor_flips;
static LONG64 volatile c64_add, c64_cas;
static SHORT volatile c16;
static LONG volatile owner_words[NTHREADS];
static LONG volatile spin;   /* a lock made of CompareExchange/Exchange */
static LONG plain;           /* guarded by spin */

static DWORD WINAPI hammer(LPVOID p)
{
    int id = (int)(intptr_t)p;
    for (int i = 0; i < ITERS; i++) {
        InterlockedIncrement(&c_inc);
        InterlockedDecrement(&c_inc);
        InterlockedIncrement(&c_inc);
        InterlockedExchangeAdd(&c_add, 3);
        InterlockedAdd(&c_add, -1);
        for (LONG o = 0;; ) {
            LONG seen = InterlockedCompareExchange(&c_cas, o + 1, o);
            if (seen == o) break;
            o = seen;
        }
        InterlockedXor(&c_xor_flips, 1 << id);
        InterlockedAdd64(&c64_add, 0x100000001ll);
        for (LONG64 o = 0;; ) {
            LONG64 seen = InterlockedCompareExchange64(&c64_cas, o + 7, o);
            if (seen == o) break;
            o = seen;
        }
        InterlockedIncrement16(&c16);
        InterlockedOr(&owner_words[id], 1 << (i & 15));
        while (InterlockedCompareExchange(&spin, 1, 0) != 0) { YieldProcessor(); SwitchToThread(); }
        plain++;
        InterlockedExchange(&spin, 0);
    }
    return 0;
}

static void test_threaded(void)
{
    HANDLE t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) t[i] = CreateThread(NULL, 0, hammer, (LPVOID)(intptr_t)i, 0, NULL);
    CHECK_EQ(WaitForMultipleObjects(NTHREADS, t, TRUE, 60000), WAIT_OBJECT_0);
    for (int i = 0; i < NTHREADS; i++) CloseHandle(t[i]);
    CHECK_EQ(c_inc, NTHREADS * ITERS);
    CHECK_EQ(c_add, NTHREADS * ITERS * 2);
    CHECK_EQ(c_cas, NTHREADS * ITERS);
    CHECK_EQ(c_xor_flips, 0);   /* each thread flips its bit an even number of times */
    CHECK_EQ(c64_add, (LONG64)NTHREADS * ITERS * 0x100000001ll);
    CHECK_EQ(c64_cas, (LONG64)NTHREADS * ITERS * 7);
    CHECK_EQ(c16, (SHORT)(NTHREADS * ITERS));   /* wraps at 16 bits */
    for (int i = 0; i < NTHREADS; i++) CHECK_EQ(owner_words[i], 0xFFFF);
    CHECK_EQ(plain, NTHREADS * ITERS);
}

int main(void)
{
    test_long();
    test_short();
    test_long64();
    test_pointers();
    test_threaded();
    return nspa_test_done();
}
