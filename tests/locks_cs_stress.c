/* CRITICAL_SECTION under contention (TSan stress): 4 threads x N iterations of Enter /
 * nested Enter / TryEnter / ++counter / Leave; the counter is exact and the owner field
 * always names the thread inside. Plain and PI mode. */
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

#define THREADS 4
static CRITICAL_SECTION cs;
static long counter, tries;
static int iters = 100000;
static _Atomic int bad_owner;

static void *worker(void *arg)
{
    DWORD self = (DWORD)lu_gettid();
    for (int i = 0; i < iters; i++) {
        if ((i & 7) == 0) {
            if (!TryEnterCriticalSection(&cs))
                continue;
            tries++;
        } else {
            EnterCriticalSection(&cs);
        }
        if ((DWORD)(ULONG_PTR)cs.OwningThread != self)
            bad_owner = 1;
        if (i & 1) {
            EnterCriticalSection(&cs);
            counter++;
            LeaveCriticalSection(&cs);
        } else {
            counter++;
        }
        LeaveCriticalSection(&cs);
    }
    return arg;
}

int main(int argc, char **argv)
{
    lu_modes(argc, argv);
    pthread_t t[THREADS];
    InitializeCriticalSectionAndSpinCount(&cs, 100);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    long expected = 0;
    /* every non-try iteration counts once; try iterations count when they got in */
    for (int i = 0; i < iters; i++)
        if (i & 7)
            expected++;
    expected = expected * THREADS + tries;
    CHECK_EQ(counter, expected);
    CHECK_EQ(bad_owner, 0);
    CHECK_EQ(cs.RecursionCount, 0);
    CHECK(cs.OwningThread == NULL);
    DeleteCriticalSection(&cs);
    return nspa_test_done();
}
