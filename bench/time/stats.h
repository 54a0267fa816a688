/* nspa-bench time: percentiles, shared by the Win32 side and the raw peers (plain C). */
#ifndef NSPA_BENCH_TIME_STATS_H
#define NSPA_BENCH_TIME_STATS_H
#include <stdio.h>
#include <stdlib.h>
#ifdef _WIN32
#include <process.h>
#define bench_pid() _getpid()
#else
#include <unistd.h>
#define bench_pid() getpid()
#endif

static int bench_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the p-th percentile of v[0..n) (sorts v) */
static double bench_pct(double *v, int n, int p)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof(double), bench_dcmp);
    return v[(long long)(n - 1) * p / 100];
}

/* A stall: an expiry at least BENCH_STALL_US late. Every implementation measured here
 * replays the periods it missed (a TIMER_ABSTIME loop, NSPA's timer service, Wine's
 * multimedia timer), so one stall of D ms makes about D late expiries in a row, from D
 * down to 0: a single stall decides p99 once D exceeds 1% of the run (in a 10-s run one
 * 128 ms stall alone makes p99 28 ms). The number of stall episodes (a late expiry whose
 * predecessor was not) and the worst lateness tell such a p99 from a slow timer path.
 * Call before bench_pct (it sorts). */
#define BENCH_STALL_US 2000.0
static void bench_stalls(const double *v, int n, int *episodes, double *max)
{
    int e = 0;
    double m = n > 0 ? v[0] : 0;
    for (int i = 0; i < n; i++) {
        if (v[i] > m) m = v[i];
        if (v[i] >= BENCH_STALL_US && (i == 0 || v[i - 1] < BENCH_STALL_US)) e++;
    }
    *episodes = e;
    *max = m;
}

/* TIME_BENCH_SERIES=<prefix>: write the lateness series (index and us, in expiry order)
 * to <prefix>.<bench>.<impl>.<pid>, to see where a stall begins and how it is caught up.
 * Call before bench_pct (it sorts). */
static void bench_dump_series(const char *bench, const char *impl, const double *v, int n)
{
    const char *pre = getenv("TIME_BENCH_SERIES");
    if (!pre || !*pre) return;
    char path[512];
    snprintf(path, sizeof(path), "%s.%s.%s.%d", pre, bench, impl, (int)bench_pid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    for (int i = 0; i < n; i++) fprintf(f, "%d %.1f\n", i, v[i]);
    fclose(f);
}
#endif
