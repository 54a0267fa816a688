/* The NT native object calls over NSPA's objects: NtCreate/Open/Set/Reset/Pulse/
 * QueryEvent, NtCreate/Open/Release/QueryMutant, NtCreate/Open/Release/QuerySemaphore,
 * NtClose, NtDuplicateObject and RtlNtStatusToDosError, with NT's statuses (the ones
 * Wine's ntdll tests and the Windows documentation give), OBJECT_ATTRIBUTES names that
 * meet kernel32's, and the mutant's signal-state counts. */
#include <windows.h>
#include <winternl.h>
#include "nspa_test.h"

static UNICODE_STRING us(const WCHAR *s)
{
    UNICODE_STRING u;
    RtlInitUnicodeString(&u, s);
    return u;
}

static OBJECT_ATTRIBUTES oa(UNICODE_STRING *name, ULONG attributes)
{
    OBJECT_ATTRIBUTES a;
    InitializeObjectAttributes(&a, name, attributes, NULL, NULL);
    return a;
}

static DWORD WINAPI take_and_exit(LPVOID m)
{
    return WaitForSingleObject((HANDLE)m, 0);   /* exits owning it */
}

static void events(void)
{
    HANDLE e, e2;
    CHECK_EQ(NtCreateEvent(&e, EVENT_ALL_ACCESS, NULL, NotificationEvent, TRUE), STATUS_SUCCESS);
    EVENT_BASIC_INFORMATION info;
    ULONG ret = 0;
    CHECK_EQ(NtQueryEvent(e, EventBasicInformation, &info, sizeof(info), &ret), STATUS_SUCCESS);
    CHECK_EQ(ret, sizeof(info));
    CHECK_EQ(info.EventType, NotificationEvent);
    CHECK_EQ(info.EventState, 1);
    LONG prev = 7;
    CHECK_EQ(NtResetEvent(e, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 1);
    CHECK_EQ(NtSetEvent(e, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 0);
    CHECK_EQ(NtPulseEvent(e, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 1);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_TIMEOUT);       /* a Win32 wait on it */
    CHECK_EQ(NtSetEvent(e, NULL), STATUS_SUCCESS);
    CHECK_EQ(NtClearEvent(e), STATUS_SUCCESS);
    CHECK_EQ(NtQueryEvent(e, EventBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.EventState, 0);
    CHECK_EQ(NtQueryEvent(e, 1, &info, sizeof(info), NULL), STATUS_INVALID_INFO_CLASS);
    CHECK_EQ(NtQueryEvent(e, EventBasicInformation, &info, sizeof(info) + 1, NULL), STATUS_INFO_LENGTH_MISMATCH);
    CHECK_EQ(NtCreateEvent(&e2, EVENT_ALL_ACCESS, NULL, SynchronizationEvent, FALSE), STATUS_SUCCESS);
    CHECK_EQ(NtQueryEvent(e2, EventBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.EventType, SynchronizationEvent);
    CHECK_EQ(NtCreateEvent(&e2, EVENT_ALL_ACCESS, NULL, 2, FALSE), STATUS_INVALID_PARAMETER);
    CHECK_EQ(NtCreateEvent(NULL, EVENT_ALL_ACCESS, NULL, NotificationEvent, FALSE), STATUS_ACCESS_VIOLATION);
    /* wrong type, bad and pseudo handles */
    HANDLE s;
    CHECK_EQ(NtCreateSemaphore(&s, SEMAPHORE_ALL_ACCESS, NULL, 1, 1), STATUS_SUCCESS);
    CHECK_EQ(NtSetEvent(s, NULL), STATUS_OBJECT_TYPE_MISMATCH);
    CHECK_EQ(NtQueryEvent(s, EventBasicInformation, &info, sizeof(info), NULL), STATUS_OBJECT_TYPE_MISMATCH);
    CHECK_EQ(NtSetEvent((HANDLE)0xdeadbee0, NULL), STATUS_INVALID_HANDLE);
    CHECK_EQ(NtSetEvent(GetCurrentThread(), NULL), STATUS_OBJECT_TYPE_MISMATCH);
    CHECK_EQ(NtClose(s), STATUS_SUCCESS);
    CHECK_EQ(NtClose(e), STATUS_SUCCESS);
    CHECK_EQ(NtClose(e), STATUS_INVALID_HANDLE);
}

static void names(void)
{
    HANDLE h, h2, w;
    UNICODE_STRING local = us(L"\\Sessions\\1\\BaseNamedObjects\\nt-objects-ev");
    OBJECT_ATTRIBUTES a = oa(&local, OBJ_OPENIF);
    CHECK_EQ(NtCreateEvent(&h, EVENT_ALL_ACCESS, &a, NotificationEvent, FALSE), STATUS_SUCCESS);
    CHECK_EQ(NtCreateEvent(&h2, EVENT_ALL_ACCESS, &a, NotificationEvent, TRUE), STATUS_OBJECT_NAME_EXISTS);
    CHECK_EQ(WaitForSingleObject(h2, 0), WAIT_TIMEOUT);       /* opened, not changed */
    CHECK_EQ(NtClose(h2), STATUS_SUCCESS);
    OBJECT_ATTRIBUTES noopenif = oa(&local, 0);
    h2 = NULL;
    CHECK_EQ(NtCreateEvent(&h2, EVENT_ALL_ACCESS, &noopenif, NotificationEvent, FALSE), STATUS_OBJECT_NAME_COLLISION);
    CHECK(h2 == NULL);
    /* kernel32's names meet the NT ones */
    w = OpenEventA(EVENT_ALL_ACCESS, FALSE, "nt-objects-ev");
    CHECK(w != NULL);
    CHECK_EQ(NtSetEvent(w, NULL), STATUS_SUCCESS);
    CHECK_EQ(WaitForSingleObject(h, 0), WAIT_OBJECT_0);
    CloseHandle(w);
    w = OpenEventA(EVENT_ALL_ACCESS, FALSE, "Local\\nt-objects-ev");
    CHECK(w != NULL);
    CloseHandle(w);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_SUCCESS);
    CHECK_EQ(NtClose(h2), STATUS_SUCCESS);
    UNICODE_STRING viaLocal = us(L"\\Sessions\\1\\BaseNamedObjects\\Local\\nt-objects-ev");
    a = oa(&viaLocal, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_SUCCESS);
    CHECK_EQ(NtClose(h2), STATUS_SUCCESS);
    /* "\BaseNamedObjects\X" is kernel32's "Global\X": another object */
    UNICODE_STRING global = us(L"\\BaseNamedObjects\\nt-objects-ev");
    a = oa(&global, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_OBJECT_NAME_NOT_FOUND);
    HANDLE g = CreateEventA(NULL, TRUE, TRUE, "Global\\nt-objects-ev");
    CHECK(g != NULL);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_SUCCESS);
    CHECK_EQ(WaitForSingleObject(h2, 0), WAIT_OBJECT_0);
    NtClose(h2);
    CloseHandle(g);
    /* type mismatch, bad paths, what NSPA refuses */
    a = oa(&local, OBJ_OPENIF);
    CHECK_EQ(NtCreateMutant(&h2, MUTANT_ALL_ACCESS, &a, FALSE), STATUS_OBJECT_TYPE_MISMATCH);
    CHECK_EQ(NtOpenMutant(&h2, MUTANT_ALL_ACCESS, &a), STATUS_OBJECT_TYPE_MISMATCH);
    UNICODE_STRING rel = us(L"nt-objects-ev"), bad = us(L"\\Device\\nt-objects-ev");
    UNICODE_STRING sub = us(L"\\BaseNamedObjects\\dir\\x"), empty = us(L"\\BaseNamedObjects\\");
    a = oa(&rel, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_OBJECT_PATH_SYNTAX_BAD);
    a = oa(&bad, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_OBJECT_PATH_NOT_FOUND);
    a = oa(&sub, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_OBJECT_PATH_NOT_FOUND);
    a = oa(&empty, 0);
    CHECK_EQ(NtCreateEvent(&h2, EVENT_ALL_ACCESS, &a, NotificationEvent, FALSE), STATUS_OBJECT_NAME_INVALID);
    a = oa(&local, OBJ_CASE_INSENSITIVE);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_NOT_SUPPORTED);
    a = oa(&local, 0x80000000u);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_INVALID_PARAMETER);
    a = oa(NULL, 0);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_OBJECT_PATH_SYNTAX_BAD);
    UNICODE_STRING missing = us(L"\\Sessions\\1\\BaseNamedObjects\\nt-objects-none");
    a = oa(&missing, 0);
    CHECK_EQ(NtOpenSemaphore(&h2, SEMAPHORE_ALL_ACCESS, &a), STATUS_OBJECT_NAME_NOT_FOUND);
    /* OBJ_INHERIT marks the handle */
    a = oa(&local, OBJ_INHERIT);
    CHECK_EQ(NtOpenEvent(&h2, EVENT_ALL_ACCESS, &a), STATUS_SUCCESS);
    DWORD flags = 0;
    CHECK(GetHandleInformation(h2, &flags));
    CHECK_EQ(flags & HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    NtClose(h2);
    NtClose(h);
}

