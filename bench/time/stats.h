/* nspa-bench time: percentiles, shared by the Win32 side and the raw peers (plain C). */
#ifndef NSPA_BENCH_TIME_STATS_H
#define NSPA_BENCH_TIME_STATS_H
#include <stdlib.h>

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
#endif
