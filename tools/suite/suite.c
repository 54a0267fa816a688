/* nspa-rt-test: main (the test table) and the helpers every test shares. */
#include "suite.h"
#ifndef _WIN32
#include <sched.h>
#include <unistd.h>
#endif

/* ---- time ------------------------------------------------------------------------ */
static double qpc_us_per_tick;

double suite_now_us(void)
{
    LARGE_INTEGER c;
    if (!qpc_us_per_tick) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        qpc_us_per_tick = 1e6 / (double)f.QuadPart;
    }
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * qpc_us_per_tick;
}

void suite_work(long long n)
{
    for (volatile long long i = 0; i < n; i++)
        ;
}

long long suite_calibrate(double ms)
{
    double best = 1e30;
    for (int k = 0; k < 3; k++) {   /* fastest of 3: the least disturbed */
        double t = suite_now_us();
        suite_work(2000000);
        t = suite_now_us() - t;
        if (t < best) best = t;
    }
    if (best <= 0) best = 1;
    return (long long)(2000000.0 * ms * 1000.0 / best);
}

/* ---- output ---------------------------------------------------------------------- */
void suite_fig(const char *key, double value, const char *unit, const char *better,
               const char *label)
{
    printf("  FIG %s=%.6g %s %s  # %s\n", key, value, unit, better, label);
    fflush(stdout);
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void suite_samples(const char *key, const char *unit, const double *v, int n)
{
    if (n <= 0) return;
    int m = n > 1000 ? 1000 : n;
    printf("  SAMPLES %s %s %d", key, unit, m);
    for (int i = 0; i < m; i++)   /* evenly spaced subsample, in order of occurrence */
        printf(" %.3f", v[(long long)i * n / m]);
    printf("\n");
    fflush(stdout);
}

suite_stats suite_stat(const double *v, int n)
{
    suite_stats s = { 0 };
    if (n <= 0) return s;
    double *c = malloc(sizeof(double) * n);
    memcpy(c, v, sizeof(double) * n);
    qsort(c, n, sizeof(double), dcmp);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += c[i];
    s.n = n;
    s.min = c[0];
    s.max = c[n - 1];
    s.avg = sum / n;
    s.p50 = c[(n - 1) * 50 / 100];
    s.p95 = c[(n - 1) * 95 / 100];
    s.p99 = c[(n - 1) * 99 / 100];
    free(c);
    return s;
}

void suite_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  note: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

int suite_pass(void)
{
    printf("  PASS\n");
    fflush(stdout);
    return 0;
}

int suite_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    return 1;
}

int suite_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  SKIP ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    return 0;
}

/* ---- machine and mode ------------------------------------------------------------ */
int suite_ncpu(void)
{
#ifdef _WIN32
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (int)si.dwNumberOfProcessors;
#else
    /* NSPA has no GetSystemInfo yet: the C library answers natively */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

int suite_rt_mode(void)
{
    const char *p = getenv("NSPA_RT_PRIO");
    return p && *p && atoi(p) > 0;
}

int suite_thread_is_rt(void)
{
#ifdef _WIN32
    return 0;
#else
    int p = sched_getscheduler(0);
    return p == SCHED_FIFO || p == SCHED_RR;
#endif
}

long long suite_arg(int argc, char **argv, int i, long long def)
{
    return i < argc ? atoll(argv[i]) : def;
}

/* ---- threads ---------------------------------------------------------------------- */
HANDLE suite_thread(LPTHREAD_START_ROUTINE fn, void *arg, int priority)
{
    HANDLE h = CreateThread(NULL, 0, fn, arg, CREATE_SUSPENDED, NULL);
    if (!h) {
        printf("  FAIL CreateThread: error %u\n", (unsigned)GetLastError());
        fflush(stdout);
        exit(1);
    }
    if (priority != THREAD_PRIORITY_NORMAL)
        SetThreadPriority(h, priority);
    ResumeThread(h);
    return h;
}

void suite_join(HANDLE h)
{
    WaitForSingleObject(h, INFINITE);
    CloseHandle(h);
}

static volatile LONG load_stop;
static HANDLE load_threads[64];
static int load_n;

static DWORD WINAPI load_main(LPVOID arg)
{
    while (!load_stop) {
        double t = suite_now_us();
        while (suite_now_us() - t < 10000 && !load_stop)
            ;
        Sleep(1);
    }
    return 0;
}

int suite_load_start(int want)
{
    int n = suite_ncpu() - 2;
    if (n < 1) n = 1;
    if (n > want) n = want;
    load_stop = 0;
    for (load_n = 0; load_n < n; load_n++)
        load_threads[load_n] = CreateThread(NULL, 0, load_main, NULL, 0, NULL);
    return n;
}

void suite_load_stop(void)
{
    InterlockedExchange(&load_stop, 1);
    for (int i = 0; i < load_n; i++)
        suite_join(load_threads[i]);
    load_n = 0;
}

void suite_enter_rt(int p)
{
    SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS);
    SetThreadPriority(GetCurrentThread(), p);
}

