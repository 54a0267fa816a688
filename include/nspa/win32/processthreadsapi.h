/* NSPA Win32 layer: processthreadsapi.h — threads, APCs, priorities and the current
 * process/thread, as the Windows SDK's processthreadsapi.h declares them. <winbase.h>
 * includes it. Semantics: docs/sync.md (threads, APCs), docs/rt.md (priorities). */
/* NSPA Win32 layer: processes (processthreadsapi.h) — CreateProcess, process handles,
 * exit codes, OpenProcess/OpenThread, process and thread times. The thread calls
 * (CreateThread, ResumeThread, GetThreadId ...) are declared in winbase.h.
 * Design: docs/process.md. */
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
/* ---- creation flags (CREATE_SUSPENDED is in winbase.h) ------------------------- */
#define DEBUG_PROCESS                   0x00000001u
#define DEBUG_ONLY_THIS_PROCESS         0x00000002u
#define DETACHED_PROCESS                0x00000008u
#define CREATE_NEW_CONSOLE              0x00000010u
#define CREATE_NEW_PROCESS_GROUP        0x00000200u
#define CREATE_UNICODE_ENVIRONMENT      0x00000400u
#define CREATE_DEFAULT_ERROR_MODE       0x04000000u
#define CREATE_NO_WINDOW                0x08000000u
#define EXTENDED_STARTUPINFO_PRESENT    0x00080000u

#define STARTF_USESHOWWINDOW            0x00000001u
#define STARTF_USESIZE                  0x00000002u
#define STARTF_USEPOSITION              0x00000004u
#define STARTF_USESTDHANDLES            0x00000100u

/* ---- access rights ---------------------------------------------------------------- */
#define PROCESS_TERMINATE                   0x0001u
#define PROCESS_CREATE_THREAD               0x0002u
#define PROCESS_VM_OPERATION                0x0008u
#define PROCESS_VM_READ                     0x0010u
#define PROCESS_VM_WRITE                    0x0020u
#define PROCESS_DUP_HANDLE                  0x0040u
#define PROCESS_CREATE_PROCESS              0x0080u
#define PROCESS_SET_QUOTA                   0x0100u
#define PROCESS_SET_INFORMATION             0x0200u
#define PROCESS_QUERY_INFORMATION           0x0400u
#define PROCESS_SUSPEND_RESUME              0x0800u
#define PROCESS_QUERY_LIMITED_INFORMATION   0x1000u
#define PROCESS_ALL_ACCESS                  (0x000F0000u | 0x00100000u | 0xFFFFu)
#define THREAD_TERMINATE                    0x0001u
#define THREAD_SUSPEND_RESUME               0x0002u
#define THREAD_GET_CONTEXT                  0x0008u
#define THREAD_SET_CONTEXT                  0x0010u
#define THREAD_SET_INFORMATION              0x0020u
#define THREAD_QUERY_INFORMATION            0x0040u
#define THREAD_SET_LIMITED_INFORMATION      0x0400u
#define THREAD_QUERY_LIMITED_INFORMATION    0x0800u

/* A process that died of a signal: GetExitCodeProcess reports STATUS_ACCESS_VIOLATION
 * (SIGSEGV, SIGBUS), STATUS_ILLEGAL_INSTRUCTION (SIGILL), STATUS_INTEGER_DIVIDE_BY_ZERO
 * (SIGFPE), STATUS_CONTROL_C_EXIT (SIGINT), 3 (SIGABRT: the C runtime's abort()), else
 * 128 + the signal number; TerminateProcess's code when it was killed by it. */

typedef struct _STARTUPINFOA {
    DWORD  cb;
    LPSTR  lpReserved;
    LPSTR  lpDesktop;
    LPSTR  lpTitle;
    DWORD  dwX, dwY, dwXSize, dwYSize, dwXCountChars, dwYCountChars, dwFillAttribute;
    DWORD  dwFlags;
    WORD   wShowWindow;
    WORD   cbReserved2;
    LPBYTE lpReserved2;
    HANDLE hStdInput, hStdOutput, hStdError;
} STARTUPINFOA, *LPSTARTUPINFOA;

