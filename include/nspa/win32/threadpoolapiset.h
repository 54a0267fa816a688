/* NSPA Win32 layer: thread pools, the Vista API (threadpoolapiset.h, with the callback
 * environment of winnt.h / winbase.h). src/time/pool.c, win32_pool.c; docs/time.md.
 * Thread-pool I/O: src/time/win32_tpio.c. Not here: SetThreadpoolStackInformation. */
#ifndef NSPA_WIN32_THREADPOOLAPISET_H
#define NSPA_WIN32_THREADPOOLAPISET_H
#include "windef.h"
#include "synchapi_locks.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct _TP_POOL TP_POOL, *PTP_POOL;
typedef struct _TP_WORK TP_WORK, *PTP_WORK;
typedef struct _TP_TIMER TP_TIMER, *PTP_TIMER;
typedef struct _TP_WAIT TP_WAIT, *PTP_WAIT;
typedef struct _TP_IO TP_IO, *PTP_IO;
typedef struct _TP_CLEANUP_GROUP TP_CLEANUP_GROUP, *PTP_CLEANUP_GROUP;
typedef struct _TP_CALLBACK_INSTANCE TP_CALLBACK_INSTANCE, *PTP_CALLBACK_INSTANCE;
typedef DWORD TP_VERSION, *PTP_VERSION;
typedef DWORD TP_WAIT_RESULT;

typedef void (CALLBACK *PTP_SIMPLE_CALLBACK)(PTP_CALLBACK_INSTANCE inst, PVOID ctx);
typedef void (CALLBACK *PTP_WORK_CALLBACK)(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WORK work);
typedef void (CALLBACK *PTP_TIMER_CALLBACK)(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_TIMER timer);
typedef void (CALLBACK *PTP_WAIT_CALLBACK)(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PTP_WAIT wait,
                                           TP_WAIT_RESULT result);
typedef void (CALLBACK *PTP_WIN32_IO_CALLBACK)(PTP_CALLBACK_INSTANCE inst, PVOID ctx, PVOID overlapped,
                                               ULONG io_result, ULONG_PTR bytes, PTP_IO io);
typedef void (CALLBACK *PTP_CLEANUP_GROUP_CANCEL_CALLBACK)(PVOID object_ctx, PVOID cleanup_ctx);

typedef enum _TP_CALLBACK_PRIORITY {
    TP_CALLBACK_PRIORITY_HIGH,
    TP_CALLBACK_PRIORITY_NORMAL,
    TP_CALLBACK_PRIORITY_LOW,
    TP_CALLBACK_PRIORITY_INVALID,
    TP_CALLBACK_PRIORITY_COUNT = TP_CALLBACK_PRIORITY_INVALID
} TP_CALLBACK_PRIORITY;

typedef struct _TP_CALLBACK_ENVIRON_V3 {
    TP_VERSION Version;
    PTP_POOL Pool;
    PTP_CLEANUP_GROUP CleanupGroup;
    PTP_CLEANUP_GROUP_CANCEL_CALLBACK CleanupGroupCancelCallback;
    PVOID RaceDll;
    struct _ACTIVATION_CONTEXT *ActivationContext;
    PTP_SIMPLE_CALLBACK FinalizationCallback;
    union {
        DWORD Flags;
        struct { DWORD LongFunction : 1; DWORD Persistent : 1; DWORD Private : 30; } s;
    } u;
    TP_CALLBACK_PRIORITY CallbackPriority;
    DWORD Size;
} TP_CALLBACK_ENVIRON_V3, TP_CALLBACK_ENVIRON, *PTP_CALLBACK_ENVIRON;

FORCEINLINE void InitializeThreadpoolEnvironment(PTP_CALLBACK_ENVIRON e)
{
    *e = (TP_CALLBACK_ENVIRON){ 0 };
    e->Version = 3;
    e->CallbackPriority = TP_CALLBACK_PRIORITY_NORMAL;
    e->Size = sizeof(*e);
}
FORCEINLINE void SetThreadpoolCallbackPool(PTP_CALLBACK_ENVIRON e, PTP_POOL p) { e->Pool = p; }
FORCEINLINE void SetThreadpoolCallbackCleanupGroup(PTP_CALLBACK_ENVIRON e, PTP_CLEANUP_GROUP g,
                                                   PTP_CLEANUP_GROUP_CANCEL_CALLBACK cb)
{
    e->CleanupGroup = g;
    e->CleanupGroupCancelCallback = cb;
}
FORCEINLINE void SetThreadpoolCallbackRunsLong(PTP_CALLBACK_ENVIRON e) { e->u.s.LongFunction = 1; }
FORCEINLINE void SetThreadpoolCallbackLibrary(PTP_CALLBACK_ENVIRON e, PVOID mod) { e->RaceDll = mod; }
FORCEINLINE void SetThreadpoolCallbackPriority(PTP_CALLBACK_ENVIRON e, TP_CALLBACK_PRIORITY p)
{
    e->CallbackPriority = p;
}
FORCEINLINE void SetThreadpoolCallbackPersistent(PTP_CALLBACK_ENVIRON e) { e->u.s.Persistent = 1; }
FORCEINLINE void DestroyThreadpoolEnvironment(PTP_CALLBACK_ENVIRON e) { (void)e; }

