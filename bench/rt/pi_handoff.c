/* nspa-bench rt: the cost of priority inheritance on a contended NT mutex hand-off.
 * Two SCHED_FIFO threads (priorities 20 and 30, one per CPU) take and release one NT
 * mutex for a fixed time; every contended acquisition boosts the owner (PI on) or not
 * (NSPA_PI=0, read once per process: run.sh runs the modes as separate processes,
 * interleaved). Prints ops/s and the per-hand-off time as RESULT lines.
 * Usage: pi_handoff <seconds> <impl-label> */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "nspa/sync.h"

static nspa_obj_t m;
static _Atomic int stop;
static long counts[2];

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    uint32_t me = nspa_thread_id();
    long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        struct nspa_wait_args a = { .timeout = NSPA_TIMEOUT_INFINITE, .objs = &m, .count = 1, .owner = me };
        if (nspa_wait_any(&a) != 0) break;
        for (volatile int k = 0; k < 200; k++) ;   /* a short critical section */
        struct nspa_mutex_args u = { me, 0 };
        nspa_mutex_unlock(m, &u);
        n++;
    }
    counts[i] = n;
    return NULL;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 1.0;
    const char *impl = argc > 2 ? argv[2] : "nspa";
    struct nspa_mutex_args ma = { 0, 0 };
    if (nspa_create_mutex(&ma, NULL, &m)) return 1;
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&at, SCHED_FIFO);
        struct sched_param sp = { .sched_priority = 20 + 10 * i };
        pthread_attr_setschedparam(&at, &sp);
        cpu_set_t cs;
        CPU_ZERO(&cs);
        CPU_SET(i % 2, &cs);
        pthread_attr_setaffinity_np(&at, sizeof(cs), &cs);
        if (pthread_create(&t[i], &at, worker, (void *)(intptr_t)i)) {
            fprintf(stderr, "pi_handoff: cannot start SCHED_FIFO threads (no permission?)\n");
            return 77;
        }
        pthread_attr_destroy(&at);
    }
    uint64_t t0 = now_ns();
    struct timespec ts = { (time_t)secs, (long)((secs - (long)secs) * 1e9) };
    nanosleep(&ts, NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    double el = (now_ns() - t0) / 1e9;
    double ops = (counts[0] + counts[1]) / el;
    printf("RESULT bench=pi_handoff_ops impl=%s unit=ops/s value=%.0f better=higher\n", impl, ops);
    printf("RESULT bench=pi_handoff_ns impl=%s unit=ns value=%.1f better=lower\n", impl, 1e9 / ops);
    return 0;
}
