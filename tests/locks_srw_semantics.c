/* SRW lock semantics: SRWLOCK_INIT, readers share, a writer is alone, try variants, a
 * waiting writer blocks new readers (no writer starvation), a writer's release lets all
 * waiting readers in together. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

static SRWLOCK lock = SRWLOCK_INIT;
static _Atomic int stage, readers_in, max_readers_in, writer_done;
static _Atomic pid_t writer_tid;

static void *try_shared(void *arg)
{
    *(int *)arg = TryAcquireSRWLockShared(&lock);
    if (*(int *)arg)
        ReleaseSRWLockShared(&lock);
    return NULL;
}

static void *try_excl(void *arg)
{
    *(int *)arg = TryAcquireSRWLockExclusive(&lock);
    if (*(int *)arg)
        ReleaseSRWLockExclusive(&lock);
    return NULL;
}

static int other(void *(*fn)(void *))
{
    int r = -1;
    pthread_t t;
    pthread_create(&t, NULL, fn, &r);
    pthread_join(t, NULL);
    return r;
}

static void *writer(void *arg)
{
    writer_tid = lu_gettid();
    AcquireSRWLockExclusive(&lock);
    writer_done = 1;
    ReleaseSRWLockExclusive(&lock);
    return arg;
}

static void *reader(void *arg)
{
    AcquireSRWLockShared(&lock);
    int n = ++readers_in;
    int m = max_readers_in;
    while (n > m && !atomic_compare_exchange_weak(&max_readers_in, &m, n))
        ;
    while (stage < 2)
        lu_sleep_ms(1);
    readers_in--;
    ReleaseSRWLockShared(&lock);
    return arg;
}

int main(void)
{
    SRWLOCK l2;
    InitializeSRWLock(&l2);
    CHECK(l2.Ptr == NULL);
    CHECK(lock.Ptr == NULL);

    /* readers together */
    AcquireSRWLockShared(&lock);
    CHECK(TryAcquireSRWLockShared(&lock));
    CHECK_EQ(other(try_shared), 1);
    CHECK_EQ(other(try_excl), 0);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(other(try_excl), 0);
    ReleaseSRWLockShared(&lock);
    CHECK(lock.Ptr == NULL);

    /* a writer alone */
    AcquireSRWLockExclusive(&lock);
    CHECK(!TryAcquireSRWLockExclusive(&lock));
    CHECK(!TryAcquireSRWLockShared(&lock));
    CHECK_EQ(other(try_shared), 0);
    CHECK_EQ(other(try_excl), 0);
    ReleaseSRWLockExclusive(&lock);
    CHECK(TryAcquireSRWLockExclusive(&lock));
    ReleaseSRWLockExclusive(&lock);
    CHECK(lock.Ptr == NULL);

    /* a waiting writer blocks new readers */
    AcquireSRWLockShared(&lock);
    pthread_t w;
    pthread_create(&w, NULL, writer, NULL);
    while (!writer_tid)
        lu_sleep_ms(1);
    CHECK(lu_wait_sleeping(writer_tid));
    CHECK_EQ(other(try_shared), 0);   /* a writer waits: no new reader */
    CHECK(!writer_done);
    ReleaseSRWLockShared(&lock);       /* last reader out: the writer goes in */
    pthread_join(w, NULL);
    CHECK(writer_done);
    CHECK(lock.Ptr == NULL);

    /* readers waiting behind a writer all get in together when it releases */
    AcquireSRWLockExclusive(&lock);
    pthread_t r[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    lu_sleep_ms(50);
    CHECK_EQ(readers_in, 0);
    stage = 1;
    ReleaseSRWLockExclusive(&lock);
    for (int i = 0; i < 2000 && readers_in < 3; i++)
        lu_sleep_ms(1);
    CHECK_EQ(max_readers_in, 3);
    stage = 2;
    for (int i = 0; i < 3; i++)
        pthread_join(r[i], NULL);
    CHECK(lock.Ptr == NULL);

    /* native twins */
    nspa_srw_t n = NSPA_SRW_INIT;
    nspa_srw_lock_exclusive(&n);
    CHECK(!nspa_srw_try_shared(&n));
    nspa_srw_unlock_exclusive(&n);
    nspa_srw_lock_shared(&n);
    CHECK(nspa_srw_try_shared(&n));
    CHECK(!nspa_srw_try_exclusive(&n));
    nspa_srw_unlock_shared(&n);
    nspa_srw_unlock_shared(&n);
    CHECK(n.ptr == NULL);
    CHECK_EQ(nspa_srw_set_spin(10), NSPA_SRW_DEFAULT_SPIN);
    CHECK_EQ(nspa_srw_set_spin(NSPA_SRW_DEFAULT_SPIN), 10);
    return nspa_test_done();
}
