/* NSPA Win32 layer: winbase.h — as the Windows SDK's, it brings the API sets the base
 * API is made of: synchapi.h (waits, events, mutexes, semaphores, critical sections,
 * SRW locks, condition variables, INIT_ONCE, WaitOnAddress), processthreadsapi.h
 * (threads, APCs, priorities), heapapi.h (the heap), winnt.h (types, Interlocked), and
 * declares the rest itself: last error, handles, clocks. The mapping onto the nspa_
 * API: docs/sync.md. */
#ifndef NSPA_WIN32_WINBASE_H
#define NSPA_WIN32_WINBASE_H

#include "windef.h"
#include "winerror.h"
#include "winnt.h"
#include "synchapi.h"
#include "processthreadsapi.h"
#include "heapapi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- last error (errhandlingapi.h in the SDK) ------------------------------------- */
DWORD WINAPI GetLastError(void);
void  WINAPI SetLastError(DWORD err);

/* ---- handles (handleapi.h in the SDK) --------------------------------------------- */
#define HANDLE_FLAG_INHERIT             0x00000001u
#define HANDLE_FLAG_PROTECT_FROM_CLOSE  0x00000002u

BOOL WINAPI CloseHandle(HANDLE h);
BOOL WINAPI GetHandleInformation(HANDLE h, LPDWORD flags);
BOOL WINAPI SetHandleInformation(HANDLE h, DWORD mask, DWORD flags);
BOOL WINAPI DuplicateHandle(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst,
                            DWORD access, BOOL inherit, DWORD options);

/* ---- time (profileapi.h, sysinfoapi.h in the SDK) -------------------------------- */
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
