/* msg-pingpong <ms>: two threads PostThreadMessage back and forth for <ms> ms, each
 * taking its messages with GetMessage; every 16th round trip is timed. Pass: the two
 * sides counted the same round trips (none lost), at least one was made, and each
 * message carried the sequence number expected. */
#include "suite.h"

#define KEEP 20000
static volatile DWORD ping_tid, pong_tid;
static volatile LONG stop;
static HANDLE started;
static long long trips, echoes, bad;
static double keep[KEEP];
static int nkeep;

static DWORD WINAPI pp_pong(LPVOID arg)
{
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);   /* the queue exists before the first post */
    SetEvent(started);
    while (GetMessageA(&m, NULL, 0, 0) > 0) {
        echoes++;
        if (!PostThreadMessageA(ping_tid, WM_APP + 1, m.wParam, 0)) return 1;
    }
    return 0;
}

static DWORD WINAPI pp_ping(LPVOID arg)
{
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    while (!stop) {
        double t0 = (trips & 15) == 0 ? suite_now_us() : 0;
        if (!PostThreadMessageA(pong_tid, WM_APP, (WPARAM)trips, 0)) return 1;
        if (GetMessageA(&m, NULL, 0, 0) <= 0) return 2;
        if (m.message != WM_APP + 1 || m.wParam != (WPARAM)trips) bad++;
        if (t0 && nkeep < KEEP) keep[nkeep++] = suite_now_us() - t0;
        trips++;
    }
    PostThreadMessageA(pong_tid, WM_QUIT, 0, 0);
    return 0;
}

int t_msg_pingpong(int argc, char **argv)
{
    int ms = (int)suite_arg(argc, argv, 1, 2000);
    if (ms < 1) return suite_fail("bad arguments");
    started = CreateEventA(NULL, FALSE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    DWORD id;
    HANDLE b = CreateThread(NULL, 0, pp_pong, NULL, 0, &id);
    pong_tid = id;
    WaitForSingleObject(started, INFINITE);
    HANDLE a = CreateThread(NULL, 0, pp_ping, NULL, CREATE_SUSPENDED, &id);
    ping_tid = id;
    ResumeThread(a);
    double t0 = suite_now_us();
    Sleep(ms);
    InterlockedExchange(&stop, 1);
    suite_join(a);
    suite_join(b);
    double el = suite_now_us() - t0;
    suite_leave_rt();
    suite_stats s = suite_stat(keep, nkeep);
    suite_fig("round_trips", (double)trips, "count", "higher", "Round trips");
    suite_fig("rate", trips / (el / 1e6), "trips/s", "higher", "Round trips per second");
    suite_fig("rtt_p50", s.p50, "us", "lower", "Round trip p50");
    suite_fig("rtt_p99", s.p99, "us", "lower", "Round trip p99");
    suite_fig("rtt_max", s.max, "us", "lower", "Round trip max");
    suite_samples("rtt", "us", keep, nkeep);
    if (trips < 1 || echoes != trips || bad)
        return suite_fail("%lld round trips, %lld echoes, %lld out of sequence", trips, echoes, bad);
    return suite_pass();
}
