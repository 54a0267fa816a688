/* A released mutex whose waiters all sleep is not handed to the sleeping head: the head
 * is woken to take it itself, and a thread of its priority that asks first takes it
 * meanwhile (docs/sync.md, "Who gets a free mutex").
 *  1. S waits and falls asleep; the owner releases and polls again at once: the poll
 *     gets the mutex (S is held at the `wait_woken` test point, woken but not yet
 *     looking). Handed over at the release, the mutex was S's and the poll failed.
 *  2. The owner releases again: S, which never left the queue, takes it.
 *  3. The same with a named mutex whose waiters are all of this process.
 *  4. A sleeping waiter of another process is still handed the mutex at the release
 *     (one that died would never come for it): the poll fails, the child owns it. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "sync_util.h"

#define PAUSE_MS 300

static nspa_obj_t m;
static int s_r = -1;

static void *sleeper(void *arg)
{
    (void)arg;
    s_r = wait_any_ms(&m, 1, 2, 10000, 0, NULL);
    return NULL;
}

/* parts 1-3 on @mutex (owner 1 holds it) */
static void woken_not_handed(nspa_obj_t mutex)
{
    m = mutex;
    s_r = -1;
    pthread_t s;
    REQUIRE(pthread_create(&s, NULL, sleeper, NULL) == 0);
    CHECK(wait_queued(m, 1));
    sleep_ms(100);                           /* S is asleep in the kernel */
    CHECK_EQ(mutex_unlock_as(m, 1, NULL), 0);
    CHECK_EQ(wait_any_ms(&m, 1, 1, 0, 0, NULL), 0);   /* the releaser, asking first */
    uint32_t owner = 0, count = 0;
    CHECK_EQ(mutex_state(m, &owner, &count), 0);
    CHECK_EQ(owner, 1);
    CHECK_EQ(count, 1);
    CHECK_EQ(nspa_obj_waiters(m), 1);        /* S still queued */
    CHECK_EQ(mutex_unlock_as(m, 1, NULL), 0);
    pthread_join(s, NULL);
    CHECK_EQ(s_r, 0);                        /* then S */
    CHECK_EQ(mutex_state(m, &owner, &count), 0);
    CHECK_EQ(owner, 2);
    CHECK_EQ(mutex_unlock_as(m, 2, NULL), 0);
    nspa_close(m);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        nspa_obj_t x;
        if (nspa_open(NSPA_TYPE_MUTEX, "woken-mutex", &x)) return 10;
        if (wait_any_ms(&x, 1, 7, 10000, 0, NULL)) return 11;
        sleep_ms(PAUSE_MS);                  /* the parent looks at the owner meanwhile */
        if (mutex_unlock_as(x, 7, NULL)) return 12;
        return 0;
    }
    /* before the first test point is reached: it reads the list then */
    setenv("NSPA_TEST_PAUSE_AT", "wait_woken:300", 1);   /* PAUSE_MS */
    woken_not_handed(mk_mutex(1, 1));            /* 1, 2 */
    struct nspa_mutex_args a = { 1, 1 };
    nspa_obj_t named;
    CHECK_EQ(nspa_create_mutex(&a, "woken-local", &named), 0);
    woken_not_handed(named);                     /* 3 */

    /* 4: a waiter of another process */
    uint32_t owner = 0, count = 0;
    nspa_obj_t x;
    CHECK_EQ(nspa_create_mutex(&a, "woken-mutex", &x), 0);
    pid_t p = fork();
    if (p == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    REQUIRE(p > 0);
    CHECK(wait_queued(x, 1));
    sleep_ms(100);
    CHECK_EQ(mutex_unlock_as(x, 1, NULL), 0);
    CHECK_EQ(wait_any_ms(&x, 1, 1, 0, 0, NULL), -ETIMEDOUT);
    CHECK_EQ(mutex_state(x, &owner, &count), 0);
    CHECK_EQ(owner, 7);
    int st = 0;
    CHECK_EQ(waitpid(p, &st, 0), p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_close(x);
    return nspa_test_done();
}
