/* NSPA Win32 layer: processthreadsapi.h — threads, APCs, priorities and the current
 * process/thread, as the Windows SDK's processthreadsapi.h declares them. <winbase.h>
 * includes it. Semantics: docs/sync.md (threads, APCs), docs/rt.md (priorities). */
#ifndef NSPA_WIN32_PROCESSTHREADSAPI_H
#define NSPA_WIN32_PROCESSTHREADSAPI_H

#include "windef.h"
#include "winnt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STILL_ACTIVE 259

typedef DWORD (WINAPI *LPTHREAD_START_ROUTINE)(LPVOID param);
typedef LPTHREAD_START_ROUTINE PTHREAD_START_ROUTINE;
typedef void (CALLBACK *PAPCFUNC)(ULONG_PTR param);
#define CREATE_SUSPENDED 0x00000004u
#define STACK_SIZE_PARAM_IS_A_RESERVATION 0x00010000u

HANDLE WINAPI CreateThread(LPSECURITY_ATTRIBUTES sa, SIZE_T stack, LPTHREAD_START_ROUTINE start,
                           LPVOID param, DWORD flags, LPDWORD tid);
DECLSPEC_NORETURN void WINAPI ExitThread(DWORD code);
BOOL WINAPI GetExitCodeThread(HANDLE thread, LPDWORD code);
DWORD WINAPI ResumeThread(HANDLE thread);
DWORD WINAPI GetThreadId(HANDLE thread);
DWORD WINAPI GetCurrentThreadId(void);
DWORD WINAPI GetCurrentProcessId(void);
HANDLE WINAPI GetCurrentThread(void);    /* pseudo handle (HANDLE)-2 */
HANDLE WINAPI GetCurrentProcess(void);   /* pseudo handle (HANDLE)-1 */
BOOL  WINAPI SwitchToThread(void);

/* ---- APCs ------------------------------------------------------------------------- */
DWORD WINAPI QueueUserAPC(PAPCFUNC fn, HANDLE thread, ULONG_PTR data);

/* QueueUserAPC2 (Windows 11): QUEUE_USER_APC_FLAGS_NONE is QueueUserAPC;
 * QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC runs the APC without waiting for an alertable
 * wait: at once when the target is the calling thread, else as soon as the target
 * runs (NSPA interrupts it with a signal, docs/sync.md: like Windows' special APCs it
 * may run in the middle of anything, so it must only touch what it may touch there). */
typedef enum _QUEUE_USER_APC_FLAGS {
    QUEUE_USER_APC_FLAGS_NONE = 0,
    QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC = 0x1,
    QUEUE_USER_APC_CALLBACK_DATA_CONTEXT = 0x10000,
} QUEUE_USER_APC_FLAGS;
BOOL WINAPI QueueUserAPC2(PAPCFUNC fn, HANDLE thread, ULONG_PTR data, QUEUE_USER_APC_FLAGS flags);

/* ---- priorities (nspa/sched.h: NT bands, and their Linux mapping in RT mode) ----- */
#define IDLE_PRIORITY_CLASS            0x00000040u
#define BELOW_NORMAL_PRIORITY_CLASS    0x00004000u
#define NORMAL_PRIORITY_CLASS          0x00000020u
#define ABOVE_NORMAL_PRIORITY_CLASS    0x00008000u
#define HIGH_PRIORITY_CLASS            0x00000080u
#define REALTIME_PRIORITY_CLASS        0x00000100u
#define THREAD_PRIORITY_IDLE           (-15)
#define THREAD_PRIORITY_LOWEST         (-2)
#define THREAD_PRIORITY_BELOW_NORMAL   (-1)
#define THREAD_PRIORITY_NORMAL         0
#define THREAD_PRIORITY_ABOVE_NORMAL   1
#define THREAD_PRIORITY_HIGHEST        2
#define THREAD_PRIORITY_TIME_CRITICAL  15
#define THREAD_PRIORITY_ERROR_RETURN   0x7fffffff
BOOL  WINAPI SetPriorityClass(HANDLE process, DWORD priority_class);
DWORD WINAPI GetPriorityClass(HANDLE process);
BOOL  WINAPI SetThreadPriority(HANDLE thread, int priority);
int   WINAPI GetThreadPriority(HANDLE thread);

#ifdef __cplusplus
}
#endif
#endif
