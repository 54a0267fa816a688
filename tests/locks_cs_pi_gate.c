/* PI critical sections: who boosts whom (docs/locks.md, "PI sections").
 *
 * A waiter whose priority is above the owner's must boost the owner through the kernel
 * (FUTEX_LOCK_PI); a waiter that would not raise the owner sleeps on the section's gate
 * instead, and must still boost when that changes: when the owner drops its own priority,
 * and when the section passes to a lower-priority thread while it sleeps. A thread that
 * owns a section waits through the kernel's queue, so that a boost travels along a chain.
 * Each check reads the owner's effective priority (field 18 of /proc/.../stat, -1 - the
 * RT priority while boosted) from the owner itself. Needs SCHED_FIFO: SKIP (77) without.
 * Cases 1, 3 and 4 run with the gate's periodic re-look off (NSPA_CS_GATE_RECHECK_MS=0),
 * so that a lost wake hangs (the ctest timeout) instead of being rescued by it; case 2
 * needs it and runs in a second process with the default. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

static CRITICAL_SECTION a, b;
static _Atomic int stage;
static _Atomic pid_t tid_of[4];

/* effective priority of the calling thread as the kernel shows it */
static int my_kernel_prio(void)
{
    char buf[512];
    char *p = lu_thread_stat(lu_gettid(), buf, sizeof buf);
    int field = 2, prio = 1000;
    for (char *tok = p ? strtok(p, " ") : NULL; tok; tok = strtok(NULL, " ")) {
        if (++field == 18) {
            prio = atoi(tok);
            break;
        }
    }
    return prio;
}

/* polls (up to 3 s) until the calling thread runs at RT priority rt; 1 when it does */
static int wait_my_prio(int rt)
{
    for (int i = 0; i < 3000; i++) {
        if (my_kernel_prio() == -1 - rt)
            return 1;
        lu_sleep_ms(1);
    }
    fprintf(stderr, "priority %d, expected %d\n", my_kernel_prio(), -1 - rt);
    return 0;
}

static void wait_stage(int s)
{
    while (stage < s)
        lu_sleep_ms(1);
}

/* ---- 1: a higher-priority waiter boosts a SCHED_OTHER owner at once ---- */
static _Atomic int boosted1;
static void *t1_owner(void *arg)
{
    (void)arg;
    tid_of[0] = lu_gettid();
    EnterCriticalSection(&a);
    stage = 1;
    boosted1 = wait_my_prio(60);
    LeaveCriticalSection(&a);
    return NULL;
}
static void *t1_waiter(void *arg)
{
    (void)arg;
    EnterCriticalSection(&a);
    LeaveCriticalSection(&a);
    return NULL;
}

/* ---- 2: an equal-priority waiter sleeps on the gate without boosting; when the owner
 * drops to SCHED_OTHER while holding, the waiter notices and boosts it ---- */
static _Atomic int prio_before2, boosted2;
static void *t2_owner(void *arg)
{
    (void)arg;
    tid_of[0] = lu_gettid();
    EnterCriticalSection(&a);
    stage = 1;
    wait_stage(2);                      /* the waiter sleeps */
    prio_before2 = my_kernel_prio();    /* not boosted: its own -41 */
    lu_set_fifo(pthread_self(), 0);     /* behind NSPA's back */
    boosted2 = wait_my_prio(40);
    LeaveCriticalSection(&a);
    return NULL;
}
static void *t2_waiter(void *arg)
{
    (void)arg;
    tid_of[1] = lu_gettid();
    EnterCriticalSection(&a);
    LeaveCriticalSection(&a);
    return NULL;
}

/* ---- 3: the section passes to a lower-priority thread while a higher-priority gate
 * sleeper sleeps: the sleeper wakes, sees the new owner, boosts it ---- */
static _Atomic int taken3, boosted3;
static void *t3_high_owner(void *arg) /* FIFO 70, CPU 0 */
{
    (void)arg;
    EnterCriticalSection(&a);
    stage = 1;
    wait_stage(3);                      /* the gate sleeper sleeps, the taker spins */
    LeaveCriticalSection(&a);           /* wakes the sleeper, which cannot run yet */
    while (!taken3)                     /* keep CPU 0 until the low thread has it */
        ;
    return NULL;
}
static void *t3_sleeper(void *arg) /* FIFO 60, CPU 0 */
{
    (void)arg;
    tid_of[1] = lu_gettid();
    EnterCriticalSection(&a);
    LeaveCriticalSection(&a);
    return NULL;
}
static void *t3_low_taker(void *arg) /* SCHED_OTHER, CPU 1 */
{
    (void)arg;
    stage = 3;
    while (!TryEnterCriticalSection(&a))
        ;
    taken3 = 1;
    boosted3 = wait_my_prio(60);
    LeaveCriticalSection(&a);
    return NULL;
}

