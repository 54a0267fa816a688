/* Synchronization barriers (issue 16): bad input, exactly one TRUE per phase, no thread
 * passes a phase before all arrived (every flag combination), a barrier of one, and
 * Delete waiting for the threads still leaving. */
#include <windows.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
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

/* ---- Wine's test_barrier (it runs on Windows) --------------------------------------- */

static jmp_buf exc_jmp;
static DWORD exc_flags;

static LONG WINAPI catch_exc(EXCEPTION_POINTERS *ep)
{
    exc_flags = ep->ExceptionRecord->ExceptionFlags;
    longjmp(exc_jmp, (int)ep->ExceptionRecord->ExceptionCode);
}

struct wparam {
    SYNCHRONIZATION_BARRIER *b;
    DWORD flags;
    LONG total;
    BOOL skipped;                  /* a barrier already complete: no wait, no count check */
    volatile LONG *count, *trues, *bad;
};

static DWORD WINAPI wine_enter(LPVOID arg)
{
    struct wparam *p = arg;
    InterlockedIncrement(p->count);
    if (EnterSynchronizationBarrier(p->b, p->flags)) InterlockedIncrement(p->trues);
    if (!p->skipped && *p->count != p->total) InterlockedIncrement(p->bad);   /* left early */
    return 0;
}

static DWORD WINAPI wine_delete(LPVOID arg)
{
    struct wparam *p = arg;
    DeleteSynchronizationBarrier(p->b);
    /* with waiters that did not pass NO_DELETE, Delete returned after they all left */
    if (!(p->flags & SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE) && *p->count != p->total) InterlockedIncrement(p->bad);
    return 0;
}

static void test_wine_barrier(void)
{
    static const DWORD valid = SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY | SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY |
                               SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE;
    SYNCHRONIZATION_BARRIER b;
    volatile LONG count = 0, trues = 0, bad = 0;
    HANDLE th[8], del;

    /* argument checks; success leaves the last error alone */
    SetLastError(0xdeadbeef);
    CHECK(InitializeSynchronizationBarrier(&b, 1, -1));
    CHECK_EQ(GetLastError(), 0xdeadbeef);
    CHECK(!InitializeSynchronizationBarrier(NULL, 1, -1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0xdeadbeef);
    CHECK(!InitializeSynchronizationBarrier(&b, -2, -1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0xdeadbeef);
    CHECK(InitializeSynchronizationBarrier(&b, 1, INT_MAX));
    CHECK(InitializeSynchronizationBarrier(&b, INT_MAX, 0));
    CHECK(InitializeSynchronizationBarrier(&b, 1, -1));
    CHECK(EnterSynchronizationBarrier(&b, 0));
    CHECK(EnterSynchronizationBarrier(&b, 0));
    CHECK(DeleteSynchronizationBarrier(&b));
    CHECK_EQ(GetLastError(), 0xdeadbeef);

    /* each flag bit: the three valid ones pass (a barrier of one), any other raises a
     * noncontinuable STATUS_INVALID_PARAMETER */
    PVOID vh = AddVectoredExceptionHandler(TRUE, catch_exc);
    REQUIRE(vh != NULL);
    int raised_ok = 0, passed_ok = 0;
    for (int i = 0; i < 32; i++) {
        volatile DWORD f = 1u << i;
        int code = setjmp(exc_jmp);
        if (!code) {
            BOOL r = EnterSynchronizationBarrier(&b, f);
            if (!(f & ~valid) && r == TRUE && GetLastError() == 0xdeadbeef) passed_ok++;
        } else if ((f & ~valid) && (DWORD)code == (DWORD)STATUS_INVALID_PARAMETER &&
                   (exc_flags & EXCEPTION_NONCONTINUABLE)) {
            raised_ok++;
        }
    }
    CHECK_EQ(passed_ok, 3);
    CHECK_EQ(raised_ok, 29);
    CHECK(EnterSynchronizationBarrier(&b, valid));
    RemoveVectoredExceptionHandler(vh);

    /* a barrier of one, entered by 9 threads: each is the last of its phase */
    struct wparam p = { &b, 0, 9, TRUE, &count, &trues, &bad };
    for (int i = 0; i < 8; i++) th[i] = CreateThread(NULL, 0, wine_enter, &p, 0, NULL);
    wine_enter(&p);
    for (int i = 0; i < 8; i++) {
        WaitForSingleObject(th[i], INFINITE);
        CloseHandle(th[i]);
    }
    CHECK_EQ(trues, 9);

    /* 9 threads, one TRUE; Delete waits for the waiters to leave, so the barrier can be
     * initialized again at once */
    CHECK(InitializeSynchronizationBarrier(&b, 9, INT_MAX));
    CHECK(DeleteSynchronizationBarrier(&b));      /* nobody waits: returns */
    p.skipped = FALSE;
    count = trues = bad = 0;
    for (int i = 0; i < 8; i++) th[i] = CreateThread(NULL, 0, wine_enter, &p, 0, NULL);
    wine_enter(&p);
    DeleteSynchronizationBarrier(&b);
    InitializeSynchronizationBarrier(&b, 9, -1);
    CHECK_EQ(count, 9);
    for (int i = 0; i < 8; i++) {
        WaitForSingleObject(th[i], INFINITE);
        CloseHandle(th[i]);
    }
    CHECK_EQ(trues, 1);
    CHECK_EQ(bad, 0);

    /* Delete with a waiter inside: blocks unless that waiter passed NO_DELETE */
    static const DWORD dflags[] = { SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE, 0, SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY };
    for (int t = 0; t < 3; t++) {
        p.total = 8;
        CHECK(InitializeSynchronizationBarrier(&b, 8, -1));
        count = trues = bad = 0;
        p.flags = dflags[t];
        th[0] = CreateThread(NULL, 0, wine_enter, &p, 0, NULL);
        while (!InterlockedCompareExchange((LONG *)&count, 0, 0)) Sleep(1);
        Sleep(16);
        del = CreateThread(NULL, 0, wine_delete, &p, 0, NULL);
        DWORD r = WaitForSingleObject(del, 100);
        if (dflags[t] & SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE) CHECK_EQ(r, WAIT_OBJECT_0);
        else CHECK_EQ(r, WAIT_TIMEOUT);
        struct wparam p2 = p;
        p2.flags = SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE;
        for (int i = 1; i < 8; i++) th[i] = CreateThread(NULL, 0, wine_enter, &p2, 0, NULL);
        WaitForSingleObject(del, INFINITE);
        CloseHandle(del);
        for (int i = 0; i < 8; i++) {
            WaitForSingleObject(th[i], INFINITE);
            CloseHandle(th[i]);
        }
        CHECK_EQ(count, 8);
        CHECK_EQ(trues, 1);
        CHECK_EQ(bad, 0);
    }
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
    CHECK_EQ(bar.Reserved4 & 0x7fffffffu, 0);     /* nobody inside (bit 31: Delete was here) */
    pthread_join(t, NULL);
    test_wine_barrier();
    return nspa_test_done();
}
