/* NSPA Win32 layer: the legacy thread pool and timer queues (threadpoollegacyapiset.h).
 * src/time/win32_legacy.c, BindIoCompletionCallback in src/time/win32_tpio.c;
 * docs/time.md. */
#ifndef NSPA_WIN32_THREADPOOLLEGACYAPISET_H
#define NSPA_WIN32_THREADPOOLLEGACYAPISET_H
#include "windef.h"
#include "winbase.h"
#include "minwinbase.h"
#ifdef __cplusplus
extern "C" {
#endif

#ifndef ERROR_IO_PENDING
#define ERROR_IO_PENDING 997
#endif

typedef void (CALLBACK *WAITORTIMERCALLBACK)(PVOID ctx, BOOLEAN timer_or_wait_fired);
typedef WAITORTIMERCALLBACK WAITORTIMERCALLBACKFUNC;

#define WT_EXECUTEDEFAULT             0x00000000u
#define WT_EXECUTEINIOTHREAD          0x00000001u
#define WT_EXECUTEINUITHREAD          0x00000002u
#define WT_EXECUTEINWAITTHREAD        0x00000004u
#define WT_EXECUTEONLYONCE            0x00000008u
#define WT_EXECUTELONGFUNCTION        0x00000010u
#define WT_EXECUTEINTIMERTHREAD       0x00000020u
#define WT_EXECUTEINPERSISTENTIOTHREAD 0x00000040u
#define WT_EXECUTEINPERSISTENTTHREAD  0x00000080u
#define WT_TRANSFER_IMPERSONATION     0x00000100u
#define WT_EXECUTEDELETEWAIT          0x00000008u
#define WT_SET_MAX_THREADPOOL_THREADS(flags, limit) ((flags) |= (limit) << 16)

BOOL WINAPI QueueUserWorkItem(LPTHREAD_START_ROUTINE fn, PVOID ctx, ULONG flags);

BOOL WINAPI RegisterWaitForSingleObject(PHANDLE new_wait, HANDLE object, WAITORTIMERCALLBACK fn, PVOID ctx,
                                        ULONG ms, ULONG flags);
BOOL WINAPI UnregisterWait(HANDLE wait);
BOOL WINAPI UnregisterWaitEx(HANDLE wait, HANDLE completion_event);

HANDLE WINAPI CreateTimerQueue(void);
BOOL WINAPI DeleteTimerQueue(HANDLE queue);
BOOL WINAPI DeleteTimerQueueEx(HANDLE queue, HANDLE completion_event);
BOOL WINAPI CreateTimerQueueTimer(PHANDLE new_timer, HANDLE queue, WAITORTIMERCALLBACK fn, PVOID ctx, DWORD due_ms,
                                  DWORD period_ms, ULONG flags);
BOOL WINAPI ChangeTimerQueueTimer(HANDLE queue, HANDLE timer, ULONG due_ms, ULONG period_ms);
BOOL WINAPI DeleteTimerQueueTimer(HANDLE queue, HANDLE timer, HANDLE completion_event);
BOOL WINAPI BindIoCompletionCallback(HANDLE file, LPOVERLAPPED_COMPLETION_ROUTINE fn, ULONG flags);

#ifdef __cplusplus
}
#endif
#endif
