/* The system time as FILETIME (sysinfoapi.h). */
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "time/time_internal.h"

static void ft_now(LPFILETIME ft, clockid_t clk)
{
    if (!ft) return;
    uint64_t v = nspa_clock_ns(clk) / 100 + FT_UNIX_EPOCH;
    ft->dwLowDateTime = (DWORD)v;
    ft->dwHighDateTime = (DWORD)(v >> 32);
}

/* Windows updates this one at the clock tick; the coarse clock is the same idea */
NSPA_EXPORT void WINAPI GetSystemTimeAsFileTime(LPFILETIME ft) { ft_now(ft, CLOCK_REALTIME_COARSE); }
NSPA_EXPORT void WINAPI GetSystemTimePreciseAsFileTime(LPFILETIME ft) { ft_now(ft, CLOCK_REALTIME); }
