/* NSPA Win32 layer: completion ports and overlapped results (ioapiset.h). Design:
 * docs/io.md. */
#ifndef NSPA_WIN32_IOAPISET_H
#define NSPA_WIN32_IOAPISET_H
#include "windef.h"
#include "minwinbase.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ERROR_HANDLE_EOF              38
#define ERROR_NETNAME_DELETED         64
#define ERROR_OPERATION_ABORTED       995
#define ERROR_IO_INCOMPLETE           996
#define ERROR_IO_PENDING              997
#define ERROR_CONNECTION_REFUSED      1225
#define ERROR_CONNECTION_ABORTED      1236
#define ERROR_NOT_FOUND               1168
#define ERROR_DISK_FULL               112

#define FILE_SKIP_COMPLETION_PORT_ON_SUCCESS 0x1
#define FILE_SKIP_SET_EVENT_ON_HANDLE        0x2

HANDLE WINAPI CreateIoCompletionPort(HANDLE file, HANDLE port, ULONG_PTR key, DWORD concurrency);
BOOL WINAPI GetQueuedCompletionStatus(HANDLE port, LPDWORD bytes, PULONG_PTR key, LPOVERLAPPED *ov,
                                      DWORD ms);
BOOL WINAPI GetQueuedCompletionStatusEx(HANDLE port, LPOVERLAPPED_ENTRY entries, ULONG count,
                                        PULONG removed, DWORD ms, BOOL alertable);
BOOL WINAPI PostQueuedCompletionStatus(HANDLE port, DWORD bytes, ULONG_PTR key, LPOVERLAPPED ov);
BOOL WINAPI SetFileCompletionNotificationModes(HANDLE file, UCHAR flags);
BOOL WINAPI GetOverlappedResult(HANDLE file, LPOVERLAPPED ov, LPDWORD bytes, BOOL wait);
BOOL WINAPI GetOverlappedResultEx(HANDLE file, LPOVERLAPPED ov, LPDWORD bytes, DWORD ms, BOOL alertable);
BOOL WINAPI CancelIo(HANDLE file);
BOOL WINAPI CancelIoEx(HANDLE file, LPOVERLAPPED ov);
BOOL WINAPI CancelSynchronousIo(HANDLE thread);

#ifdef __cplusplus
}
#endif
#endif
