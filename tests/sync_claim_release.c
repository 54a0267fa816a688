/* A wait that is served in its own section hands the object's word back to the fast
 * path. A wait-any on (a, b), where a has a sleeping waiter (so the wait cannot
 * decide without locks and queues on both) and b is signaled, is granted b while it
 * queues. b's queue is empty then, and b must not stay claimed: a claimed word with
 * nobody queued makes every later fast path miss, and nspa_check_namespace reports
 * it ("claimed with no waiters"). Checked for an auto event, a manual event (the
 * "stop" event of a worker pool, set while workers arrive) and a semaphore. */
#include "sync_util.h"

static nspa_obj_t a_ev;

static void *sleeper(void *arg)
{
    (void)arg;
    CHECK_EQ(wait_any_ms(&a_ev, 1, 7, UINT32_MAX, 0, NULL), 0);
    return NULL;
}

/* one round: @b signaled, a waiter asleep on a_ev, then a wait-any on (a_ev, b) */
static void round_with(nspa_obj_t b, const char *what)
{
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, sleeper, NULL) == 0);
    for (int i = 0; i < 5000 && nspa_obj_waiters(a_ev) < 1; i++) usleep(1000);
    CHECK_EQ(nspa_obj_waiters(a_ev), 1);        /* a is claimed: the wait queues */
    nspa_obj_t objs[2] = { a_ev, b };
    uint32_t idx = 99;
    CHECK_EQ(wait_any_ms(objs, 2, 9, 1000, 0, &idx), 0);
    CHECK_EQ(idx, 1);
    CHECK_EQ(nspa_obj_waiters(b), 0);
    int bad = nspa_check_namespace();
    if (bad) fprintf(stderr, "%s: left claimed\n", what);
    CHECK_EQ(bad, 0);
    CHECK_EQ(nspa_event_set(a_ev, NULL), 0);    /* the sleeper goes */
    pthread_join(th, NULL);
    CHECK_EQ(nspa_check_namespace(), 0);
}

int main(void)
{
    struct nspa_event_args aa = { 0, 0 }, auto_set = { 0, 1 }, manual_set = { 1, 1 };
    struct nspa_sem_args sa = { 1, 4 };
    nspa_obj_t ev_auto, ev_manual, sem;
    REQUIRE(nspa_create_event(&aa, "cr-a", &a_ev) == 0);
    REQUIRE(nspa_create_event(&auto_set, "cr-auto", &ev_auto) == 0);
    REQUIRE(nspa_create_event(&manual_set, "cr-manual", &ev_manual) == 0);
    REQUIRE(nspa_create_sem(&sa, "cr-sem", &sem) == 0);
    round_with(ev_auto, "auto event");
    round_with(ev_manual, "manual event");
    round_with(sem, "semaphore");
    CHECK_EQ(sem_count(sem), 0);
    return nspa_test_done();
}
