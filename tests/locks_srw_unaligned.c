/* An SRWLOCK at an address that is not 8-byte aligned (Windows allows it on x86; Wine's
 * test_srwlock_base runs on one at offset 1 of a packed struct) works as an aligned
 * one: the same word values, a blocked thread sleeps in the kernel instead of spinning
 * (the futex call refuses such an address, so NSPA parks it on a hashed word), and a
 * mix of writers and readers keeps writers alone with exact counts. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

#pragma pack(push, 1)
static struct { char c; SRWLOCK lock; } u;
#pragma pack(pop)
#define L (&u.lock)

static _Atomic int phase;
static _Atomic pid_t tid;
static long a, b, writes;
static _Atomic int inside_w, inside_r, violations;

/* the word, read atomically (other threads change it meanwhile) */
static ULONG_PTR word(void)
{
    return __atomic_load_n((ULONG_PTR *)(void *)L, __ATOMIC_SEQ_CST);
}

static void *excl_waiter(void *arg)
{
    (void)arg;
    tid = lu_gettid();
    phase = 1;
    AcquireSRWLockExclusive(L);
    phase = 2;
    ReleaseSRWLockExclusive(L);
    return NULL;
}

static void *shared_waiter(void *arg)
{
    (void)arg;
    tid = lu_gettid();
    phase = 1;
    AcquireSRWLockShared(L);
    phase = 2;
    ReleaseSRWLockShared(L);
    return NULL;
}

static void blocked_sleeps(void *(*fn)(void *), int holder_shared)
{
    pthread_t t;
    phase = 0;
    tid = 0;
    if (holder_shared) AcquireSRWLockShared(L);
    else AcquireSRWLockExclusive(L);
    pthread_create(&t, NULL, fn, NULL);
    while (!phase) lu_sleep_ms(1);
    CHECK(lu_wait_sleeping(tid));        /* asleep, not spinning */
    CHECK_EQ(phase, 1);
    CHECK_EQ(word() & 3, 3);
    if (holder_shared) ReleaseSRWLockShared(L);
    else ReleaseSRWLockExclusive(L);
    pthread_join(t, NULL);
    CHECK_EQ(phase, 2);
    CHECK_EQ(word(), 0);
}

static void *wthread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        AcquireSRWLockExclusive(L);
        if (++inside_w != 1 || inside_r) violations++;
        a++;
        b++;
        writes++;
        inside_w--;
        ReleaseSRWLockExclusive(L);
    }
    return NULL;
}

static void *rthread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        AcquireSRWLockShared(L);
        inside_r++;
        if (inside_w || a != b) violations++;
        inside_r--;
        ReleaseSRWLockShared(L);
    }
    return NULL;
}

int main(void)
{
    REQUIRE(((uintptr_t)L & 3) != 0);
    nspa_srw_set_spin(0);                /* block at once: the sleep is what is tested */
    memset(L, 0xff, sizeof *L);
    InitializeSRWLock(L);
    CHECK_EQ(word(), 0);
    AcquireSRWLockExclusive(L);
    CHECK_EQ(word(), 1);
    CHECK(!TryAcquireSRWLockShared(L));
    ReleaseSRWLockExclusive(L);
    AcquireSRWLockShared(L);
    AcquireSRWLockShared(L);
    CHECK_EQ(word(), 0x21);
    CHECK(!TryAcquireSRWLockExclusive(L));
    ReleaseSRWLockShared(L);
    ReleaseSRWLockShared(L);
    CHECK_EQ(word(), 0);

    blocked_sleeps(excl_waiter, 0);
    blocked_sleeps(excl_waiter, 1);
    blocked_sleeps(shared_waiter, 0);

    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, i < 2 ? wthread : rthread, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK_EQ(a, writes);
    CHECK_EQ(b, writes);
    CHECK_EQ(writes, 40000);
    CHECK_EQ(violations, 0);
    CHECK_EQ(word(), 0);
    return nspa_test_done();
}
