/* nspa-rt-test: the real-time suite (docs/suite.md).
 * One Win32 program, one sub-command per test. It is written against <windows.h> only
 * (plus the C library), so the same source builds natively against NSPA and with
 * x86_64-w64-mingw32-gcc for stock Wine.
 *
 * Adding a test = one source file tools/suite/t_<name>.c defining
 *     int t_<name>(int argc, char **argv)
 * and one SUITE_TEST(...) line in tools/suite/tests.def.
 *
 * Output contract (read by tools/suite/run_suite.py):
 *   "  PASS" / "  FAIL <why>" / "  SKIP <why>"       the verdict lines of the seed harness
 *   "  FIG <key>=<value> <unit> <lower|higher|info>  # <label>"   one figure
 *   "  SAMPLES <key> <unit> <n> v1 v2 ..."          a latency distribution (<= 1000 values)
 *   "  note: ..."                                    free text kept in the report
 * A TIME_CRITICAL watchdog ends a hung test with exit code 99. */
#ifndef NSPA_SUITE_H
#define NSPA_SUITE_H
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

/* ---- time ------------------------------------------------------------------------ */
double suite_now_us(void);                 /* QueryPerformanceCounter in microseconds */
/* a busy loop of n iterations (the unit of "work" of the seed harness) */
void suite_work(long long n);
/* iterations of suite_work() that take about ms milliseconds on this thread now */
long long suite_calibrate(double ms);

/* ---- output ---------------------------------------------------------------------- */
void suite_fig(const char *key, double value, const char *unit, const char *better,
               const char *label);
void suite_samples(const char *key, const char *unit, const double *v, int n);
void suite_note(const char *fmt, ...);
int suite_pass(void);                      /* prints "  PASS", returns 0 */
int suite_fail(const char *fmt, ...);      /* prints "  FAIL ...", returns 1 */
int suite_skip(const char *fmt, ...);      /* prints "  SKIP ...", returns 0 */
/* summary statistics of v[0..n) (sorted copy): min, avg, p50, p99, max */
typedef struct { double min, avg, p50, p95, p99, max; int n; } suite_stats;
suite_stats suite_stat(const double *v, int n);

/* ---- machine and mode ------------------------------------------------------------ */
int suite_ncpu(void);
/* 1 if NSPA's RT mode is asked for in the environment (NSPA_RT_PRIO set) */
int suite_rt_mode(void);
/* 1 if the calling thread really runs real-time (native: SCHED_FIFO/RR; under Wine the
 * Linux policy is not visible, so 0) */
int suite_thread_is_rt(void);
/* argument i as a number, or def */
long long suite_arg(int argc, char **argv, int i, long long def);

/* ---- threads ---------------------------------------------------------------------- */
HANDLE suite_thread(LPTHREAD_START_ROUTINE fn, void *arg, int priority);
void suite_join(HANDLE h);
/* the seed's load threads: min(want, max(1, cores - 2)), busy ~10 ms then Sleep(1);
 * created by the caller *before* it enters REALTIME class so that they stay
 * SCHED_OTHER (docs/rt.md). Returns how many were started. */
int suite_load_start(int want);
void suite_load_stop(void);
/* REALTIME class and the calling thread at priority p */
void suite_enter_rt(int p);
/* back to NORMAL class, calling thread NORMAL (threads created now are SCHED_OTHER) */
void suite_leave_rt(void);

/* tests are declared in tests.def */
#define SUITE_TEST(name, fn, args, smoke, flags, what) int fn(int argc, char **argv);
#include "tests.def"
#undef SUITE_TEST

#endif
