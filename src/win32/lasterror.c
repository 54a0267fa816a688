/* GetLastError/SetLastError: one thread-local DWORD, as the TEB's LastErrorValue. */
#include "nspa/win32/windows.h"
#include "common/export.h"

static __thread DWORD last_error;

NSPA_EXPORT DWORD WINAPI GetLastError(void) { return last_error; }
NSPA_EXPORT void WINAPI SetLastError(DWORD err) { last_error = err; }
