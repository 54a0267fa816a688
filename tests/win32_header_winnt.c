/* Includes only <winnt.h> and uses what the SDK's winnt.h declares: the base types, the
 * Interlocked family, access rights, the RTL_* lock types and their initialisers. */
#include <winnt.h>

static RTL_SRWLOCK srw = RTL_SRWLOCK_INIT;
static RTL_CONDITION_VARIABLE cv = RTL_CONDITION_VARIABLE_INIT;
static RTL_RUN_ONCE once = RTL_RUN_ONCE_INIT;

int main(void)
{
    LONG v = 0;
    LONG64 w = 0;
    PVOID ptr = NULL;
    InterlockedIncrement(&v);
    InterlockedCompareExchange64(&w, 5, 0);
    InterlockedExchangePointer(&ptr, &v);
    MemoryBarrier();
    YieldProcessor();
    RTL_CRITICAL_SECTION cs;
    ACCESS_MASK m = EVENT_ALL_ACCESS | SEMAPHORE_ALL_ACCESS | MUTANT_ALL_ACCESS | GENERIC_READ | SYNCHRONIZE;
    LARGE_INTEGER li;
    li.QuadPart = (LONGLONG)sizeof(cs);
    return v == 1 && w == 5 && ptr == &v && m && li.QuadPart == 40 && !srw.Ptr && !cv.Ptr && !once.Ptr &&
                   DUPLICATE_SAME_ACCESS == 2 && RTL_RUN_ONCE_ASYNC == 2
               ? 0 : 1;
}
