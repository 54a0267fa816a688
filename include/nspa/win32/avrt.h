/* NSPA Win32 layer: MMCSS (avrt.h). src/sched/win32_avrt.c; the mapping of tasks to
 * priorities in RT mode is in docs/rt.md ("MMCSS"). */
#ifndef NSPA_WIN32_AVRT_H
#define NSPA_WIN32_AVRT_H
#include "windef.h"
#ifdef __cplusplus
extern "C" {
#endif

#ifndef ERROR_INVALID_TASK_NAME
#define ERROR_INVALID_TASK_NAME  1550
#define ERROR_INVALID_TASK_INDEX 1551
#endif

typedef enum _AVRT_PRIORITY {
    AVRT_PRIORITY_VERYLOW = -2,
    AVRT_PRIORITY_LOW,
    AVRT_PRIORITY_NORMAL,
    AVRT_PRIORITY_HIGH,
    AVRT_PRIORITY_CRITICAL
} AVRT_PRIORITY, *PAVRT_PRIORITY;

HANDLE WINAPI AvSetMmThreadCharacteristicsA(LPCSTR task, LPDWORD task_index);
HANDLE WINAPI AvSetMmThreadCharacteristicsW(LPCWSTR task, LPDWORD task_index);
HANDLE WINAPI AvSetMmMaxThreadCharacteristicsA(LPCSTR first, LPCSTR second, LPDWORD task_index);
HANDLE WINAPI AvSetMmMaxThreadCharacteristicsW(LPCWSTR first, LPCWSTR second, LPDWORD task_index);
BOOL WINAPI AvSetMmThreadPriority(HANDLE avrt, AVRT_PRIORITY priority);
BOOL WINAPI AvRevertMmThreadCharacteristics(HANDLE avrt);

#ifdef UNICODE
#define AvSetMmThreadCharacteristics AvSetMmThreadCharacteristicsW
#define AvSetMmMaxThreadCharacteristics AvSetMmMaxThreadCharacteristicsW
#else
#define AvSetMmThreadCharacteristics AvSetMmThreadCharacteristicsA
#define AvSetMmMaxThreadCharacteristics AvSetMmMaxThreadCharacteristicsA
#endif

#ifdef __cplusplus
}
#endif
#endif
