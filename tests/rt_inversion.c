/* The textbook priority inversion on NT mutexes, under real-time load:
 *   L  SCHED_OTHER on CPU 0 owns the mutex (for the chain: the tail mutex) and works W;
 *   M  one SCHED_FIFO 50 busy thread per CPU for a bounded time (BOUND_MS);
 *   H  SCHED_FIFO 80 on the last CPU waits: single wait, wait-any, wait-all, or on the
 *      head of a chain of 12 mutexes (holder i owns m[i] and waits on m[i+1], all
 *      SCHED_OTHER on CPU 0, L at the tail).
 * With priority inheritance H waits about L's remaining work: required <= 3 W. With
 * NSPA_PI=0 the medium threads starve L: required >= min(10 W, 0.9 x the time left to
 * the bound). Each mode runs in its own process, up to 3 attempts (a virtual CPU can be
 * stolen by the host); a SCHED_FIFO 99 watchdog ends a hung run. The figures are
 * printed as RESULT lines (docs/rt.md quotes them). */
#include <stdatomic.h>
#include <sys/wait.h>
#include "locks_util.h"
#include "sync_util.h"

#define BOUND_MS 1500
#define WORK_MS  60
#define CHAIN    12

static const char *kinds[] = { "single", "any", "all", "chain12" };
static int kind;
static nspa_obj_t m[CHAIN], ev, sem;
static _Atomic int ready, links_ready;
static _Atomic uint64_t t0, t1;
static long iters;

static void work(long n) { for (volatile long i = 0; i < n; i++) ; }

static void *watchdog(void *a) { lu_sleep_ms(20000); fprintf(stderr, "watchdog: hung\n"); _exit(99); return a; }

static void *medium(void *a)
{
    uint64_t end = *(uint64_t *)a;
    while (lu_now_ns() < end) work(1000);
    return NULL;
}

static void *low(void *a)
{
    uint32_t me = nspa_thread_id();
    nspa_obj_t tail = kind == 3 ? m[CHAIN - 1] : m[0];
    if (wait_any_ms(&tail, 1, me, 0, 0, NULL)) return (void *)1;
    atomic_store(&ready, 1);
    while (atomic_load(&ready) != 2) ;          /* start working when told */
    work(iters);
    struct nspa_mutex_args ma = { me, 0 };
    nspa_mutex_unlock(tail, &ma);
    return a;
}

static void *link_thread(void *a)
{
    int i = (int)(intptr_t)a;                   /* owns m[i], waits on m[i+1] */
    uint32_t me = nspa_thread_id();
    if (wait_any_ms(&m[i], 1, me, 0, 0, NULL)) return (void *)1;
    atomic_fetch_add(&links_ready, 1);
    int r = wait_any_ms(&m[i + 1], 1, me, UINT32_MAX, 0, NULL);
    struct nspa_mutex_args ma = { me, 0 };
    if (r == 0) nspa_mutex_unlock(m[i + 1], &ma);
    ma.owner = me;
    nspa_mutex_unlock(m[i], &ma);
    return a;
}

static void *high(void *a)
{
    uint32_t me = nspa_thread_id();
    uint32_t idx;
    int r;
    t0 = lu_now_ns();
    switch (kind) {
    case 1: { nspa_obj_t o[2] = { ev, m[0] }; r = wait_any_ms(o, 2, me, UINT32_MAX, 0, &idx); break; }
    case 2: { nspa_obj_t o[2] = { sem, m[0] }; r = wait_all_ms(o, 2, me, UINT32_MAX, 0, &idx); break; }
    default: r = wait_any_ms(&m[0], 1, me, UINT32_MAX, 0, &idx); break;
    }
    t1 = lu_now_ns();
    struct nspa_mutex_args ma = { me, 0 };
    if (r == 0) nspa_mutex_unlock(m[0], &ma);
    return a;
}

