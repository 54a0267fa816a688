/* NSPA Win32 layer: CommandLineToArgvW (shellapi.h). The array is one block: free it
 * with LocalFree. */
#ifndef NSPA_WIN32_SHELLAPI_H
#define NSPA_WIN32_SHELLAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

LPWSTR *WINAPI CommandLineToArgvW(LPCWSTR cmdline, int *argc);

#ifdef __cplusplus
}
#endif
#endif
