/* Processor affinity: GetProcessAffinityMask, SetThreadAffinityMask (the previous mask
 * back, the kernel's set really changed, masks outside the process's refused),
 * SetProcessAffinityMask (every thread of the process follows), SetThreadIdealProcessor,
 * bad handles and masks. */
#include <sched.h>
#include <windows.h>
#include "nspa_test.h"

static DWORD_PTR kernel_mask(DWORD tid)
{
    cpu_set_t s;
    if (sched_getaffinity((pid_t)tid, sizeof(s), &s)) return 0;
    DWORD_PTR m = 0;
    for (int c = 0; c < 64; c++)
        if (CPU_ISSET(c, &s)) m |= (DWORD_PTR)1 << c;
    return m;
}

static volatile LONG stop;
static DWORD WINAPI spin(LPVOID a)
{
    (void)a;
    while (!InterlockedCompareExchange(&stop, 0, 0)) Sleep(1);
    return 0;
}

int main(void)
{
    DWORD_PTR pm = 0, sm = 0;
    CHECK(GetProcessAffinityMask(GetCurrentProcess(), &pm, &sm));
    CHECK(pm != 0 && (pm & ~sm) == 0);
    CHECK_EQ(pm, kernel_mask(GetCurrentThreadId()));
    CHECK(!GetProcessAffinityMask(GetCurrentProcess(), NULL, &sm));

    DWORD_PTR first = pm & (~pm + 1);                  /* the lowest CPU we may use */
    DWORD_PTR old = SetThreadAffinityMask(GetCurrentThread(), first);
    CHECK_EQ(old, pm);
    CHECK_EQ(kernel_mask(GetCurrentThreadId()), first);
    CHECK_EQ(SetThreadAffinityMask(GetCurrentThread(), pm), first);
    CHECK_EQ(kernel_mask(GetCurrentThreadId()), pm);

    /* another thread, by handle */
    HANDLE t = CreateThread(NULL, 0, spin, NULL, 0, NULL);
    REQUIRE(t);
    CHECK_EQ(SetThreadAffinityMask(t, first), pm);
    CHECK_EQ(kernel_mask(GetThreadId(t)), first);

    /* refused: 0, outside the process's mask, a bad handle */
    SetLastError(0);
    CHECK_EQ(SetThreadAffinityMask(GetCurrentThread(), 0), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    if (~sm) {
        CHECK_EQ(SetThreadAffinityMask(GetCurrentThread(), ~sm & (~sm + 1)), 0);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    CHECK_EQ(SetThreadAffinityMask((HANDLE)(ULONG_PTR)0x123450, 1), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);

    /* the process mask: every thread follows, and thread masks must stay inside it */
    CHECK(SetProcessAffinityMask(GetCurrentProcess(), first));
    CHECK(GetProcessAffinityMask(GetCurrentProcess(), &pm, &sm));
    CHECK_EQ(pm, first);
    CHECK_EQ(kernel_mask(GetCurrentThreadId()), first);
    CHECK_EQ(kernel_mask(GetThreadId(t)), first);
    if (sm != first) {
        CHECK_EQ(SetThreadAffinityMask(GetCurrentThread(), sm), 0);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    CHECK(!SetProcessAffinityMask(GetCurrentProcess(), 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(SetProcessAffinityMask(GetCurrentProcess(), sm));
    CHECK_EQ(kernel_mask(GetThreadId(t)), sm);

    /* the ideal processor: recorded and returned for the calling thread */
    CHECK_EQ(SetThreadIdealProcessor(GetCurrentThread(), 0), 0);
    CHECK_EQ(SetThreadIdealProcessor(GetCurrentThread(), MAXIMUM_PROCESSORS), 0);
    CHECK_EQ(SetThreadIdealProcessor(GetCurrentThread(), MAXIMUM_PROCESSORS + 1), (DWORD)-1);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    InterlockedExchange(&stop, 1);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);
    return nspa_test_done();
}
