/* WaitOnAddress / WakeByAddress*: a value that differs returns TRUE at once; timeouts
 * return FALSE with ERROR_TIMEOUT; bad sizes ERROR_INVALID_PARAMETER; sizes 1/2/4/8;
 * WakeByAddressSingle wakes exactly one waiter of the address and none of another
 * address; WakeByAddressAll wakes every waiter; a TSan stress of the handshake. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

#define N 3
static volatile LONG word, other_word;
static _Atomic int woken, other_woken;
static _Atomic pid_t tids[N + 1];

static void *waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    LONG zero = 0;
    tids[i] = lu_gettid();
    if (i == N) {
        while (__atomic_load_n(&other_word, __ATOMIC_SEQ_CST) == 0)
            WaitOnAddress(&other_word, &zero, sizeof zero, INFINITE);
        other_woken++;
    } else {
        WaitOnAddress(&word, &zero, sizeof zero, INFINITE); /* one wait: count wakes */
        woken++;
    }
    return NULL;
}

static volatile LONG ping;
static void *stress(void *arg)
{
    for (LONG i = 0; i < 20000; i++) {
        LONG want = 2 * i + (arg ? 1 : 0);
        LONG cur;
        while ((cur = __atomic_load_n(&ping, __ATOMIC_ACQUIRE)) != want)
            WaitOnAddress(&ping, &cur, sizeof cur, INFINITE);
        __atomic_store_n(&ping, want + 1, __ATOMIC_RELEASE);
        WakeByAddressSingle((PVOID)&ping);
    }
    return NULL;
}

int main(void)
{
    BYTE b = 1, b2 = 2;
    USHORT s = 7, s2 = 7;
    ULONGLONG q = 5, q2 = 6;
    LONG v = 3, cmp = 4;

    CHECK(WaitOnAddress(&v, &cmp, sizeof v, INFINITE));     /* differs: at once */
    CHECK(WaitOnAddress(&b, &b2, 1, INFINITE));
    CHECK(WaitOnAddress(&q, &q2, 8, INFINITE));
    SetLastError(0);
    uint64_t t0 = lu_now_ns();
    CHECK(!WaitOnAddress(&s, &s2, 2, 30));
    CHECK(lu_now_ns() - t0 >= 25000000ull);
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    SetLastError(0);
    CHECK(!WaitOnAddress(&v, &v, sizeof v, 0));
    CHECK_EQ(GetLastError(), ERROR_TIMEOUT);
    for (SIZE_T sz = 0; sz < 16; sz++) {
        if (sz == 1 || sz == 2 || sz == 4 || sz == 8)
            continue;
        SetLastError(0);
        CHECK(!WaitOnAddress(&q, &q, sz, 0));
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    WakeByAddressSingle(&v);   /* nobody waits: nothing happens */
    WakeByAddressAll(&v);

    pthread_t t[N + 1];
    for (int i = 0; i <= N; i++)
        pthread_create(&t[i], NULL, waiter, (void *)(intptr_t)i);
    for (int i = 0; i <= N; i++) {
        while (!tids[i])
            lu_sleep_ms(1);
        CHECK(lu_wait_sleeping(tids[i]));
    }
    WakeByAddressSingle((PVOID)&word);
    for (int i = 0; i < 5000 && woken < 1; i++)
        lu_sleep_ms(1);
    lu_sleep_ms(200);
    CHECK_EQ(woken, 1);
    CHECK_EQ(other_woken, 0);
    WakeByAddressAll((PVOID)&word);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(woken, N);
    CHECK_EQ(other_woken, 0);
    __atomic_store_n(&other_word, 1, __ATOMIC_SEQ_CST);
    WakeByAddressAll((PVOID)&other_word);
    pthread_join(t[N], NULL);
    CHECK_EQ(other_woken, 1);

    pthread_t a, c;
    pthread_create(&a, NULL, stress, NULL);
    pthread_create(&c, NULL, stress, (void *)1);
    pthread_join(a, NULL);
    pthread_join(c, NULL);
    CHECK_EQ(ping, 40000);
    return nspa_test_done();
}
