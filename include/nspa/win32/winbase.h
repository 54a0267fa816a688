/* NSPA Win32 layer: kernel32-style declarations (threads, sync objects, waits, time). */
#ifndef NSPA_WIN32_WINBASE_H
#define NSPA_WIN32_WINBASE_H

#include "windef.h"
#include "winerror.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Last-error value of the calling thread (thread-local, as on Windows). */
DWORD WINAPI GetLastError(void);
void  WINAPI SetLastError(DWORD err);

#ifdef __cplusplus
}
#endif
#endif
