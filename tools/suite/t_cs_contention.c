/* cs-contention <rounds> <work>: load threads; per round a NORMAL holder enters a
 * CRITICAL_SECTION and signals an event, a TIME_CRITICAL waiter then enters it; the
 * holder works <work> iterations (Sleep(0) every ~32M) and leaves.
 * Pass: every round gives a sample (no deadlock); waits are reported. */
#include "suite.h"

static CRITICAL_SECTION cs;
static HANDLE held;
static long long work;
static double wait_us;

static DWORD WINAPI holder(LPVOID arg)
{
    EnterCriticalSection(&cs);
    SetEvent(held);
    for (long long done = 0; done < work; done += 32000000) {
        suite_work(work - done < 32000000 ? work - done : 32000000);
        Sleep(0);
    }
    LeaveCriticalSection(&cs);
    return 0;
}

static DWORD WINAPI waiter(LPVOID arg)
{
    double t0 = suite_now_us();
    EnterCriticalSection(&cs);
    wait_us = suite_now_us() - t0;
    LeaveCriticalSection(&cs);
    return 0;
}

int t_cs_contention(int argc, char **argv)
{
    int rounds = (int)suite_arg(argc, argv, 1, 3);
    work = suite_arg(argc, argv, 2, 200000000);
    if (rounds < 1 || rounds > 1000) return suite_fail("bad arguments");
    InitializeCriticalSection(&cs);
    held = CreateEventA(NULL, FALSE, FALSE, NULL);
    int nl = suite_load_start(4);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    suite_note("%d load threads, holder work %lld iterations", nl, work);
    double w[1000];
    int got = 0;
    for (int r = 0; r < rounds; r++) {
        wait_us = -1;
        HANDLE h = suite_thread(holder, NULL, THREAD_PRIORITY_NORMAL);
        if (WaitForSingleObject(held, 30000) != WAIT_OBJECT_0) break;
        HANDLE wt = suite_thread(waiter, NULL, THREAD_PRIORITY_TIME_CRITICAL);
        suite_join(wt);
        suite_join(h);
        if (wait_us < 0) break;
        w[got++] = wait_us / 1000;
        printf("  round %d: waiter waited %.1f ms\n", r + 1, wait_us / 1000);
    }
    suite_load_stop();
    suite_stats s = suite_stat(w, got);
    suite_fig("samples", got, "count", "info", "Samples");
    suite_fig("avg_wait", s.avg, "ms", "lower", "Avg wait");
    suite_fig("min_wait", s.min, "ms", "lower", "Min wait");
    suite_fig("max_wait", s.max, "ms", "lower", "Max wait");
    suite_samples("wait", "ms", w, got);
    DeleteCriticalSection(&cs);
    if (got != rounds) return suite_fail("%d of %d rounds completed", got, rounds);
    return suite_pass();
}
