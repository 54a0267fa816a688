/* Includes only <synchapi.h> and uses what the SDK's synchapi.h declares: waits,
 * events, mutexes, semaphores, sleeping, critical sections, SRW locks, condition
 * variables, one-time initialisation, WaitOnAddress. */
#include <synchapi.h>

static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

int main(void)
{
    if (!InitializeCriticalSectionEx(&cs, 0, CRITICAL_SECTION_NO_DEBUG_INFO)) return 1;
    if (!TryEnterCriticalSection(&cs)) return 2;
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    if (!TryAcquireSRWLockShared(&srw)) return 3;
    if (SleepConditionVariableSRW(&cv, &srw, 1, CONDITION_VARIABLE_LOCKMODE_SHARED)) return 4;
    ReleaseSRWLockShared(&srw);
    WakeConditionVariable(&cv);
    BOOL pending = FALSE;
    if (!InitOnceBeginInitialize(&once, 0, &pending, NULL) || !pending) return 5;
    InitOnceComplete(&once, 0, NULL);
    HANDLE m = CreateMutexW(NULL, TRUE, NULL), s = CreateSemaphoreW(NULL, 0, 1, NULL);
    HANDLE e = CreateEventExW(NULL, NULL, CREATE_EVENT_MANUAL_RESET, EVENT_ALL_ACCESS);
    if (!ReleaseMutex(m) || !ReleaseSemaphore(s, 1, NULL) || !SetEvent(e) || !ResetEvent(e)) return 6;
    HANDLE all[2] = { m, s };
    if (WaitForMultipleObjects(2, all, TRUE, 0) != WAIT_OBJECT_0) return 7;
    if (SignalObjectAndWait(e, e, 0, FALSE) != WAIT_OBJECT_0) return 8;
    if (WaitForSingleObjectEx(e, 0, TRUE) != WAIT_OBJECT_0) return 9;
    LONG v = 0, cmp = 1;
    if (!WaitOnAddress(&v, &cmp, sizeof v, 0)) return 10;  /* values differ: TRUE at once */
    WakeByAddressAll(&v);
    Sleep(0);
    SleepEx(0, FALSE);
    OpenEventW(EVENT_MODIFY_STATE | SYNCHRONIZE, FALSE, L"win32-header-synchapi-none");
    return 0;
}
