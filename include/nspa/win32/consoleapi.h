/* NSPA Win32 layer: console control handlers (consoleapi.h). Ctrl+C (SIGINT) and
 * SIGTERM run the registered handlers on a thread of their own, last registered first,
 * as Windows does; with none registered (or all returning FALSE) the process exits
 * (SIGINT: STATUS_CONTROL_C_EXIT). */
#ifndef NSPA_WIN32_CONSOLEAPI_H
#define NSPA_WIN32_CONSOLEAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CTRL_C_EVENT        0
#define CTRL_BREAK_EVENT    1
#define CTRL_CLOSE_EVENT    2
#define CTRL_LOGOFF_EVENT   5
#define CTRL_SHUTDOWN_EVENT 6

typedef BOOL (WINAPI *PHANDLER_ROUTINE)(DWORD ctrl_type);
BOOL WINAPI SetConsoleCtrlHandler(PHANDLER_ROUTINE handler, BOOL add);
BOOL WINAPI GenerateConsoleCtrlEvent(DWORD event, DWORD group);

#ifdef __cplusplus
}
#endif
#endif
