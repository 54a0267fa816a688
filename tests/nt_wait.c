/* The NT native waits and clocks: NtWaitForSingleObject / NtWaitForMultipleObjects
 * (WaitAny, WaitAll) with NTSTATUS results, relative and absolute LARGE_INTEGER
 * timeouts, pseudo handles (allowed in the single wait, refused in the multiple one, as
 * Wine's test_WaitForSingleObject / test_WaitForMultipleObjects check on Windows),
 * abandoned mutexes, alertable waits that end with STATUS_USER_APC (Wine's
 * test_alertable_wait), NtSignalAndWaitForSingleObject (Wine's test_signalandwait in NT
 * terms), NtDelayExecution, NtYieldExecution, NtQuerySystemTime and
 * NtQueryPerformanceCounter. */
#include <windows.h>
#include <winternl.h>
#include <time.h>
#include "nspa_test.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static LARGE_INTEGER rel_ms(LONGLONG ms) { LARGE_INTEGER t; t.QuadPart = -ms * 10000; return t; }

static void single(void)
{
    HANDLE sig = CreateEventW(NULL, TRUE, TRUE, NULL), non = CreateEventW(NULL, TRUE, FALSE, NULL);
    LARGE_INTEGER zero = { .QuadPart = 0 };
    CHECK_EQ(NtWaitForSingleObject(sig, FALSE, NULL), STATUS_WAIT_0);
    CHECK_EQ(NtWaitForSingleObject(non, FALSE, &zero), STATUS_TIMEOUT);
    /* relative */
    LARGE_INTEGER t = rel_ms(30);
    uint64_t t0 = now_ns();
    CHECK_EQ(NtWaitForSingleObject(non, FALSE, &t), STATUS_TIMEOUT);
    CHECK(now_ns() - t0 >= 29000000ull);
    /* absolute system time: now + 30 ms; then one in the past */
    LARGE_INTEGER abs;
    CHECK_EQ(NtQuerySystemTime(&abs), STATUS_SUCCESS);
    abs.QuadPart += 300000;
    t0 = now_ns();
    CHECK_EQ(NtWaitForSingleObject(non, FALSE, &abs), STATUS_TIMEOUT);
    CHECK(now_ns() - t0 >= 25000000ull);
    abs.QuadPart -= 10000000;
    t0 = now_ns();
    CHECK_EQ(NtWaitForSingleObject(non, FALSE, &abs), STATUS_TIMEOUT);
    CHECK(now_ns() - t0 < 20000000ull);
    /* bad handles; pseudo handles wait (Wine's test_WaitForSingleObject) */
    CHECK_EQ(NtWaitForSingleObject((HANDLE)0xdeadbee0, FALSE, &zero), STATUS_INVALID_HANDLE);
    t = rel_ms(20);
    CHECK_EQ(NtWaitForSingleObject(GetCurrentProcess(), FALSE, &t), STATUS_TIMEOUT);
    t = rel_ms(20);
    CHECK_EQ(NtWaitForSingleObject(GetCurrentThread(), FALSE, &t), STATUS_TIMEOUT);
    /* a semaphore is consumed */
    HANDLE s = CreateSemaphoreW(NULL, 1, 1, NULL);
    CHECK_EQ(NtWaitForSingleObject(s, FALSE, &zero), STATUS_WAIT_0);
    CHECK_EQ(NtWaitForSingleObject(s, FALSE, &zero), STATUS_TIMEOUT);
    CloseHandle(s);
    CloseHandle(sig);
    CloseHandle(non);
}

static DWORD WINAPI own_and_exit(LPVOID m) { return WaitForSingleObject((HANDLE)m, 0); }

