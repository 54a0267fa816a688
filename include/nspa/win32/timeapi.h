/* NSPA Win32 layer: multimedia timers (timeapi.h and the timer part of mmsystem.h).
 * src/time/win32_mm.c; docs/time.md. */
#ifndef NSPA_WIN32_TIMEAPI_H
#define NSPA_WIN32_TIMEAPI_H
#include "windef.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef UINT MMRESULT;
#define TIMERR_NOERROR  0
#define TIMERR_BASE     96
#define TIMERR_NOCANDO  (TIMERR_BASE + 1)
#define TIMERR_STRUCT   (TIMERR_BASE + 33)

typedef struct timecaps_tag { UINT wPeriodMin; UINT wPeriodMax; } TIMECAPS, *PTIMECAPS, *LPTIMECAPS;

#define TIME_ONESHOT              0x0000
#define TIME_PERIODIC             0x0001
#define TIME_CALLBACK_FUNCTION    0x0000
#define TIME_CALLBACK_EVENT_SET   0x0010
#define TIME_CALLBACK_EVENT_PULSE 0x0020
#define TIME_KILL_SYNCHRONOUS     0x0100

typedef void (CALLBACK TIMECALLBACK)(UINT id, UINT msg, DWORD_PTR user, DWORD_PTR dw1, DWORD_PTR dw2);
typedef TIMECALLBACK *LPTIMECALLBACK;

DWORD WINAPI timeGetTime(void);
MMRESULT WINAPI timeBeginPeriod(UINT period);
MMRESULT WINAPI timeEndPeriod(UINT period);
MMRESULT WINAPI timeGetDevCaps(LPTIMECAPS caps, UINT size);
MMRESULT WINAPI timeSetEvent(UINT delay, UINT resolution, LPTIMECALLBACK fn, DWORD_PTR user, UINT flags);
MMRESULT WINAPI timeKillEvent(UINT id);

#ifdef __cplusplus
}
#endif
#endif
