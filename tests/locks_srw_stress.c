/* SRW lock stress (TSan): writers and readers mix exclusive, shared and try
 * acquisitions; a writer is always alone, readers never see a half-written pair, the
 * write count is exact. Also with spinning off, and with one thread at SCHED_FIFO (which
 * skips the spin phase). */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

#define WRITERS 2
#define READERS 3
static SRWLOCK lock = SRWLOCK_INIT;
static long a, b, writes;
static _Atomic int inside_w, inside_r, violations;
static int iters = 100000;

static void *wthread(void *arg)
{
    if (arg)
        lu_set_fifo(pthread_self(), 1), nspa_thread_rt_refresh();
    for (int i = 0; i < iters; i++) {
        if (i % 5 == 0) {
            if (!TryAcquireSRWLockExclusive(&lock))
                continue;
        } else {
            AcquireSRWLockExclusive(&lock);
        }
        if (++inside_w != 1 || inside_r)
            violations++;
        a++;
        b++;
        writes++;
        inside_w--;
        ReleaseSRWLockExclusive(&lock);
    }
    return NULL;
}

static void *rthread(void *arg)
{
    for (int i = 0; i < iters; i++) {
        if (i % 7 == 0) {
            if (!TryAcquireSRWLockShared(&lock))
                continue;
        } else {
            AcquireSRWLockShared(&lock);
        }
        inside_r++;
        if (inside_w || a != b)
            violations++;
        inside_r--;
        ReleaseSRWLockShared(&lock);
    }
    return arg;
}

static void round_(int fifo_writer)
{
    pthread_t t[WRITERS + READERS];
    a = b = writes = 0;
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&t[i], NULL, wthread, (void *)(intptr_t)(fifo_writer && i == 0));
    for (int i = 0; i < READERS; i++)
        pthread_create(&t[WRITERS + i], NULL, rthread, NULL);
    for (int i = 0; i < WRITERS + READERS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(a, writes);
    CHECK_EQ(b, writes);
    CHECK(writes >= (long)(iters - iters / 5) * WRITERS);
    CHECK_EQ(violations, 0);
    CHECK(lock.Ptr == NULL);
}

int main(void)
{
    round_(0);
    nspa_srw_set_spin(0);
    round_(0);
    nspa_srw_set_spin(NSPA_SRW_DEFAULT_SPIN);
    round_(1);
    return nspa_test_done();
}
