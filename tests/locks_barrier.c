/* Synchronization barriers (issue 16): bad input, exactly one TRUE per phase, no thread
 * passes a phase before all arrived (every flag combination), a barrier of one, and
 * Delete waiting for the threads still leaving. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"

#define NT 4
#define PHASES 2000
static SYNCHRONIZATION_BARRIER bar;
static volatile LONG arrived[PHASES], trues[PHASES];
static volatile LONG bad;
static DWORD g_flags;
static int g_phases;

static void *runner(void *arg)
{
    for (int p = 0; p < g_phases; p++) {
        InterlockedIncrement(&arrived[p]);
        if (EnterSynchronizationBarrier(&bar, g_flags)) InterlockedIncrement(&trues[p]);
        if (arrived[p] != NT) InterlockedIncrement(&bad);     /* passed before all came */
    }
    return NULL;
}

/* spin-only with more threads than CPUs spins out whole time slices: few phases */
static void run(DWORD flags, LONG spin, int phases)
{
    g_phases = phases;
    CHECK(InitializeSynchronizationBarrier(&bar, NT, spin));
    g_flags = flags;
    bad = 0;
    for (int p = 0; p < PHASES; p++) arrived[p] = trues[p] = 0;
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) pthread_create(&t[i], NULL, runner, NULL);
    for (int i = 0; i < NT; i++) pthread_join(t[i], NULL);
    CHECK_EQ(bad, 0);
    int ok = 1;
    for (int p = 0; p < phases; p++) ok &= trues[p] == 1;
    CHECK(ok);
    CHECK(DeleteSynchronizationBarrier(&bar));
}

static void *late_leaver(void *arg)
{
    EnterSynchronizationBarrier(&bar, SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY);
    return NULL;
}

int main(void)
{
    SetLastError(0);
    CHECK(!InitializeSynchronizationBarrier(&bar, 0, -1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!InitializeSynchronizationBarrier(&bar, 2, -2));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* a barrier of one: every Enter is the last one */
    CHECK(InitializeSynchronizationBarrier(&bar, 1, 0));
    for (int i = 0; i < 3; i++) CHECK(EnterSynchronizationBarrier(&bar, 0));
    CHECK(DeleteSynchronizationBarrier(&bar));
    run(0, -1, PHASES);
    run(SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY, -1, PHASES);
    run(SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY, -1, 20);
    run(SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE, 0, PHASES);
    /* Delete returns once the other thread is out of Enter */
    CHECK(InitializeSynchronizationBarrier(&bar, 2, 0));
    pthread_t t;
    pthread_create(&t, NULL, late_leaver, NULL);
    CHECK(!EnterSynchronizationBarrier(&bar, SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY) || 1);
    CHECK(DeleteSynchronizationBarrier(&bar));
    CHECK_EQ(bar.Reserved4, 0);
    pthread_join(t, NULL);
    return nspa_test_done();
}
