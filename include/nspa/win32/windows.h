/* NSPA Win32 layer: the <windows.h> subset that NSPA implements natively.
 * Build with: cc $(pkg-config --cflags nspa-win32) prog.c $(pkg-config --libs nspa-win32) */
#ifndef NSPA_WIN32_WINDOWS_H
#define NSPA_WIN32_WINDOWS_H

#include "windef.h"
#include "winerror.h"
#include "winbase.h"
#if __has_include("winnls.h")
#include "winnls.h"
#endif
#if __has_include("heapapi.h")
#include "heapapi.h"
#include "synchapi_timers.h"
#include "sysinfoapi.h"
#include "interlockedapi.h"
#include "synchapi_barrier.h"
#include "threadpoolapiset.h"
#include "threadpoollegacyapiset.h"
#include "timeapi.h"
#include "avrt.h"
#endif
#if __has_include("winternl.h")
#include "winternl.h"
#include "synchapi_timers.h"
#include "sysinfoapi.h"
#include "interlockedapi.h"
#include "synchapi_barrier.h"
#include "threadpoolapiset.h"
#include "threadpoollegacyapiset.h"
#include "timeapi.h"
#include "avrt.h"
#endif
#include "winuser.h"
#include "minwinbase.h"
#include "ioapiset.h"
#include "fileapi.h"
#if __has_include("synchapi_locks.h")
#include "synchapi_locks.h"
#endif
#include "winnt.h"
#include "synchapi.h"
#include "processthreadsapi.h"
#include "memoryapi.h"
#include "errhandlingapi.h"
#include "securitybaseapi.h"
#include "psapi.h"

#include "processthreadsapi.h"
#include "fibersapi.h"
#include "processenv.h"
#include "libloaderapi.h"
#include "sysinfoapi.h"
#include "shellapi.h"
#include "consoleapi.h"
#include "namedpipeapi.h"

#include "synchapi_timers.h"
#include "sysinfoapi.h"
#include "interlockedapi.h"
#include "synchapi_barrier.h"
#include "threadpoolapiset.h"
#include "threadpoollegacyapiset.h"
#include "timeapi.h"
#include "avrt.h"
#endif
