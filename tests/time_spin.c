/* A real-time thread waiting on one timer alone wakes NSPA_TIMER_SPIN_US before the due
 * time and spins to it (docs/time.md, "The direct path"); a SCHED_OTHER thread, or a
 * real-time one with the variable at 0, sleeps the whole way. Observed through the
 * waiting thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), which a sleep does not
 * consume: with a 2 ms spin before each 4 ms due time, a wait of the real-time waiter
 * costs it about 2 ms of CPU; without, a few microseconds. The largest of 10 waits is
 * looked at (a higher-priority thread of another program may take the CPU during some). Every wait returns at or after
 * its due time, never before. In RT mode the timer service spins too: a timer's callback
 * (run on the service thread) comes at or after its due time, and the service thread
 * (named nspa-timer; its CPU clock read by tid) spends about the spin on each expiry.
 * Each setting runs in a process of its own (the variables are read once). SCHED_FIFO
 * needs a privilege: SKIP (77) without it. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nspa/timer.h"
#include "sync_util.h"
#include "task_util.h"

#define WAITS   10
#define DUE_NS  4000000ull

static double cpu_ms;
static int early;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *waiter(void *arg)
{
    int rt = *(int *)arg;
    if (rt) {
        struct sched_param sp = { .sched_priority = 10 };
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
            cpu_ms = -1;
            return NULL;
        }
    }
    nspa_obj_t t;
    REQUIRE(nspa_create_timer(0, NULL, &t) == 0);
    cpu_ms = 0;
    for (int i = 0; i < WAITS; i++) {
        struct nspa_timer_args a = { .due = mono_ns() + DUE_NS };
        REQUIRE(nspa_timer_set(t, &a) == 0);
        double c0 = thread_cpu_ms();
        CHECK_EQ(wait_any_ms(&t, 1, 1, 1000, 0, NULL), 0);
        double c = thread_cpu_ms() - c0;
        if (mono_ns() < a.due) early++;
        if (c > cpu_ms) cpu_ms = c;
    }
    nspa_close(t);
    return NULL;
}

static double run(int rt)
{
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, waiter, &rt) == 0);
    pthread_join(th, NULL);
    return cpu_ms;
}

/* the CPU time of thread @tid of this process, ms (the kernel's per-thread CPU clock) */
static double tid_cpu_ms(pid_t tid)
{
    struct timespec ts;
    clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6);   /* CPUCLOCK_SCHED | per-thread */
    if (clock_gettime(clk, &ts)) return -1;
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t service_tid(void) { return task_named("nspa-timer"); }

static volatile int fired;
static volatile uint64_t fired_at;
static void on_expiry(void *ctx, uint64_t rt_ns)
{
    (void)ctx;
    (void)rt_ns;
    fired_at = mono_ns();
    __atomic_store_n(&fired, 1, __ATOMIC_RELEASE);
}

/* RT mode (NSPA_RT_PRIO in this process's environment): callbacks on the service */
static int part_service(void)
{
    nspa_obj_t t;
    REQUIRE(nspa_create_timer(0, NULL, &t) == 0);
    double most = 0;
    int late_ok = 1;
    for (int i = 0; i < WAITS; i++) {
        fired = 0;
        struct nspa_timer_args a = { .due = mono_ns() + DUE_NS, .fn = on_expiry };
        pid_t svc = service_tid();
        double c0 = svc ? tid_cpu_ms(svc) : 0;
        REQUIRE(nspa_timer_set(t, &a) == 0);
        svc = service_tid();                 /* started by the first set */
        if (!c0 && svc) c0 = tid_cpu_ms(svc);
        while (!__atomic_load_n(&fired, __ATOMIC_ACQUIRE)) sleep_ms(1);
        if (fired_at < a.due) late_ok = 0;
        double c = svc ? tid_cpu_ms(svc) - c0 : 0;
        if (i && c > most) most = c;         /* the first includes the service's start */
    }
    nspa_close(t);
    printf("RT mode, spin 2 ms: the service spent at most %.3f ms of CPU on one expiry\n", most);
    CHECK(late_ok);                          /* never before the due time */
    CHECK(most > 1.5);
    return nspa_test_done();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "service")) {
        setenv("NSPA_TIMER_SPIN_US", "2000", 1);
        return part_service();
    }
    int off = argc > 1 && !strcmp(argv[1], "off");
    setenv("NSPA_TIMER_SPIN_US", off ? "0" : "2000", 1);
    double rt = run(1);
    if (rt < 0) {
        printf("SKIP: SCHED_FIFO not permitted here (%s)\n", strerror(EPERM));
        return 77;
    }
    printf("%s: real-time waiter, at most %.3f ms of CPU in one of %d waits\n", off ? "spin 0" : "spin 2 ms", rt, WAITS);
    CHECK_EQ(early, 0);                      /* never before the due time */
    if (off) {
        CHECK(rt < 1.0);                     /* slept the whole way */
        return nspa_test_done();
    }
    CHECK(rt > 1.5);                         /* spun about 2 ms before the due time */
    double other = run(0);
    printf("spin 2 ms: SCHED_OTHER waiter, at most %.3f ms of CPU in one wait\n", other);
    CHECK(other < 1.0);                      /* not for threads that are not real-time */
    CHECK_EQ(early, 0);
    CHECK(rerun_self(argv[0], "off"));
    setenv("NSPA_RT_PRIO", "20", 1);         /* the service at SCHED_FIFO 19 */
    CHECK(rerun_self(argv[0], "service"));
    return nspa_test_done();
}
