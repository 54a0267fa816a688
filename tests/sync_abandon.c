/* A mutex is abandoned when its owning thread exits or its process dies (SIGKILL
 * included); waiters, also in other processes, wake with EOWNERDEAD. */
#include <signal.h>
#include <sys/wait.h>
#include "sync_util.h"

static nspa_obj_t m1, m2;

static void *owner_exits(void *arg)
{
    (void)arg;
    uint32_t me = nspa_thread_id();
    if (wait_any_ms(&m1, 1, me, 0, 0, NULL) != 0) return (void *)1;
    if (wait_any_ms(&m1, 1, me, 0, 0, NULL) != 0) return (void *)1;   /* count 2 */
    if (wait_any_ms(&m2, 1, me, 0, 0, NULL) != 0) return (void *)1;
    return NULL;   /* exits owning both */
}

static int waiter_result;
static void *waiter(void *arg)
{
    nspa_obj_t m = *(nspa_obj_t *)arg;
    uint32_t idx;
    waiter_result = wait_any_ms(&m, 1, nspa_thread_id(), 5000, 0, &idx);
    return NULL;
}

int main(void)
{
    uint32_t idx;
    struct nspa_mutex_args ma;
    /* 1. a thread that exits owning mutexes: abandoned (the next acquirer is told) */
    m1 = mk_mutex(0, 0);
    m2 = mk_mutex(0, 0);
    pthread_t t;
    void *ret;
    pthread_create(&t, NULL, owner_exits, NULL);
    pthread_join(t, &ret);
    CHECK(ret == NULL);
    CHECK_EQ(nspa_mutex_read(m1, &ma), -EOWNERDEAD);
    CHECK_EQ(ma.owner, 0);
    CHECK_EQ(wait_any_ms(&m1, 1, 1, 0, 0, &idx), -EOWNERDEAD);
    CHECK_EQ(wait_any_ms(&m2, 1, 1, 0, 0, &idx), -EOWNERDEAD);
    CHECK_EQ(nspa_mutex_read(m1, &ma), 0);
    CHECK_EQ(ma.owner, 1);
    CHECK_EQ(ma.count, 1);

    /* 2. a waiter blocked on a mutex whose owner thread exits is woken abandoned */
    nspa_obj_t m3 = mk_mutex(0, 0);
    struct nspa_mutex_args cargs = { 0, 0 };
    (void)cargs;
    pthread_t w;
    m1 = m3;
    m2 = mk_mutex(0, 0);
    /* owner thread takes m3 and exits after the waiter queued */
    pthread_create(&t, NULL, owner_exits, NULL);
    pthread_join(t, NULL);
    CHECK_EQ(wait_any_ms(&m3, 1, 1, 0, 0, NULL), -EOWNERDEAD);   /* abandoned already */
    /* now hold it from a child process that is killed while we wait */
    nspa_obj_t pm;
    struct nspa_mutex_args pa = { 0, 0 };
    REQUIRE(nspa_create_mutex(&pa, "abandon-me", &pm) == 0);
    nspa_obj_t ready;
    struct nspa_event_args ea = { 1, 0 };
    REQUIRE(nspa_create_event(&ea, "abandon-ready", &ready) == 0);
    pid_t p = fork();
    if (p == 0) {
        nspa_obj_t cm, cr;
        if (nspa_open(NSPA_TYPE_MUTEX, "abandon-me", &cm)) _exit(1);
        if (nspa_open(NSPA_TYPE_EVENT, "abandon-ready", &cr)) _exit(2);
        if (wait_any_ms(&cm, 1, nspa_thread_id(), 0, 0, NULL)) _exit(3);
        nspa_event_set(cr, NULL);
        for (;;) pause();   /* holds the mutex until killed */
    }
    CHECK_EQ(wait_any_ms(&ready, 1, 1, 5000, 0, NULL), 0);
    pthread_create(&w, NULL, waiter, &pm);
    REQUIRE(wait_queued(pm, 1));
    kill(p, SIGKILL);
    int st;
    waitpid(p, &st, 0);
    pthread_join(w, NULL);
    CHECK_EQ(waiter_result, -EOWNERDEAD);
    /* the waiter thread took it and has exited since: abandoned again */
    CHECK_EQ(nspa_mutex_read(pm, &ma), -EOWNERDEAD);

    /* 3. the same with the waiter in another process, across wait-all */
    nspa_event_reset(ready, NULL);
    p = fork();
    if (p == 0) {
        nspa_obj_t cm, cr;
        if (nspa_open(NSPA_TYPE_MUTEX, "abandon-me", &cm)) _exit(1);
        if (nspa_open(NSPA_TYPE_EVENT, "abandon-ready", &cr)) _exit(2);
        int r = wait_any_ms(&cm, 1, nspa_thread_id(), 2000, 0, NULL);
        if (r != 0 && r != -EOWNERDEAD) _exit(3);
        nspa_event_set(cr, NULL);
        for (;;) pause();
    }
    CHECK_EQ(wait_any_ms(&ready, 1, 1, 5000, 0, NULL), 0);
    pid_t q = fork();
    if (q == 0) {
        nspa_obj_t cm, sem;
        struct nspa_sem_args sa = { 1, 1 };
        if (nspa_open(NSPA_TYPE_MUTEX, "abandon-me", &cm)) _exit(1);
        if (nspa_create_sem(&sa, NULL, &sem)) _exit(2);
        nspa_obj_t both[2] = { sem, cm };
        uint32_t i2;
        int r = wait_all_ms(both, 2, nspa_thread_id(), 5000, 0, &i2);
        _exit(r == -EOWNERDEAD && i2 == 1 ? 0 : 10 + (r < 0 ? -r : r));
    }
    REQUIRE(wait_queued(pm, 1));
    kill(p, SIGKILL);
    waitpid(p, &st, 0);
    waitpid(q, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) fprintf(stderr, "wait-all child: status %d\n", st);
    return nspa_test_done();
}