static void multiple(void)
{
    /* Wine's test_WaitForMultipleObjects, the Nt* half */
    HANDLE ev[MAXIMUM_WAIT_OBJECTS];
    for (int i = 0; i < MAXIMUM_WAIT_OBJECTS; i++) ev[i] = CreateEventW(NULL, i == 0, TRUE, NULL);
    CHECK_EQ(NtWaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, ev, WaitAny, FALSE, NULL), STATUS_WAIT_0);
    CHECK_EQ(NtWaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, ev, WaitAny, FALSE, NULL), STATUS_WAIT_0);
    CHECK(ResetEvent(ev[0]));
    for (int i = 1; i < MAXIMUM_WAIT_OBJECTS; i++)
        CHECK_EQ(NtWaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, ev, WaitAny, FALSE, NULL), STATUS_WAIT_0 + i);
    LARGE_INTEGER zero = { .QuadPart = 0 };
    CHECK_EQ(NtWaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, ev, WaitAny, FALSE, &zero), STATUS_TIMEOUT);
    /* WaitAll */
    for (int i = 0; i < 4; i++) SetEvent(ev[i]);
    CHECK_EQ(NtWaitForMultipleObjects(4, ev, WaitAll, FALSE, &zero), STATUS_WAIT_0);
    CHECK_EQ(WaitForSingleObject(ev[0], 0), WAIT_OBJECT_0);   /* manual: still set */
    CHECK_EQ(WaitForSingleObject(ev[1], 0), WAIT_TIMEOUT);    /* auto: consumed */
    SetEvent(ev[2]);
    CHECK_EQ(NtWaitForMultipleObjects(4, ev, WaitAll, FALSE, &zero), STATUS_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(ev[2], 0), WAIT_OBJECT_0);   /* untouched by the failed wait */
    HANDLE dup[2] = { ev[0], ev[0] };
    CHECK_EQ(NtWaitForMultipleObjects(2, dup, WaitAll, FALSE, &zero), STATUS_INVALID_PARAMETER_MIX);
    /* bad arguments */
    CHECK_EQ(NtWaitForMultipleObjects(0, ev, WaitAny, FALSE, &zero), STATUS_INVALID_PARAMETER_1);
    CHECK_EQ(NtWaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS + 1, ev, WaitAny, FALSE, &zero), STATUS_INVALID_PARAMETER_1);
    CHECK_EQ(NtWaitForMultipleObjects(1, ev, 2, FALSE, &zero), STATUS_INVALID_PARAMETER_3);
    HANDLE p[1] = { GetCurrentProcess() };
    LARGE_INTEGER t = rel_ms(10);
    CHECK_EQ(NtWaitForMultipleObjects(1, p, WaitAny, FALSE, &t), STATUS_INVALID_HANDLE);
    p[0] = GetCurrentThread();
    CHECK_EQ(NtWaitForMultipleObjects(1, p, WaitAny, FALSE, &t), STATUS_INVALID_HANDLE);
    p[0] = (HANDLE)0xdeadbee0;
    CHECK_EQ(NtWaitForMultipleObjects(1, p, WaitAny, FALSE, &t), STATUS_INVALID_HANDLE);
    /* an abandoned mutex at index 2 */
    HANDLE m = CreateMutexW(NULL, FALSE, NULL);
    HANDLE th = CreateThread(NULL, 0, own_and_exit, m, 0, NULL);
    CHECK_EQ(WaitForSingleObject(th, 5000), WAIT_OBJECT_0);
    CloseHandle(th);
    ResetEvent(ev[0]);
    ResetEvent(ev[1]);
    HANDLE mix[3] = { ev[0], ev[1], m };
    CHECK_EQ(NtWaitForMultipleObjects(3, mix, WaitAny, FALSE, &zero), STATUS_ABANDONED_WAIT_0 + 2);
    CHECK_EQ(NtReleaseMutant(m, NULL), STATUS_SUCCESS);
    CloseHandle(m);
    for (int i = 0; i < MAXIMUM_WAIT_OBJECTS; i++) CloseHandle(ev[i]);
}

/* Wine's test_alertable_wait: an APC ends an alertable NtWaitForMultipleObjects
 * (WaitAll) with STATUS_USER_APC; the next wait gets the object the APC released */
static HANDLE sems[2];
static NTSTATUS got[3];

static DWORD WINAPI alertable_thread(LPVOID arg)
{
    (void)arg;
    ReleaseSemaphore(sems[0], 1, NULL);
    LARGE_INTEGER t = rel_ms(5000);
    got[0] = NtWaitForMultipleObjects(1, &sems[1], WaitAll, TRUE, &t);
    t = rel_ms(1000);
    got[1] = NtWaitForMultipleObjects(1, &sems[1], WaitAll, TRUE, &t);
    ReleaseSemaphore(sems[0], 1, NULL);
    t = rel_ms(5000);
    got[2] = NtWaitForSingleObject(sems[1], TRUE, &t);
    return 0;
}

static void CALLBACK release_apc(ULONG_PTR arg) { ReleaseSemaphore((HANDLE)arg, 1, NULL); }

static void alertable(void)
{
    sems[0] = CreateSemaphoreW(NULL, 0, 2, NULL);
    sems[1] = CreateSemaphoreW(NULL, 0, 1, NULL);
    HANDLE th = CreateThread(NULL, 0, alertable_thread, NULL, 0, NULL);
    CHECK_EQ(WaitForSingleObject(sems[0], 5000), WAIT_OBJECT_0);
    Sleep(50);
    CHECK(QueueUserAPC(release_apc, th, (ULONG_PTR)sems[1]));
    CHECK_EQ(WaitForSingleObject(sems[0], 5000), WAIT_OBJECT_0);
    Sleep(50);
    CHECK(QueueUserAPC(release_apc, th, (ULONG_PTR)sems[1]));
    CHECK_EQ(WaitForSingleObject(th, 5000), WAIT_OBJECT_0);
    CHECK_EQ(got[0], STATUS_USER_APC);
    CHECK_EQ(got[1], STATUS_WAIT_0);
    CHECK_EQ(got[2], STATUS_USER_APC);
    CloseHandle(th);
    CloseHandle(sems[0]);
    CloseHandle(sems[1]);
}

