/* A wait-all granted in line by a signaler while the waiter is still queueing on its
 * other objects, with a fast-path taker of those objects in the window: the grant
 * consumes exactly what is there. Test points hold the window open (docs/sync.md,
 * "Test points"): the waiter pauses after it queued on its first object (the event),
 * the signaler's SetEvent grants it in line and pauses after its check, and a taker
 * tries the semaphore (or the mutex) by the fast path meanwhile. The granter claims each
 * word before it reads it, so the taker cannot take what the grant consumes: it finds
 * the word claimed, waits for the lock and times out. (Reading before claiming, the
 * grant consumed the taken unit again: a semaphore's count below zero, a mutex owned by
 * the waiter and the taker at once.) */
#include <pthread.h>
#include <stdlib.h>
#include "sync_util.h"

static nspa_obj_t ev, obj;
static int waiter_r = -1, taker_r = -1;

static void *waiter(void *arg)
{
    (void)arg;
    nspa_obj_t objs[2] = { ev, obj };        /* queued on the event first */
    waiter_r = wait_all_ms(objs, 2, 1001, 5000, 0, NULL);
    return NULL;
}

static void *signaler(void *arg)
{
    (void)arg;
    nspa_event_set(ev, NULL);
    return NULL;
}

static void run(int mutex)
{
    ev = mk_event(0, 0);
    obj = mutex ? mk_mutex(0, 0) : mk_sem(1, 1);
    pthread_t w, s;
    REQUIRE(pthread_create(&w, NULL, waiter, NULL) == 0);
    CHECK(wait_queued(ev, 1));               /* queued on the event; paused before obj */
    REQUIRE(pthread_create(&s, NULL, signaler, NULL) == 0);
    sleep_ms(100);                           /* the signaler is in its pause now */
    taker_r = wait_any_ms(&obj, 1, 2002, 0, 0, NULL);
    pthread_join(s, NULL);
    pthread_join(w, NULL);
    CHECK_EQ(waiter_r, 0);                   /* granted both */
    CHECK_EQ(taker_r, -ETIMEDOUT);           /* the unit was the grant's */
    if (mutex) {
        uint32_t owner = 0, count = 0;
        CHECK_EQ(mutex_state(obj, &owner, &count), 0);
        CHECK_EQ(owner, 1001);
        CHECK_EQ(count, 1);
        CHECK_EQ(mutex_unlock_as(obj, 1001, NULL), 0);
        CHECK_EQ(mutex_unlock_as(obj, 2002, NULL), -EPERM);
    } else {
        CHECK_EQ(sem_count(obj), 0);
    }
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_close(ev);
    nspa_close(obj);
}

int main(void)
{
    /* before the first test point is reached: they read it then */
    setenv("NSPA_TEST_PAUSE_AT", "wait_all_queued_first:400,grant_all_inline_checked:400", 1);
    run(0);
    run(1);
    return nspa_test_done();
}
