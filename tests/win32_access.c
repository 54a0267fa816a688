/* Handle access masks (issue 14, item 2), as Windows checks them: a wait needs
 * SYNCHRONIZE (else WAIT_FAILED, ERROR_ACCESS_DENIED), SetEvent/ResetEvent/PulseEvent
 * EVENT_MODIFY_STATE, ReleaseSemaphore SEMAPHORE_MODIFY_STATE, ReleaseMutex nothing
 * (Wine's test_mutex: a READ_CONTROL handle releases); the GENERIC_* rights map to each
 * type's rights; DuplicateHandle gives the source's access with DUPLICATE_SAME_ACCESS and
 * the one asked for otherwise (more than the source's included); a type mismatch is
 * reported before the access; process handles: TerminateProcess needs PROCESS_TERMINATE,
 * GetExitCodeProcess / GetProcessId / GetProcessTimes PROCESS_QUERY_(LIMITED_)INFORMATION
 * (QUERY_INFORMATION implies LIMITED), a process handle given to DuplicateHandle
 * PROCESS_DUP_HANDLE. */
#include <windows.h>
#include <unistd.h>
#include "nspa_test.h"

static void denied(BOOL ok)
{
    CHECK(!ok);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    SetLastError(0);
}

static void wait_denied(HANDLE h)
{
    SetLastError(0);
    CHECK_EQ(WaitForSingleObject(h, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    HANDLE two[2] = { h, h };
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(1, two, FALSE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    SetLastError(0);
    CHECK_EQ(WaitForSingleObjectEx(h, 0, TRUE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    SetLastError(0);
}

static void test_event(void)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-access-ev-%d", (int)getpid());
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, name);
    REQUIRE(ev);
    HANDLE s = OpenEventA(SYNCHRONIZE, FALSE, name);
    HANDLE m = OpenEventA(EVENT_MODIFY_STATE, FALSE, name);
    HANDLE gx = OpenEventA(GENERIC_EXECUTE, FALSE, name);
    HANDLE gw = OpenEventA(GENERIC_WRITE, FALSE, name);
    HANDLE ga = OpenEventA(GENERIC_ALL, FALSE, name);
    REQUIRE(s && m && gx && gw && ga);
    SetLastError(0);
    denied(SetEvent(s));
    denied(ResetEvent(s));
    denied(PulseEvent(s));
    denied(SetEvent(gx));
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_TIMEOUT);          /* nothing happened */
    CHECK(SetEvent(m));
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);           /* SYNCHRONIZE waits */
    CHECK_EQ(WaitForSingleObject(gx, 0), WAIT_OBJECT_0);          /* GENERIC_EXECUTE too */
    wait_denied(m);
    wait_denied(gw);
    CHECK(ResetEvent(gw));
    CHECK(SetEvent(ga));
    CHECK_EQ(WaitForSingleObject(ga, 0), WAIT_OBJECT_0);
    /* a wait-all with one denied handle fails whole */
    HANDLE pair[2] = { ev, m };
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(2, pair, TRUE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    /* SignalObjectAndWait: the signal half needs the modify right, the wait SYNCHRONIZE */
    HANDLE other = CreateEventA(NULL, TRUE, TRUE, NULL);
    SetLastError(0);
    CHECK_EQ(SignalObjectAndWait(s, other, 0, FALSE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    SetLastError(0);
    CHECK_EQ(SignalObjectAndWait(ev, m, 0, FALSE), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    /* a type mismatch is reported first: a SYNCHRONIZE-only mutex handle to SetEvent */
    HANDLE mx = CreateMutexExA(NULL, NULL, 0, SYNCHRONIZE);
    REQUIRE(mx);
    SetLastError(0);
    CHECK(!SetEvent(mx));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* CreateEventEx keeps the access asked for */
    HANDLE ex = CreateEventExA(NULL, NULL, CREATE_EVENT_MANUAL_RESET, SYNCHRONIZE);
    REQUIRE(ex);
    denied(SetEvent(ex));
    CHECK_EQ(WaitForSingleObject(ex, 0), WAIT_TIMEOUT);
    HANDLE all[] = { ev, s, m, gx, gw, ga, other, mx, ex };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CloseHandle(all[i]);
}

static void test_mutex_semaphore(void)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-access-mx-%d", (int)getpid());
    HANDLE mx = CreateMutexA(NULL, FALSE, name);
    REQUIRE(mx);
    CHECK_EQ(WaitForSingleObject(mx, 0), WAIT_OBJECT_0);
    /* Wine's test_mutex: READ_CONTROL alone releases, and cannot wait */
    HANDLE rc = OpenMutexA(READ_CONTROL, FALSE, name);
    REQUIRE(rc);
    CHECK(ReleaseMutex(rc));
    SetLastError(0);
    CHECK(!ReleaseMutex(mx));
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    wait_denied(rc);
    HANDLE sy = OpenMutexA(SYNCHRONIZE, FALSE, name);
    CHECK_EQ(WaitForSingleObject(sy, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(sy));
    CloseHandle(rc);
    CloseHandle(sy);
    CloseHandle(mx);

    snprintf(name, sizeof(name), "nspa-access-sem-%d", (int)getpid());
    HANDLE sem = CreateSemaphoreA(NULL, 0, 4, name);
    HANDLE s = OpenSemaphoreA(SYNCHRONIZE, FALSE, name);
    HANDLE m = OpenSemaphoreA(SEMAPHORE_MODIFY_STATE, FALSE, name);
    HANDLE gw = OpenSemaphoreA(GENERIC_WRITE, FALSE, name);
    REQUIRE(sem && s && m && gw);
    LONG prev = -1;
    SetLastError(0);
    denied(ReleaseSemaphore(s, 1, &prev));
    CHECK_EQ(prev, -1);
    CHECK(ReleaseSemaphore(m, 1, &prev));
    CHECK_EQ(prev, 0);
    CHECK(ReleaseSemaphore(gw, 1, NULL));
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    wait_denied(m);
    CHECK_EQ(WaitForSingleObject(sem, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(sem, 0), WAIT_TIMEOUT);          /* two released, two taken */
    CloseHandle(sem);
    CloseHandle(s);
    CloseHandle(m);
    CloseHandle(gw);
}

static void test_duplicate(void)
{
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL), s = NULL, s2 = NULL, up = NULL, any = NULL;
    REQUIRE(ev);
    /* an explicit access: only that */
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &s, SYNCHRONIZE, FALSE, 0));
    SetLastError(0);
    denied(SetEvent(s));
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);
    /* DUPLICATE_SAME_ACCESS: the source's (the access argument is ignored) */
    CHECK(DuplicateHandle(GetCurrentProcess(), s, GetCurrentProcess(), &s2, EVENT_ALL_ACCESS, FALSE,
                          DUPLICATE_SAME_ACCESS));
    denied(SetEvent(s2));
    /* more than the source's: NT checks the object, not the handle */
    CHECK(DuplicateHandle(GetCurrentProcess(), s, GetCurrentProcess(), &up, EVENT_MODIFY_STATE, FALSE, 0));
    CHECK(SetEvent(up));
    wait_denied(up);
    CHECK_EQ(WaitForSingleObject(s2, 0), WAIT_OBJECT_0);
    /* DUPLICATE_SAME_ACCESS of a full handle: everything */
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &any, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(ResetEvent(any));
    CHECK_EQ(WaitForSingleObject(any, 0), WAIT_TIMEOUT);
    CloseHandle(ev);
    CloseHandle(s);
    CloseHandle(s2);
    CloseHandle(up);
    CloseHandle(any);
}

static void test_process(void)
{
    char cmd[] = "/bin/sleep 30";
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    DWORD pid = pi.dwProcessId, code = 1;
    FILETIME a, b, c, d;
    HANDLE sy = OpenProcess(SYNCHRONIZE, FALSE, pid);
    HANDLE lim = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    HANDLE qi = OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, pid);
    HANDLE term = OpenProcess(PROCESS_TERMINATE, FALSE, pid);
    HANDLE gx = OpenProcess(GENERIC_EXECUTE, FALSE, pid);
    REQUIRE(sy && lim && qi && term && gx);
    SetLastError(0);
    denied(GetExitCodeProcess(sy, &code));
    denied(GetProcessTimes(sy, &a, &b, &c, &d));
    CHECK_EQ(GetProcessId(sy), 0);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    denied(TerminateProcess(sy, 3));
    denied(TerminateProcess(lim, 3));
    denied(TerminateProcess(qi, 3));
    CHECK(GetExitCodeProcess(lim, &code) && code == STILL_ACTIVE);
    CHECK(GetExitCodeProcess(qi, &code) && code == STILL_ACTIVE);   /* implies LIMITED */
    CHECK(GetProcessTimes(qi, &a, &b, &c, &d));
    CHECK_EQ(GetProcessId(lim), pid);
    CHECK(GetExitCodeProcess(gx, &code) && code == STILL_ACTIVE);   /* GENERIC_EXECUTE: LIMITED */
    CHECK_EQ(WaitForSingleObject(sy, 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(gx, 0), WAIT_TIMEOUT);
    wait_denied(lim);
    wait_denied(term);
    /* a process handle without PROCESS_DUP_HANDLE cannot be DuplicateHandle's */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL), x = NULL;
    SetLastError(0);
    denied(DuplicateHandle(GetCurrentProcess(), ev, sy, &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    denied(DuplicateHandle(lim, ev, GetCurrentProcess(), &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CloseHandle(ev);
    /* the still running process is ended through the handle that may */
    CHECK(TerminateProcess(term, 7));
    CHECK_EQ(WaitForSingleObject(sy, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(lim, &code) && code == 7);
    HANDLE all[] = { sy, lim, qi, term, gx, pi.hProcess, pi.hThread };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CloseHandle(all[i]);
}

int main(void)
{
    test_event();
    test_mutex_semaphore();
    test_duplicate();
    test_process();
    return nspa_test_done();
}