/* ---- 4: a chain: S0 owns a and waits for b (owned by S1), both SCHED_OTHER; a FIFO
 * waiter on a boosts S0 and, through S0's kernel wait, S1 ---- */
static _Atomic int boosted4;
static void *t4_s1(void *arg)
{
    (void)arg;
    EnterCriticalSection(&b);
    stage = 1;
    wait_stage(3);
    boosted4 = wait_my_prio(60);
    LeaveCriticalSection(&b);
    return NULL;
}
static void *t4_s0(void *arg)
{
    (void)arg;
    tid_of[0] = lu_gettid();
    EnterCriticalSection(&a);
    stage = 2;
    EnterCriticalSection(&b);
    LeaveCriticalSection(&b);
    LeaveCriticalSection(&a);
    return NULL;
}

static pthread_t t[4];

/* thread k has published its tid and sleeps (in the kernel, on the gate or the PI word) */
static void wait_tid_sleeping(int k)
{
    while (!tid_of[k])
        lu_sleep_ms(1);
    CHECK(lu_wait_sleeping(tid_of[k]));
}

static void case1(void)
{
    stage = 0;
    REQUIRE(lu_thread(&t[0], t1_owner, NULL, 0, -1) == 0);
    wait_stage(1);
    REQUIRE(lu_thread(&t[1], t1_waiter, NULL, 60, -1) == 0);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    CHECK(boosted1);
}

static void case2(void)
{
    stage = 0;
    tid_of[1] = 0;
    REQUIRE(lu_thread(&t[0], t2_owner, NULL, 40, -1) == 0);
    wait_stage(1);
    REQUIRE(lu_thread(&t[1], t2_waiter, NULL, 40, -1) == 0);
    wait_tid_sleeping(1);
    stage = 2;
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    CHECK_EQ(prio_before2, -41);
    CHECK(boosted2);
}

static void case3(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        printf("case 3 not run: one CPU\n");
        return;
    }
    stage = 0;
    tid_of[1] = 0;
    REQUIRE(lu_thread(&t[0], t3_high_owner, NULL, 70, 0) == 0);
    wait_stage(1);
    REQUIRE(lu_thread(&t[1], t3_sleeper, NULL, 60, 0) == 0);
    wait_tid_sleeping(1);
    REQUIRE(lu_thread(&t[2], t3_low_taker, NULL, 0, 1) == 0);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    pthread_join(t[2], NULL);
    CHECK(boosted3);
}

static void case4(void)
{
    stage = 0;
    tid_of[0] = 0;
    REQUIRE(lu_thread(&t[0], t4_s1, NULL, 0, -1) == 0);
    wait_stage(1);
    REQUIRE(lu_thread(&t[1], t4_s0, NULL, 0, -1) == 0);
    wait_stage(2);
    wait_tid_sleeping(0);
    REQUIRE(lu_thread(&t[2], t1_waiter, NULL, 60, -1) == 0);
    stage = 3;
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    pthread_join(t[2], NULL);
    CHECK(boosted4);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        /* run the two halves, each in a fresh process (the settings are read once) */
        int rc = 0;
        for (int half = 0; half < 2; half++) {
            fflush(NULL);
            pid_t p = fork();
            if (p == 0) {
                setenv("NSPA_RT_PRIO", "80", 1);
                setenv("NSPA_RT_POLICY", "FF", 1);
                unsetenv("NSPA_PI");
                if (half == 0)
                    setenv("NSPA_CS_GATE_RECHECK_MS", "0", 1);
                else
                    unsetenv("NSPA_CS_GATE_RECHECK_MS");
                execl("/proc/self/exe", argv[0], half == 0 ? "wakes" : "recheck", (char *)NULL);
                _exit(127);
            }
            int st = 0;
            waitpid(p, &st, 0);
            int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
            printf("%s: exit %d\n", half == 0 ? "wakes" : "recheck", code);
            if (code == 77)
                return 77;
            rc |= code != 0;
        }
        return rc;
    }
    REQUIRE(nspa_pi_enabled());
    InitializeCriticalSection(&a);
    InitializeCriticalSection(&b);
    if (lu_thread(&t[0], t1_waiter, NULL, 1, -1) != 0) {
        printf("SKIP: SCHED_FIFO not permitted\n");
        return 77;
    }
    pthread_join(t[0], NULL);
    if (!strcmp(argv[1], "recheck")) {
        case2();
    } else {
        case1();
        case3();
        case4();
    }
    DeleteCriticalSection(&a);
    DeleteCriticalSection(&b);
    return nspa_test_done();
}
