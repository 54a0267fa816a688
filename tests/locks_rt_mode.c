/* RT mode switch: NSPA_RT_PRIO / NSPA_RT_POLICY / NSPA_PI parsing (read once), and the
 * per-thread real-time cache (nspa_thread_is_rt, refreshed by nspa_thread_rt_refresh). */
#include "locks_util.h"
#include "nspa_test.h"

struct env_case { const char *prio, *policy, *pi; int rt, pi_on, prio_val; };

static const struct env_case cases[] = {
    { NULL, NULL, NULL, 0, 0, 0 },
    { "80", NULL, NULL, 1, 1, 80 },
    { "80", "FF", NULL, 1, 1, 80 },
    { "80", "RR", NULL, 1, 1, 80 },
    { "80", "TS", NULL, 0, 0, 0 },
    { "80", "ts", NULL, 0, 0, 0 },
    { "1", NULL, NULL, 1, 1, 1 },
    { "98", NULL, NULL, 1, 1, 98 },
    { "99", NULL, NULL, 0, 0, 0 },
    { "0", NULL, NULL, 0, 0, 0 },
    { "abc", NULL, NULL, 0, 0, 0 },
    { "", NULL, NULL, 0, 0, 0 },
    { "80", "FF", "0", 1, 0, 80 },
    { "80", "FF", "1", 1, 1, 80 },
    { NULL, NULL, "1", 0, 0, 0 },
};

static void *other_thread(void *arg)
{
    int *res = arg;
    res[0] = nspa_thread_is_rt();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 5) { /* child: report what the library decided */
        int ok = nspa_rt_enabled() == atoi(argv[1]) && nspa_pi_enabled() == atoi(argv[2]) &&
                 nspa_rt_prio() == atoi(argv[3]);
        /* the environment is read once: changing it later changes nothing */
        setenv("NSPA_RT_PRIO", "50", 1);
        setenv("NSPA_PI", "0", 1);
        ok = ok && nspa_rt_enabled() == atoi(argv[1]) && nspa_pi_enabled() == atoi(argv[2]);
        return ok ? 0 : 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct env_case *c = &cases[i];
        pid_t p = fork();
        if (p == 0) {
            char a[8], b[8], d[8];
            c->prio ? setenv("NSPA_RT_PRIO", c->prio, 1) : unsetenv("NSPA_RT_PRIO");
            c->policy ? setenv("NSPA_RT_POLICY", c->policy, 1) : unsetenv("NSPA_RT_POLICY");
            c->pi ? setenv("NSPA_PI", c->pi, 1) : unsetenv("NSPA_PI");
            snprintf(a, sizeof a, "%d", c->rt);
            snprintf(b, sizeof b, "%d", c->pi_on);
            snprintf(d, sizeof d, "%d", c->prio_val);
            execl("/proc/self/exe", argv[0], a, b, d, "x", (char *)NULL);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
            fprintf(stderr, "case %zu (prio=%s policy=%s pi=%s) wrong\n", i,
                    c->prio ? c->prio : "-", c->policy ? c->policy : "-", c->pi ? c->pi : "-");
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }

    /* per-thread decision: this thread becomes SCHED_FIFO, another stays SCHED_OTHER */
    CHECK_EQ(nspa_thread_is_rt(), 0);
    CHECK_EQ(nspa_thread_rt_priority(), 0);
    if (lu_set_fifo(pthread_self(), 10) == 0) {
        CHECK_EQ(nspa_thread_is_rt(), 0);          /* cached until refreshed */
        nspa_thread_rt_refresh();
        CHECK_EQ(nspa_thread_is_rt(), 1);
        CHECK_EQ(nspa_thread_rt_priority(), 10);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
        pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
        struct sched_param sp = { 0 };
        pthread_attr_setschedparam(&attr, &sp);
        int res[1] = { -1 };
        pthread_t t;
        CHECK_EQ(pthread_create(&t, &attr, other_thread, res), 0);
        pthread_join(t, NULL);
        CHECK_EQ(res[0], 0);                       /* decided per thread */
        CHECK_EQ(nspa_thread_is_rt(), 1);
        lu_set_fifo(pthread_self(), 0);
        nspa_thread_rt_refresh();
        CHECK_EQ(nspa_thread_is_rt(), 0);
    } else {
        printf("SKIP per-thread RT part: SCHED_FIFO not permitted\n");
    }
    return nspa_test_done();
}