static void signal_and_wait(void)
{
    LARGE_INTEGER zero = { .QuadPart = 0 };
    HANDLE e0 = CreateEventW(NULL, FALSE, FALSE, NULL), e1 = CreateEventW(NULL, TRUE, TRUE, NULL);
    CHECK_EQ(NtSignalAndWaitForSingleObject(e0, e1, FALSE, &zero), STATUS_WAIT_0);
    for (int i = 0; i < 1000; i++)
        if (NtSignalAndWaitForSingleObject(e0, e0, FALSE, &zero) != STATUS_WAIT_0) {
            CHECK(0);
            break;
        }
    CHECK_EQ(WaitForSingleObject(e0, 0), WAIT_TIMEOUT);
    ResetEvent(e1);
    CHECK_EQ(NtSignalAndWaitForSingleObject(e0, e1, FALSE, &zero), STATUS_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(e0, 0), WAIT_OBJECT_0);      /* it was signaled */
    /* semaphores: the second release exceeds the limit */
    HANDLE s0 = CreateSemaphoreW(NULL, 0, 1, NULL), s1 = CreateSemaphoreW(NULL, 1, 1, NULL);
    CHECK_EQ(NtSignalAndWaitForSingleObject(s0, s1, FALSE, &zero), STATUS_WAIT_0);
    CHECK_EQ(NtSignalAndWaitForSingleObject(s0, s1, FALSE, &zero), STATUS_SEMAPHORE_LIMIT_EXCEEDED);
    /* a mutex we do not own */
    HANDLE m = CreateMutexW(NULL, FALSE, NULL);
    CHECK_EQ(NtSignalAndWaitForSingleObject(m, e1, FALSE, &zero), STATUS_MUTANT_NOT_OWNED);
    /* bad handles: nothing is signaled when the wait handle is bad */
    CHECK_EQ(NtSignalAndWaitForSingleObject(e0, (HANDLE)0xdeadbee0, FALSE, &zero), STATUS_INVALID_HANDLE);
    CHECK_EQ(WaitForSingleObject(e0, 0), WAIT_TIMEOUT);
    CHECK_EQ(NtSignalAndWaitForSingleObject((HANDLE)0xdeadbee0, e0, FALSE, &zero), STATUS_INVALID_HANDLE);
    CHECK_EQ(NtSignalAndWaitForSingleObject(GetCurrentThread(), e0, FALSE, &zero), STATUS_OBJECT_TYPE_MISMATCH);
    HANDLE th;
    CHECK(DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &th, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK_EQ(NtSignalAndWaitForSingleObject(th, e0, FALSE, &zero), STATUS_OBJECT_TYPE_MISMATCH);
    CloseHandle(th);
    CloseHandle(m);
    CloseHandle(s0);
    CloseHandle(s1);
    CloseHandle(e0);
    CloseHandle(e1);
}

static int apc_ran;
static void CALLBACK count_apc(ULONG_PTR arg) { apc_ran += (int)arg; }

static void delays_and_clocks(void)
{
    LARGE_INTEGER t = rel_ms(30);
    uint64_t t0 = now_ns();
    CHECK_EQ(NtDelayExecution(FALSE, &t), STATUS_SUCCESS);
    CHECK(now_ns() - t0 >= 29000000ull);
    LARGE_INTEGER zero = { .QuadPart = 0 };
    CHECK_EQ(NtDelayExecution(FALSE, &zero), STATUS_SUCCESS);
    /* alertable: a queued APC ends it at once */
    apc_ran = 0;
    CHECK(QueueUserAPC(count_apc, GetCurrentThread(), 1));
    t = rel_ms(5000);
    t0 = now_ns();
    CHECK_EQ(NtDelayExecution(TRUE, &t), STATUS_USER_APC);
    CHECK_EQ(apc_ran, 1);
    CHECK(now_ns() - t0 < 2000000000ull);
    t = rel_ms(20);
    CHECK_EQ(NtDelayExecution(TRUE, &t), STATUS_SUCCESS);     /* nothing queued */
    CHECK_EQ(NtYieldExecution(), STATUS_SUCCESS);
    /* system time: 100 ns since 1601 */
    LARGE_INTEGER st;
    CHECK_EQ(NtQuerySystemTime(&st), STATUS_SUCCESS);
    LONGLONG unix_s = (st.QuadPart - 116444736000000000LL) / 10000000;
    CHECK(unix_s - (LONGLONG)time(NULL) <= 1 && (LONGLONG)time(NULL) - unix_s <= 1);
    CHECK_EQ(NtQuerySystemTime(NULL), STATUS_ACCESS_VIOLATION);
    /* the performance counter is QueryPerformanceCounter's */
    LARGE_INTEGER c1, c2, f;
    CHECK_EQ(NtQueryPerformanceCounter(&c1, &f), STATUS_SUCCESS);
    CHECK_EQ(f.QuadPart, 10000000);
    CHECK(QueryPerformanceCounter(&c2));
    CHECK(c2.QuadPart >= c1.QuadPart && c2.QuadPart - c1.QuadPart < 10000000);
    CHECK_EQ(NtQueryPerformanceCounter(&c1, NULL), STATUS_SUCCESS);
    CHECK_EQ(NtQueryPerformanceCounter(NULL, &f), STATUS_ACCESS_VIOLATION);
}

int main(void)
{
    single();
    multiple();
    alertable();
    signal_and_wait();
    delays_and_clocks();
    return nspa_test_done();
}
