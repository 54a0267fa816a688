/* The Win32 names of the CONDITION_VARIABLE calls (cond.c holds the nspa_*
 * implementation; the Win32 types are the nspa_* ones, so each name is a cast and a call
 * that the link-time optimiser inlines: no call is added on the hot paths). */
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "locks/cs_impl.h"
#include "locks/srw_impl.h"
#include "locks/locks_internal.h"
#include "win32/win32_error.h"

/* the sleeps' only failure is -ETIMEDOUT: ERROR_TIMEOUT */
static BOOL cv_win32_result(int r)
{
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_LOCK));
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT void WINAPI InitializeConditionVariable(PCONDITION_VARIABLE cv)
{
    memset((void *)cv, 0, sizeof(*cv));   /* any alignment */
}

NSPA_EXPORT BOOL WINAPI SleepConditionVariableCS(PCONDITION_VARIABLE cv, PCRITICAL_SECTION cs, DWORD ms)
{
    struct timespec ts;
    return cv_win32_result(nspa_cond_wait_cs((nspa_cond_t *)cv, (nspa_cs_t *)cs,
                                             nspa_ms_deadline(ms, &ts)));
}

NSPA_EXPORT BOOL WINAPI SleepConditionVariableSRW(PCONDITION_VARIABLE cv, PSRWLOCK lock, DWORD ms,
                                                  ULONG flags)
{
    struct timespec ts;
    /* like Windows, only the LOCKMODE_SHARED bit is looked at */
    return cv_win32_result(nspa_cond_wait_srw((nspa_cond_t *)cv, (nspa_srw_t *)lock,
                                              flags & CONDITION_VARIABLE_LOCKMODE_SHARED,
                                              nspa_ms_deadline(ms, &ts)));
}

NSPA_EXPORT void WINAPI WakeConditionVariable(PCONDITION_VARIABLE cv) { nspa_cond_wake_one((nspa_cond_t *)cv); }
NSPA_EXPORT void WINAPI WakeAllConditionVariable(PCONDITION_VARIABLE cv) { nspa_cond_wake_all((nspa_cond_t *)cv); }
