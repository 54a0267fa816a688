/* NSPA Win32 layer: anonymous pipes (namedpipeapi.h) — CreatePipe and PeekNamedPipe.
 * Named pipes (CreateNamedPipe, ConnectNamedPipe) are not implemented. */
#ifndef NSPA_WIN32_NAMEDPIPEAPI_H
#define NSPA_WIN32_NAMEDPIPEAPI_H

#include "windef.h"
#include "minwinbase.h"

#ifdef __cplusplus
extern "C" {
#endif

BOOL WINAPI CreatePipe(PHANDLE read_pipe, PHANDLE write_pipe, LPSECURITY_ATTRIBUTES sa, DWORD size);
BOOL WINAPI PeekNamedPipe(HANDLE pipe, LPVOID buf, DWORD size, LPDWORD read, LPDWORD avail, LPDWORD left);

#ifdef __cplusplus
}
#endif
#endif
