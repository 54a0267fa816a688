/* nspa-bench process: the summary line both benches print (Win32 and raw Linux
 * sources, so plain C only). */
#ifndef NSPA_BENCH_PROCESS_REPORT_H
#define NSPA_BENCH_PROCESS_REPORT_H
#include <stdio.h>
#include <stdlib.h>

static int bp_dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* "<what> avg_us p50_us p99_us" of v[0..n) (sorted in place) */
static void bp_report(const char *what, double *v, int n)
{
    qsort(v, n, sizeof(double), bp_dcmp);
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    printf("%s %.2f %.2f %.2f\n", what, s / n, v[(n - 1) / 2], v[(n - 1) * 99 / 100]);
}
#endif
