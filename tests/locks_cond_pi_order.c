/* Requeue-PI hand-off order (RT mode): five SCHED_FIFO waiters of different priorities
 * sleep on a condition variable with a PI critical section; the waker holds the section
 * while it wakes them all, so every waiter is moved onto the section's PI futex; when the
 * waker leaves, the section passes to the waiters strictly by priority. Also: a single
 * WakeConditionVariable picks the highest-priority waiter. */
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

#define N 5
static CRITICAL_SECTION cs;
static CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
static int order[N], norder, released;
static _Atomic pid_t tids[N];
static const int prios[N] = { 30, 10, 50, 20, 40 };

static void *waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    tids[i] = lu_gettid();
    EnterCriticalSection(&cs);
    while (released <= 0)
        SleepConditionVariableCS(&cv, &cs, INFINITE);
    released--;
    order[norder++] = prios[i];
    LeaveCriticalSection(&cs);
    return NULL;
}

static void start(pthread_t *t)
{
    norder = released = 0;
    for (int i = 0; i < N; i++) {
        tids[i] = 0;
        lu_thread(&t[i], waiter, (void *)(intptr_t)i, prios[i], -1);
        while (!tids[i])
            lu_sleep_ms(1);
        CHECK(lu_wait_sleeping(tids[i]));
    }
    lu_sleep_ms(20);
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        struct sched_param sp = { .sched_priority = 1 };
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
            printf("SKIP: SCHED_FIFO not permitted\n");
            return 0;
        }
        sp.sched_priority = 0;
        sched_setscheduler(0, SCHED_OTHER, &sp);
        setenv("NSPA_RT_PRIO", "80", 1);
        unsetenv("NSPA_PI");
        execl("/proc/self/exe", argv[0], "pi", (char *)NULL);
        return 127;
    }
    CHECK(nspa_pi_enabled());
    lu_set_fifo(pthread_self(), 60);
    InitializeCriticalSection(&cs);
    pthread_t t[N];

    /* wake all while holding the section: hand-off strictly by priority */
    start(t);
    EnterCriticalSection(&cs);
    released = N;
    WakeAllConditionVariable(&cv);
    LeaveCriticalSection(&cs);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(norder, N);
    for (int i = 0; i < N; i++)
        CHECK_EQ(order[i], 50 - 10 * i);

    /* wake one at a time: always the highest-priority sleeper */
    start(t);
    for (int k = 0; k < N; k++) {
        EnterCriticalSection(&cs);
        released++;
        WakeConditionVariable(&cv);
        LeaveCriticalSection(&cs);
        for (int i = 0; i < 5000; i++) {
            EnterCriticalSection(&cs);
            int n = norder;
            LeaveCriticalSection(&cs);
            if (n > k)
                break;
            lu_sleep_ms(1);
        }
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(norder, N);
    for (int i = 0; i < N; i++)
        CHECK_EQ(order[i], 50 - 10 * i);
    DeleteCriticalSection(&cs);
    return nspa_test_done();
}
