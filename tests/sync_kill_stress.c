/* Processes killed with SIGKILL at random instants during heavy traffic on shared
 * objects, 200+ rounds: afterwards every object is consistent (nspa_check_namespace),
 * mutual exclusion held throughout (a shared pair (a, b) is equal whenever a mutex is
 * acquired without the abandoned result), nobody is stuck (every worker stops when
 * told), and the objects still work. Kills land inside object locks and wait-alls too
 * (a wait-all over 64 events holds 64 locks); the run counts the object
 * locks taken over from a killed holder (nspa_namespace_stats). */
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "sync_util.h"

#define WORKERS 4
#define ROUNDS 240
#define NWS 64                  /* manual events of the wait-all case */

struct shared {
    volatile uint64_t a, b;
    volatile uint32_t violations;
    volatile uint32_t abandoned_seen;
    volatile uint64_t ops;
};
static struct shared *sh;

static void worker(unsigned seed)
{
    nspa_obj_t m, s, e, stop;
    if (nspa_open(NSPA_TYPE_MUTEX, "ks-mutex", &m) || nspa_open(NSPA_TYPE_SEM, "ks-sem", &s) ||
        nspa_open(NSPA_TYPE_EVENT, "ks-event", &e) || nspa_open(NSPA_TYPE_EVENT, "ks-stop", &stop))
        _exit(2);
    nspa_obj_t ws[NWS];
    for (int k = 0; k < NWS; k++) {
        char n[32];
        snprintf(n, sizeof(n), "ks-w%d", k);
        if (nspa_open(NSPA_TYPE_EVENT, n, &ws[k])) _exit(2);
    }
    uint32_t me = nspa_thread_id();
    for (;;) {
        unsigned r = rand_r(&seed);
        int got = -1;
        switch (r % 7) {
        case 0: {   /* mutex with stop as the alternative */
            nspa_obj_t objs[2] = { m, stop };
            uint32_t idx;
            got = wait_any_ms(objs, 2, me, UINT32_MAX, 0, &idx);
            if ((got == 0 || got == -EOWNERDEAD) && idx == 1) _exit(0);
            break;
        }
        case 1: {   /* wait-all mutex + semaphore */
            nspa_obj_t objs[2] = { s, m };
            got = wait_all_ms(objs, 2, me, 5, 0, NULL);
            if (got == 0 || got == -EOWNERDEAD) { uint32_t c = 1; nspa_sem_release(s, &c); }
            break;
        }
        case 2: {
            uint32_t c = 1;
            nspa_sem_release(s, &c);
            nspa_obj_t objs[2] = { e, s };
            wait_any_ms(objs, 2, me, 2, 0, NULL);
            break;
        }
        case 3:
            nspa_event_set(e, NULL);
            nspa_event_pulse(e, NULL);
            nspa_event_reset(e, NULL);
            break;
        case 4: {   /* private objects come and go */
            nspa_obj_t x = mk_event(r & 1, 0), y;
            nspa_dup(x, &y);
            nspa_close(x);
            nspa_close(y);
            break;
        }
        case 6: {   /* wait-all over 64 manual events: sections under 64 object locks;
                     * one is reset and set again meanwhile (a kill in between leaves it
                     * reset: the next worker here sets it) */
            uint32_t idx, k = (r >> 8) % NWS;
            if (r & 0x10000) {
                nspa_event_reset(ws[k], NULL);
                nspa_event_set(ws[k], NULL);
            } else {
                /* a burst: most of it is spent holding 64 object locks, so a kill
                 * lands inside them often */
                for (int b = 0; b < 4; b++)
                    if (wait_all_ms(ws, NWS, me, 0, 0, &idx) != 0) nspa_event_set(ws[k], NULL);
            }
            break;
        }
        default: {
            nspa_obj_t st = stop;
            if (wait_any_ms(&st, 1, me, 0, 0, NULL) == 0) _exit(0);
            break;
        }
        }
        if (got == 0 || got == -EOWNERDEAD) {
            if (got == -EOWNERDEAD) {
                __atomic_add_fetch(&sh->abandoned_seen, 1, __ATOMIC_RELAXED);
                sh->b = sh->a;          /* repair what the dead owner left half done */
            } else if (sh->a != sh->b) {
                __atomic_add_fetch(&sh->violations, 1, __ATOMIC_RELAXED);
                sh->b = sh->a;
            }
            sh->a++;
            for (volatile int k = 0; k < (int)(r % 200); k++) ;
            sh->b++;
            struct nspa_mutex_args a = { me, 0 };
            if (nspa_mutex_unlock(m, &a)) __atomic_add_fetch(&sh->violations, 1, __ATOMIC_RELAXED);
            sh->ops++;
        }
    }
}

