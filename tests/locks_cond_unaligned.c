/* A CONDITION_VARIABLE at an address that is not 4- or 8-byte aligned (Wine's
 * test_condvars_base runs on one at offset 1 of a packed struct) behaves as an aligned
 * one: a sleep without a wake times out (FALSE, ERROR_TIMEOUT, after the timeout), a
 * wake reaches a sleeper (TRUE), with a CRITICAL_SECTION and an SRW lock in both modes.
 * Two unaligned variables that share NSPA's parking word do not steal each other's
 * wakes, and the variable's own bytes are never written. */
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

#pragma pack(push, 1)
static struct {
    char c;
    CONDITION_VARIABLE cv;
    char d[2];
    CONDITION_VARIABLE cv2;
} u;
#pragma pack(pop)

static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static _Atomic int phase, result;

static BOOL sleep_on(CONDITION_VARIABLE *cv, int mode, DWORD ms)
{
    BOOL r;
    if (mode == 0) {
        EnterCriticalSection(&cs);
        r = SleepConditionVariableCS(cv, &cs, ms);
        LeaveCriticalSection(&cs);
    } else if (mode == 1) {
        AcquireSRWLockExclusive(&srw);
        r = SleepConditionVariableSRW(cv, &srw, ms, 0);
        ReleaseSRWLockExclusive(&srw);
    } else {
        AcquireSRWLockShared(&srw);
        r = SleepConditionVariableSRW(cv, &srw, ms, CONDITION_VARIABLE_LOCKMODE_SHARED);
        ReleaseSRWLockShared(&srw);
    }
    return r;
}

struct sleeper { CONDITION_VARIABLE *cv; int mode; };

static void *sleeper(void *arg)
{
    struct sleeper *s = arg;
    phase = 1;
    result = sleep_on(s->cv, s->mode, 5000) ? 1 : 2;
    return NULL;
}

static void timeout_case(CONDITION_VARIABLE *cv, int mode)
{
    uint64_t t0 = lu_now_ns();
    SetLastError(0xdeadbeef);
    BOOL r = sleep_on(cv, mode, 30);
    uint64_t dt = lu_now_ns() - t0;
    CHECK(!r);
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    CHECK(dt >= 29000000ull);                /* it slept for its timeout */
}

/* A sleeper on @cv is woken by a wake of @cv; a wake of @other (when given) first
 * must not end its wait for good (a spurious return is allowed, so the sleeper
 * re-checks a predicate as real code does: here, that @cv was woken). */
static _Atomic int woken_flag;

static void *pred_sleeper(void *arg)
{
    struct sleeper *s = arg;
    EnterCriticalSection(&cs);
    phase = 1;
    int ok = 1;
    while (!woken_flag) {
        if (!SleepConditionVariableCS(s->cv, &cs, 5000)) {
            ok = 0;
            break;
        }
    }
    LeaveCriticalSection(&cs);
    result = ok ? 1 : 2;
    return NULL;
}

static void wake_case(CONDITION_VARIABLE *cv, int mode, int all)
{
    pthread_t t;
    struct sleeper s = { cv, mode };
    phase = 0;
    result = 0;
    pthread_create(&t, NULL, sleeper, &s);
    while (!phase) lu_sleep_ms(1);
    lu_sleep_ms(50);                       /* it is asleep in the condition variable */
    CHECK_EQ(result, 0);                   /* ... and did not return at once */
    if (all) WakeAllConditionVariable(cv);
    else WakeConditionVariable(cv);
    pthread_join(t, NULL);
    CHECK_EQ(result, 1);
}

int main(void)
{
    REQUIRE(((uintptr_t)&u.cv & 3) != 0);
    REQUIRE(((uintptr_t)&u.cv2 & 3) != 0);
    InitializeCriticalSection(&cs);
    InitializeConditionVariable(&u.cv);
    InitializeConditionVariable(&u.cv2);
    for (int mode = 0; mode < 3; mode++) {
        timeout_case(&u.cv, mode);
        /* a wake with nobody waiting is not remembered */
        WakeConditionVariable(&u.cv);
        WakeAllConditionVariable(&u.cv);
        timeout_case(&u.cv, mode);
        wake_case(&u.cv, mode, 0);
        wake_case(&u.cv, mode, 1);
        wake_case(&u.cv2, mode, 0);
    }

    /* a wake of the other unaligned variable does not lose this one's wake */
    pthread_t t;
    struct sleeper s = { &u.cv, 0 };
    phase = 0;
    result = 0;
    woken_flag = 0;
    pthread_create(&t, NULL, pred_sleeper, &s);
    while (!phase) lu_sleep_ms(1);
    lu_sleep_ms(20);
    WakeConditionVariable(&u.cv2);
    lu_sleep_ms(20);
    EnterCriticalSection(&cs);
    woken_flag = 1;
    LeaveCriticalSection(&cs);
    WakeConditionVariable(&u.cv);
    pthread_join(t, NULL);
    CHECK_EQ(result, 1);

    /* the variables' own bytes stay as the program left them (zero) */
    CONDITION_VARIABLE zero = CONDITION_VARIABLE_INIT;
    CHECK(!memcmp(&u.cv, &zero, sizeof zero));
    CHECK(!memcmp(&u.cv2, &zero, sizeof zero));
    DeleteCriticalSection(&cs);
    return nspa_test_done();
}
