/* NSPA Win32 layer: synchronization barriers (synchapi.h). src/locks/win32_barrier.c;
 * docs/locks.md. */
#ifndef NSPA_WIN32_SYNCHAPI_BARRIER_H
#define NSPA_WIN32_SYNCHAPI_BARRIER_H
#include "windef.h"
#ifdef __cplusplus
extern "C" {
#endif

/* the Windows x64 layout (32 bytes); the fields are NSPA's, see docs/locks.md */
typedef struct _RTL_BARRIER {
    DWORD Reserved1;
    DWORD Reserved2;
    ULONG_PTR Reserved3[2];
    DWORD Reserved4;
    DWORD Reserved5;
} RTL_BARRIER, *PRTL_BARRIER;
typedef RTL_BARRIER SYNCHRONIZATION_BARRIER, *PSYNCHRONIZATION_BARRIER, *LPSYNCHRONIZATION_BARRIER;

#define SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY  0x01
#define SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY 0x02
#define SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE  0x04

BOOL WINAPI InitializeSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER barrier, LONG total_threads,
                                             LONG spin_count);
BOOL WINAPI EnterSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER barrier, DWORD flags);
BOOL WINAPI DeleteSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER barrier);

#ifdef __cplusplus
}
#endif
#endif
