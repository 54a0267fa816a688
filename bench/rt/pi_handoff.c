/* nspa-bench rt: the cost of priority inheritance on a contended NT mutex hand-off.
 * Two SCHED_FIFO threads (priorities 20 and 30, one per CPU) hand one NT mutex back and
 * forth for a fixed time, every acquisition a contended hand-off (see worker()); with PI
 * on (default) or off (NSPA_PI=0, read once per process: run.sh runs the modes as
 * separate processes, interleaved). Prints hand-offs/s and the time per hand-off.
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

/* Forced hand-offs: a thread takes the mutex (blocking: the other holds it), waits
 * until the other thread is queued on it, and releases it. Every acquisition is then a
 * contended hand-off from the releasing owner to the queued waiter, alternately from
 * the priority-20 thread to the priority-30 one (the waiter outranks the owner: PI has
 * something to do) and back. */
static void *worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    uint32_t me = nspa_thread_id();
    long n = 0;
    for (;;) {
        struct nspa_wait_args a = { .timeout = NSPA_TIMEOUT_INFINITE, .objs = &m, .count = 1, .owner = me };
        if (nspa_wait_any(&a) != 0) break;
        n++;
        /* hold it until the other thread waits for it (or the run is over) */
        while (nspa_obj_waiters(m) < 1 && !atomic_load_explicit(&stop, memory_order_relaxed))
            for (volatile int k = 0; k < 50; k++) ;
        struct nspa_mutex_args u = { me, 0 };
        nspa_mutex_unlock(m, &u);
        if (atomic_load_explicit(&stop, memory_order_relaxed)) break;
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
