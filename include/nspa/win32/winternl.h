/* NSPA Win32 layer: winternl.h — the NT run-time library's string functions, and the NT
 * native calls over NSPA's objects (events, mutants, semaphores, waits, APCs, clocks;
 * src/nt/, docs/nt.md), as Wine's winternl.h declares them. */
#ifndef NSPA_WIN32_WINTERNL_H
#define NSPA_WIN32_WINTERNL_H

#include "windef.h"
#include "winnt.h"
#include "ntstatus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef char CCHAR;
typedef const char *PCCH, *PCSZ;

/* A counted UTF-16 string: Length and MaximumLength are in BYTES, Buffer need not be
 * NUL-terminated. */
typedef struct _UNICODE_STRING {
    USHORT Length;
    USHORT MaximumLength;
    PWSTR  Buffer;
} UNICODE_STRING, *PUNICODE_STRING;
typedef const UNICODE_STRING *PCUNICODE_STRING;

#define HASH_STRING_ALGORITHM_DEFAULT 0
#define HASH_STRING_ALGORITHM_X65599  1
#define HASH_STRING_ALGORITHM_INVALID 0xffffffff

/* RtlInitUnicodeString - point 'dst' at the NUL-terminated 'src' (NULL gives an empty
 * string); Length = its byte length, MaximumLength = Length + 2. Thread-safe. */
VOID NTAPI RtlInitUnicodeString(PUNICODE_STRING DestinationString, PCWSTR SourceString);

/* RtlUTF8ToUnicodeN - convert UTF8StringByteCount bytes of UTF-8 to UTF-16.
 *   UnicodeStringDestination NULL: length query, *UnicodeStringActualByteCount receives the
 *   bytes needed. Otherwise up to UnicodeStringMaxByteCount / 2 WCHARs are written (whole
 *   characters) and *UnicodeStringActualByteCount receives the bytes written.
 * Returns STATUS_SUCCESS; STATUS_SOME_NOT_MAPPED when invalid input was replaced by
 * U+FFFD; STATUS_BUFFER_TOO_SMALL when the output did not fit (wins over
 * SOME_NOT_MAPPED); STATUS_INVALID_PARAMETER_4 for a NULL source and
 * STATUS_INVALID_PARAMETER for a NULL byte-count pointer (Windows' codes; both are
 * "invalid parameter" statuses). Thread-safe. */
NTSTATUS NTAPI RtlUTF8ToUnicodeN(PWSTR UnicodeStringDestination, ULONG UnicodeStringMaxByteCount,
                                 PULONG UnicodeStringActualByteCount, PCCH UTF8StringSource,
                                 ULONG UTF8StringByteCount);

/* RtlUnicodeToUTF8N - convert UnicodeStringByteCount bytes of UTF-16 to UTF-8.
 * As RtlUTF8ToUnicodeN, plus STATUS_INVALID_PARAMETER_5 for an odd byte count when
 * converting (a length query ignores the odd byte, as Windows does). Lone surrogates
 * become EF BF BD and give STATUS_SOME_NOT_MAPPED. Thread-safe. */
NTSTATUS NTAPI RtlUnicodeToUTF8N(PCHAR UTF8StringDestination, ULONG UTF8StringMaxByteCount,
                                 PULONG UTF8StringActualByteCount, PCWSTR UnicodeStringSource,
                                 ULONG UnicodeStringByteCount);

/* RtlUpcaseUnicodeChar - Windows' uppercase of one UTF-16 unit (no locale, no surrogate
 * pairing): the Unicode Character Database's simple uppercase mapping when it
 * round-trips (Windows' table: U+00B5, U+0131, U+017F ... map to themselves). */
WCHAR NTAPI RtlUpcaseUnicodeChar(WCHAR SourceCharacter);

/* RtlCompareUnicodeStrings - ordinal compare of (String1, Length1) and (String2, Length2)
 * (lengths in WCHARs), upcased when CaseInSensitive. Returns the signed difference of the
 * first mismatching units, else Length1 - Length2. Thread-safe. */
LONG NTAPI RtlCompareUnicodeStrings(const WCHAR *String1, SIZE_T Length1, const WCHAR *String2,
                                    SIZE_T Length2, BOOLEAN CaseInSensitive);

/* RtlCompareUnicodeString - the same on UNICODE_STRINGs (Length / 2 units each). */
LONG NTAPI RtlCompareUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                   BOOLEAN CaseInSensitive);

/* RtlEqualUnicodeString - TRUE when both have the same Length and compare equal. */
BOOLEAN NTAPI RtlEqualUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                    BOOLEAN CaseInSensitive);

/* RtlHashUnicodeString - X65599 hash of String (h = h * 65599 + unit, upcased when
 * CaseInSensitive, modulo 2^32) into *HashValue. HashAlgorithm must be
 * HASH_STRING_ALGORITHM_DEFAULT or HASH_STRING_ALGORITHM_X65599; otherwise, or for a NULL
 * String or HashValue, STATUS_INVALID_PARAMETER. Thread-safe. */
