/* ntsync-dN <depth> <rapid threads> <rapid iterations> <PI rounds> <waiters> [PI work]:
 * five sub-tests on NT (kernel-style) mutexes, as the seed harness's ntsync tests:
 *  1 PI contention: like cs-contention with CreateMutex (<PI rounds> rounds, load)
 *  2 rapid mutex: threads x iterations Wait/++/Release, counter exact
 *  3 priority-ordered wakeup: min(waiters, 7) waiters at the standard priorities,
 *    started lowest first, released one at a time: highest first (RT mode; without
 *    real-time scheduling the priorities do not reach Linux and the order is reported)
 *  4 transitive chain: holder[i] owns mutex[i] and blocks on mutex[i+1], the tail
 *    works, a TIME_CRITICAL thread waits on mutex[0]
 *  5 mixed WaitForMultipleObjects any/all over mutexes, events and semaphores */
#include "suite.h"

static int nfail;
static void sub(int n, const char *name, int ok, const char *why)
{
    printf("  [%d] %s: %s%s%s\n", n, name, ok ? "ok" : "FAILED", ok ? "" : " - ", ok ? "" : why);
    if (!ok) nfail++;
}

/* ---- 1: PI contention ------------------------------------------------------------ */
static HANDLE mtx, held;
static long long pi_work;
static double pi_wait;

static DWORD WINAPI pi_holder(LPVOID arg)
{
    WaitForSingleObject(mtx, INFINITE);
    SetEvent(held);
    for (long long done = 0; done < pi_work; done += 32000000) {
        suite_work(pi_work - done < 32000000 ? pi_work - done : 32000000);
        Sleep(0);
    }
    ReleaseMutex(mtx);
    return 0;
}

static DWORD WINAPI pi_waiter(LPVOID arg)
{
    double t0 = suite_now_us();
    if (WaitForSingleObject(mtx, INFINITE) != WAIT_OBJECT_0) return 1;
    pi_wait = suite_now_us() - t0;
    ReleaseMutex(mtx);
    return 0;
}

static void sub_pi(int rounds)
{
    double w[256];
    int got = 0;
    mtx = CreateMutexA(NULL, FALSE, NULL);
    held = CreateEventA(NULL, FALSE, FALSE, NULL);
    for (int r = 0; r < rounds && r < 256; r++) {
        pi_wait = -1;
        HANDLE h = suite_thread(pi_holder, NULL, THREAD_PRIORITY_NORMAL);
        if (WaitForSingleObject(held, 30000) != WAIT_OBJECT_0) break;
        HANDLE wt = suite_thread(pi_waiter, NULL, THREAD_PRIORITY_TIME_CRITICAL);
        suite_join(wt);
        suite_join(h);
        if (pi_wait < 0) break;
        w[got++] = pi_wait / 1000;
    }
    CloseHandle(mtx);
    CloseHandle(held);
    suite_stats s = suite_stat(w, got);
    suite_fig("s1.samples", got, "count", "info", "1 PI contention: samples");
    suite_fig("s1.avg_wait", s.avg, "ms", "lower", "1 PI contention: avg wait");
    suite_fig("s1.min_wait", s.min, "ms", "lower", "1 PI contention: min wait");
    suite_fig("s1.max_wait", s.max, "ms", "lower", "1 PI contention: max wait");
    suite_samples("s1.wait", "ms", w, got);
    sub(1, "PI contention (kernel mutex)", got == rounds, "a round did not complete");
}

/* ---- 2: rapid --------------------------------------------------------------------- */
static volatile long long counter;
static long long rapid_iters;
static double rapid_max[64];
static HANDLE go;

static DWORD WINAPI rapid_main(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    WaitForSingleObject(go, INFINITE);
    for (long long k = 0; k < rapid_iters; k++) {
        double t0 = suite_now_us();
        if (WaitForSingleObject(mtx, INFINITE) != WAIT_OBJECT_0) return 1;
        double w = suite_now_us() - t0;
        counter++;
        ReleaseMutex(mtx);
        if (w > rapid_max[i]) rapid_max[i] = w;
    }
    return 0;
}