static void mutants(void)
{
    HANDLE m;
    MUTANT_BASIC_INFORMATION info;
    CHECK_EQ(NtCreateMutant(&m, MUTANT_ALL_ACCESS, NULL, TRUE), STATUS_SUCCESS);
    CHECK_EQ(NtQueryMutant(m, MutantBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 0);
    CHECK_EQ(info.OwnedByCaller, TRUE);
    CHECK_EQ(info.AbandonedState, FALSE);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);       /* recursion */
    CHECK_EQ(NtQueryMutant(m, MutantBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, -1);
    LONG prev = 7;
    CHECK_EQ(NtReleaseMutant(m, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, -1);
    CHECK_EQ(NtReleaseMutant(m, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 0);
    prev = 7;
    CHECK_EQ(NtReleaseMutant(m, &prev), STATUS_MUTANT_NOT_OWNED);
    CHECK_EQ(prev, 7);
    CHECK_EQ(NtQueryMutant(m, MutantBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 1);
    CHECK_EQ(info.OwnedByCaller, FALSE);
    /* abandoned by a thread that exits owning it */
    HANDLE t = CreateThread(NULL, 0, take_and_exit, m, 0, NULL);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    CloseHandle(t);
    CHECK_EQ(NtQueryMutant(m, MutantBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 1);
    CHECK_EQ(info.OwnedByCaller, FALSE);
    CHECK_EQ(info.AbandonedState, TRUE);
    CHECK_EQ(NtWaitForSingleObject(m, FALSE, NULL), STATUS_ABANDONED_WAIT_0);
    CHECK_EQ(NtQueryMutant(m, MutantBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 0);
    CHECK_EQ(info.OwnedByCaller, TRUE);
    CHECK_EQ(info.AbandonedState, FALSE);
    CHECK_EQ(NtReleaseMutant(m, NULL), STATUS_SUCCESS);
    CHECK_EQ(NtQueryMutant(m, 3, &info, sizeof(info), NULL), STATUS_INVALID_INFO_CLASS);
    CHECK_EQ(NtReleaseMutant((HANDLE)0xdeadbee0, NULL), STATUS_INVALID_HANDLE);
    NtClose(m);
}

static void semaphores(void)
{
    HANDLE s;
    SEMAPHORE_BASIC_INFORMATION info;
    CHECK_EQ(NtCreateSemaphore(&s, SEMAPHORE_ALL_ACCESS, NULL, 2, 3), STATUS_SUCCESS);
    CHECK_EQ(NtQuerySemaphore(s, SemaphoreBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 2);
    CHECK_EQ(info.MaximumCount, 3);
    ULONG prev = 9;
    CHECK_EQ(NtReleaseSemaphore(s, 1, &prev), STATUS_SUCCESS);
    CHECK_EQ(prev, 2);
    prev = 9;
    CHECK_EQ(NtReleaseSemaphore(s, 1, &prev), STATUS_SEMAPHORE_LIMIT_EXCEEDED);
    CHECK_EQ(prev, 9);
    CHECK_EQ(NtReleaseSemaphore(s, 0, &prev), STATUS_INVALID_PARAMETER);
    CHECK_EQ(NtQuerySemaphore(s, SemaphoreBasicInformation, &info, sizeof(info), NULL), STATUS_SUCCESS);
    CHECK_EQ(info.CurrentCount, 3);
    HANDLE x;
    CHECK_EQ(NtCreateSemaphore(&x, SEMAPHORE_ALL_ACCESS, NULL, 0, 0), STATUS_INVALID_PARAMETER);
    CHECK_EQ(NtCreateSemaphore(&x, SEMAPHORE_ALL_ACCESS, NULL, 2, 1), STATUS_INVALID_PARAMETER);
    CHECK_EQ(NtCreateSemaphore(&x, SEMAPHORE_ALL_ACCESS, NULL, -1, 1), STATUS_INVALID_PARAMETER);
    NtClose(s);
}

static void handles(void)
{
    HANDLE e, d = NULL;
    CHECK_EQ(NtCreateEvent(&e, EVENT_ALL_ACCESS, NULL, NotificationEvent, FALSE), STATUS_SUCCESS);
    HANDLE self = GetCurrentProcess();
    CHECK_EQ(NtDuplicateObject(self, e, self, &d, 0, OBJ_INHERIT, DUPLICATE_SAME_ACCESS), STATUS_SUCCESS);
    CHECK(d != NULL && d != e);
    CHECK_EQ(NtSetEvent(d, NULL), STATUS_SUCCESS);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);
    DWORD flags = 0;
    CHECK(GetHandleInformation(d, &flags));
    CHECK_EQ(flags, HANDLE_FLAG_INHERIT);
    HANDLE d2 = NULL;
    CHECK_EQ(NtDuplicateObject(self, d, self, &d2, 0, 0, DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE), STATUS_SUCCESS);
    CHECK_EQ(NtClose(d), STATUS_INVALID_HANDLE);             /* closed by the duplication */
    CHECK_EQ(NtClose(d2), STATUS_SUCCESS);
    CHECK_EQ(NtDuplicateObject(self, (HANDLE)0xdeadbee0, self, &d, 0, 0, 0), STATUS_INVALID_HANDLE);
    /* a target that is not a process handle (across processes: tests/win32_process_dup_access.c) */
    CHECK_EQ(NtDuplicateObject(self, e, (HANDLE)(ULONG_PTR)0x1234, &d, 0, 0, 0), STATUS_INVALID_HANDLE);
    CHECK_EQ(NtDuplicateObject(self, e, e, &d, 0, 0, 0), STATUS_OBJECT_TYPE_MISMATCH);
    /* a real handle for the current thread */
    CHECK_EQ(NtDuplicateObject(self, GetCurrentThread(), self, &d, 0, 0, DUPLICATE_SAME_ACCESS), STATUS_SUCCESS);
    CHECK_EQ(GetThreadId(d), GetCurrentThreadId());
    NtClose(d);
    /* protected from close */
    CHECK(SetHandleInformation(e, HANDLE_FLAG_PROTECT_FROM_CLOSE, HANDLE_FLAG_PROTECT_FROM_CLOSE));
    CHECK_EQ(NtClose(e), STATUS_HANDLE_NOT_CLOSABLE);
    CHECK(SetHandleInformation(e, HANDLE_FLAG_PROTECT_FROM_CLOSE, 0));
    CHECK_EQ(NtClose(e), STATUS_SUCCESS);
    CHECK_EQ(NtClose(GetCurrentProcess()), STATUS_SUCCESS);
}

static void errors(void)
{
    CHECK_EQ(RtlNtStatusToDosError(STATUS_SUCCESS), ERROR_SUCCESS);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_INVALID_HANDLE), ERROR_INVALID_HANDLE);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_OBJECT_TYPE_MISMATCH), ERROR_INVALID_HANDLE);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_MUTANT_NOT_OWNED), ERROR_NOT_OWNER);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_SEMAPHORE_LIMIT_EXCEEDED), ERROR_TOO_MANY_POSTS);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_TIMEOUT), WAIT_TIMEOUT);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_UNSUCCESSFUL), ERROR_GEN_FAILURE);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_OBJECT_NAME_NOT_FOUND), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_OBJECT_NAME_COLLISION), ERROR_ALREADY_EXISTS);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_OBJECT_NAME_EXISTS), ERROR_ALREADY_EXISTS);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_ACCESS_VIOLATION), ERROR_NOACCESS);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_INVALID_PARAMETER_3), ERROR_INVALID_PARAMETER);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_ABANDONED_WAIT_0), ERROR_ABANDONED_WAIT_0);
    CHECK_EQ(RtlNtStatusToDosError(STATUS_USER_APC), ERROR_USER_APC);
    CHECK_EQ(RtlNtStatusToDosError((NTSTATUS)0x80070005), ERROR_ACCESS_DENIED);
    CHECK_EQ(RtlNtStatusToDosError((NTSTATUS)0xC0DEDEAD), ERROR_MR_MID_NOT_FOUND);
}

int main(void)
{
    events();
    names();
    mutants();
    semaphores();
    handles();
    errors();
    return nspa_test_done();
}
