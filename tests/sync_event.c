/* Event rules: set/reset return the previous state; pulse is one atomic step. */
#include "sync_util.h"

static nspa_obj_t ev;
static int woke;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;

static void *waiter(void *arg)
{
    (void)arg;
    int r = wait_any_ms(&ev, 1, nspa_thread_id(), 600, 0, NULL);
    pthread_mutex_lock(&lk);
    if (r == 0) woke++;
    pthread_mutex_unlock(&lk);
    return NULL;
}

/* Start n waiters, wait until all are queued (observable: a pulse with none queued
 * would wake nobody), pulse, count who woke. */
static int pulse_wakes(int manual, int n)
{
    pthread_t t[8];
    ev = mk_event(manual, 0);
    woke = 0;
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, waiter, NULL);
    REQUIRE(wait_queued(ev, n));
    uint32_t prev = 9;
    CHECK_EQ(nspa_event_pulse(ev, &prev), 0);
    CHECK_EQ(prev, 0);
    CHECK_EQ(event_signaled(ev), 0);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    nspa_close(ev);
    return woke;
}

int main(void)
{
    nspa_obj_t e;
    struct nspa_event_args a;
    uint32_t prev;

    a = (struct nspa_event_args){ 2, 0 };   /* non-zero is true (ntsync) */
    CHECK_EQ(nspa_create_event(&a, NULL, &e), 0);
    CHECK_EQ(nspa_event_read(e, &a), 0);
    CHECK_EQ(a.manual, 1);
    CHECK_EQ(nspa_close(e), 0);

    for (int manual = 0; manual < 2; manual++) {
        e = mk_event(manual, 0);
        CHECK_EQ(nspa_event_read(e, &a), 0);
        CHECK_EQ(a.manual, (uint32_t)manual);
        CHECK_EQ(a.signaled, 0);
        CHECK_EQ(nspa_event_set(e, &prev), 0);
        CHECK_EQ(prev, 0);
        CHECK_EQ(nspa_event_set(e, &prev), 0);
        CHECK_EQ(prev, 1);
        CHECK_EQ(nspa_event_reset(e, &prev), 0);
        CHECK_EQ(prev, 1);
        CHECK_EQ(nspa_event_reset(e, &prev), 0);
        CHECK_EQ(prev, 0);
        /* a successful wait resets an auto event, leaves a manual one set */
        nspa_event_set(e, NULL);
        CHECK_EQ(wait_any_ms(&e, 1, 1, 0, 0, NULL), 0);
        CHECK_EQ(event_signaled(e), manual);
        /* pulse with no waiter: resets, returns previous state */
        nspa_event_set(e, NULL);
        CHECK_EQ(nspa_event_pulse(e, &prev), 0);
        CHECK_EQ(prev, 1);
        CHECK_EQ(event_signaled(e), 0);
        CHECK_EQ(nspa_event_pulse(e, NULL), 0);
        CHECK_EQ(event_signaled(e), 0);
        nspa_close(e);
    }
    /* pulse wakes at most one waiter of an auto event, every waiter of a manual one */
    CHECK_EQ(pulse_wakes(0, 3), 1);
    CHECK_EQ(pulse_wakes(1, 3), 3);
    return nspa_test_done();
}
