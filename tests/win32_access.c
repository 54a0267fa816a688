/* Handle access masks (issue 14, item 2), as Windows checks them: a wait needs
 * SYNCHRONIZE (else WAIT_FAILED, ERROR_ACCESS_DENIED), SetEvent/ResetEvent/PulseEvent
 * EVENT_MODIFY_STATE, ReleaseSemaphore SEMAPHORE_MODIFY_STATE, ReleaseMutex nothing
 * (Wine's test_mutex: a READ_CONTROL handle releases); the GENERIC_* rights map to each
 * type's rights; DuplicateHandle gives the source's access with DUPLICATE_SAME_ACCESS and
 * the one asked for otherwise (more than the source's included); a type mismatch is
 * reported before the access; process handles: TerminateProcess needs PROCESS_TERMINATE,
 * GetExitCodeProcess / GetProcessId / GetProcessTimes PROCESS_QUERY_(LIMITED_)INFORMATION
 * (QUERY_INFORMATION implies LIMITED), a process handle given to DuplicateHandle
 * PROCESS_DUP_HANDLE. The query calls need *_QUERY_STATE (NtQueryEvent, NtQueryMutant,
 * NtQuerySemaphore: STATUS_ACCESS_DENIED), SetWaitableTimer/CancelWaitableTimer
 * TIMER_MODIFY_STATE; thread handles (Wine's test_SuspendThread, test_thread_priority,
 * test_GetThreadTimes, test_TerminateThread patterns): ResumeThread THREAD_SUSPEND_RESUME,
 * GetExitCodeThread / GetThreadId / GetThreadPriority / GetThreadTimes /
 * GetProcessIdOfThread THREAD_QUERY_(LIMITED_)INFORMATION, SetThreadPriority /
 * SetThreadAffinityMask / SetThreadIdealProcessor THREAD_SET_(LIMITED_)INFORMATION,
 * QueueUserAPC THREAD_SET_CONTEXT, CancelSynchronousIo THREAD_TERMINATE. */
#include <windows.h>
#include <winternl.h>
#include <unistd.h>
#include "nspa_test.h"

#define denied(ok) denied_at(ok, __LINE__)
static void denied_at(BOOL ok, int line)
{
    DWORD e = GetLastError();
    CHECK(!ok);
    if (e != ERROR_ACCESS_DENIED) fprintf(stderr, "line %d: error %u\n", line, (unsigned)e);
    CHECK_EQ(e, ERROR_ACCESS_DENIED);
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

static void test_query(void)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-access-q-%d", (int)getpid());
    HANDLE ev = CreateEventA(NULL, TRUE, TRUE, name);
    REQUIRE(ev);
    HANDLE s = OpenEventA(SYNCHRONIZE | EVENT_MODIFY_STATE, FALSE, name);
    HANDLE q = OpenEventA(EVENT_QUERY_STATE, FALSE, name);
    HANDLE gr = OpenEventA(GENERIC_READ, FALSE, name);
    REQUIRE(s && q && gr);
    EVENT_BASIC_INFORMATION ei = { 0 };
    CHECK_EQ(NtQueryEvent(s, EventBasicInformation, &ei, sizeof(ei), NULL), STATUS_ACCESS_DENIED);
    CHECK_EQ(NtQueryEvent(q, EventBasicInformation, &ei, sizeof(ei), NULL), STATUS_SUCCESS);
    CHECK_EQ(ei.EventState, 1);
    CHECK_EQ(ei.EventType, NotificationEvent);
    ei.EventState = 7;
    CHECK_EQ(NtQueryEvent(gr, EventBasicInformation, &ei, sizeof(ei), NULL), STATUS_SUCCESS);  /* GENERIC_READ */
    CHECK_EQ(ei.EventState, 1);
    CHECK_EQ(NtQueryEvent(ev, EventBasicInformation, &ei, sizeof(ei), NULL), STATUS_SUCCESS);
    HANDLE m = CreateMutexA(NULL, FALSE, NULL), ms = NULL, mq = NULL;
    REQUIRE(m);
    CHECK(DuplicateHandle(GetCurrentProcess(), m, GetCurrentProcess(), &ms, SYNCHRONIZE, FALSE, 0));
    CHECK(DuplicateHandle(GetCurrentProcess(), m, GetCurrentProcess(), &mq, MUTANT_QUERY_STATE, FALSE, 0));
    MUTANT_BASIC_INFORMATION mi = { 0 };
    CHECK_EQ(NtQueryMutant(ms, MutantBasicInformation, &mi, sizeof(mi), NULL), STATUS_ACCESS_DENIED);
    CHECK_EQ(NtQueryMutant(mq, MutantBasicInformation, &mi, sizeof(mi), NULL), STATUS_SUCCESS);
    CHECK_EQ(mi.CurrentCount, 1);
    /* the type is checked before the access */
    CHECK_EQ(NtQueryEvent(ms, EventBasicInformation, &ei, sizeof(ei), NULL), STATUS_OBJECT_TYPE_MISMATCH);
    HANDLE sem = CreateSemaphoreA(NULL, 2, 5, NULL), ss = NULL, sq = NULL;
    REQUIRE(sem);
    CHECK(DuplicateHandle(GetCurrentProcess(), sem, GetCurrentProcess(), &ss, SEMAPHORE_MODIFY_STATE, FALSE, 0));
    CHECK(DuplicateHandle(GetCurrentProcess(), sem, GetCurrentProcess(), &sq, SEMAPHORE_QUERY_STATE, FALSE, 0));
    SEMAPHORE_BASIC_INFORMATION si = { 0 };
    CHECK_EQ(NtQuerySemaphore(ss, SemaphoreBasicInformation, &si, sizeof(si), NULL), STATUS_ACCESS_DENIED);
    CHECK_EQ(NtQuerySemaphore(sq, SemaphoreBasicInformation, &si, sizeof(si), NULL), STATUS_SUCCESS);
    CHECK_EQ(si.CurrentCount, 2);
    CHECK_EQ(si.MaximumCount, 5);
    HANDLE all[] = { ev, s, q, gr, m, ms, mq, sem, ss, sq };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CloseHandle(all[i]);
}

