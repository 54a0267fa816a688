/* NSPA Win32 layer: synchapi.h — waits, events, mutexes, semaphores, sleeping, and (from
 * synchapi_locks.h) critical sections, SRW locks, condition variables, one-time
 * initialisation and WaitOnAddress: what the Windows SDK's synchapi.h declares.
 * <winbase.h> includes it. Semantics: docs/sync.md and docs/locks.md. */
#ifndef NSPA_WIN32_SYNCHAPI_H
#define NSPA_WIN32_SYNCHAPI_H

#include "windef.h"
#include "winnt.h"
#include "synchapi_locks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- waits ------------------------------------------------------------------------ */
#ifndef INFINITE
#define INFINITE             0xFFFFFFFFu
#endif
#define WAIT_OBJECT_0        0x00000000u
#define WAIT_ABANDONED       0x00000080u
#define WAIT_ABANDONED_0     0x00000080u
#define WAIT_IO_COMPLETION   0x000000C0u
#define WAIT_TIMEOUT         0x00000102u
#define WAIT_FAILED          0xFFFFFFFFu
#define MAXIMUM_WAIT_OBJECTS 64

DWORD WINAPI WaitForSingleObject(HANDLE h, DWORD ms);
DWORD WINAPI WaitForSingleObjectEx(HANDLE h, DWORD ms, BOOL alertable);
DWORD WINAPI WaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms);
DWORD WINAPI WaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms,
                                      BOOL alertable);
DWORD WINAPI SignalObjectAndWait(HANDLE signal, HANDLE wait, DWORD ms, BOOL alertable);

void  WINAPI Sleep(DWORD ms);
DWORD WINAPI SleepEx(DWORD ms, BOOL alertable);

/* ---- events ---------------------------------------------------------------------- */
#define CREATE_EVENT_MANUAL_RESET 0x00000001u
#define CREATE_EVENT_INITIAL_SET  0x00000002u

HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCSTR name);
HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCWSTR name);
HANDLE WINAPI CreateEventExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access);
HANDLE WINAPI CreateEventExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access);
HANDLE WINAPI OpenEventA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenEventW(DWORD access, BOOL inherit, LPCWSTR name);
BOOL WINAPI SetEvent(HANDLE h);
BOOL WINAPI ResetEvent(HANDLE h);
BOOL WINAPI PulseEvent(HANDLE h);   /* winbase.h in the SDK; here with its kin */

/* ---- mutexes --------------------------------------------------------------------- */
#define MUTEX_MODIFY_STATE        MUTANT_QUERY_STATE
#define MUTEX_ALL_ACCESS          MUTANT_ALL_ACCESS
#define CREATE_MUTEX_INITIAL_OWNER 0x00000001u

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

#ifdef __cplusplus
}
#endif
#endif