static pid_t spawn(unsigned seed)
{
    pid_t p = fork();
    if (p == 0) worker(seed);
    return p;
}

int main(void)
{
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(sh != MAP_FAILED);
    nspa_obj_t m, s, e, stop;
    struct nspa_mutex_args ma = { 0, 0 };
    struct nspa_sem_args sa = { 2, 4 };
    struct nspa_event_args ea = { 0, 0 }, sta = { 1, 0 };
    REQUIRE(nspa_create_mutex(&ma, "ks-mutex", &m) == 0);
    REQUIRE(nspa_create_sem(&sa, "ks-sem", &s) == 0);
    REQUIRE(nspa_create_event(&ea, "ks-event", &e) == 0);
    REQUIRE(nspa_create_event(&sta, "ks-stop", &stop) == 0);
    nspa_obj_t ws[NWS];
    for (int k = 0; k < NWS; k++) {
        char n[32];
        struct nspa_event_args wa = { 1, 1 };
        snprintf(n, sizeof(n), "ks-w%d", k);
        REQUIRE(nspa_create_event(&wa, n, &ws[k]) == 0);
    }
    pid_t w[WORKERS];
    unsigned seed = 12345;
    for (int i = 0; i < WORKERS; i++) w[i] = spawn(seed + i);
    int killed = 0;
    for (int round = 0; round < ROUNDS; round++) {
        unsigned r = rand_r(&seed);
        struct timespec ts = { 0, (long)(r % 3000) * 1000L };   /* 0-3 ms */
        nanosleep(&ts, NULL);
        int k = (int)(r % WORKERS);
        kill(w[k], SIGKILL);
        int st;
        waitpid(w[k], &st, 0);
        if (WIFSIGNALED(st)) killed++;
        w[k] = spawn(seed + 1000 + (unsigned)round);
    }
    /* stop: every worker must notice and exit (nobody stuck) */
    nspa_event_set(stop, NULL);
    int stuck = 0;
    for (int i = 0; i < WORKERS; i++) {
        int st = 0, done = 0;
        for (int t = 0; t < 1000 && !done; t++) {
            if (waitpid(w[i], &st, WNOHANG) == w[i]) done = 1;
            else sleep_ms(10);
        }
        if (!done) {
            stuck++;
            kill(w[i], SIGKILL);
            waitpid(w[i], &st, 0);
        } else {
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
    }
    struct nspa_ns_stats ns;
    CHECK_EQ(nspa_namespace_stats(&ns), 0);
    printf("rounds %d, killed %d, mutex sections %llu, abandoned seen %u, object locks taken over from "
           "the killed %llu, registry sections rolled back %llu\n", ROUNDS, killed,
           (unsigned long long)sh->ops, sh->abandoned_seen, (unsigned long long)ns.lock_recoveries,
           (unsigned long long)ns.registry_recoveries);
    CHECK_EQ(stuck, 0);
    CHECK_EQ(killed, ROUNDS);
    CHECK_EQ(sh->violations, 0);
    CHECK(ns.lock_recoveries > 0);       /* kills did land inside object locks */
    CHECK(sh->ops > 0);
    /* every object consistent, and still working */
    CHECK_EQ(nspa_check_namespace(), 0);
    int r = wait_any_ms(&m, 1, 99, 1000, 0, NULL);
    CHECK(r == 0 || r == -EOWNERDEAD);
    if (r != 0 && r != -EOWNERDEAD) {
        struct nspa_mutex_args rd;
        int rr = nspa_mutex_read(m, &rd);
        char path[64];
        snprintf(path, sizeof(path), "/proc/%u", rd.owner);
        fprintf(stderr, "final acquire: %d; mutex read %d owner %u count %u; owner %s\n", r, rr, rd.owner,
                rd.count, access(path, F_OK) == 0 ? "exists" : "is gone");
    }
    struct nspa_mutex_args a = { 99, 0 };
    CHECK_EQ(nspa_mutex_unlock(m, &a), 0);
    uint32_t c = 0;
    CHECK_EQ(nspa_sem_release(s, &c), 0);
    CHECK(c <= 4);
    CHECK_EQ(nspa_event_set(e, NULL), 0);
    CHECK_EQ(wait_any_ms(&e, 1, 99, 0, 0, NULL), 0);
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
