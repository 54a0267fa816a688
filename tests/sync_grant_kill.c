/* A granter killed between a wait-all grant it made for a waiter of another process
 * and that waiter's wake. The child process dies there by SIGKILL
 * (NSPA_TEST_DIE_AT=grant_all_inline), holding the lock of the object it was serving.
 * The grant stands, the waiter is woken by the next operation on that object (nobody
 * else owes it a wake), and the recovery leaves every object as the grant and the
 * operations after it made it:
 *  - mutex: the child owns M; W waits for all of (S, M); the child releases M, grants
 *    W inline and dies. W gets both and releases M. M then stays free: a recovery that
 *    wrote the grant's word back would make M owned by W again, which no longer knows
 *    it (the stuck mutex the kill stress found now and then).
 *  - event: W waits for all of (S, E); the child sets E, grants W and dies. W sleeps
 *    until the parent's next operation on E, a ResetEvent, which must take E's lock,
 *    recover it and wake W. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sync_util.h"

static nspa_obj_t S, M, E, READY, GO;

static void open_all(const char *mode)
{
    char n[64];
    snprintf(n, sizeof(n), "gk-s-%s", mode);
    if (nspa_open(NSPA_TYPE_SEM, n, &S)) _exit(2);
    snprintf(n, sizeof(n), "gk-m-%s", mode);
    if (nspa_open(NSPA_TYPE_MUTEX, n, &M)) _exit(2);
    snprintf(n, sizeof(n), "gk-e-%s", mode);
    if (nspa_open(NSPA_TYPE_EVENT, n, &E)) _exit(2);
    snprintf(n, sizeof(n), "gk-ready-%s", mode);
    if (nspa_open(NSPA_TYPE_EVENT, n, &READY)) _exit(2);
    snprintf(n, sizeof(n), "gk-go-%s", mode);
    if (nspa_open(NSPA_TYPE_EVENT, n, &GO)) _exit(2);
}

/* the granter: returns only if the die point was not reached */
static int granter(const char *mode)
{
    open_all(mode);
    uint32_t me = nspa_thread_id();
    int mutex = !strcmp(mode, "mutex");
    if (mutex && wait_any_ms(&M, 1, me, 5000, 0, NULL) != 0) return 2;
    nspa_event_set(READY, NULL);
    if (wait_any_ms(&GO, 1, me, 10000, 0, NULL) != 0) return 2;
    if (mutex) mutex_unlock_as(M, me, NULL);
    else nspa_event_set(E, NULL);
    return 3;                                  /* alive: the die point was not reached */
}

struct waiter { const char *mode; int got, unlocked; };

static void *waiter_main(void *arg)
{
    struct waiter *w = arg;
    uint32_t me = nspa_thread_id();
    nspa_obj_t objs[2] = { S, !strcmp(w->mode, "mutex") ? M : E };
    w->got = wait_all_ms(objs, 2, me, 10000, 0, NULL);
    w->unlocked = objs[1] == M && w->got == 0 ? mutex_unlock_as(M, me, NULL) : 0;
    return NULL;
}

static void run(const char *self, const char *mode)
{
    char n[64];
    int mutex = !strcmp(mode, "mutex");
    struct nspa_sem_args sa = { 1, 1 };
    struct nspa_mutex_args ma = { 0, 0 };
    struct nspa_event_args ea = { 0, 0 }, ra = { 1, 0 };
    snprintf(n, sizeof(n), "gk-s-%s", mode);
    REQUIRE(nspa_create_sem(&sa, n, &S) == 0);
    snprintf(n, sizeof(n), "gk-m-%s", mode);
    REQUIRE(nspa_create_mutex(&ma, n, &M) == 0);
    snprintf(n, sizeof(n), "gk-e-%s", mode);
    REQUIRE(nspa_create_event(&ea, n, &E) == 0);
    snprintf(n, sizeof(n), "gk-ready-%s", mode);
    REQUIRE(nspa_create_event(&ra, n, &READY) == 0);
    snprintf(n, sizeof(n), "gk-go-%s", mode);
    REQUIRE(nspa_create_event(&ra, n, &GO) == 0);

    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        setenv("NSPA_TEST_DIE_AT", "grant_all_inline", 1);
        execl(self, self, mode, (char *)NULL);
        _exit(4);
    }
    CHECK_EQ(wait_any_ms(&READY, 1, 1, 10000, 0, NULL), 0);
    struct nspa_ns_stats before;
    CHECK_EQ(nspa_namespace_stats(&before), 0);
    struct waiter w = { mode, -1, -1 };
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, waiter_main, &w) == 0);
    CHECK(wait_queued(mutex ? M : E, 1));
    nspa_event_set(GO, NULL);
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);      /* died at the die point */
    if (!WIFSIGNALED(st)) printf("%s: the granter exited with %d instead\n", mode, WEXITSTATUS(st));

    if (mutex) {
        /* W watches the owner it waited for: its death wakes W, granted */
        CHECK_EQ(pthread_join(th, NULL), 0);
    } else {
        /* nobody but the next locker of E owes W its wake: the reset is that */
        sleep_ms(50);
        CHECK_EQ(nspa_event_reset(E, NULL), 0);
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 3;
        int j = pthread_timedjoin_np(th, NULL, &dl);
        CHECK_EQ(j, 0);                        /* woken by the reset, not by its 10 s timeout */
        if (j) pthread_join(th, NULL);
    }
    CHECK_EQ(w.got, 0);
    CHECK_EQ(w.unlocked, 0);
    CHECK_EQ(sem_count(S), 0);                 /* W took S */
    if (mutex) {
        /* a locker of M (a wait-all that must take its lock) finds the dead holder */
        nspa_obj_t objs[2] = { M, E };
        CHECK_EQ(wait_all_ms(objs, 2, 99, 20, 0, NULL), -ETIMEDOUT);
        uint32_t owner = 77, count = 77;
        CHECK_EQ(mutex_state(M, &owner, &count), 0);
        CHECK_EQ(owner, 0);                    /* W released it: nobody owns it */
        CHECK_EQ(wait_any_ms(&M, 1, 99, 0, 0, NULL), 0);
        CHECK_EQ(mutex_unlock_as(M, 99, NULL), 0);
    }
    struct nspa_ns_stats after;
    CHECK_EQ(nspa_namespace_stats(&after), 0);
    CHECK(after.lock_recoveries > before.lock_recoveries);    /* the dead holder's lock */
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_obj_t all[5] = { S, M, E, READY, GO };
    for (int i = 0; i < 5; i++) nspa_close(all[i]);
}

int main(int argc, char **argv)
{
    if (argc > 1) return granter(argv[1]);
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(k > 0);
    self[k] = 0;
    run(self, "mutex");
    run(self, "event");
    return nspa_test_done();
}
