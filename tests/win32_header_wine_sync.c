/* The include lines of Wine's dlls/kernel32/tests/sync.c (ntstatus.h, WIN32_NO_STATUS,
 * windef.h, winbase.h, winternl.h) and the declarations that file uses for the objects
 * and locks NSPA implements: the function-pointer types it declares must match NSPA's
 * declarations (assigning them fails the build on any difference). */
#include "ntstatus.h"
#define WIN32_NO_STATUS
#include <windef.h>
#include <winbase.h>
#include <winternl.h>

static VOID   (WINAPI *pInitOnceInitialize)(PINIT_ONCE) = InitOnceInitialize;
static BOOL   (WINAPI *pInitOnceExecuteOnce)(PINIT_ONCE,PINIT_ONCE_FN,PVOID,LPVOID*) = InitOnceExecuteOnce;
static BOOL   (WINAPI *pInitOnceBeginInitialize)(PINIT_ONCE,DWORD,BOOL*,LPVOID*) = InitOnceBeginInitialize;
static BOOL   (WINAPI *pInitOnceComplete)(PINIT_ONCE,DWORD,LPVOID) = InitOnceComplete;
static BOOL   (WINAPI *pInitializeCriticalSectionEx)(CRITICAL_SECTION*,DWORD,DWORD) = InitializeCriticalSectionEx;
static VOID   (WINAPI *pInitializeConditionVariable)(PCONDITION_VARIABLE) = InitializeConditionVariable;
static BOOL   (WINAPI *pSleepConditionVariableCS)(PCONDITION_VARIABLE,PCRITICAL_SECTION,DWORD) = SleepConditionVariableCS;
static BOOL   (WINAPI *pSleepConditionVariableSRW)(PCONDITION_VARIABLE,PSRWLOCK,DWORD,ULONG) = SleepConditionVariableSRW;
static VOID   (WINAPI *pWakeAllConditionVariable)(PCONDITION_VARIABLE) = WakeAllConditionVariable;
static VOID   (WINAPI *pWakeConditionVariable)(PCONDITION_VARIABLE) = WakeConditionVariable;
static VOID   (WINAPI *pInitializeSRWLock)(PSRWLOCK) = InitializeSRWLock;
static VOID   (WINAPI *pAcquireSRWLockExclusive)(PSRWLOCK) = AcquireSRWLockExclusive;
static VOID   (WINAPI *pAcquireSRWLockShared)(PSRWLOCK) = AcquireSRWLockShared;
static VOID   (WINAPI *pReleaseSRWLockExclusive)(PSRWLOCK) = ReleaseSRWLockExclusive;
static VOID   (WINAPI *pReleaseSRWLockShared)(PSRWLOCK) = ReleaseSRWLockShared;
static BOOLEAN (WINAPI *pTryAcquireSRWLockExclusive)(PSRWLOCK) = TryAcquireSRWLockExclusive;
static BOOLEAN (WINAPI *pTryAcquireSRWLockShared)(PSRWLOCK) = TryAcquireSRWLockShared;
static DWORD (WINAPI *pQueueUserAPC2)(PAPCFUNC,HANDLE,ULONG_PTR,QUEUE_USER_APC_FLAGS);
static NTSTATUS (WINAPI *pNtWaitForSingleObject)(HANDLE, BOOLEAN, const LARGE_INTEGER *) = NtWaitForSingleObject;
static NTSTATUS (WINAPI *pNtWaitForMultipleObjects)(ULONG,const HANDLE*,WAIT_TYPE,BOOLEAN,const LARGE_INTEGER*) = NtWaitForMultipleObjects;
static NTSTATUS (WINAPI *pNtQueueApcThread)(HANDLE,PNTAPCFUNC,ULONG_PTR,ULONG_PTR,ULONG_PTR) = NtQueueApcThread;
static NTSTATUS (WINAPI *pNtTestAlert)(void) = NtTestAlert;

#pragma pack(push,1)
static struct { char c; CONDITION_VARIABLE cv; } unaligned_cv;
#pragma pack(pop)

int main(void)
{
    /* QueueUserAPC2 returns BOOL on Windows 11's SDK, DWORD in Wine's test: only call it */
    pQueueUserAPC2 = (void *)QueueUserAPC2;
    (void)pQueueUserAPC2;
    SRWLOCK l;
    pInitializeSRWLock(&l);
    pAcquireSRWLockExclusive(&l);
    if ((ULONG_PTR)l.Ptr != 1) return 1;     /* Windows' layout: test_srwlock_quirk */
    pReleaseSRWLockExclusive(&l);
    if (!pTryAcquireSRWLockShared(&l) || pTryAcquireSRWLockExclusive(&l)) return 2;
    pReleaseSRWLockShared(&l);
    pAcquireSRWLockShared(&l);
    pReleaseSRWLockShared(&l);
    INIT_ONCE o;
    pInitOnceInitialize(&o);
    BOOL pending;
    pInitOnceBeginInitialize(&o, 0, &pending, NULL);
    pInitOnceComplete(&o, 0, NULL);
    (void)pInitOnceExecuteOnce;
    CRITICAL_SECTION cs;
    pInitializeCriticalSectionEx(&cs, 0, 0);
    pInitializeConditionVariable(&unaligned_cv.cv);
    EnterCriticalSection(&cs);
    BOOL r = pSleepConditionVariableCS(&unaligned_cv.cv, &cs, 10);
    LeaveCriticalSection(&cs);
    if (r || GetLastError() != ERROR_TIMEOUT) return 3;
    (void)pSleepConditionVariableSRW;
    pWakeAllConditionVariable(&unaligned_cv.cv);
    pWakeConditionVariable(&unaligned_cv.cv);
    LARGE_INTEGER t;
    t.QuadPart = -10000;
    if (pNtWaitForSingleObject(GetCurrentThread(), FALSE, &t) != STATUS_TIMEOUT) return 4;
    HANDLE p = GetCurrentProcess();
    if (pNtWaitForMultipleObjects(1, &p, WaitAny, FALSE, &t) != STATUS_INVALID_HANDLE) return 5;
    if (pNtQueueApcThread((HANDLE)0xdeadbeef, NULL, 0, 0, 0) != STATUS_INVALID_HANDLE) return 6;
    if (pNtTestAlert() != STATUS_SUCCESS) return 7;
    void *mem = HeapAlloc(GetProcessHeap(), 0, 8);
    HeapFree(GetProcessHeap(), 0, mem);
    return 0;
}
