/* NSPA Win32 layer: errhandlingapi.h — vectored exception handlers, the unhandled
 * exception filter, RaiseException (docs/vm.md, "Exceptions"). */
#ifndef NSPA_WIN32_ERRHANDLINGAPI_H
#define NSPA_WIN32_ERRHANDLINGAPI_H

#include "windef.h"
#include "winnt_except.h"

#ifdef __cplusplus
extern "C" {
#endif

PVOID WINAPI AddVectoredExceptionHandler(ULONG first, PVECTORED_EXCEPTION_HANDLER handler);
ULONG WINAPI RemoveVectoredExceptionHandler(PVOID cookie);
PVOID WINAPI AddVectoredContinueHandler(ULONG first, PVECTORED_EXCEPTION_HANDLER handler);
ULONG WINAPI RemoveVectoredContinueHandler(PVOID cookie);
LPTOP_LEVEL_EXCEPTION_FILTER WINAPI SetUnhandledExceptionFilter(LPTOP_LEVEL_EXCEPTION_FILTER filter);
LONG WINAPI UnhandledExceptionFilter(struct _EXCEPTION_POINTERS *info);
void WINAPI RaiseException(DWORD code, DWORD flags, DWORD nargs, const ULONG_PTR *args);
void WINAPI RtlCaptureContext(PCONTEXT ctx);

#ifdef __cplusplus
}
#endif
#endif
