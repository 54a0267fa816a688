/* zigzag <ms>: two threads alternate on two auto-reset events for <ms> ms (msync's
 * benchmark); every 64th round trip is timed. Pass: both sides counted the same round
 * trips (none lost) and at least one was made. */
#include "suite.h"

#define KEEP 20000
static HANDLE ea, eb;
static volatile LONG stop;
static long long trips, echoes;
static double keep[KEEP];
static int nkeep;

static DWORD WINAPI zz_ping(LPVOID arg)
{
    while (!stop) {
        double t0 = (trips & 63) == 0 ? suite_now_us() : 0;
        SetEvent(ea);
        if (WaitForSingleObject(eb, 5000) != WAIT_OBJECT_0) return 1;
        if (t0 && nkeep < KEEP) keep[nkeep++] = suite_now_us() - t0;
        trips++;
    }
    InterlockedExchange(&stop, 2);
    SetEvent(ea);   /* release the echo thread */
    return 0;
}

static DWORD WINAPI zz_pong(LPVOID arg)
{
    for (;;) {
        if (WaitForSingleObject(ea, 5000) != WAIT_OBJECT_0) return 1;
        if (stop == 2) break;
        echoes++;
        SetEvent(eb);
    }
    return 0;
}

int t_zigzag(int argc, char **argv)
{
    int ms = (int)suite_arg(argc, argv, 1, 2000);
    if (ms < 1) return suite_fail("bad arguments");
    ea = CreateEventA(NULL, FALSE, FALSE, NULL);
    eb = CreateEventA(NULL, FALSE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE b = suite_thread(zz_pong, NULL, THREAD_PRIORITY_NORMAL);
    HANDLE a = suite_thread(zz_ping, NULL, THREAD_PRIORITY_NORMAL);
    double t0 = suite_now_us();
    Sleep(ms);
    InterlockedCompareExchange(&stop, 1, 0);
    suite_join(a);
    suite_join(b);
    double el = suite_now_us() - t0;
    suite_stats s = suite_stat(keep, nkeep);
    suite_fig("round_trips", (double)trips, "count", "higher", "Round trips");
    suite_fig("rate", trips / (el / 1e6), "trips/s", "higher", "Round trips per second");
    suite_fig("rtt_p50", s.p50, "us", "lower", "Round trip p50");
    suite_fig("rtt_p99", s.p99, "us", "lower", "Round trip p99");
    suite_fig("rtt_max", s.max, "us", "lower", "Round trip max");
    suite_samples("rtt", "us", keep, nkeep);
    if (trips < 1 || echoes != trips)
        return suite_fail("%lld round trips, %lld echoes", trips, echoes);
    return suite_pass();
}
