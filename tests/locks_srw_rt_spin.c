/* The SRW spin phase is decided per thread: with a (huge) spin budget, a SCHED_OTHER
 * thread that finds the lock taken keeps spinning (it stays runnable), while a
 * SCHED_FIFO thread of the same process goes to sleep in the kernel after a poll of at
 * most 20 us. Both get the lock when it is released. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

static SRWLOCK lock = SRWLOCK_INIT;
static _Atomic pid_t tid_rt, tid_other;
static _Atomic int got;

static void *contender(void *arg)
{
    int shared = (int)(intptr_t)arg & 1;
    if ((intptr_t)arg & 2)
        tid_rt = lu_gettid();
    else
        tid_other = lu_gettid();
    if (shared) {
        AcquireSRWLockShared(&lock);
        got++;
        ReleaseSRWLockShared(&lock);
    } else {
        AcquireSRWLockExclusive(&lock);
        got++;
        ReleaseSRWLockExclusive(&lock);
    }
    return NULL;
}

static char thread_state(pid_t tid)
{
    char buf[512];
    char *p = lu_thread_stat(tid, buf, sizeof buf);
    return p ? p[1] : '?';
}

int main(void)
{
    pthread_t t;
    if (lu_thread(&t, contender, (void *)2, 1, -1) != 0) {
        printf("SKIP: SCHED_FIFO not permitted\n");
        return 77;   /* ctest SKIP_RETURN_CODE: reported as skipped, not passed */
    }
    pthread_join(t, NULL);   /* (uncontended: just checks thread creation works) */
    got = 0;
    nspa_srw_set_spin(0x7fffffff);
    for (int shared = 0; shared < 2; shared++) {
        pthread_t rt, other;
        got = 0;
        tid_rt = tid_other = 0;
        AcquireSRWLockExclusive(&lock);
        lu_thread(&rt, contender, (void *)(intptr_t)(2 | shared), 1, -1);
        lu_thread(&other, contender, (void *)(intptr_t)shared, 0, -1);
        while (!tid_rt || !tid_other)
            lu_sleep_ms(1);
        CHECK(lu_wait_sleeping(tid_rt));          /* the RT thread sleeps at once */
        int spinning = 0, sleeping = 0;
        for (int i = 0; i < 20; i++) {            /* the other one keeps spinning */
            char s = thread_state(tid_other);
            spinning += (s == 'R');
            sleeping += (s == 'S');
            lu_sleep_ms(5);
        }
        /* (a sample or two may catch a sanitizer runtime's internal lock) */
        CHECK(spinning >= 15);
        CHECK(sleeping <= 2);
        CHECK_EQ(got, 0);
        ReleaseSRWLockExclusive(&lock);
        pthread_join(rt, NULL);
        pthread_join(other, NULL);
        CHECK_EQ(got, 2);
        CHECK(lock.Ptr == NULL);
    }
    nspa_srw_set_spin(NSPA_SRW_DEFAULT_SPIN);
    return nspa_test_done();
}