static void sub_rapid(int n)
{
    HANDLE h[64];
    mtx = CreateMutexA(NULL, FALSE, NULL);
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    counter = 0;
    for (int i = 0; i < n; i++)
        h[i] = suite_thread(rapid_main, (void *)(intptr_t)i, i == 0 ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_NORMAL);
    Sleep(20);
    double t0 = suite_now_us();
    SetEvent(go);
    for (int i = 0; i < n; i++) suite_join(h[i]);
    double el = suite_now_us() - t0;
    CloseHandle(mtx);
    CloseHandle(go);
    suite_fig("s2.throughput", n * rapid_iters / (el / 1e6), "ops/s", "higher", "2 Rapid kernel mutex: throughput");
    suite_fig("s2.rt_max_wait", rapid_max[0], "us", "lower", "2 Rapid kernel mutex: RT max wait");
    suite_fig("s2.counter", (double)counter, "count", "info", "2 Rapid kernel mutex: counter");
    char why[96];
    snprintf(why, sizeof why, "counter %lld, expected %lld", counter, n * rapid_iters);
    sub(2, "rapid kernel mutex", counter == n * rapid_iters, why);
}

/* ---- 3: priority-ordered wakeup --------------------------------------------------- */
static const int prios[7] = { THREAD_PRIORITY_IDLE, THREAD_PRIORITY_LOWEST, THREAD_PRIORITY_BELOW_NORMAL,
                              THREAD_PRIORITY_NORMAL, THREAD_PRIORITY_ABOVE_NORMAL,
                              THREAD_PRIORITY_HIGHEST, THREAD_PRIORITY_TIME_CRITICAL };
static volatile LONG order_next;
static int order[7];

static DWORD WINAPI prio_waiter(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    if (WaitForSingleObject(mtx, 10000) != WAIT_OBJECT_0) return 1;
    order[InterlockedIncrement(&order_next) - 1] = i;
    ReleaseMutex(mtx);
    return 0;
}

static void sub_prio(int n)
{
    HANDLE h[7];
    int first = 7 - n;   /* the n highest of the standard priorities */
    mtx = CreateMutexA(NULL, TRUE, NULL);
    order_next = 0;
    for (int i = 0; i < 7; i++) order[i] = -1;
    for (int i = first; i < 7; i++) {   /* lowest first */
        h[i] = suite_thread(prio_waiter, (void *)(intptr_t)i, prios[i]);
        Sleep(20);                       /* let it block on the mutex */
    }
    ReleaseMutex(mtx);
    for (int i = first; i < 7; i++) suite_join(h[i]);
    CloseHandle(mtx);
    int prio_order = order_next == n, all = order_next == n;
    char got[128] = "";
    for (int k = 0; k < n; k++) {
        if (order[k] != 6 - k) prio_order = 0;
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", k ? "," : "", order[k] >= 0 ? prios[order[k]] : 99);
    }
    printf("  wake order (thread priorities): %s\n", got);
    suite_fig("s3.prio_order", prio_order, "bool", "higher", "3 Priority wakeup: highest first");
    if (suite_rt_mode()) {
        sub(3, "priority-ordered wakeup", prio_order, "not highest first");
    } else {
        if (all) suite_note("baseline: priorities are not applied to Linux threads, the order is informative");
        sub(3, "priority-ordered wakeup (every waiter woke once)", all, "a waiter was not woken");
    }
}

/* ---- 4: transitive chain ---------------------------------------------------------- */
#define MAXD 64
static HANDLE chain[MAXD], chain_go;
static volatile LONG chain_in[MAXD];
static volatile LONG seq;
static int chain_seq[MAXD + 1];
static int depth;
static long long tail_work;
static double chain_wait;

