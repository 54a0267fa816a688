/* How long a waiter for a held mutex spins before it queues: NSPA_SPIN_US microseconds
 * (docs/sync.md, "Waits"), by the clock. With 100 ms, a waiter whose owner is running
 * is still spinning, not queued, 30 ms later, and takes the mutex by the fast path when
 * it is released (a bound in rounds, 200 of them, queued it within microseconds); with
 * 0 it queues at once. Each setting runs in a process of its own (the variable is read
 * once). Spinning needs a second CPU: with one, the bound is 0 and the first part says
 * SKIP. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sync_util.h"

static nspa_obj_t m;
static volatile int started;
static int w_r = -1;

static void *waiter(void *arg)
{
    (void)arg;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    w_r = wait_any_ms(&m, 1, 2, 10000, 0, NULL);
    return NULL;
}

/* one round with NSPA_SPIN_US=100000: 1 if checked, 0 if this thread overslept (retry) */
static int round_long(void)
{
    m = mk_mutex(1, 1);
    started = 0;
    pthread_t w;
    REQUIRE(pthread_create(&w, NULL, waiter, NULL) == 0);
    while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) sleep_ms(1);
    uint64_t t0 = nspa_time_ns();
    sleep_ms(30);
    int queued = nspa_obj_waiters(m);
    int in_time = nspa_time_ns() - t0 < 80000000ull;   /* well inside the 100 ms */
    CHECK_EQ(mutex_unlock_as(m, 1, NULL), 0);
    pthread_join(w, NULL);
    CHECK_EQ(w_r, 0);
    uint32_t owner = 0, count = 0;
    CHECK_EQ(mutex_state(m, &owner, &count), 0);
    CHECK_EQ(owner, 2);
    CHECK_EQ(mutex_unlock_as(m, 2, NULL), 0);
    nspa_close(m);
    if (!in_time) return 0;
    CHECK_EQ(queued, 0);                     /* still spinning after 30 ms */
    return 1;
}

static void part_zero(void)
{
    m = mk_mutex(1, 1);
    pthread_t w;
    REQUIRE(pthread_create(&w, NULL, waiter, NULL) == 0);
    CHECK(wait_queued(m, 1));                /* queued, without a spin first */
    CHECK_EQ(mutex_unlock_as(m, 1, NULL), 0);
    pthread_join(w, NULL);
    CHECK_EQ(w_r, 0);
    CHECK_EQ(mutex_unlock_as(m, 2, NULL), 0);
    nspa_close(m);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "zero")) {
        part_zero();
        return nspa_test_done();
    }
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        printf("SKIP long spin: one CPU, nobody spins\n");
    } else {
        setenv("NSPA_SPIN_US", "100000", 1);
        int done = 0;
        for (int i = 0; i < 5 && !done; i++) done = round_long();
        CHECK(done);                         /* checked at least once in 5 tries */
    }
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (!pid) {
        setenv("NSPA_SPIN_US", "0", 1);
        execl("/proc/self/exe", argv[0], "zero", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return nspa_test_done();
}
