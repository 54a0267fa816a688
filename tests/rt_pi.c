/* Priority inheritance for NT mutexes, read from the kernel (sched_getattr on the
 * owner's tid) while it is boosted: single wait, wait-any, wait-all, several mutexes,
 * a chain of 12 (half of it in a second process), exact restore of policy/priority/
 * nice after each way the last boosting waiter leaves (success, timeout, kill,
 * abandonment), and an owner that changes its own priority while boosted. */
#include <sys/resource.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "rt_util.h"

/* ---- an owner thread: SCHED_OTHER at nice 3, owns some mutexes until told ---- */
struct owner {
    nspa_obj_t m[4];
    int nm;
    _Atomic uint32_t tid;
    _Atomic int release, done, renice_to, quit;
    pthread_t th;
};

static void *owner_main(void *arg)
{
    struct owner *o = arg;
    setpriority(PRIO_PROCESS, 0, 3);
    uint32_t me = nspa_thread_id();
    for (int i = 0; i < o->nm; i++)
        if (wait_any_ms(&o->m[i], 1, me, 0, 0, NULL) != 0) return (void *)1;
    atomic_store(&o->tid, me);
    while (!atomic_load(&o->release)) {
        int n = atomic_exchange(&o->renice_to, 0);
        if (n) nspa_thread_set_sched(0, SCHED_OTHER, 0, n);
        sleep_ms(1);
    }
    for (int i = 0; i < o->nm; i++) {
        struct nspa_mutex_args a = { me, 0 };
        nspa_mutex_unlock(o->m[i], &a);
    }
    atomic_store(&o->done, 1);
    while (!atomic_load(&o->quit)) sleep_ms(1);   /* stay alive to be inspected */
    return NULL;
}

static void owner_start(struct owner *o)
{
    atomic_store(&o->tid, 0);
    pthread_create(&o->th, NULL, owner_main, o);
    while (!atomic_load(&o->tid)) sleep_ms(1);
}

/* ---- a waiter thread at SCHED_FIFO prio: wait-any / wait-all with a timeout ---- */
struct waiter {
    nspa_obj_t objs[4];
    int n, all, prio;
    uint32_t ms;
    int result;
    pthread_t th;
};

static void *waiter_main(void *arg)
{
    struct waiter *w = arg;
    set_fifo(w->prio);
    uint32_t me = nspa_thread_id();
    w->result = w->all ? wait_all_ms(w->objs, (uint32_t)w->n, me, w->ms, 0, NULL)
                       : wait_any_ms(w->objs, (uint32_t)w->n, me, w->ms, 0, NULL);
    if (w->result == 0 || w->result == -EOWNERDEAD) {
        for (int i = 0; i < w->n; i++) {
            if (nspa_obj_type(w->objs[i]) != NSPA_TYPE_MUTEX) continue;
            struct nspa_mutex_args a = { me, 0 };
            nspa_mutex_unlock(w->objs[i], &a);
            if (!w->all) break;
        }
    }
    return NULL;
}

static void waiter_start(struct waiter *w) { pthread_create(&w->th, NULL, waiter_main, w); }

static int start_nice;          /* the process's nice at start: what the links keep */

static int restored(uint32_t tid, int nice)
{
    for (int i = 0; i < 3000; i++) {
        struct tsched s = sched_of(tid);
        if (s.policy == SCHED_OTHER && s.nice == nice) return 1;
        sleep_ms(1);
    }
    struct tsched s = sched_of(tid);
    fprintf(stderr, "thread %u not restored: policy %d prio %d nice %d (want OTHER nice %d)\n",
            tid, s.policy, s.prio, s.nice, nice);
    return 0;
}