NTSTATUS NTAPI RtlHashUnicodeString(PCUNICODE_STRING String, BOOLEAN CaseInSensitive,
                                    ULONG HashAlgorithm, PULONG HashValue);

/* ---- the NT native layer (src/nt/, docs/nt.md) --------------------------------------
 * Every call returns an NTSTATUS and never sets the last error. Timeouts are
 * LARGE_INTEGERs in 100 ns units: negative = relative (CLOCK_MONOTONIC), positive =
 * absolute system time (since 1601, CLOCK_REALTIME), 0 = poll, NULL = infinite.
 * Object names: "\Sessions\<n>\BaseNamedObjects\X" (what kernel32 names "X" and
 * "Local\X") and "\BaseNamedObjects\X" ("Global\X"); RootDirectory must be NULL. */

typedef struct _OBJECT_ATTRIBUTES {
    ULONG           Length;
    HANDLE          RootDirectory;
    PUNICODE_STRING ObjectName;
    ULONG           Attributes;
    PVOID           SecurityDescriptor;
    PVOID           SecurityQualityOfService;
} OBJECT_ATTRIBUTES, *POBJECT_ATTRIBUTES;

#define OBJ_PROTECT_CLOSE     0x00000001
#define OBJ_INHERIT           0x00000002
#define OBJ_AUDIT_OBJECT_CLOSE 0x00000004
#define OBJ_PERMANENT         0x00000010
#define OBJ_EXCLUSIVE         0x00000020
#define OBJ_CASE_INSENSITIVE  0x00000040
#define OBJ_OPENIF            0x00000080
#define OBJ_OPENLINK          0x00000100
#define OBJ_KERNEL_HANDLE     0x00000200
#define OBJ_FORCE_ACCESS_CHECK 0x00000400
#define OBJ_VALID_ATTRIBUTES  0x000007F2

#define InitializeObjectAttributes(p, n, a, r, s) do { \
        (p)->Length = sizeof(OBJECT_ATTRIBUTES);       \
        (p)->RootDirectory = (r);                      \
        (p)->Attributes = (a);                         \
        (p)->ObjectName = (n);                         \
        (p)->SecurityDescriptor = (s);                 \
        (p)->SecurityQualityOfService = NULL;          \
    } while (0)

typedef enum _EVENT_TYPE { NotificationEvent, SynchronizationEvent } EVENT_TYPE;
typedef enum _EVENT_INFORMATION_CLASS { EventBasicInformation } EVENT_INFORMATION_CLASS;
typedef struct _EVENT_BASIC_INFORMATION {
    EVENT_TYPE EventType;
    LONG       EventState;
} EVENT_BASIC_INFORMATION, *PEVENT_BASIC_INFORMATION;

typedef enum _MUTANT_INFORMATION_CLASS { MutantBasicInformation } MUTANT_INFORMATION_CLASS;
typedef struct _MUTANT_BASIC_INFORMATION {
    LONG    CurrentCount;     /* 1 free, 0 owned once, -1 twice ... */
    BOOLEAN OwnedByCaller;
    BOOLEAN AbandonedState;
} MUTANT_BASIC_INFORMATION, *PMUTANT_BASIC_INFORMATION;

typedef enum _SEMAPHORE_INFORMATION_CLASS { SemaphoreBasicInformation } SEMAPHORE_INFORMATION_CLASS;
typedef struct _SEMAPHORE_BASIC_INFORMATION {
    ULONG CurrentCount;
    ULONG MaximumCount;
} SEMAPHORE_BASIC_INFORMATION, *PSEMAPHORE_BASIC_INFORMATION;

typedef enum _WAIT_TYPE { WaitAll, WaitAny } WAIT_TYPE;

typedef void (NTAPI *PNTAPCFUNC)(ULONG_PTR arg1, ULONG_PTR arg2, ULONG_PTR arg3);

NTSTATUS NTAPI NtCreateEvent(PHANDLE EventHandle, ACCESS_MASK DesiredAccess,
                             const OBJECT_ATTRIBUTES *ObjectAttributes, EVENT_TYPE EventType,
                             BOOLEAN InitialState);
NTSTATUS NTAPI NtOpenEvent(PHANDLE EventHandle, ACCESS_MASK DesiredAccess,
                           const OBJECT_ATTRIBUTES *ObjectAttributes);
NTSTATUS NTAPI NtSetEvent(HANDLE EventHandle, PLONG PreviousState);
NTSTATUS NTAPI NtResetEvent(HANDLE EventHandle, PLONG PreviousState);
NTSTATUS NTAPI NtClearEvent(HANDLE EventHandle);
NTSTATUS NTAPI NtPulseEvent(HANDLE EventHandle, PLONG PreviousState);
NTSTATUS NTAPI NtQueryEvent(HANDLE EventHandle, EVENT_INFORMATION_CLASS EventInformationClass,
                            PVOID EventInformation, ULONG EventInformationLength, PULONG ReturnLength);

