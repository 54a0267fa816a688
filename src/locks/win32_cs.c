/* The Win32 names of the CRITICAL_SECTION calls (cs.c holds the nspa_*
 * implementation; the Win32 types are the nspa_* ones, so each name is a cast and a call
 * that the link-time optimiser inlines: no call is added on the hot paths). */
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/sysinfo.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "locks/cs_impl.h"
#include "locks/locks_internal.h"
#include "sched/sched_internal.h"
#include "win32/win32_error.h"

NSPA_EXPORT void WINAPI InitializeCriticalSection(LPCRITICAL_SECTION cs)
{
    nspa_cs_do_init((nspa_cs_t *)cs, 0, 0, 0);
}

NSPA_EXPORT BOOL WINAPI InitializeCriticalSectionAndSpinCount(LPCRITICAL_SECTION cs, DWORD spin)
{
    nspa_cs_do_init((nspa_cs_t *)cs, spin, 0, 0);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI InitializeCriticalSectionEx(LPCRITICAL_SECTION cs, DWORD spin, DWORD flags)
{
    int r = nspa_cs_do_init((nspa_cs_t *)cs, spin, flags, 1);
    if (r < 0) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_LOCK));   /* -EINVAL: unknown flags */
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT void WINAPI EnterCriticalSection(LPCRITICAL_SECTION cs) { cs_enter_inline((nspa_cs_t *)cs); }
NSPA_EXPORT BOOL WINAPI TryEnterCriticalSection(LPCRITICAL_SECTION cs)
{
    return cs_try_enter_inline((nspa_cs_t *)cs);
}
NSPA_EXPORT void WINAPI LeaveCriticalSection(LPCRITICAL_SECTION cs) { cs_leave_inline((nspa_cs_t *)cs); }
NSPA_EXPORT void WINAPI DeleteCriticalSection(LPCRITICAL_SECTION cs) { nspa_cs_delete((nspa_cs_t *)cs); }
NSPA_EXPORT DWORD WINAPI SetCriticalSectionSpinCount(LPCRITICAL_SECTION cs, DWORD spin)
{
    return nspa_cs_set_spin((nspa_cs_t *)cs, spin);
}