void suite_leave_rt(void)
{
    SetPriorityClass(GetCurrentProcess(), NORMAL_PRIORITY_CLASS);
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_NORMAL);
}

/* ---- watchdog --------------------------------------------------------------------- */
static DWORD WINAPI watchdog_main(LPVOID arg)
{
    Sleep((DWORD)(uintptr_t)arg * 1000);
    printf("  FAIL watchdog: test still running after %u s\n", (unsigned)(uintptr_t)arg);
    fflush(stdout);
    _exit(99);
    return 0;
}

/* ---- the table -------------------------------------------------------------------- */
struct suite_entry { const char *name; int (*fn)(int, char **); const char *args, *smoke, *flags, *what; };
static const struct suite_entry table[] = {
#define SUITE_TEST(name, fn, args, smoke, flags, what) { #name, fn, args, smoke, flags, what },
#include "tests.def"
#undef SUITE_TEST
};
#define NTESTS ((int)(sizeof(table) / sizeof(table[0])))

static int split(char *s, char **out, int max)
{
    int n = 0;
    for (char *t = strtok(s, " "); t && n < max; t = strtok(NULL, " "))
        out[n++] = t;
    return n;
}

static void usage(void)
{
    printf("usage: nspa-rt-test list | <test> [args...] | <test> --smoke\n"
           "       env NSPA_SUITE_WATCHDOG=<s> (default 110)\n");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage();
        return 2;
    }
    if (!strcmp(argv[1], "child-quickexit")) {       /* the fork-mutex test's child */
        printf("child-quickexit %s\n", argc > 2 ? argv[2] : "?");
        return 42;
    }
    if (!strcmp(argv[1], "list")) {
        for (int i = 0; i < NTESTS; i++)
            printf("%s\t%s\t%s\t%s\t%s\n", table[i].name, table[i].args, table[i].smoke,
                   table[i].flags, table[i].what);
        return 0;
    }
    for (int i = 0; i < NTESTS; i++) {
        if (strcmp(argv[1], table[i].name)) continue;
        char buf[256], *av[32];
        int ac;
        av[0] = argv[1];
        if (argc == 2 || (argc == 3 && !strcmp(argv[2], "--smoke"))) {
            snprintf(buf, sizeof buf, "%s", argc == 2 ? table[i].args : table[i].smoke);
            ac = 1 + split(buf, av + 1, 30);
        } else {
            ac = argc - 1;
            for (int k = 1; k < ac && k < 32; k++) av[k] = argv[k + 1];
        }
        printf("=== %s", table[i].name);
        for (int k = 1; k < ac; k++) printf(" %s", av[k]);
        printf(" (%s)\n", table[i].what);
        const char *wd = getenv("NSPA_SUITE_WATCHDOG");
        int wds = wd && atoi(wd) > 0 ? atoi(wd) : 110;
        /* the watchdog: created in REALTIME class at TIME_CRITICAL (band 31, SCHED_FIFO
         * NSPA_RT_PRIO in RT mode); the test then starts from NORMAL class */
        suite_enter_rt(THREAD_PRIORITY_NORMAL);
        CloseHandle(suite_thread(watchdog_main, (void *)(uintptr_t)wds, THREAD_PRIORITY_TIME_CRITICAL));
        suite_leave_rt();
        printf("  mode: %s, cpus %d\n", suite_rt_mode() ? "RT (NSPA_RT_PRIO set)" : "baseline", suite_ncpu());
        fflush(stdout);
        int r = table[i].fn(ac, av);
        fflush(stdout);
        return r;
    }
    printf("unknown test %s\n", argv[1]);
    usage();
    return 2;
}
