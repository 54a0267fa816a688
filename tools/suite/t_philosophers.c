/* philosophers <meals> <load>: 5 philosophers, 5 CRITICAL_SECTION chopsticks taken
 * lower-numbered first; philosopher 0 TIME_CRITICAL; load threads; think and eat are
 * 400k-iteration busy loops. Pass: every philosopher eats <meals> meals within 60 s. */
#include "suite.h"

#define NPHIL 5
#define MAXMEALS 10000
static CRITICAL_SECTION stick[NPHIL];
static volatile LONG stop;
static int meals_wanted;
static struct ph { int meals; double max_wait; double waits[MAXMEALS]; } ph[NPHIL];

static DWORD WINAPI ph_main(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    int a = i, b = (i + 1) % NPHIL;
    if (a > b) { int t = a; a = b; b = t; }
    while (ph[i].meals < meals_wanted && !stop) {
        suite_work(400000);                 /* think */
        double t0 = suite_now_us();
        EnterCriticalSection(&stick[a]);
        EnterCriticalSection(&stick[b]);
        double w = suite_now_us() - t0;
        suite_work(400000);                 /* eat */
        LeaveCriticalSection(&stick[b]);
        LeaveCriticalSection(&stick[a]);
        if (w > ph[i].max_wait) ph[i].max_wait = w;
        if (ph[i].meals < MAXMEALS) ph[i].waits[ph[i].meals] = w;
        ph[i].meals++;
    }
    return 0;
}

int t_philosophers(int argc, char **argv)
{
    meals_wanted = (int)suite_arg(argc, argv, 1, 50);
    int load = (int)suite_arg(argc, argv, 2, 4);
    if (meals_wanted < 1 || meals_wanted > MAXMEALS) return suite_fail("bad arguments");
    for (int i = 0; i < NPHIL; i++) InitializeCriticalSection(&stick[i]);
    int nl = suite_load_start(load);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    suite_note("%d load threads (spec: at most cores - 2, at least 1; asked %d)", nl, load);
    HANDLE h[NPHIL];
    double t0 = suite_now_us();
    for (int i = 0; i < NPHIL; i++)
        h[i] = suite_thread(ph_main, (void *)(intptr_t)i, i == 0 ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_NORMAL);
    int timed_out = 0;
    for (int i = 0; i < NPHIL; i++) {
        double left = 60e6 - (suite_now_us() - t0);
        if (WaitForSingleObject(h[i], left > 0 ? (DWORD)(left / 1000) : 0) == WAIT_TIMEOUT) {
            timed_out = 1;
            InterlockedExchange(&stop, 1);
        }
    }
    for (int i = 0; i < NPHIL; i++) suite_join(h[i]);
    double el = suite_now_us() - t0;
    suite_load_stop();
    int total = 0, mn = 1 << 30, mx = 0;
    double worst = 0, all[NPHIL * 200];
    int nall = 0;
    for (int i = 0; i < NPHIL; i++) {
        printf("  philosopher %d%s: %d meals, max wait %.1f us\n", i, i ? "" : " (TIME_CRITICAL)",
               ph[i].meals, ph[i].max_wait);
        total += ph[i].meals;
        if (ph[i].meals < mn) mn = ph[i].meals;
        if (ph[i].meals > mx) mx = ph[i].meals;
        if (ph[i].max_wait > worst) worst = ph[i].max_wait;
    }
    for (int i = 0; i < ph[0].meals && i < MAXMEALS && nall < NPHIL * 200; i++) all[nall++] = ph[0].waits[i];
    suite_fig("elapsed", el / 1000, "ms", "lower", "Total elapsed");
    suite_fig("meals", total, "count", "info", "All meals served");
    suite_fig("spread", mx - mn, "meals", "lower", "Spread (max-min meals)");
    suite_fig("rt_max_wait", ph[0].max_wait, "us", "lower", "RT phil max wait");
    suite_fig("worst_max_wait", worst, "us", "lower", "Worst max wait (any)");
    suite_samples("rt_wait", "us", all, nall);
    for (int i = 0; i < NPHIL; i++) DeleteCriticalSection(&stick[i]);
    if (timed_out || total != NPHIL * meals_wanted)
        return suite_fail("%d of %d meals within 60 s", total, NPHIL * meals_wanted);
    return suite_pass();
}
