/* rapidmutex <threads> <iterations>: REALTIME class; thread 0 TIME_CRITICAL, the others
 * NORMAL; each does <iterations> x Enter / ++counter / Leave on one CRITICAL_SECTION.
 * Pass: counter == threads x iterations. */
#include "suite.h"

#define MAXT 16
#define KEEP 4096
static CRITICAL_SECTION cs;
static volatile long long counter;
static long long iters;
static struct rm_thread { double max, sum; double keep[KEEP]; int nkeep; } th[MAXT];
static HANDLE go;

static DWORD WINAPI rm_main(LPVOID arg)
{
    struct rm_thread *t = arg;
    long long stride = iters / KEEP + 1;
    WaitForSingleObject(go, INFINITE);
    for (long long i = 0; i < iters; i++) {
        double t0 = suite_now_us();
        EnterCriticalSection(&cs);
        double w = suite_now_us() - t0;
        counter++;
        LeaveCriticalSection(&cs);
        t->sum += w;
        if (w > t->max) t->max = w;
        if (i % stride == 0 && t->nkeep < KEEP) t->keep[t->nkeep++] = w;
    }
    return 0;
}

int t_rapidmutex(int argc, char **argv)
{
    int n = (int)suite_arg(argc, argv, 1, 4);
    iters = suite_arg(argc, argv, 2, 500000);
    if (n < 1 || n > MAXT || iters < 1) return suite_fail("bad arguments");
    InitializeCriticalSection(&cs);
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE h[MAXT];
    for (int i = 0; i < n; i++)
        h[i] = suite_thread(rm_main, &th[i], i == 0 ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_NORMAL);
    Sleep(20);
    double t0 = suite_now_us();
    SetEvent(go);
    for (int i = 0; i < n; i++) suite_join(h[i]);
    double el = suite_now_us() - t0;
    double load_max = 0;
    for (int i = 1; i < n; i++) if (th[i].max > load_max) load_max = th[i].max;
    for (int i = 0; i < n; i++)
        printf("  thread %d%s: max wait %.1f us, avg wait %.2f us\n", i, i ? "" : " (TIME_CRITICAL)",
               th[i].max, th[i].sum / iters);
    suite_fig("elapsed", el / 1000, "ms", "lower", "Total elapsed");
    suite_fig("throughput", n * iters / (el / 1e6), "ops/s", "higher", "Throughput");
    suite_fig("rt_max_wait", th[0].max, "us", "lower", "RT thread max wait");
    suite_fig("rt_avg_wait", th[0].sum / iters, "us", "lower", "RT thread avg wait");
    suite_fig("load_max_wait", load_max, "us", "lower", "Load max wait (worst)");
    suite_fig("counter", (double)counter, "count", "info", "Counter");
    suite_samples("rt_wait", "us", th[0].keep, th[0].nkeep);
    DeleteCriticalSection(&cs);
    CloseHandle(go);
    if (counter != n * iters)
        return suite_fail("counter %lld, expected %lld", counter, n * iters);
    return suite_pass();
}