static void test_single_any_all(void)
{
    for (int kind = 0; kind < 3; kind++) {
        struct owner o = { .nm = 1 };
        o.m[0] = mk_mutex(0, 0);
        owner_start(&o);
        struct waiter w = { .prio = 50, .ms = UINT32_MAX };
        nspa_obj_t other = kind == 2 ? mk_sem(1, 1) : mk_event(0, 0);
        if (kind == 0) { w.objs[0] = o.m[0]; w.n = 1; }
        else { w.objs[0] = other; w.objs[1] = o.m[0]; w.n = 2; w.all = kind == 2; }
        waiter_start(&w);
        REQUIRE(wait_queued(o.m[0], 1));
        CHECK(wait_sched(o.tid, SCHED_FIFO, 50));
        /* leaves by success: the owner releases, the waiter takes it */
        atomic_store(&o.release, 1);
        pthread_join(w.th, NULL);
        CHECK_EQ(w.result, 0);
        while (!atomic_load(&o.done)) sleep_ms(1);
        CHECK(restored(o.tid, 3));
        atomic_store(&o.quit, 1);
        pthread_join(o.th, NULL);
        nspa_close(o.m[0]);
        nspa_close(other);
    }
}

static void test_timeout_and_renice(void)
{
    struct owner o = { .nm = 1 };
    o.m[0] = mk_mutex(0, 0);
    owner_start(&o);
    struct waiter w = { .prio = 40, .ms = 400, .n = 1 };
    w.objs[0] = o.m[0];
    waiter_start(&w);
    REQUIRE(wait_queued(o.m[0], 1));
    CHECK(wait_sched(o.tid, SCHED_FIFO, 40));
    /* the owner changes its own setting while boosted: the boost stays... */
    atomic_store(&o.renice_to, 7);
    sleep_ms(50);
    CHECK(wait_sched(o.tid, SCHED_FIFO, 40));
    /* ...and the new setting is what it gets back when the waiter times out */
    pthread_join(w.th, NULL);
    CHECK_EQ(w.result, -ETIMEDOUT);
    CHECK(restored(o.tid, 7));
    atomic_store(&o.release, 1);
    atomic_store(&o.quit, 1);
    pthread_join(o.th, NULL);
}

static void test_several_mutexes(void)
{
    struct owner o = { .nm = 2 };
    o.m[0] = mk_mutex(0, 0);
    o.m[1] = mk_mutex(0, 0);
    owner_start(&o);
    struct waiter lo = { .prio = 30, .ms = 1500, .n = 1 }, hi = { .prio = 60, .ms = 300, .n = 1 };
    lo.objs[0] = o.m[0];
    hi.objs[0] = o.m[1];
    waiter_start(&lo);
    REQUIRE(wait_queued(o.m[0], 1));
    CHECK(wait_sched(o.tid, SCHED_FIFO, 30));
    waiter_start(&hi);
    REQUIRE(wait_queued(o.m[1], 1));
    CHECK(wait_sched(o.tid, SCHED_FIFO, 60));        /* the maximum over both */
    pthread_join(hi.th, NULL);                        /* the high one times out */
    CHECK_EQ(hi.result, -ETIMEDOUT);
    CHECK(wait_sched(o.tid, SCHED_FIFO, 30));        /* the lower boost stays */
    pthread_join(lo.th, NULL);
    CHECK_EQ(lo.result, -ETIMEDOUT);
    CHECK(restored(o.tid, 3));
    atomic_store(&o.release, 1);
    atomic_store(&o.quit, 1);
    pthread_join(o.th, NULL);
}

/* the waiter leaves by abandonment: it waits on {owner's mutex, X's mutex}; X exits */
static nspa_obj_t mx;
static _Atomic int x_go;
static void *x_main(void *arg)
{
    (void)arg;
    if (wait_any_ms(&mx, 1, nspa_thread_id(), 0, 0, NULL) != 0) return (void *)1;
    atomic_store(&x_go, 1);
    while (atomic_load(&x_go) != 2) sleep_ms(1);
    return NULL;   /* exits owning mx: abandoned */
}

