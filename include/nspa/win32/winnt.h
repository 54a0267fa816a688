/* NSPA Win32 layer: winnt.h — the NT types every Win32 header builds on: the Interlocked
 * family, access rights, and the run-time library's lock types (RTL_CRITICAL_SECTION,
 * RTL_SRWLOCK, RTL_CONDITION_VARIABLE, RTL_RUN_ONCE), as the Windows SDK's winnt.h has
 * them. <windef.h> includes it (as the SDK's does through minwindef.h), so code that
 * includes either gets these declarations. */
#ifndef NSPA_WIN32_WINNT_H
#define NSPA_WIN32_WINNT_H

#include "windef.h"
#include "winnt_interlocked.h"
#ifndef WIN32_NO_STATUS
#include "ntstatus.h"      /* STATUS_WAIT_0, STATUS_TIMEOUT ... (the SDK has a few here) */
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef DWORD ACCESS_MASK, *PACCESS_MASK;

/* ---- access rights ------------------------------------------------------------------ */
#define DELETE                    0x00010000u
#define READ_CONTROL              0x00020000u
#define WRITE_DAC                 0x00040000u
#define WRITE_OWNER               0x00080000u
#define SYNCHRONIZE               0x00100000u
#define STANDARD_RIGHTS_REQUIRED  0x000F0000u
#define STANDARD_RIGHTS_READ      READ_CONTROL
#define STANDARD_RIGHTS_WRITE     READ_CONTROL
#define STANDARD_RIGHTS_EXECUTE   READ_CONTROL
#define STANDARD_RIGHTS_ALL       0x001F0000u
#define ACCESS_SYSTEM_SECURITY    0x01000000u
#define MAXIMUM_ALLOWED           0x02000000u
#define GENERIC_READ              0x80000000u
#define GENERIC_WRITE             0x40000000u
#define GENERIC_EXECUTE           0x20000000u
#define GENERIC_ALL               0x10000000u
#define EVENT_QUERY_STATE         0x0001u
#define EVENT_MODIFY_STATE        0x0002u
#define EVENT_ALL_ACCESS          (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x3)
#define MUTANT_QUERY_STATE        0x0001u
#define MUTANT_ALL_ACCESS         (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | MUTANT_QUERY_STATE)
#define SEMAPHORE_QUERY_STATE     0x0001u
#define SEMAPHORE_MODIFY_STATE    0x0002u
#define SEMAPHORE_ALL_ACCESS      (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x3)
#define THREAD_TERMINATE          0x0001u
#define THREAD_SUSPEND_RESUME     0x0002u
#define THREAD_SET_CONTEXT        0x0010u
#define THREAD_QUERY_INFORMATION  0x0040u
#define THREAD_SET_INFORMATION    0x0020u
#define THREAD_ALL_ACCESS         (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0xFFFF)
#define DUPLICATE_CLOSE_SOURCE    0x00000001u
#define DUPLICATE_SAME_ACCESS     0x00000002u

/* ---- the run-time library's locks (their functions: synchapi.h) ---------------------- */

/* RTL_CRITICAL_SECTION: the Windows x64 layout, 40 bytes. OwningThread holds the owner's
 * thread id (the Linux tid, which is NSPA's thread id) and RecursionCount the recursion
 * depth, for debuggers; DebugInfo is (PVOID)-1 and SpinCount follows Windows 7+.
 * LockCount is NSPA's futex word: outside RT mode -1 free, -2 held, -3 held with
 * sleepers; in RT mode (PI) 0 free, else the owner's tid with the kernel's FUTEX_WAITERS
 * bit. See docs/locks.md. */
typedef struct _RTL_CRITICAL_SECTION_DEBUG *PRTL_CRITICAL_SECTION_DEBUG;

typedef struct _RTL_CRITICAL_SECTION {
    PRTL_CRITICAL_SECTION_DEBUG DebugInfo;
    LONG      LockCount;
    LONG      RecursionCount;
    HANDLE    OwningThread;
    HANDLE    LockSemaphore;
    ULONG_PTR SpinCount;
} RTL_CRITICAL_SECTION, *PRTL_CRITICAL_SECTION;

#define RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO     0x01000000
#define RTL_CRITICAL_SECTION_FLAG_DYNAMIC_SPIN      0x02000000
#define RTL_CRITICAL_SECTION_FLAG_STATIC_INIT       0x04000000
#define RTL_CRITICAL_SECTION_FLAG_RESOURCE_TYPE     0x08000000
#define RTL_CRITICAL_SECTION_FLAG_FORCE_DEBUG_INFO  0x10000000
#define RTL_CRITICAL_SECTION_ALL_FLAG_BITS          0xFF000000

/* RTL_SRWLOCK: one pointer in Windows' layout (bit 0 Locked, bit 1 Waiting, bits 4..
 * the shared owners; docs/locks.md). */
typedef struct _RTL_SRWLOCK { PVOID Ptr; } RTL_SRWLOCK, *PRTL_SRWLOCK;
#define RTL_SRWLOCK_INIT {0}

/* RTL_CONDITION_VARIABLE: one pointer, any alignment. */
typedef struct _RTL_CONDITION_VARIABLE { PVOID Ptr; } RTL_CONDITION_VARIABLE, *PRTL_CONDITION_VARIABLE;
#define RTL_CONDITION_VARIABLE_INIT {0}
#define RTL_CONDITION_VARIABLE_LOCKMODE_SHARED 0x1

/* RTL_RUN_ONCE: one pointer, Windows' encoding (docs/locks.md). */
typedef union _RTL_RUN_ONCE { PVOID Ptr; } RTL_RUN_ONCE, *PRTL_RUN_ONCE;
#define RTL_RUN_ONCE_INIT {0}
#define RTL_RUN_ONCE_CHECK_ONLY     0x00000001
#define RTL_RUN_ONCE_ASYNC          0x00000002
#define RTL_RUN_ONCE_INIT_FAILED    0x00000004
#define RTL_RUN_ONCE_CTX_RESERVED_BITS 2

#ifdef __cplusplus
}
#endif
#endif
