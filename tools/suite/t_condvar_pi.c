/* condvar-pi <rounds>: load threads; a TIME_CRITICAL waiter sleeps in
 * SleepConditionVariableCS, a NORMAL signaler enters the section, bumps a generation,
 * WakeConditionVariable and leaves; the waiter's wake latency (wake -> running with the
 * section re-acquired) is measured. Pass: every round woken (no lost wake-up: each
 * sleep is bounded at 5 s). */
#include "suite.h"

static CRITICAL_SECTION cs;
static CONDITION_VARIABLE cv;
static volatile LONG gen, ready, lost;
static double t_wake, *lat;
static int rounds;
static HANDLE ack;

static DWORD WINAPI cv_waiter(LPVOID arg)
{
    LONG seen = 0;
    EnterCriticalSection(&cs);
    for (int r = 0; r < rounds; r++) {
        ready = 1;
        while (gen == seen) {
            if (!SleepConditionVariableCS(&cv, &cs, 5000)) {
                lost++;
                break;
            }
        }
        lat[r] = suite_now_us() - t_wake;
        seen = gen;
        ready = 0;
        SetEvent(ack);
    }
    LeaveCriticalSection(&cs);
    return 0;
}

static DWORD WINAPI cv_signaler(LPVOID arg)
{
    for (int r = 0; r < rounds; r++) {
        for (;;) {
            EnterCriticalSection(&cs);
            if (ready) break;     /* the waiter released the section in its sleep */
            LeaveCriticalSection(&cs);
            Sleep(0);
        }
        gen++;
        t_wake = suite_now_us();
        WakeConditionVariable(&cv);
        LeaveCriticalSection(&cs);
        if (WaitForSingleObject(ack, 10000) != WAIT_OBJECT_0) return 1;
    }
    return 0;
}

int t_condvar_pi(int argc, char **argv)
{
    rounds = (int)suite_arg(argc, argv, 1, 500);
    if (rounds < 1 || rounds > 1000000) return suite_fail("bad arguments");
    lat = calloc(rounds, sizeof(double));
    InitializeCriticalSection(&cs);
    InitializeConditionVariable(&cv);
    ack = CreateEventA(NULL, FALSE, FALSE, NULL);
    int nl = suite_load_start(4);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    suite_note("%d load threads", nl);
    double t0 = suite_now_us();
    HANDLE w = suite_thread(cv_waiter, NULL, THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE s = suite_thread(cv_signaler, NULL, THREAD_PRIORITY_NORMAL);
    suite_join(s);
    suite_join(w);
    double el = suite_now_us() - t0;
    suite_load_stop();
    suite_stats st = suite_stat(lat, rounds);
    suite_fig("elapsed", el / 1000, "ms", "lower", "Total elapsed");
    suite_fig("wake_avg", st.avg, "us", "lower", "Wake latency avg");
    suite_fig("wake_p50", st.p50, "us", "lower", "Wake latency p50");
    suite_fig("wake_p99", st.p99, "us", "lower", "Wake latency p99");
    suite_fig("wake_max", st.max, "us", "lower", "Wake latency max");
    suite_fig("lost", lost, "count", "lower", "Lost wake-ups (5 s sleeps that timed out)");
    suite_samples("wake", "us", lat, rounds);
    DeleteCriticalSection(&cs);
    if (lost) return suite_fail("%ld wake-ups lost", (long)lost);
    return suite_pass();
}