static void test_abandonment(void)
{
    struct owner o = { .nm = 1 };
    o.m[0] = mk_mutex(0, 0);
    owner_start(&o);
    mx = mk_mutex(0, 0);
    pthread_t x;
    pthread_create(&x, NULL, x_main, NULL);
    while (!atomic_load(&x_go)) sleep_ms(1);
    struct waiter w = { .prio = 45, .ms = 3000, .n = 2 };
    w.objs[0] = o.m[0];
    w.objs[1] = mx;
    waiter_start(&w);
    REQUIRE(wait_queued(o.m[0], 1));
    CHECK(wait_sched(o.tid, SCHED_FIFO, 45));
    atomic_store(&x_go, 2);
    pthread_join(x, NULL);
    pthread_join(w.th, NULL);
    CHECK_EQ(w.result, -EOWNERDEAD);
    CHECK(restored(o.tid, 3));
    atomic_store(&o.release, 1);
    atomic_store(&o.quit, 1);
    pthread_join(o.th, NULL);
}

/* the waiter leaves by being killed (its process, SIGKILL) */
static void test_kill(void)
{
    struct owner o = { .nm = 1 };
    struct nspa_mutex_args ma = { 0, 0 };
    REQUIRE(nspa_create_mutex(&ma, "pi-kill", &o.m[0]) == 0);
    owner_start(&o);
    pid_t p = fork();
    if (p == 0) {
        nspa_obj_t m;
        if (nspa_open(NSPA_TYPE_MUTEX, "pi-kill", &m)) _exit(1);
        set_fifo(55);
        wait_any_ms(&m, 1, nspa_thread_id(), UINT32_MAX, 0, NULL);
        _exit(2);
    }
    REQUIRE(wait_queued(o.m[0], 1));
    CHECK(wait_sched(o.tid, SCHED_FIFO, 55));
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    CHECK(restored(o.tid, 3));                     /* the reaper noticed */
    CHECK_EQ(nspa_obj_waiters(o.m[0]), 0);
    atomic_store(&o.release, 1);
    atomic_store(&o.quit, 1);
    pthread_join(o.th, NULL);
}

/* ---- a chain of 12: holder[i] owns m[i] and waits on m[i+1]; 6..11 in a child ---- */
#define CHAIN 12
struct chain_shared { _Atomic uint32_t tid[CHAIN]; _Atomic int stop; };
static struct chain_shared *cs;

struct link { int i; };
static void *link_main(void *arg)
{
    int i = ((struct link *)arg)->i;
    char name[32];
    nspa_obj_t mine, next;
    snprintf(name, sizeof(name), "chain-%d", i);
    if (nspa_open(NSPA_TYPE_MUTEX, name, &mine)) return (void *)1;
    uint32_t me = nspa_thread_id();
    if (wait_any_ms(&mine, 1, me, 0, 0, NULL)) return (void *)2;
    atomic_store(&cs->tid[i], me);
    if (i + 1 < CHAIN) {
        snprintf(name, sizeof(name), "chain-%d", i + 1);
        if (nspa_open(NSPA_TYPE_MUTEX, name, &next)) return (void *)3;
        /* wait for the next link to own its mutex, then block on it */
        while (!atomic_load(&cs->tid[i + 1])) sleep_ms(1);
        int r = wait_any_ms(&next, 1, me, UINT32_MAX, 0, NULL);
        if (r == 0 || r == -EOWNERDEAD) {
            struct nspa_mutex_args a = { me, 0 };
            nspa_mutex_unlock(next, &a);
        }
    } else {
        while (!atomic_load(&cs->stop)) sleep_ms(1);   /* the tail "works" */
    }
    struct nspa_mutex_args a = { me, 0 };
    nspa_mutex_unlock(mine, &a);
    return NULL;
}

static void run_links(int from, int to)
{
    pthread_t t[CHAIN];
    struct link l[CHAIN];
    for (int i = from; i < to; i++) {
        l[i].i = i;
        pthread_create(&t[i], NULL, link_main, &l[i]);
    }
    for (int i = from; i < to; i++) pthread_join(t[i], NULL);
}

