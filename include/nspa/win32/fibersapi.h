/* NSPA Win32 layer: fibersapi.h — fiber local storage. NSPA has no fibers: each thread
 * is one fiber, so FLS is thread local storage whose callback runs at thread exit and,
 * for every thread's value, at FlsFree (src/win32/tls.c). */
#ifndef NSPA_WIN32_FIBERSAPI_H
#define NSPA_WIN32_FIBERSAPI_H

#include "windef.h"
#include "winnt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FLS_OUT_OF_INDEXES ((DWORD)0xFFFFFFFF)
#define FLS_MAXIMUM_AVAILABLE 4080
typedef void (WINAPI *PFLS_CALLBACK_FUNCTION)(PVOID data);

DWORD WINAPI FlsAlloc(PFLS_CALLBACK_FUNCTION callback);
BOOL  WINAPI FlsFree(DWORD index);
PVOID WINAPI FlsGetValue(DWORD index);
BOOL  WINAPI FlsSetValue(DWORD index, PVOID value);

#ifdef __cplusplus
}
#endif
#endif
