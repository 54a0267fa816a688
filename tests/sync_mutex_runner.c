/* Who gets a free mutex: among waiters of the head's priority, a queued waiter that is
 * still running is served before a sleeping head (docs/sync.md, "Who gets a free
 * mutex"). Waiter S queues and falls asleep; waiter R queues behind it and is held at
 * the `wait_queued` test point, queued and running but not yet spinning; the owner
 * releases then. R must own the mutex at once (counting only spinning waiters as
 * running, the release went to the sleeping S). Then R releases and S is served. */
#include <pthread.h>
#include <stdlib.h>
#include "sync_util.h"

#define PAUSE_MS 400

static nspa_obj_t m;
static int s_r = -1, r_r = -1;

static void *sleeper(void *arg)
{
    (void)arg;
    s_r = wait_any_ms(&m, 1, 2, 10000, 0, NULL);
    return NULL;
}

static void *runner(void *arg)
{
    (void)arg;
    r_r = wait_any_ms(&m, 1, 3, 10000, 0, NULL);
    return NULL;
}

int main(void)
{
    /* before the first test point is reached: it reads the list then */
    setenv("NSPA_TEST_PAUSE_AT", "wait_queued:400", 1);   /* PAUSE_MS */
    m = mk_mutex(1, 1);
    pthread_t s, r;
    REQUIRE(pthread_create(&s, NULL, sleeper, NULL) == 0);
    CHECK(wait_queued(m, 1));
    sleep_ms(PAUSE_MS + 200);                /* S has passed the point and sleeps */
    REQUIRE(pthread_create(&r, NULL, runner, NULL) == 0);
    CHECK(wait_queued(m, 2));                /* R queued: in its pause, running */
    CHECK_EQ(mutex_unlock_as(m, 1, NULL), 0);
    uint32_t owner = 0, count = 0;
    CHECK_EQ(mutex_state(m, &owner, &count), 0);
    CHECK_EQ(owner, 3);                      /* the running waiter, past the sleeping head */
    CHECK_EQ(count, 1);
    pthread_join(r, NULL);
    CHECK_EQ(r_r, 0);
    CHECK_EQ(mutex_unlock_as(m, 3, NULL), 0);
    pthread_join(s, NULL);
    CHECK_EQ(s_r, 0);                        /* then the sleeper, still in the queue */
    CHECK_EQ(mutex_state(m, &owner, &count), 0);
    CHECK_EQ(owner, 2);
    CHECK_EQ(mutex_unlock_as(m, 2, NULL), 0);
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_close(m);
    return nspa_test_done();
}