NTSTATUS NTAPI NtCreateMutant(PHANDLE MutantHandle, ACCESS_MASK DesiredAccess,
                              const OBJECT_ATTRIBUTES *ObjectAttributes, BOOLEAN InitialOwner);
NTSTATUS NTAPI NtOpenMutant(PHANDLE MutantHandle, ACCESS_MASK DesiredAccess,
                            const OBJECT_ATTRIBUTES *ObjectAttributes);
NTSTATUS NTAPI NtReleaseMutant(HANDLE MutantHandle, PLONG PreviousCount);
NTSTATUS NTAPI NtQueryMutant(HANDLE MutantHandle, MUTANT_INFORMATION_CLASS MutantInformationClass,
                             PVOID MutantInformation, ULONG MutantInformationLength, PULONG ReturnLength);

NTSTATUS NTAPI NtCreateSemaphore(PHANDLE SemaphoreHandle, ACCESS_MASK DesiredAccess,
                                 const OBJECT_ATTRIBUTES *ObjectAttributes, LONG InitialCount,
                                 LONG MaximumCount);
NTSTATUS NTAPI NtOpenSemaphore(PHANDLE SemaphoreHandle, ACCESS_MASK DesiredAccess,
                               const OBJECT_ATTRIBUTES *ObjectAttributes);
NTSTATUS NTAPI NtReleaseSemaphore(HANDLE SemaphoreHandle, ULONG ReleaseCount, PULONG PreviousCount);
NTSTATUS NTAPI NtQuerySemaphore(HANDLE SemaphoreHandle, SEMAPHORE_INFORMATION_CLASS SemaphoreInformationClass,
                                PVOID SemaphoreInformation, ULONG SemaphoreInformationLength,
                                PULONG ReturnLength);

typedef enum _TIMER_TYPE { NotificationTimer, SynchronizationTimer } TIMER_TYPE;
/* the timer objects of CreateWaitableTimer; NtSetTimer/NtCancelTimer are not provided
 * (SetWaitableTimer(Ex)/CancelWaitableTimer set them) */
NTSTATUS NTAPI NtCreateTimer(PHANDLE TimerHandle, ACCESS_MASK DesiredAccess,
                             const OBJECT_ATTRIBUTES *ObjectAttributes, TIMER_TYPE TimerType);
NTSTATUS NTAPI NtOpenTimer(PHANDLE TimerHandle, ACCESS_MASK DesiredAccess,
                           const OBJECT_ATTRIBUTES *ObjectAttributes);

NTSTATUS NTAPI NtWaitForSingleObject(HANDLE Handle, BOOLEAN Alertable, const LARGE_INTEGER *Timeout);
NTSTATUS NTAPI NtWaitForMultipleObjects(ULONG Count, const HANDLE *Handles, WAIT_TYPE WaitType,
                                        BOOLEAN Alertable, const LARGE_INTEGER *Timeout);
NTSTATUS NTAPI NtSignalAndWaitForSingleObject(HANDLE SignalHandle, HANDLE WaitHandle, BOOLEAN Alertable,
                                              const LARGE_INTEGER *Timeout);
NTSTATUS NTAPI NtClose(HANDLE Handle);
NTSTATUS NTAPI NtDuplicateObject(HANDLE SourceProcessHandle, HANDLE SourceHandle,
                                 HANDLE TargetProcessHandle, PHANDLE TargetHandle,
                                 ACCESS_MASK DesiredAccess, ULONG HandleAttributes, ULONG Options);

NTSTATUS NTAPI NtQueueApcThread(HANDLE ThreadHandle, PNTAPCFUNC ApcRoutine, ULONG_PTR Arg1,
                                ULONG_PTR Arg2, ULONG_PTR Arg3);
NTSTATUS NTAPI NtTestAlert(void);
NTSTATUS NTAPI NtDelayExecution(BOOLEAN Alertable, const LARGE_INTEGER *DelayInterval);
NTSTATUS NTAPI NtYieldExecution(void);
NTSTATUS NTAPI NtQuerySystemTime(PLARGE_INTEGER SystemTime);
NTSTATUS NTAPI NtQueryPerformanceCounter(PLARGE_INTEGER PerformanceCounter,
                                         PLARGE_INTEGER PerformanceFrequency);

/* RtlNtStatusToDosError - the Win32 error code kernel32 reports for a status (Windows'
 * table for the statuses NSPA produces; HRESULT_FROM_WIN32 values give their code back;
 * anything else ERROR_MR_MID_NOT_FOUND, as Windows). */
ULONG NTAPI RtlNtStatusToDosError(NTSTATUS Status);

#ifdef __cplusplus
}
#endif
#endif
