/* srw-bench <threads> <ms per phase>: SRW lock throughput in three phases of <ms>:
 * exclusive (every thread Acquire/++/Release exclusive), shared (every thread reads
 * shared) and mixed (thread 0 writes a pair, the others read it shared); every 64th
 * exclusive acquisition is timed. Pass: the exclusive counter equals the acquisitions
 * made, and no reader saw a torn pair. */
#include "suite.h"

#define MAXT 32
#define KEEP 20000
static SRWLOCK lock = SRWLOCK_INIT;
static volatile LONG phase_stop;
static volatile long long counter, pair_a, pair_b, torn;
static long long done[MAXT];
static volatile LONG fin[MAXT];   /* thread i stored its count for the phase */
static double keep[KEEP];
static volatile LONG nkeep;
static int phase;
static HANDLE go[3];

static DWORD WINAPI srw_main(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    for (int p = 0; p < 3; p++) {
        long long n = 0;
        WaitForSingleObject(go[p], INFINITE);
        while (!phase_stop) {
            if (p == 0) {
                double t0 = (n & 63) == 0 ? suite_now_us() : 0;
                AcquireSRWLockExclusive(&lock);
                if (t0) {
                    double w = suite_now_us() - t0;
                    LONG k = InterlockedIncrement(&nkeep) - 1;
                    if (k < KEEP) keep[k] = w;
                }
                counter++;
                ReleaseSRWLockExclusive(&lock);
            } else if (p == 1 || i != 0) {
                AcquireSRWLockShared(&lock);
                if (pair_a != pair_b) torn++;
                ReleaseSRWLockShared(&lock);
            } else {
                AcquireSRWLockExclusive(&lock);
                pair_a++;
                suite_work(10);
                pair_b++;
                ReleaseSRWLockExclusive(&lock);
            }
            n++;
        }
        done[i] = n;   /* may be 0: a real-time thread can starve its equals all phase */
        InterlockedExchange(&fin[i], 1);
        while (phase == p) Sleep(1);   /* wait for the next phase */
    }
    return 0;
}

int t_srw_bench(int argc, char **argv)
{
    int n = (int)suite_arg(argc, argv, 1, 4);
    int ms = (int)suite_arg(argc, argv, 2, 1000);
    if (n < 1 || n > MAXT || ms < 1) return suite_fail("bad arguments");
    for (int p = 0; p < 3; p++) go[p] = CreateEventA(NULL, TRUE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE h[MAXT];
    for (int i = 0; i < n; i++) h[i] = suite_thread(srw_main, (void *)(intptr_t)i, THREAD_PRIORITY_NORMAL);
    static const char *names[3] = { "exclusive", "shared", "mixed" };
    long long total[3];
    int ok = 1;
    for (int p = 0; p < 3; p++) {
        phase_stop = 0;
        phase = p;
        memset(done, 0, sizeof done);
        for (int i = 0; i < n; i++) fin[i] = 0;
        double t0 = suite_now_us();
        SetEvent(go[p]);
        Sleep(ms);
        InterlockedExchange(&phase_stop, 1);
        for (;;) {   /* every thread has stored its count */
            int all = 1;
            for (int i = 0; i < n; i++) if (!fin[i]) all = 0;
            if (all) break;
            Sleep(1);
        }
        double el = suite_now_us() - t0;
        total[p] = 0;
        for (int i = 0; i < n; i++) total[p] += done[i];
        char key[32], label[64];
        snprintf(key, sizeof key, "%s_ops", names[p]);
        snprintf(label, sizeof label, "%s throughput", names[p]);
        suite_fig(key, total[p] / (el / 1e6), "ops/s", "higher", label);
        if (p == 0 && counter != total[0]) ok = 0;
        phase = p + 1;
    }
    for (int i = 0; i < n; i++) suite_join(h[i]);
    int k = nkeep < KEEP ? (int)nkeep : KEEP;
    suite_stats s = suite_stat(keep, k);
    suite_fig("excl_p50", s.p50, "us", "lower", "exclusive acquire p50");
    suite_fig("excl_p99", s.p99, "us", "lower", "exclusive acquire p99");
    suite_fig("excl_max", s.max, "us", "lower", "exclusive acquire max");
    suite_fig("torn", (double)torn, "count", "lower", "torn reads (mixed)");
    suite_samples("excl_acquire", "us", keep, k);
    if (!ok) return suite_fail("exclusive counter %lld, acquisitions %lld", counter, total[0]);
    if (torn) return suite_fail("%lld torn reads under the shared lock", torn);
    return suite_pass();
}
