/* The SRW lock word has Windows' layout (ntdll's RTL_SRWLOCK: bit 0 Locked, bit 1
 * Waiting, bits 2-3 Waking/MultipleShared, bits 4.. the shared-owner count), which
 * programs read: Wine's test_srwlock_quirk sets the word to 1 and expects 0 after
 * ReleaseSRWLockExclusive, because an application (WeCom) depends on it. */
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

static SRWLOCK lock;
static _Atomic int phase;

static ULONG_PTR word(void) { return (ULONG_PTR)__atomic_load_n(&lock.Ptr, __ATOMIC_SEQ_CST); }

static void *excl_waiter(void *arg)
{
    (void)arg;
    phase = 1;
    AcquireSRWLockExclusive(&lock);
    phase = 2;
    ReleaseSRWLockExclusive(&lock);
    return NULL;
}

static void *shared_waiter(void *arg)
{
    (void)arg;
    phase = 1;
    AcquireSRWLockShared(&lock);
    phase = 2;
    ReleaseSRWLockShared(&lock);
    return NULL;
}

static void wait_blocked(void)
{
    while (!phase) lu_sleep_ms(1);
    lu_sleep_ms(30);   /* registered (spinning or asleep) */
}

int main(void)
{
    lock.Ptr = (PVOID)0xdeadbeef;
    InitializeSRWLock(&lock);
    CHECK_EQ(word(), 0);

    /* exclusive: Locked alone */
    AcquireSRWLockExclusive(&lock);
    CHECK_EQ(word(), 1);
    ReleaseSRWLockExclusive(&lock);
    CHECK_EQ(word(), 0);
    CHECK(TryAcquireSRWLockExclusive(&lock));
    CHECK_EQ(word(), 1);
    CHECK(!TryAcquireSRWLockShared(&lock));
    CHECK(!TryAcquireSRWLockExclusive(&lock));
    ReleaseSRWLockExclusive(&lock);

    /* shared: Locked plus the count in bits 4.. */
    AcquireSRWLockShared(&lock);
    CHECK_EQ(word(), 0x11);
    AcquireSRWLockShared(&lock);
    CHECK_EQ(word(), 0x21);
    CHECK(TryAcquireSRWLockShared(&lock));
    CHECK_EQ(word(), 0x31);
    CHECK(!TryAcquireSRWLockExclusive(&lock));
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(word(), 0x21);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(word(), 0x11);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(word(), 0);

    /* Wine's test_srwlock_quirk: a word of 1 released exclusively gives 0 */
    lock.Ptr = (PVOID)1;
    ReleaseSRWLockExclusive(&lock);
    CHECK_EQ(word(), 0);
    /* and a word written as "one shared owner" is released as such */
    lock.Ptr = (PVOID)0x11;
    CHECK(!TryAcquireSRWLockExclusive(&lock));
    CHECK(TryAcquireSRWLockShared(&lock));
    CHECK_EQ(word(), 0x21);
    ReleaseSRWLockShared(&lock);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(word(), 0);

    /* a waiting writer: Locked and Waiting; all gone: 0 */
    pthread_t t;
    phase = 0;
    AcquireSRWLockExclusive(&lock);
    pthread_create(&t, NULL, excl_waiter, NULL);
    wait_blocked();
    CHECK_EQ(phase, 1);
    CHECK_EQ(word() & 3, 3);
    ReleaseSRWLockExclusive(&lock);
    pthread_join(t, NULL);
    CHECK_EQ(phase, 2);
    CHECK_EQ(word(), 0);

    /* a reader waiting behind a writer: the same two bits */
    phase = 0;
    AcquireSRWLockExclusive(&lock);
    pthread_create(&t, NULL, shared_waiter, NULL);
    wait_blocked();
    CHECK_EQ(phase, 1);
    CHECK_EQ(word() & 3, 3);
    ReleaseSRWLockExclusive(&lock);
    pthread_join(t, NULL);
    CHECK_EQ(word(), 0);

    /* a writer waiting behind two readers: Locked, Waiting, and still the count */
    phase = 0;
    AcquireSRWLockShared(&lock);
    AcquireSRWLockShared(&lock);
    pthread_create(&t, NULL, excl_waiter, NULL);
    wait_blocked();
    CHECK_EQ(word() & 3, 3);
    CHECK_EQ((word() >> 4) & 0xfffffff, 2);
    ReleaseSRWLockShared(&lock);
    CHECK_EQ(phase, 1);
    ReleaseSRWLockShared(&lock);
    pthread_join(t, NULL);
    CHECK_EQ(phase, 2);
    CHECK_EQ(word(), 0);
    return nspa_test_done();
}