typedef struct _STARTUPINFOW {
    DWORD  cb;
    LPWSTR lpReserved;
    LPWSTR lpDesktop;
    LPWSTR lpTitle;
    DWORD  dwX, dwY, dwXSize, dwYSize, dwXCountChars, dwYCountChars, dwFillAttribute;
    DWORD  dwFlags;
    WORD   wShowWindow;
    WORD   cbReserved2;
    LPBYTE lpReserved2;
    HANDLE hStdInput, hStdOutput, hStdError;
} STARTUPINFOW, *LPSTARTUPINFOW;

typedef struct _PROCESS_INFORMATION {
    HANDLE hProcess;
    HANDLE hThread;
    DWORD  dwProcessId;
    DWORD  dwThreadId;
} PROCESS_INFORMATION, *PPROCESS_INFORMATION, *LPPROCESS_INFORMATION;

BOOL WINAPI CreateProcessA(LPCSTR app, LPSTR cmdline, LPSECURITY_ATTRIBUTES psa, LPSECURITY_ATTRIBUTES tsa,
                           BOOL inherit, DWORD flags, LPVOID env, LPCSTR cwd, LPSTARTUPINFOA si,
                           LPPROCESS_INFORMATION pi);
BOOL WINAPI CreateProcessW(LPCWSTR app, LPWSTR cmdline, LPSECURITY_ATTRIBUTES psa, LPSECURITY_ATTRIBUTES tsa,
                           BOOL inherit, DWORD flags, LPVOID env, LPCWSTR cwd, LPSTARTUPINFOW si,
                           LPPROCESS_INFORMATION pi);
void WINAPI GetStartupInfoA(LPSTARTUPINFOA si);
void WINAPI GetStartupInfoW(LPSTARTUPINFOW si);

HANDLE WINAPI OpenProcess(DWORD access, BOOL inherit, DWORD pid);
HANDLE WINAPI OpenThread(DWORD access, BOOL inherit, DWORD tid);
BOOL WINAPI GetExitCodeProcess(HANDLE process, LPDWORD code);
BOOL WINAPI TerminateProcess(HANDLE process, UINT code);
DECLSPEC_NORETURN void WINAPI ExitProcess(UINT code);
DWORD WINAPI GetProcessId(HANDLE process);
DWORD WINAPI GetProcessIdOfThread(HANDLE thread);
BOOL WINAPI GetProcessTimes(HANDLE process, LPFILETIME creation, LPFILETIME exit, LPFILETIME kernel,
                            LPFILETIME user);
BOOL WINAPI GetThreadTimes(HANDLE thread, LPFILETIME creation, LPFILETIME exit, LPFILETIME kernel,
                           LPFILETIME user);

#ifdef UNICODE
#define CreateProcess CreateProcessW
#define STARTUPINFO STARTUPINFOW
#define LPSTARTUPINFO LPSTARTUPINFOW
#define GetStartupInfo GetStartupInfoW
#else
#define CreateProcess CreateProcessA
#define STARTUPINFO STARTUPINFOA
#define LPSTARTUPINFO LPSTARTUPINFOA
#define GetStartupInfo GetStartupInfoA
#endif

/* ---- thread local storage, processor affinity (src/win32/tls.c, affinity.c) -------- */
#define TLS_OUT_OF_INDEXES ((DWORD)0xFFFFFFFF)
#define MAXIMUM_PROCESSORS 64
DWORD  WINAPI TlsAlloc(void);
BOOL   WINAPI TlsFree(DWORD index);
LPVOID WINAPI TlsGetValue(DWORD index);
BOOL   WINAPI TlsSetValue(DWORD index, LPVOID value);
DWORD  WINAPI SetThreadIdealProcessor(HANDLE thread, DWORD ideal);
DWORD_PTR WINAPI SetThreadAffinityMask(HANDLE thread, DWORD_PTR mask);
BOOL   WINAPI GetProcessAffinityMask(HANDLE process, PDWORD_PTR process_mask, PDWORD_PTR system_mask);
BOOL   WINAPI SetProcessAffinityMask(HANDLE process, DWORD_PTR mask);

#ifdef __cplusplus
}
#endif
#endif
