/* Condition variable stress (TSan): a bounded queue with two condition variables,
 * 2 producers and 2 consumers, once over a CRITICAL_SECTION (requeue-PI in pi mode) and
 * once over an SRW lock; every item is consumed exactly once. */
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

#define CAP 8
#define ITEMS 5000
#define P 2
static CRITICAL_SECTION cs;
static SRWLOCK srw = SRWLOCK_INIT;
static CONDITION_VARIABLE not_empty = CONDITION_VARIABLE_INIT, not_full = CONDITION_VARIABLE_INIT;
static int q[CAP], qh, qn, use_srw;
static long sum, count;

static void lock_(void) { use_srw ? AcquireSRWLockExclusive(&srw) : EnterCriticalSection(&cs); }
static void unlock_(void) { use_srw ? ReleaseSRWLockExclusive(&srw) : LeaveCriticalSection(&cs); }
static void wait_(CONDITION_VARIABLE *c)
{
    if (use_srw)
        SleepConditionVariableSRW(c, &srw, INFINITE, 0);
    else
        SleepConditionVariableCS(c, &cs, INFINITE);
}

static void *producer(void *arg)
{
    int base = (int)(intptr_t)arg * ITEMS;
    for (int i = 1; i <= ITEMS; i++) {
        lock_();
        while (qn == CAP)
            wait_(&not_full);
        q[(qh + qn++) % CAP] = base + i;
        unlock_();
        if (i & 1)
            WakeConditionVariable(&not_empty);
        else
            WakeAllConditionVariable(&not_empty);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    for (int i = 0; i < ITEMS; i++) {
        lock_();
        while (qn == 0)
            wait_(&not_empty);
        sum += q[qh];
        qh = (qh + 1) % CAP;
        qn--;
        count++;
        WakeConditionVariable(&not_full);
        unlock_();
    }
    return arg;
}

static void run(void)
{
    pthread_t t[2 * P];
    sum = count = qh = qn = 0;
    for (int i = 0; i < P; i++) {
        pthread_create(&t[i], NULL, producer, (void *)(intptr_t)i);
        pthread_create(&t[P + i], NULL, consumer, NULL);
    }
    for (int i = 0; i < 2 * P; i++)
        pthread_join(t[i], NULL);
    long expect = 0;
    for (int p = 0; p < P; p++)
        for (int i = 1; i <= ITEMS; i++)
            expect += (long)p * ITEMS + i;
    CHECK_EQ(count, (long)P * ITEMS);
    CHECK_EQ(sum, expect);
    CHECK_EQ(qn, 0);
}

int main(int argc, char **argv)
{
    lu_modes(argc, argv);
    InitializeCriticalSection(&cs);
    use_srw = 0;
    run();
    use_srw = 1;
    run();
    DeleteCriticalSection(&cs);
    return nspa_test_done();
}