static DWORD WINAPI chain_link(LPVOID arg)
{
    int i = (int)(intptr_t)arg;
    WaitForSingleObject(chain[i], INFINITE);
    InterlockedExchange(&chain_in[i], 1);
    if (i == depth - 1) {   /* the tail */
        WaitForSingleObject(chain_go, INFINITE);
        suite_work(tail_work);
        chain_seq[i] = InterlockedIncrement(&seq);
    } else {
        WaitForSingleObject(chain[i + 1], INFINITE);
        chain_seq[i] = InterlockedIncrement(&seq);
        ReleaseMutex(chain[i + 1]);
    }
    ReleaseMutex(chain[i]);
    return 0;
}

static DWORD WINAPI chain_high(LPVOID arg)
{
    double t0 = suite_now_us();
    WaitForSingleObject(chain[0], INFINITE);
    chain_wait = suite_now_us() - t0;
    chain_seq[depth] = InterlockedIncrement(&seq);
    ReleaseMutex(chain[0]);
    return 0;
}

static void sub_chain(void)
{
    HANDLE h[MAXD], hi;
    seq = 0;
    chain_go = CreateEventA(NULL, TRUE, FALSE, NULL);
    tail_work = suite_calibrate(100);
    for (int i = 0; i < depth; i++) {
        chain[i] = CreateMutexA(NULL, FALSE, NULL);
        chain_in[i] = 0;
    }
    for (int i = depth - 1; i >= 0; i--) {
        h[i] = suite_thread(chain_link, (void *)(intptr_t)i, THREAD_PRIORITY_NORMAL);
        while (!chain_in[i]) Sleep(1);
        Sleep(5);   /* let link i block on mutex i+1 */
    }
    hi = suite_thread(chain_high, NULL, THREAD_PRIORITY_TIME_CRITICAL);
    Sleep(5);
    SetEvent(chain_go);
    suite_join(hi);
    for (int i = 0; i < depth; i++) suite_join(h[i]);
    int ok = 1;
    for (int i = 0; i < depth; i++)   /* released from the tail back to the head */
        if (chain_seq[i] != depth - i) ok = 0;
    if (chain_seq[depth] != depth + 1) ok = 0;
    for (int i = 0; i < depth; i++) CloseHandle(chain[i]);
    CloseHandle(chain_go);
    suite_fig("s4.chain_wait", chain_wait / 1000, "ms", "lower", "4 Transitive chain: RT wait on mutex[0]");
    suite_note("chain depth %d, tail work ~100 ms", depth);
    sub(4, "transitive chain", ok, "the chain did not unwind tail first");
}

/* ---- 5: mixed WaitForMultipleObjects ---------------------------------------------- */
static HANDLE mx_obj;
static DWORD WINAPI delayed_set(LPVOID arg) { Sleep(20); SetEvent(mx_obj); return 0; }
static DWORD WINAPI hold_release(LPVOID arg) { WaitForSingleObject(mx_obj, INFINITE); Sleep(20); ReleaseMutex(mx_obj); return 0; }
static DWORD WINAPI take_exit(LPVOID arg) { WaitForSingleObject(mx_obj, INFINITE); return 0; }

