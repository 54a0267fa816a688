/* The Win32 names of the WaitOnAddress / WakeByAddress calls (waitaddr.c holds the nspa_*
 * implementation; the Win32 types are the nspa_* ones, so each name is a cast and a call
 * that the link-time optimiser inlines: no call is added on the hot paths). */
#include <string.h>
#include "nspa/win32/windows.h"
#include "locks/futex.h"
#include "locks/locks_internal.h"
#include "rt/rt_internal.h"
#include "win32/win32_error.h"

NSPA_EXPORT BOOL WINAPI WaitOnAddress(volatile VOID *address, PVOID compare, SIZE_T size, DWORD ms)
{
    struct timespec ts;
    int r = nspa_wait_on_address(address, compare, size, nspa_ms_deadline(ms, &ts));
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_LOCK));   /* -EINVAL: the size; -ETIMEDOUT */
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT void WINAPI WakeByAddressSingle(PVOID address) { nspa_wake_address_single(address); }
NSPA_EXPORT void WINAPI WakeByAddressAll(PVOID address) { nspa_wake_address_all(address); }
