/* Who wakes, in which order, with which result: priority order (SCHED_FIFO above
 * SCHED_OTHER, higher first), FIFO among equals, for wait-any and wait-all; a release
 * of n wakes n; a mutex hand-off goes to the highest waiter. */
#include <sched.h>
#include "sync_util.h"

#define NW 7
static nspa_obj_t obj, obj2;
static int order[NW], norder;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static int use_all, use_mutex;

struct warg { int id; int prio; };

static void *waiter(void *p)
{
    struct warg *w = p;
    /* explicit: threads inherit the creator's (real-time) policy */
    struct sched_param sp = { .sched_priority = w->prio };
    pthread_setschedparam(pthread_self(), w->prio ? SCHED_FIFO : SCHED_OTHER, &sp);
    uint32_t owner = nspa_thread_id();
    int r;
    if (use_all) {
        nspa_obj_t both[2] = { obj, obj2 };
        r = wait_all_ms(both, 2, owner, 5000, 0, NULL);
    } else {
        r = wait_any_ms(&obj, 1, owner, 5000, 0, NULL);
    }
    pthread_mutex_lock(&lk);
    if (r == 0) order[norder++] = w->id;
    pthread_mutex_unlock(&lk);
    if (r == 0 && use_mutex) {
        struct nspa_mutex_args a = { owner, 0 };
        sleep_ms(5);
        nspa_mutex_unlock(obj, &a);
    }
    return NULL;
}

/* Start waiters in the given order (each queued before the next starts), then
 * release one at a time and record the wake order. */
static void run(const int *prios, int n, const char *what)
{
    pthread_t t[NW];
    struct warg w[NW];
    norder = 0;
    for (int i = 0; i < n; i++) {
        w[i].id = i;
        w[i].prio = prios[i];
        pthread_create(&t[i], NULL, waiter, &w[i]);
        REQUIRE(wait_queued(obj, i + 1));
    }
    for (int i = 0; i < n; i++) {
        if (use_mutex) {
            if (i == 0) {
                struct nspa_mutex_args a = { 1, 0 };
                nspa_mutex_unlock(obj, &a);
            }
        } else {
            uint32_t c = 1;
            nspa_sem_release(obj, &c);
            if (use_all) { c = 1; nspa_sem_release(obj2, &c); }
        }
        /* the next release only once this one's waiter has left the queue */
        for (int k = 0; k < 5000 && nspa_obj_waiters(obj) > n - 1 - i; k++) sleep_ms(1);
        {   /* and the woken thread recorded itself (for a mutex: and unlocks) */
            for (int k = 0; k < 5000; k++) {
                pthread_mutex_lock(&lk);
                int done = norder > i;
                pthread_mutex_unlock(&lk);
                if (done) break;
                sleep_ms(1);
            }
        }
    }
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    CHECK_EQ(norder, n);
    /* expected: by priority descending, FIFO (start order) among equals */
    int exp[NW], used[NW] = { 0 };
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!used[i] && (best < 0 || prios[i] > prios[best])) best = i;
        used[best] = 1;
        exp[k] = best;
    }
    for (int k = 0; k < n; k++) {
        if (order[k] != exp[k])
            fprintf(stderr, "%s: wake %d was waiter %d, expected %d\n", what, k, order[k], exp[k]);
        CHECK_EQ(order[k], exp[k]);
    }
}

int main(void)
{
    /* the seven standard thread priorities in RT mode with NSPA_RT_PRIO=80, started
     * lowest first */
    const int std7[NW] = { 65, 71, 72, 73, 74, 75, 80 };
    const int mixed[NW] = { 0, 10, 0, 10, 30, 0, 30 };
    const int equal[NW] = { 0, 0, 0, 0, 0, 0, 0 };
    struct sched_param sp = { .sched_priority = 90 };
    int rt = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
    if (!rt) {
        printf("SKIP priority order: no permission for SCHED_FIFO; FIFO order only\n");
    }
    obj = mk_sem(0, 100);
    obj2 = mk_sem(0, 100);
    if (rt) {
        run(std7, NW, "any std7");
        run(mixed, NW, "any mixed");
    }
    run(equal, NW, "any fifo");
    use_all = 1;
    if (rt) run(mixed, NW, "all mixed");
    run(equal, NW, "all fifo");
    use_all = 0;
    /* mutex hand-off: owner 1 releases; each waiter takes it in priority order */
    nspa_close(obj);
    obj = mk_mutex(1, 1);
    use_mutex = 1;
    if (rt) run(mixed, NW, "mutex mixed");
    else run(equal, NW, "mutex fifo");
    use_mutex = 0;
    /* a release of n wakes n */
    nspa_close(obj);
    obj = mk_sem(0, 100);
    pthread_t t[4];
    struct warg w[4];
    norder = 0;
    for (int i = 0; i < 4; i++) { w[i] = (struct warg){ i, 0 }; pthread_create(&t[i], NULL, waiter, &w[i]); }
    REQUIRE(wait_queued(obj, 4));
    uint32_t c = 3;
    CHECK_EQ(nspa_sem_release(obj, &c), 0);
    CHECK_EQ(nspa_obj_waiters(obj), 1);   /* granted at the release, atomically */
    for (int k = 0; k < 5000; k++) {
        pthread_mutex_lock(&lk);
        int d = norder;
        pthread_mutex_unlock(&lk);
        if (d >= 3) break;
        sleep_ms(1);
    }
    sleep_ms(50);
    CHECK_EQ(norder, 3);
    CHECK_EQ(sem_count(obj), 0);
    c = 1;
    nspa_sem_release(obj, &c);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK_EQ(norder, 4);
    sp.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
    return nspa_test_done();
}