static void test_timer(void)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-access-tm-%d", (int)getpid());
    HANDLE t = CreateWaitableTimerExA(NULL, name, CREATE_WAITABLE_TIMER_MANUAL_RESET, SYNCHRONIZE);
    REQUIRE(t);
    HANDLE mod = OpenWaitableTimerA(TIMER_MODIFY_STATE, FALSE, name);
    HANDLE gw = OpenWaitableTimerA(GENERIC_WRITE, FALSE, name);
    HANDLE q = OpenWaitableTimerA(TIMER_QUERY_STATE | SYNCHRONIZE, FALSE, name);
    REQUIRE(mod && gw && q);
    LARGE_INTEGER due = { .QuadPart = -10000 };         /* 1 ms */
    SetLastError(0);
    denied(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));   /* CreateEx's access: SYNCHRONIZE */
    denied(SetWaitableTimer(q, &due, 0, NULL, NULL, FALSE));
    denied(CancelWaitableTimer(t));
    denied(CancelWaitableTimer(q));
    CHECK(SetWaitableTimer(mod, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(WaitForSingleObject(t, 20000), WAIT_OBJECT_0);      /* it was armed */
    wait_denied(mod);
    CHECK(SetWaitableTimer(gw, &due, 0, NULL, NULL, FALSE));     /* GENERIC_WRITE */
    CHECK(CancelWaitableTimer(gw));
    CHECK(CancelWaitableTimer(mod));
    /* the type first: an event handle is ERROR_INVALID_HANDLE whatever its access */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    SetLastError(0);
    CHECK(!SetWaitableTimer(ev, &due, 0, NULL, NULL, FALSE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE all[] = { t, mod, gw, q, ev };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CloseHandle(all[i]);
}

static DWORD WINAPI parked(LPVOID arg)
{
    WaitForSingleObject((HANDLE)arg, INFINITE);
    return 5;
}

static int apc_ran;
static void CALLBACK apc_fn(ULONG_PTR p) { apc_ran += (int)p; }

/* THREAD_ALL_ACCESS of NT4 (Wine's tests): everything but the LIMITED bits */
#define THREAD_ALL_NT4 (STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0x3ff)

static void test_thread(void)
{
    HANDLE go = CreateEventA(NULL, TRUE, FALSE, NULL);
    DWORD tid = 0, code = 0;
    HANDLE th = CreateThread(NULL, 0, parked, go, CREATE_SUSPENDED, &tid);
    REQUIRE(go && th && tid);
    HANDLE nosr = OpenThread(THREAD_ALL_NT4 & ~THREAD_SUSPEND_RESUME, FALSE, tid);
    HANDLE noinfo = OpenThread(THREAD_ALL_NT4 & ~(THREAD_QUERY_INFORMATION | THREAD_SET_INFORMATION), FALSE, tid);
    HANDLE lim = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, tid);
    HANDLE setlim = OpenThread(THREAD_SET_LIMITED_INFORMATION, FALSE, tid);
    HANDLE qi = OpenThread(THREAD_QUERY_INFORMATION | THREAD_SET_INFORMATION, FALSE, tid);
    HANDLE sy = OpenThread(SYNCHRONIZE, FALSE, tid);
    HANDLE gr = OpenThread(GENERIC_READ, FALSE, tid);
    REQUIRE(nosr && noinfo && lim && setlim && qi && sy && gr);
    SetLastError(0);
    /* test_SuspendThread: no THREAD_SUSPEND_RESUME */
    CHECK_EQ(ResumeThread(nosr), (DWORD)-1);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(ResumeThread(lim), (DWORD)-1);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(WaitForSingleObject(th, 50), WAIT_TIMEOUT);          /* still suspended */
    CHECK(GetExitCodeThread(nosr, &code) && code == STILL_ACTIVE);
    /* test_thread_priority: no QUERY / SET information */
    SetLastError(0);
    denied(SetThreadPriority(noinfo, 1));
    CHECK_EQ(GetThreadPriority(noinfo), THREAD_PRIORITY_ERROR_RETURN);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    denied(GetExitCodeThread(noinfo, &code));
    CHECK_EQ(GetThreadId(noinfo), 0);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(GetProcessIdOfThread(noinfo), 0);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    FILETIME a, b, c, d;
    denied(GetThreadTimes(noinfo, &a, &b, &c, &d));            /* test_GetThreadTimes */
    CHECK_EQ(SetThreadAffinityMask(noinfo, 1), 0);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    /* the LIMITED rights: queries yes, sets no; SET_LIMITED sets the priority */
    CHECK(GetExitCodeThread(lim, &code) && code == STILL_ACTIVE);
    CHECK_EQ(GetThreadId(lim), tid);
    CHECK_EQ(GetProcessIdOfThread(lim), GetCurrentProcessId());
    CHECK_EQ(GetThreadPriority(lim), THREAD_PRIORITY_NORMAL);
    CHECK(GetThreadTimes(lim, &a, &b, &c, &d));
    denied(SetThreadPriority(lim, THREAD_PRIORITY_BELOW_NORMAL));
    CHECK_EQ(SetThreadAffinityMask(lim, 1), 0);                /* needs SET as well */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(SetThreadPriority(setlim, THREAD_PRIORITY_NORMAL));
    denied(GetExitCodeThread(setlim, &code));
    /* QUERY_INFORMATION / SET_INFORMATION imply the LIMITED ones; GENERIC_READ queries */
    CHECK(GetExitCodeThread(qi, &code) && code == STILL_ACTIVE);
    CHECK(SetThreadPriority(qi, THREAD_PRIORITY_NORMAL));
    CHECK_EQ(GetThreadPriority(gr), THREAD_PRIORITY_NORMAL);
    denied(SetThreadPriority(gr, THREAD_PRIORITY_NORMAL));
    /* waits: SYNCHRONIZE */
    wait_denied(qi);
    CHECK_EQ(WaitForSingleObject(sy, 0), WAIT_TIMEOUT);
    denied(GetExitCodeThread(sy, &code));
    /* QueueUserAPC: THREAD_SET_CONTEXT */
    SetLastError(0);
    CHECK_EQ(QueueUserAPC(apc_fn, lim, 1), 0);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(QueueUserAPC(apc_fn, noinfo, 0), 1);               /* NT4 all has SET_CONTEXT */
    /* CancelSynchronousIo: THREAD_TERMINATE */
    denied(CancelSynchronousIo(lim));
    SetLastError(0);
    CHECK(!CancelSynchronousIo(noinfo));                        /* allowed: not blocked */
    CHECK_EQ(GetLastError(), ERROR_NOT_FOUND);
    /* DuplicateHandle of a thread handle with an explicit access */
    HANDLE dq = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), th, GetCurrentProcess(), &dq, THREAD_QUERY_LIMITED_INFORMATION,
                          FALSE, 0));
    CHECK_EQ(ResumeThread(dq), (DWORD)-1);
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(GetThreadId(dq), tid);
    /* the pseudo handle has every right; a full handle resumes */
    CHECK_EQ(GetThreadPriority(GetCurrentThread()), THREAD_PRIORITY_NORMAL);
    CHECK_EQ(ResumeThread(th), 1);
    SetEvent(go);
    CHECK_EQ(WaitForSingleObject(sy, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeThread(lim, &code) && code == 5);
    HANDLE all[] = { th, go, nosr, noinfo, lim, setlim, qi, sy, gr, dq };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CloseHandle(all[i]);
}

int main(void)
{
    test_event();
    test_mutex_semaphore();
    test_duplicate();
    test_process();
    test_query();
    test_timer();
    test_thread();
    return nspa_test_done();
}
