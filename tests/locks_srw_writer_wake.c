/* Who wakes a writer of an SRW lock: bit 2 of the word (Windows' Waking bit) says "a
 * writer may be asleep". A writer that still spins leaves it clear, so the owner's
 * release makes no system call for it; one that sleeps sets it; a release wakes a writer
 * only when it is set, and clears it only when at most one writer is registered (the one
 * it wakes). So four sleeping writers, behind a writer or behind readers, are all woken
 * in turn (had the first release cleared the bit, the woken writer's release would wake
 * nobody and three would hang here), and the word is Windows' 0 afterwards. */
#include <windows.h>
#include <limits.h>
#include <sys/sysinfo.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

#define NWRITERS 4

static SRWLOCK lock = SRWLOCK_INIT;
static _Atomic int started, done;
static _Atomic pid_t tids[NWRITERS];
static long inside;

static ULONG_PTR word(void) { return (ULONG_PTR)__atomic_load_n(&lock.Ptr, __ATOMIC_SEQ_CST); }
static unsigned writers(void) { return (unsigned)((uint64_t)word() >> 32) & 0x7fffffffu; }

static void *writer(void *arg)
{
    tids[(intptr_t)arg] = lu_gettid();
    started++;
    AcquireSRWLockExclusive(&lock);
    inside++;                                        /* checked by TSan: exclusive */
    ReleaseSRWLockExclusive(&lock);
    done++;
    return NULL;
}

static void start(pthread_t *t, int n)
{
    started = done = 0;
    for (int i = 0; i < n; i++) tids[i] = 0;
    for (intptr_t i = 0; i < n; i++) pthread_create(&t[i], NULL, writer, (void *)i);
    while (started < n) lu_sleep_ms(1);
}

static void join(pthread_t *t, int n)
{
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    CHECK_EQ(done, n);
}

/* all @n writers asleep in the kernel and registered */
static int all_asleep(int n)
{
    for (int i = 0; i < n; i++)
        if (!lu_wait_sleeping(tids[i])) return 0;
    return writers() == (unsigned)n;
}

int main(void)
{
    pthread_t t[NWRITERS];

    /* a writer that spins is registered (Waiting) but has not set the sleep bit */
    if (get_nprocs() > 1) {
        nspa_srw_set_spin(UINT_MAX);
        AcquireSRWLockExclusive(&lock);
        start(t, 1);
        while (writers() < 1) lu_sleep_ms(1);
        lu_sleep_ms(20);
        CHECK_EQ(word() & 7, 3);                     /* Locked, Waiting, no sleeper */
        CHECK(!lu_thread_sleeping(tids[0]));         /* running: spinning */
        ReleaseSRWLockExclusive(&lock);
        join(t, 1);
        CHECK_EQ(word(), 0);
    }

    /* several writers asleep behind a writer: each release wakes the next */
    nspa_srw_set_spin(0);
    inside = 0;
    AcquireSRWLockExclusive(&lock);
    start(t, NWRITERS);
    CHECK(all_asleep(NWRITERS));
    CHECK_EQ(word() & 7, 7);                         /* Locked, Waiting, a sleeper */
    ReleaseSRWLockExclusive(&lock);
    join(t, NWRITERS);
    CHECK_EQ(inside, NWRITERS);
    CHECK_EQ(word(), 0);

    /* behind readers: the last reader's release wakes one, and so on */
    AcquireSRWLockShared(&lock);
    AcquireSRWLockShared(&lock);
    start(t, NWRITERS);
    CHECK(all_asleep(NWRITERS));
    CHECK_EQ(word() & 0xf, 7);
    CHECK_EQ((word() >> 4) & 0xfffffff, 2);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(done, 0);                               /* one reader still holds it */
    ReleaseSRWLockShared(&lock);
    join(t, NWRITERS);
    CHECK_EQ(word(), 0);

    nspa_srw_set_spin(NSPA_SRW_DEFAULT_SPIN);
    return nspa_test_done();
}