static void test_chain(void)
{
    cs = mmap(NULL, sizeof(*cs), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    REQUIRE(cs != MAP_FAILED);
    nspa_obj_t m[CHAIN];
    for (int i = 0; i < CHAIN; i++) {
        char name[32];
        snprintf(name, sizeof(name), "chain-%d", i);
        struct nspa_mutex_args a = { 0, 0 };
        REQUIRE(nspa_create_mutex(&a, name, &m[i]) == 0);
    }
    pid_t p = fork();
    if (p == 0) {
        run_links(CHAIN / 2, CHAIN);
        _exit(0);
    }
    pthread_t front;
    struct link dummy = { 0 };
    (void)dummy;
    /* the first half in this process */
    struct { int from, to; } range = { 0, CHAIN / 2 };
    (void)range;
    pthread_t t[CHAIN / 2];
    struct link l[CHAIN / 2];
    for (int i = 0; i < CHAIN / 2; i++) {
        l[i].i = i;
        pthread_create(&t[i], NULL, link_main, &l[i]);
    }
    (void)front;
    /* every link owns its mutex and (but the tail) waits on the next */
    for (int i = 0; i < CHAIN; i++) {
        for (int k = 0; k < 3000 && !atomic_load(&cs->tid[i]); k++) sleep_ms(1);
        REQUIRE(atomic_load(&cs->tid[i]) != 0);
    }
    for (int i = 1; i < CHAIN; i++) REQUIRE(wait_queued(m[i], 1));
    /* a real-time thread waits on the head: the whole chain runs at its priority */
    struct waiter h = { .prio = 70, .ms = 1500, .n = 1 };
    h.objs[0] = m[0];
    waiter_start(&h);
    REQUIRE(wait_queued(m[0], 1));
    int boosted = 0;
    for (int i = 0; i < CHAIN; i++) boosted += wait_sched(cs->tid[i], SCHED_FIFO, 70);
    CHECK_EQ(boosted, CHAIN);
    /* it times out: every link gets its own setting back */
    pthread_join(h.th, NULL);
    CHECK_EQ(h.result, -ETIMEDOUT);
    int back = 0;
    /* their own setting: the nice the test was started with (`nice make test` runs
     * it at 5) */
    for (int i = 0; i < CHAIN; i++) back += restored(cs->tid[i], start_nice);
    CHECK_EQ(back, CHAIN);
    atomic_store(&cs->stop, 1);
    for (int i = 0; i < CHAIN / 2; i++) pthread_join(t[i], NULL);
    int st;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* ---- PI switched off: no boost ---- */
static void test_pi_off(const char *self)
{
    pid_t p = fork();
    if (p == 0) {
        char *envp[] = { "NSPA_PI=0", "NSPA_NAMESPACE=ctest-rt_pi-off", NULL };
        execle(self, self, "pi-off", (char *)NULL, envp);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int pi_off_child(void)
{
    struct owner o = { .nm = 1 };
    o.m[0] = mk_mutex(0, 0);
    owner_start(&o);
    struct waiter w = { .prio = 50, .ms = 200, .n = 1 };
    w.objs[0] = o.m[0];
    waiter_start(&w);
    REQUIRE(wait_queued(o.m[0], 1));
    sleep_ms(50);
    struct tsched s = sched_of(o.tid);
    CHECK_EQ(s.policy, SCHED_OTHER);
    pthread_join(w.th, NULL);
    atomic_store(&o.release, 1);
    atomic_store(&o.quit, 1);
    pthread_join(o.th, NULL);
    return nspa_test_done();
}

int main(int argc, char **argv)
{
    errno = 0;
    start_nice = getpriority(PRIO_PROCESS, 0);
    if (errno) start_nice = 0;
    if (argc > 1 && !strcmp(argv[1], "pi-off")) return pi_off_child();
    if (!can_rt()) {
        printf("SKIP: no permission for SCHED_FIFO here (needs CAP_SYS_NICE or RLIMIT_RTPRIO)\n");
        return 77;
    }
    test_single_any_all();
    test_timeout_and_renice();
    test_several_mutexes();
    test_abandonment();
    test_kill();
    test_chain();
    test_pi_off(argv[0]);
    return nspa_test_done();
}
