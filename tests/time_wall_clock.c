/* An absolute due time follows changes of the wall clock, a relative one does not (as
 * on Windows). Needs CAP_SYS_TIME (the test sets CLOCK_REALTIME): it steps the clock
 * and puts it back (from CLOCK_MONOTONIC, also on SIGINT/SIGTERM and at exit), so it
 * runs alone (SERIAL).
 *  1. forward: an absolute timer due at wall+3 s and a relative one due in 3 s; the
 *     clock steps 2 s forward: the absolute one fires about 1 s later, the relative
 *     one still at 3 s.
 *  2. backward: an absolute timer due at wall+1 s; the clock steps 2 s back at once:
 *     it has not fired 1.5 s later, and fires about 3 s after the step. */
#include <windows.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "nspa_test.h"

static struct timespec rt0, mono0;
static volatile sig_atomic_t moved;

static double now_mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* the wall clock as it would be had nobody set it */
static void restore(void)
{
    if (!moved) return;
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    long long ns = (m.tv_sec - mono0.tv_sec) * 1000000000ll + (m.tv_nsec - mono0.tv_nsec) +
                   rt0.tv_sec * 1000000000ll + rt0.tv_nsec;
    r.tv_sec = ns / 1000000000ll;
    r.tv_nsec = ns % 1000000000ll;
    clock_settime(CLOCK_REALTIME, &r);
    moved = 0;
}
static void on_signal(int sig) { restore(); signal(sig, SIG_DFL); raise(sig); }

static int step(double seconds)
{
    struct timespec r;
    clock_gettime(CLOCK_REALTIME, &r);
    long long ns = r.tv_sec * 1000000000ll + r.tv_nsec + (long long)(seconds * 1e9);
    r.tv_sec = ns / 1000000000ll;
    r.tv_nsec = ns % 1000000000ll;
    moved = 1;
    return clock_settime(CLOCK_REALTIME, &r);
}

static LARGE_INTEGER wall_in(double seconds)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    LARGE_INTEGER d;
    d.QuadPart = (LONGLONG)(((ULONGLONG)ft.dwHighDateTime << 32 | ft.dwLowDateTime) + (ULONGLONG)(seconds * 1e7));
    return d;
}

/* seconds until @h is signaled (from @t0 on the monotonic clock), or -1 after @limit s */
static double fired_after(HANDLE h, double t0, double limit)
{
    DWORD r = WaitForSingleObject(h, (DWORD)((limit - (now_mono() - t0)) * 1000));
    return r == WAIT_OBJECT_0 ? now_mono() - t0 : -1;
}

int main(void)
{
    clock_gettime(CLOCK_REALTIME, &rt0);
    clock_gettime(CLOCK_MONOTONIC, &mono0);
    if (clock_settime(CLOCK_REALTIME, &rt0) != 0) {
        printf("SKIP wall-clock changes: no permission to set the clock (CAP_SYS_TIME)\n");
        return nspa_test_done();
    }
    atexit(restore);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    /* 1. forward */
    HANDLE ab = CreateWaitableTimerW(NULL, TRUE, NULL), rel = CreateWaitableTimerW(NULL, TRUE, NULL);
    REQUIRE(ab && rel);
    double t0 = now_mono();
    LARGE_INTEGER due_ab = wall_in(3.0), due_rel = { .QuadPart = -30000000ll };
    CHECK(SetWaitableTimer(ab, &due_ab, 0, NULL, NULL, FALSE));
    CHECK(SetWaitableTimer(rel, &due_rel, 0, NULL, NULL, FALSE));
    CHECK_EQ(step(2.0), 0);
    double a = fired_after(ab, t0, 5.0);
    printf("forward 2 s: absolute (due +3 s) fired after %.3f s\n", a);
    CHECK(a > 0.7 && a < 1.6);
    double r = fired_after(rel, t0, 5.0);
    printf("forward 2 s: relative (due in 3 s) fired after %.3f s\n", r);
    CHECK(r > 2.9 && r < 3.6);
    restore();

    /* 2. backward */
    t0 = now_mono();
    due_ab = wall_in(1.0);
    CHECK(SetWaitableTimer(ab, &due_ab, 0, NULL, NULL, FALSE));
    CHECK_EQ(step(-2.0), 0);
    CHECK_EQ(WaitForSingleObject(ab, 1500), WAIT_TIMEOUT);
    a = fired_after(ab, t0, 5.0);
    printf("back 2 s: absolute (due +1 s) fired after %.3f s\n", a);
    CHECK(a > 2.7 && a < 3.6);
    restore();
    CloseHandle(ab);
    CloseHandle(rel);
    return nspa_test_done();
}
