/* NSPA Win32 layer: waitable timers (the timer part of synchapi.h). Implemented over
 * nspa/timer.h (src/time/); see docs/time.md. */
#ifndef NSPA_WIN32_SYNCHAPI_TIMERS_H
#define NSPA_WIN32_SYNCHAPI_TIMERS_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TIMER_QUERY_STATE   0x0001u
#define TIMER_MODIFY_STATE  0x0002u
#define TIMER_ALL_ACCESS    (0x000F0000u | 0x00100000u | 0x3u)
#define CREATE_WAITABLE_TIMER_MANUAL_RESET    0x00000001u
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002u

typedef void (CALLBACK *PTIMERAPCROUTINE)(LPVOID arg, DWORD low, DWORD high);

typedef struct _REASON_CONTEXT {
    ULONG Version;
    DWORD Flags;
    union {
        struct { HMODULE LocalizedReasonModule; ULONG LocalizedReasonId; ULONG ReasonStringCount;
                 LPWSTR *ReasonStrings; } Detailed;
        LPWSTR SimpleReasonString;
    } Reason;
} REASON_CONTEXT, *PREASON_CONTEXT;

HANDLE WINAPI CreateWaitableTimerA(LPSECURITY_ATTRIBUTES sa, BOOL manual, LPCSTR name);
HANDLE WINAPI CreateWaitableTimerW(LPSECURITY_ATTRIBUTES sa, BOOL manual, LPCWSTR name);
HANDLE WINAPI CreateWaitableTimerExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access);
HANDLE WINAPI CreateWaitableTimerExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access);
HANDLE WINAPI OpenWaitableTimerA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenWaitableTimerW(DWORD access, BOOL inherit, LPCWSTR name);
BOOL WINAPI SetWaitableTimer(HANDLE timer, const LARGE_INTEGER *due, LONG period, PTIMERAPCROUTINE fn,
                             LPVOID arg, BOOL resume);
BOOL WINAPI SetWaitableTimerEx(HANDLE timer, const LARGE_INTEGER *due, LONG period, PTIMERAPCROUTINE fn,
                               LPVOID arg, PREASON_CONTEXT wake_context, ULONG tolerable_delay);
BOOL WINAPI CancelWaitableTimer(HANDLE timer);

#ifdef UNICODE
#define CreateWaitableTimer CreateWaitableTimerW
#define CreateWaitableTimerEx CreateWaitableTimerExW
#define OpenWaitableTimer OpenWaitableTimerW
#else
#define CreateWaitableTimer CreateWaitableTimerA
#define CreateWaitableTimerEx CreateWaitableTimerExA
#define OpenWaitableTimer OpenWaitableTimerA
#endif

#ifdef __cplusplus
}
#endif
#endif
