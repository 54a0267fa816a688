/* The textbook priority inversion, under real-time load (shared by
 * locks_inversion_cs.c and locks_inversion_cond.c):
 *   L  SCHED_OTHER, pinned to CPU 0, owns the critical section and works W ms;
 *   M  one SCHED_FIFO 50 busy thread per CPU, for a bounded time (BOUND_MS);
 *   H  SCHED_FIFO 80 on CPU 1 waits for the section (cs: EnterCriticalSection;
 *      cond: woken from SleepConditionVariableCS while L holds the section).
 * With priority inheritance (RT mode) L is boosted above M and H waits about L's
 * remaining work: the test requires wait <= 3 W. With NSPA_PI=0 the section is a plain
 * lock, M starves L and H waits until M stops or RT throttling lets L through: the test
 * requires wait >= min(10 W, 0.9 x the time left to the bound).
 * A SCHED_FIFO 99 watchdog ends a hung run (exit 99). Each mode runs in its own process
 * (the mode is read once per process) and gets up to 3 attempts, since a virtual CPU
 * can be stolen by the host; a broken PI fails every attempt by a wide margin. */
#ifndef LOCKS_INVERSION_H
#define LOCKS_INVERSION_H
#include <windows.h>
#include "locks_util.h"
#include "nspa_test.h"

#define BOUND_MS 1500
#define WORK_MS  60

static CRITICAL_SECTION inv_cs;
static CONDITION_VARIABLE inv_cv = CONDITION_VARIABLE_INIT;
static _Atomic int inv_holding, inv_flag, inv_stop_m;
static _Atomic pid_t inv_h_tid;
static _Atomic uint64_t inv_t0, inv_t1, inv_m_deadline;
static long inv_iters;
static int inv_ncpu;
static int inv_kind; /* 0 cs, 1 cond */

static void inv_work(long n)
{
    for (volatile long i = 0; i < n; i++)
        ;
}

static void *inv_watchdog(void *arg)
{
    lu_sleep_ms(20000);
    fprintf(stderr, "watchdog: inversion run hung\n");
    _exit(99);
    return arg;
}

static void *inv_medium(void *arg)
{
    while (lu_now_ns() < inv_m_deadline && !inv_stop_m)
        for (volatile int i = 0; i < 1000; i++)
            ;
    return NULL;
}

static void *inv_low(void *arg)
{
    EnterCriticalSection(&inv_cs);
    if (inv_kind == 1) {
        inv_flag = 1;
        WakeConditionVariable(&inv_cv);
        inv_t0 = lu_now_ns();
    }
    inv_holding = 1;
    inv_work(inv_iters);
    LeaveCriticalSection(&inv_cs);
    return arg;
}

static void *inv_high(void *arg)
{
    inv_h_tid = lu_gettid();
    if (inv_kind == 1) {
        EnterCriticalSection(&inv_cs);
        while (!inv_flag)
            SleepConditionVariableCS(&inv_cv, &inv_cs, INFINITE);
    } else {
        inv_t0 = lu_now_ns();
        EnterCriticalSection(&inv_cs);
    }
    inv_t1 = lu_now_ns();
    LeaveCriticalSection(&inv_cs);
    return arg;
}

