/* Condition variable semantics with a CRITICAL_SECTION (plain and requeue-PI mode) and
 * an SRW lock (exclusive and shared): timeouts return FALSE/ERROR_TIMEOUT with the lock
 * owned again (recursion intact), WakeConditionVariable wakes exactly one of several
 * sleepers, WakeAllConditionVariable wakes all, a wake with nobody waiting is lost (not
 * remembered), the lock is reacquired in the right mode. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

#define N 3
static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static _Atomic int woken, go;
static _Atomic pid_t tids[N];
static int kind; /* 0: CS, 1: SRW exclusive, 2: SRW shared */
static _Atomic int bad;

static void *sleeper(void *arg)
{
    int i = (int)(intptr_t)arg;
    tids[i] = lu_gettid();
    BOOL r;
    if (kind == 0) {
        EnterCriticalSection(&cs);
        r = SleepConditionVariableCS(&cv, &cs, 20000);
        if ((DWORD)(ULONG_PTR)cs.OwningThread != (DWORD)lu_gettid() || cs.RecursionCount != 1)
            bad = 1;
        woken++;
        LeaveCriticalSection(&cs);
    } else if (kind == 1) {
        AcquireSRWLockExclusive(&srw);
        r = SleepConditionVariableSRW(&cv, &srw, 20000, 0);
        if (TryAcquireSRWLockShared(&srw)) /* we hold it exclusively: must fail */
            bad = 1;
        woken++;
        ReleaseSRWLockExclusive(&srw);
    } else {
        AcquireSRWLockShared(&srw);
        r = SleepConditionVariableSRW(&cv, &srw, 20000, CONDITION_VARIABLE_LOCKMODE_SHARED);
        woken++;
        while (!go)  /* all shared holders are inside together */
            lu_sleep_ms(1);
        ReleaseSRWLockShared(&srw);
    }
    if (!r)
        bad = 2;
    return NULL;
}

static void start(pthread_t *t)
{
    woken = 0;
    go = 0;
    for (int i = 0; i < N; i++) {
        tids[i] = 0;
        pthread_create(&t[i], NULL, sleeper, (void *)(intptr_t)i);
    }
    for (int i = 0; i < N; i++) {
        while (!tids[i])
            lu_sleep_ms(1);
        CHECK(lu_wait_sleeping(tids[i]));
    }
    lu_sleep_ms(20);
}

static void wake_one_then_all(void)
{
    pthread_t t[N];
    start(t);
    CHECK_EQ(woken, 0);
    WakeConditionVariable(&cv);
    for (int i = 0; i < 5000 && woken < 1; i++)
        lu_sleep_ms(1);
    go = 1;
    lu_sleep_ms(200);
    CHECK_EQ(woken, 1);                 /* exactly one */
    WakeAllConditionVariable(&cv);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(woken, N);
    CHECK_EQ(bad, 0);
}

static void timeouts(void)
{
    uint64_t t0;
    EnterCriticalSection(&cs);
    EnterCriticalSection(&cs);
    LeaveCriticalSection(&cs);
    SetLastError(0);
    t0 = lu_now_ns();
    CHECK(!SleepConditionVariableCS(&cv, &cs, 50));
    CHECK(lu_now_ns() - t0 >= 45000000ull);
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    CHECK_EQ((DWORD)(ULONG_PTR)cs.OwningThread, (DWORD)lu_gettid());
    CHECK_EQ(cs.RecursionCount, 1);
    SetLastError(0);
    CHECK(!SleepConditionVariableCS(&cv, &cs, 0));
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    LeaveCriticalSection(&cs);
    CHECK(cs.OwningThread == NULL);

    AcquireSRWLockExclusive(&srw);
    SetLastError(0);
    CHECK(!SleepConditionVariableSRW(&cv, &srw, 30, 0));
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    CHECK(!TryAcquireSRWLockShared(&srw));
    ReleaseSRWLockExclusive(&srw);
    AcquireSRWLockShared(&srw);
    CHECK(!SleepConditionVariableSRW(&cv, &srw, 30, CONDITION_VARIABLE_LOCKMODE_SHARED));
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    CHECK(TryAcquireSRWLockShared(&srw));   /* held shared again */
    ReleaseSRWLockShared(&srw);
    ReleaseSRWLockShared(&srw);
    CHECK(srw.Ptr == NULL);

    /* a wake nobody waits for is not remembered */
    WakeConditionVariable(&cv);
    WakeAllConditionVariable(&cv);
    EnterCriticalSection(&cs);
    CHECK(!SleepConditionVariableCS(&cv, &cs, 20));
    LeaveCriticalSection(&cs);

    /* native: absolute deadline */
    nspa_cond_t c = NSPA_COND_INIT;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += 10000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_nsec -= 1000000000; ts.tv_sec++; }
    EnterCriticalSection(&cs);
    CHECK_EQ(nspa_cond_wait_cs(&c, (nspa_cs_t *)&cs, &ts), -ETIMEDOUT);
    LeaveCriticalSection(&cs);
}

int main(int argc, char **argv)
{
    lu_modes(argc, argv);
    InitializeCriticalSection(&cs);
    InitializeConditionVariable(&cv);
    CHECK(cv.Ptr == NULL);
    timeouts();
    for (kind = 0; kind < 3; kind++)
        wake_one_then_all();
    DeleteCriticalSection(&cs);
    return nspa_test_done();
}
