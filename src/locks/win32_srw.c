/* The Win32 names of the SRWLOCK calls (srw.c holds the nspa_*
 * implementation; the Win32 types are the nspa_* ones, so each name is a cast and a call
 * that the link-time optimiser inlines: no call is added on the hot paths). */
#include <string.h>
#include "nspa/win32/windows.h"
#include "locks/srw_impl.h"
#include "rt/rt_internal.h"

NSPA_EXPORT void WINAPI InitializeSRWLock(PSRWLOCK lock) { memset((void *)lock, 0, sizeof(*lock)); }
NSPA_EXPORT void WINAPI AcquireSRWLockExclusive(PSRWLOCK lock) { srw_lock_exclusive_inline((nspa_srw_t *)lock); }
NSPA_EXPORT void WINAPI AcquireSRWLockShared(PSRWLOCK lock) { srw_lock_shared_inline((nspa_srw_t *)lock); }
NSPA_EXPORT void WINAPI ReleaseSRWLockExclusive(PSRWLOCK lock) { srw_unlock_exclusive_inline((nspa_srw_t *)lock); }
NSPA_EXPORT void WINAPI ReleaseSRWLockShared(PSRWLOCK lock) { srw_unlock_shared_inline((nspa_srw_t *)lock); }
NSPA_EXPORT BOOLEAN WINAPI TryAcquireSRWLockExclusive(PSRWLOCK lock)
{
    return (BOOLEAN)srw_try_exclusive_inline((nspa_srw_t *)lock);
}
NSPA_EXPORT BOOLEAN WINAPI TryAcquireSRWLockShared(PSRWLOCK lock)
{
    return (BOOLEAN)srw_try_shared_inline((nspa_srw_t *)lock);
}
