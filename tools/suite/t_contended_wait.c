/* contended-wait <N> <cap s>: two threads, one NT mutex, N acquisitions in total
 * (msync's benchmark): wall time. A slow runtime is stopped at <cap> seconds and the
 * time for N is projected from the rate (said so in the output). Pass: the shared
 * counter equals the sum of the threads' acquisitions. */
#include "suite.h"

static HANDLE m;
static long long target, total, mine[2];
static double cap_us, t0;
static volatile LONG capped;

static DWORD WINAPI cw_main(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    for (;;) {
        if (WaitForSingleObject(m, INFINITE) != WAIT_OBJECT_0) return 1;
        if (total >= target || capped) {
            ReleaseMutex(m);
            break;
        }
        total++;
        mine[i]++;
        if ((total & 4095) == 0 && suite_now_us() - t0 > cap_us) capped = 1;
        ReleaseMutex(m);
    }
    return 0;
}

int t_contended_wait(int argc, char **argv)
{
    target = suite_arg(argc, argv, 1, 10000000);
    cap_us = suite_arg(argc, argv, 2, 30) * 1e6;
    if (target < 1 || cap_us <= 0) return suite_fail("bad arguments");
    m = CreateMutexA(NULL, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    t0 = suite_now_us();
    HANDLE h0 = suite_thread(cw_main, (void *)0, THREAD_PRIORITY_NORMAL);
    HANDLE h1 = suite_thread(cw_main, (void *)1, THREAD_PRIORITY_NORMAL);
    suite_join(h0);
    suite_join(h1);
    double el = suite_now_us() - t0;
    CloseHandle(m);
    double rate = total / (el / 1e6);
    printf("  %lld acquisitions (thread 0: %lld, thread 1: %lld) in %.0f ms\n", total, mine[0], mine[1], el / 1000);
    if (capped)
        suite_note("capped at %.0f s after %lld of %lld acquisitions: wall time for %lld projected from the rate",
                   cap_us / 1e6, total, target, target);
    suite_fig("wall", capped ? target / rate * 1000 : el / 1000, "ms", "lower",
              capped ? "Wall time for N (projected)" : "Wall time for N");
    suite_fig("rate", rate, "acq/s", "higher", "Acquisitions per second");
    suite_fig("acquisitions", (double)total, "count", "info", "Acquisitions made");
    /* how contended it really was: a thread that keeps the mutex makes it uncontended */
    suite_fig("min_share", total ? 100.0 * (mine[0] < mine[1] ? mine[0] : mine[1]) / total : 0, "%", "info",
              "Share of the less lucky thread");
    if (total != mine[0] + mine[1]) return suite_fail("counter %lld != %lld + %lld", total, mine[0], mine[1]);
    if (!capped && total != target) return suite_fail("counter %lld, expected %lld", total, target);
    return suite_pass();
}