static int run(int pi)
{
    int ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    pthread_t wd, l, h, mt[2], lk[CHAIN];
    lu_thread(&wd, watchdog, NULL, 99, -1);
    pthread_detach(wd);
    /* calibrate W as L runs when boosted: SCHED_FIFO on CPU 0 */
    lu_pin(0);
    lu_set_fifo(pthread_self(), 90);
    uint64_t t = lu_now_ns();
    work(10000000);
    t = lu_now_ns() - t;
    iters = (long)(10000000.0 * WORK_MS * 1e6 / (double)(t ? t : 1));
    t = lu_now_ns();
    work(iters);
    uint64_t w = lu_now_ns() - t;
    lu_pin(ncpu - 1);
    lu_set_fifo(pthread_self(), 95);

    for (int i = 0; i < CHAIN; i++) m[i] = mk_mutex(0, 0);
    ev = mk_event(0, 0);
    sem = mk_sem(1, 1);
    lu_thread(&l, low, NULL, 0, 0);
    while (!atomic_load(&ready)) lu_sleep_ms(1);
    int nlinks = kind == 3 ? CHAIN - 1 : 0;
    for (int i = nlinks - 1; i >= 0; i--) {     /* from the tail: each finds m[i+1] owned */
        lu_thread(&lk[i], link_thread, (void *)(intptr_t)i, 0, 0);
        while (atomic_load(&links_ready) != nlinks - i) lu_sleep_ms(1);
        REQUIRE(wait_queued(m[i + 1], 1));
    }
    uint64_t deadline = lu_now_ns() + BOUND_MS * 1000000ull;
    for (int i = 0; i < ncpu; i++) lu_thread(&mt[i], medium, &deadline, 50, i);
    atomic_store(&ready, 2);
    lu_thread(&h, high, NULL, 80, ncpu - 1);
    pthread_join(h, NULL);
    uint64_t wait = t1 - t0, left = deadline > t0 ? deadline - t0 : 0;
    for (int i = 0; i < ncpu; i++) pthread_join(mt[i], NULL);
    pthread_join(l, NULL);
    for (int i = 0; i < nlinks; i++) pthread_join(lk[i], NULL);
    lu_set_fifo(pthread_self(), 0);
    int ok;
    uint64_t need = 10 * w < left * 9 / 10 ? 10 * w : left * 9 / 10;
    ok = pi ? wait <= 3 * w : wait >= need;
    printf("RESULT inversion=%s pi=%s work_ms=%.1f wait_ms=%.1f ratio=%.2f need=%s%.1fms %s\n",
           kinds[kind], pi ? "on" : "off", w / 1e6, wait / 1e6, (double)wait / (double)w,
           pi ? "<=" : ">=", (pi ? 3 * w : need) / 1e6, ok ? "ok" : "FAIL");
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc > 2) {   /* child: one run */
        for (kind = 0; kind < 4 && strcmp(kinds[kind], argv[2]); kind++) ;
        return run(!strcmp(argv[1], "pi")) ? 0 : 1;
    }
    struct sched_param sp = { .sched_priority = 1 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP: SCHED_FIFO not permitted here (%s)\n", strerror(errno));
        return 77;
    }
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    for (int k = 0; k < 4; k++) {
        for (int mode = 0; mode < 2; mode++) {
            int passed = 0;
            for (int attempt = 0; attempt < 3 && !passed; attempt++) {
                fflush(NULL);
                pid_t p = fork();
                if (p == 0) {
                    setenv("NSPA_PI", mode == 0 ? "1" : "0", 1);
                    execl("/proc/self/exe", argv[0], mode == 0 ? "pi" : "nopi", kinds[k], (char *)NULL);
                    _exit(127);
                }
                int st = 0;
                waitpid(p, &st, 0);
                passed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
                if (!passed) printf("attempt %d of %s/%s failed (status %d)\n", attempt + 1, kinds[k],
                                    mode == 0 ? "pi" : "nopi", st);
            }
            CHECK(passed);
        }
    }
    return nspa_test_done();
}