PTP_POOL WINAPI CreateThreadpool(PVOID reserved);
void WINAPI CloseThreadpool(PTP_POOL pool);
void WINAPI SetThreadpoolThreadMaximum(PTP_POOL pool, DWORD max);
BOOL WINAPI SetThreadpoolThreadMinimum(PTP_POOL pool, DWORD min);

PTP_CLEANUP_GROUP WINAPI CreateThreadpoolCleanupGroup(void);
void WINAPI CloseThreadpoolCleanupGroupMembers(PTP_CLEANUP_GROUP group, BOOL cancel_pending, PVOID cleanup_ctx);
void WINAPI CloseThreadpoolCleanupGroup(PTP_CLEANUP_GROUP group);

PTP_WORK WINAPI CreateThreadpoolWork(PTP_WORK_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env);
void WINAPI SubmitThreadpoolWork(PTP_WORK work);
void WINAPI WaitForThreadpoolWorkCallbacks(PTP_WORK work, BOOL cancel_pending);
void WINAPI CloseThreadpoolWork(PTP_WORK work);
BOOL WINAPI TrySubmitThreadpoolCallback(PTP_SIMPLE_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env);

PTP_TIMER WINAPI CreateThreadpoolTimer(PTP_TIMER_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env);
void WINAPI SetThreadpoolTimer(PTP_TIMER timer, PFILETIME due, DWORD period_ms, DWORD window_ms);
BOOL WINAPI SetThreadpoolTimerEx(PTP_TIMER timer, PFILETIME due, DWORD period_ms, DWORD window_ms);
BOOL WINAPI IsThreadpoolTimerSet(PTP_TIMER timer);
void WINAPI WaitForThreadpoolTimerCallbacks(PTP_TIMER timer, BOOL cancel_pending);
void WINAPI CloseThreadpoolTimer(PTP_TIMER timer);

PTP_WAIT WINAPI CreateThreadpoolWait(PTP_WAIT_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env);
void WINAPI SetThreadpoolWait(PTP_WAIT wait, HANDLE h, PFILETIME timeout);
BOOL WINAPI SetThreadpoolWaitEx(PTP_WAIT wait, HANDLE h, PFILETIME timeout, PVOID reserved);
void WINAPI WaitForThreadpoolWaitCallbacks(PTP_WAIT wait, BOOL cancel_pending);
void WINAPI CloseThreadpoolWait(PTP_WAIT wait);

PTP_IO WINAPI CreateThreadpoolIo(HANDLE file, PTP_WIN32_IO_CALLBACK fn, PVOID ctx, PTP_CALLBACK_ENVIRON env);
void WINAPI StartThreadpoolIo(PTP_IO io);
void WINAPI CancelThreadpoolIo(PTP_IO io);
void WINAPI WaitForThreadpoolIoCallbacks(PTP_IO io, BOOL cancel_pending);
void WINAPI CloseThreadpoolIo(PTP_IO io);

BOOL WINAPI CallbackMayRunLong(PTP_CALLBACK_INSTANCE inst);
void WINAPI DisassociateCurrentThreadFromCallback(PTP_CALLBACK_INSTANCE inst);
void WINAPI SetEventWhenCallbackReturns(PTP_CALLBACK_INSTANCE inst, HANDLE event);
void WINAPI ReleaseSemaphoreWhenCallbackReturns(PTP_CALLBACK_INSTANCE inst, HANDLE sem, DWORD count);
void WINAPI ReleaseMutexWhenCallbackReturns(PTP_CALLBACK_INSTANCE inst, HANDLE mutex);
void WINAPI LeaveCriticalSectionWhenCallbackReturns(PTP_CALLBACK_INSTANCE inst, PCRITICAL_SECTION cs);
void WINAPI FreeLibraryWhenCallbackReturns(PTP_CALLBACK_INSTANCE inst, HMODULE mod);

#ifdef __cplusplus
}
#endif
#endif
