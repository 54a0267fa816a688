/* NSPA Win32 layer: kernel32-style declarations — handles, sync objects, waits,
 * threads and APCs, time. Semantics: shared/spec/sync-semantics.md; the mapping onto
 * the nspa_ API: docs/sync.md. */
#ifndef NSPA_WIN32_WINBASE_H
#define NSPA_WIN32_WINBASE_H

#include "windef.h"
#include "winerror.h"
#include "winnt_interlocked.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- last error ------------------------------------------------------------------ */
DWORD WINAPI GetLastError(void);
void  WINAPI SetLastError(DWORD err);

/* ---- waits ------------------------------------------------------------------------ */
#define INFINITE             0xFFFFFFFFu
#define WAIT_OBJECT_0        0x00000000u
#define WAIT_ABANDONED       0x00000080u
#define WAIT_ABANDONED_0     0x00000080u
#define WAIT_IO_COMPLETION   0x000000C0u
#define WAIT_TIMEOUT         0x00000102u
#define WAIT_FAILED          0xFFFFFFFFu
#define MAXIMUM_WAIT_OBJECTS 64
#define STATUS_WAIT_0_       0
#define STILL_ACTIVE         259

DWORD WINAPI WaitForSingleObject(HANDLE h, DWORD ms);
DWORD WINAPI WaitForSingleObjectEx(HANDLE h, DWORD ms, BOOL alertable);
DWORD WINAPI WaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms);
DWORD WINAPI WaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms,
                                      BOOL alertable);
DWORD WINAPI SignalObjectAndWait(HANDLE signal, HANDLE wait, DWORD ms, BOOL alertable);

/* ---- access rights and flags --------------------------------------------------- */
#define DELETE                    0x00010000u
#define READ_CONTROL              0x00020000u
#define SYNCHRONIZE               0x00100000u
#define STANDARD_RIGHTS_REQUIRED  0x000F0000u
#define EVENT_MODIFY_STATE        0x0002u
#define EVENT_ALL_ACCESS          (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x3)
#define MUTEX_MODIFY_STATE        0x0001u
#define MUTEX_ALL_ACCESS          (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x1)
#define SEMAPHORE_MODIFY_STATE    0x0002u
#define SEMAPHORE_ALL_ACCESS      (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x3)
#define THREAD_ALL_ACCESS         (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0xFFFF)
#define CREATE_EVENT_MANUAL_RESET 0x00000001u
#define CREATE_EVENT_INITIAL_SET  0x00000002u
#define CREATE_MUTEX_INITIAL_OWNER 0x00000001u
#define DUPLICATE_CLOSE_SOURCE    0x00000001u
#define DUPLICATE_SAME_ACCESS     0x00000002u
#define HANDLE_FLAG_INHERIT             0x00000001u
#define HANDLE_FLAG_PROTECT_FROM_CLOSE  0x00000002u

/* ---- events ---------------------------------------------------------------------- */
HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCSTR name);
HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCWSTR name);
HANDLE WINAPI CreateEventExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access);
HANDLE WINAPI CreateEventExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access);
HANDLE WINAPI OpenEventA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenEventW(DWORD access, BOOL inherit, LPCWSTR name);
BOOL WINAPI SetEvent(HANDLE h);
BOOL WINAPI ResetEvent(HANDLE h);
BOOL WINAPI PulseEvent(HANDLE h);

/* ---- mutexes --------------------------------------------------------------------- */
HANDLE WINAPI CreateMutexA(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCSTR name);
HANDLE WINAPI CreateMutexW(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCWSTR name);
HANDLE WINAPI CreateMutexExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access);
HANDLE WINAPI CreateMutexExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access);
HANDLE WINAPI OpenMutexA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenMutexW(DWORD access, BOOL inherit, LPCWSTR name);
BOOL WINAPI ReleaseMutex(HANDLE h);

/* ---- semaphores ------------------------------------------------------------------ */
HANDLE WINAPI CreateSemaphoreA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name);
HANDLE WINAPI CreateSemaphoreW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name);
HANDLE WINAPI CreateSemaphoreExA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name,
                                 DWORD flags, DWORD access);
HANDLE WINAPI CreateSemaphoreExW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name,
                                 DWORD flags, DWORD access);
HANDLE WINAPI OpenSemaphoreA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenSemaphoreW(DWORD access, BOOL inherit, LPCWSTR name);
BOOL WINAPI ReleaseSemaphore(HANDLE h, LONG count, LPLONG prev);

#ifdef UNICODE
#define CreateEvent CreateEventW
#define CreateEventEx CreateEventExW
#define OpenEvent OpenEventW
#define CreateMutex CreateMutexW
#define CreateMutexEx CreateMutexExW
#define OpenMutex OpenMutexW
#define CreateSemaphore CreateSemaphoreW
#define CreateSemaphoreEx CreateSemaphoreExW
#define OpenSemaphore OpenSemaphoreW
#else
#define CreateEvent CreateEventA
#define CreateEventEx CreateEventExA
#define OpenEvent OpenEventA
#define CreateMutex CreateMutexA
#define CreateMutexEx CreateMutexExA
#define OpenMutex OpenMutexA
#define CreateSemaphore CreateSemaphoreA
#define CreateSemaphoreEx CreateSemaphoreExA
#define OpenSemaphore OpenSemaphoreA
#endif

/* ---- handles --------------------------------------------------------------------- */
BOOL WINAPI CloseHandle(HANDLE h);
BOOL WINAPI GetHandleInformation(HANDLE h, LPDWORD flags);
BOOL WINAPI SetHandleInformation(HANDLE h, DWORD mask, DWORD flags);
BOOL WINAPI DuplicateHandle(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst,
                            DWORD access, BOOL inherit, DWORD options);

/* ---- threads and processes ------------------------------------------------------- */
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
DWORD WINAPI QueueUserAPC(PAPCFUNC fn, HANDLE thread, ULONG_PTR data);

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

void  WINAPI Sleep(DWORD ms);
DWORD WINAPI SleepEx(DWORD ms, BOOL alertable);
BOOL  WINAPI SwitchToThread(void);

/* ---- time ------------------------------------------------------------------------ */
BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *counter);
BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *freq);
DWORD WINAPI GetTickCount(void);
ULONGLONG WINAPI GetTickCount64(void);

/* ---- local memory (LMEM_FIXED blocks of the process heap) ------------------------ */
#define LMEM_FIXED      0x0000u
#define LMEM_ZEROINIT   0x0040u
#define LPTR            (LMEM_FIXED | LMEM_ZEROINIT)
HLOCAL WINAPI LocalAlloc(UINT flags, SIZE_T bytes);
HLOCAL WINAPI LocalFree(HLOCAL mem);

#ifdef __cplusplus
}
#endif
#endif
