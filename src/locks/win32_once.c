/* The Win32 names of the INIT_ONCE calls (once.c holds the nspa_*
 * implementation; the Win32 types are the nspa_* ones, so each name is a cast and a call
 * that the link-time optimiser inlines: no call is added on the hot paths). */
#include "nspa/win32/windows.h"
#include "locks/futex.h"
#include "locks/locks_internal.h"
#include "win32/win32_error.h"

/* -EINVAL: flags that do not go together; -EAGAIN: INIT_ONCE_CHECK_ONLY before the
 * initialization is done, a completion that does not match (STATUS_UNSUCCESSFUL) */
static BOOL once_error(int r)
{
    SetLastError(win32_error_from_errno(r, WIN32_ERR_LOCK));
    return FALSE;
}

NSPA_EXPORT void WINAPI InitOnceInitialize(PINIT_ONCE once) { once->Ptr = NULL; }

NSPA_EXPORT BOOL WINAPI InitOnceBeginInitialize(LPINIT_ONCE once, DWORD flags, PBOOL pending,
                                                LPVOID *context)
{
    int r = nspa_once_begin((nspa_once_t *)once, flags, context);
    if (r < 0)
        return once_error(r);
    *pending = (r == 1);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI InitOnceComplete(LPINIT_ONCE once, DWORD flags, LPVOID context)
{
    int r = nspa_once_complete((nspa_once_t *)once, flags, context);
    return r < 0 ? once_error(r) : TRUE;
}

NSPA_EXPORT BOOL WINAPI InitOnceExecuteOnce(PINIT_ONCE once, PINIT_ONCE_FN fn, PVOID param,
                                            LPVOID *context)
{
    return nspa_once_execute((nspa_once_t *)once,
                             (int (*)(nspa_once_t *, void *, void **))fn, param, context) == 0;
}
