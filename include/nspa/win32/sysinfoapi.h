/* NSPA Win32 layer: the system time (sysinfoapi.h subset). src/time/win32_clock.c. */
#ifndef NSPA_WIN32_SYSINFOAPI_H
#define NSPA_WIN32_SYSINFOAPI_H
#include "windef.h"
#ifdef __cplusplus
extern "C" {
#endif
/* UTC as 100 ns units since 1601-01-01 (CLOCK_REALTIME) */
void WINAPI GetSystemTimeAsFileTime(LPFILETIME ft);
void WINAPI GetSystemTimePreciseAsFileTime(LPFILETIME ft);
#ifdef __cplusplus
}
#endif
#endif
