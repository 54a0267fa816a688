/* NSPA Win32 layer: OVERLAPPED and the completion-routine types (minwinbase.h). */
#ifndef NSPA_WIN32_MINWINBASE_H
#define NSPA_WIN32_MINWINBASE_H
#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _OVERLAPPED {
    ULONG_PTR Internal;        /* the NTSTATUS; STATUS_PENDING (0x103) while pending */
    ULONG_PTR InternalHigh;    /* bytes transferred */
    union {
        struct { DWORD Offset; DWORD OffsetHigh; };
        PVOID Pointer;
    };
    HANDLE hEvent;             /* low bit set: no completion packet to a port */
} OVERLAPPED, *LPOVERLAPPED;

typedef struct _OVERLAPPED_ENTRY {
    ULONG_PTR lpCompletionKey;
    LPOVERLAPPED lpOverlapped;
    ULONG_PTR Internal;
    DWORD dwNumberOfBytesTransferred;
} OVERLAPPED_ENTRY, *LPOVERLAPPED_ENTRY;

typedef void (WINAPI *LPOVERLAPPED_COMPLETION_ROUTINE)(DWORD err, DWORD bytes, LPOVERLAPPED ov);

#define STATUS_PENDING_VALUE 0x103
/* an atomic read: the I/O engine's thread writes Internal (release) when it completes */
#define HasOverlappedIoCompleted(ov) \
    ((DWORD)__atomic_load_n(&(ov)->Internal, __ATOMIC_ACQUIRE) != STATUS_PENDING_VALUE)

#ifdef __cplusplus
}
#endif
#endif