/* one run in this process; returns 1 when the expectation holds */
static int inv_run(int pi)
{
    pthread_t wd, l, h, m[2];
    inv_ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    int hcpu = inv_ncpu > 1 ? 1 : 0;
    lu_thread(&wd, inv_watchdog, NULL, 99, -1);
    pthread_detach(wd);

    /* calibrate W at SCHED_FIFO on CPU 0 (what a boosted L gets) */
    lu_pin(0);
    lu_set_fifo(pthread_self(), 90);
    uint64_t t = lu_now_ns();
    inv_work(10000000);
    t = lu_now_ns() - t;
    inv_iters = (long)(10000000.0 * WORK_MS * 1e6 / (double)(t ? t : 1));
    uint64_t ws[3];
    for (int i = 0; i < 3; i++) {
        t = lu_now_ns();
        inv_work(inv_iters);
        ws[i] = lu_now_ns() - t;
    }
    uint64_t w = ws[0] < ws[1] ? (ws[1] < ws[2] ? ws[1] : (ws[0] < ws[2] ? ws[2] : ws[0]))
                               : (ws[0] < ws[2] ? ws[0] : (ws[1] < ws[2] ? ws[2] : ws[1]));
    lu_pin(inv_ncpu - 1);
    lu_set_fifo(pthread_self(), 95);

    InitializeCriticalSection(&inv_cs);
    inv_holding = inv_flag = 0;
    inv_h_tid = 0;
    if (inv_kind == 1) {
        lu_thread(&h, inv_high, NULL, 80, hcpu);
        while (!inv_h_tid)
            lu_sleep_ms(1);
        if (!lu_wait_sleeping(inv_h_tid))
            return 0;
        lu_sleep_ms(10);
    }
    lu_thread(&l, inv_low, NULL, 0, 0);
    while (!inv_holding)
        lu_sleep_ms(1);
    inv_m_deadline = lu_now_ns() + BOUND_MS * 1000000ull;
    for (int i = 0; i < inv_ncpu; i++)
        lu_thread(&m[i], inv_medium, NULL, 50, i);
    if (inv_kind == 0)
        lu_thread(&h, inv_high, NULL, 80, hcpu);
    pthread_join(h, NULL);
    uint64_t wait = inv_t1 - inv_t0;
    uint64_t left = inv_m_deadline > inv_t0 ? inv_m_deadline - inv_t0 : 0;
    inv_stop_m = 1;
    for (int i = 0; i < inv_ncpu; i++)
        pthread_join(m[i], NULL);
    pthread_join(l, NULL);
    inv_stop_m = 0;
    DeleteCriticalSection(&inv_cs);
    lu_set_fifo(pthread_self(), 0);

    int ok;
    if (pi) {
        ok = wait <= 3 * w;
        printf("RESULT %s pi=on work=%.1fms wait=%.1fms ratio=%.2f (need <= 3) %s\n",
               inv_kind ? "cond" : "cs", w / 1e6, wait / 1e6, (double)wait / w, ok ? "ok" : "FAIL");
    } else {
        uint64_t need = 10 * w < left * 9 / 10 ? 10 * w : left * 9 / 10;
        ok = wait >= need;
        printf("RESULT %s pi=off work=%.1fms wait=%.1fms ratio=%.2f (need >= %.1fms) %s\n",
               inv_kind ? "cond" : "cs", w / 1e6, wait / 1e6, (double)wait / w, need / 1e6,
               ok ? "ok" : "FAIL");
    }
    fflush(stdout);
    return ok;
}

static int inv_main(int argc, char **argv, int kind)
{
    inv_kind = kind;
    if (argc > 1) /* child: one run in the given mode */
        return inv_run(!strcmp(argv[1], "pi")) ? 0 : 1;

    /* parent: SCHED_FIFO must be available (root / CAP_SYS_NICE) */
    struct sched_param sp = { .sched_priority = 1 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP: SCHED_FIFO not permitted here (%s)\n", strerror(errno));
        return 0;
    }
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    const char *modes[] = { "pi", "nopi" };
    for (int m = 0; m < 2; m++) {
        int passed = 0;
        for (int attempt = 0; attempt < 3 && !passed; attempt++) {
            fflush(NULL);
            pid_t p = fork();
            if (p == 0) {
                setenv("NSPA_RT_PRIO", "80", 1);
                setenv("NSPA_RT_POLICY", "FF", 1);
                setenv("NSPA_PI", m == 0 ? "1" : "0", 1);
                execl("/proc/self/exe", argv[0], modes[m], (char *)NULL);
                _exit(127);
            }
            int st = 0;
            waitpid(p, &st, 0);
            passed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
            if (!passed)
                printf("attempt %d in mode %s failed (status %d)\n", attempt + 1, modes[m], st);
        }
        CHECK(passed);
    }
    return nspa_test_done();
}
#endif