static void sub_wfmo(void)
{
    int bad = 0;
    char why[128] = "";
#define EXPECT(c, what) do { if (!(c)) { bad++; if (!why[0]) snprintf(why, sizeof why, "%s", what); } } while (0)
    HANDLE m = CreateMutexA(NULL, FALSE, NULL), ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE s = CreateSemaphoreA(NULL, 0, 10, NULL), hs[3] = { ev, s, m };
    LONG prev = -1;
    /* a: wait-any takes the one free mutex */
    EXPECT(WaitForMultipleObjects(3, hs, FALSE, 0) == WAIT_OBJECT_0 + 2, "any: index of the free mutex");
    EXPECT(ReleaseMutex(m), "any: the mutex was acquired");
    /* b: wait-all over a free mutex, a set auto event and a semaphore of 1 takes all three */
    SetEvent(ev);
    ReleaseSemaphore(s, 1, NULL);
    EXPECT(WaitForMultipleObjects(3, hs, TRUE, 0) == WAIT_OBJECT_0, "all: satisfied");
    EXPECT(WaitForSingleObject(ev, 0) == WAIT_TIMEOUT, "all: auto event reset");
    EXPECT(WaitForSingleObject(s, 0) == WAIT_TIMEOUT, "all: semaphore decremented");
    EXPECT(ReleaseMutex(m), "all: mutex owned");
    /* c: wait-all with one unsignaled object times out and takes nothing */
    ReleaseSemaphore(s, 1, NULL);
    EXPECT(WaitForMultipleObjects(3, hs, TRUE, 0) == WAIT_TIMEOUT, "all: times out");
    EXPECT(!ReleaseMutex(m), "all (timeout): mutex not taken");
    EXPECT(ReleaseSemaphore(s, 1, &prev) && prev == 1, "all (timeout): semaphore untouched");
    WaitForSingleObject(s, 0);
    WaitForSingleObject(s, 0);
    /* d: wait-all completes when another thread sets the event */
    ReleaseSemaphore(s, 1, NULL);
    mx_obj = ev;
    HANDLE t = suite_thread(delayed_set, NULL, THREAD_PRIORITY_NORMAL);
    EXPECT(WaitForMultipleObjects(3, hs, TRUE, 5000) == WAIT_OBJECT_0, "all: woken by SetEvent");
    ReleaseMutex(m);
    suite_join(t);
    /* e: wait-any on a mutex another thread holds then releases */
    HANDLE m2 = CreateMutexA(NULL, FALSE, NULL), hs2[2] = { ev, m2 };
    mx_obj = m2;
    t = suite_thread(hold_release, NULL, THREAD_PRIORITY_NORMAL);
    Sleep(5);
    EXPECT(WaitForMultipleObjects(2, hs2, FALSE, 5000) == WAIT_OBJECT_0 + 1, "any: mutex handed over");
    ReleaseMutex(m2);
    suite_join(t);
    /* f: a mutex whose owner exited is abandoned */
    t = suite_thread(take_exit, NULL, THREAD_PRIORITY_NORMAL);
    suite_join(t);
    EXPECT(WaitForMultipleObjects(2, hs2, FALSE, 5000) == WAIT_ABANDONED_0 + 1, "any: abandoned mutex");
    ReleaseMutex(m2);
    CloseHandle(m2);
    CloseHandle(m);
    CloseHandle(ev);
    CloseHandle(s);
    suite_fig("s5.checks_failed", bad, "count", "lower", "5 Mixed WFMO: failed checks");
    sub(5, "mixed WaitForMultipleObjects any/all", bad == 0, why);
#undef EXPECT
}

int t_ntsync(int argc, char **argv)
{
    depth = (int)suite_arg(argc, argv, 1, 4);
    int nthreads = (int)suite_arg(argc, argv, 2, 4);
    rapid_iters = suite_arg(argc, argv, 3, 100000);
    int rounds = (int)suite_arg(argc, argv, 4, 8);
    int waiters = (int)suite_arg(argc, argv, 5, 5);
    pi_work = suite_arg(argc, argv, 6, 200000000);
    if (waiters > 7) waiters = 7;
    if (depth < 2 || depth > MAXD || nthreads < 1 || nthreads > 64 || waiters < 1 || rounds < 1)
        return suite_fail("bad arguments");
    int nl = suite_load_start(4);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    suite_note("%d load threads during sub-test 1", nl);
    sub_pi(rounds);
    suite_load_stop();
    sub_rapid(nthreads);
    sub_prio(waiters);
    sub_chain();
    sub_wfmo();
    suite_fig("subtests_passed", 5 - nfail, "count", "higher", "Sub-tests passed (of 5)");
    if (nfail) return suite_fail("%d of 5 sub-tests failed", nfail);
    return suite_pass();
}
