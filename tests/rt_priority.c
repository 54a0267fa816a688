/* Windows priorities on Linux (rt-suite.md "Modes"): in RT mode (NSPA_RT_PRIO=80) the
 * REALTIME class maps the seven standard thread priorities to SCHED_FIFO 65..80;
 * NSPA_RT_POLICY=RR uses SCHED_RR below band 31; without NSPA_RT_PRIO nothing is
 * promoted; without the right to real time the calls still succeed, the thread stays,
 * and NSPA says so; seven waiters at the seven priorities wake highest first. */
#include <windows.h>
#include <linux/capability.h>
#include <sys/wait.h>
#include "rt_util.h"

static const int prios[7] = { THREAD_PRIORITY_IDLE, THREAD_PRIORITY_LOWEST, THREAD_PRIORITY_BELOW_NORMAL,
                              THREAD_PRIORITY_NORMAL, THREAD_PRIORITY_ABOVE_NORMAL,
                              THREAD_PRIORITY_HIGHEST, THREAD_PRIORITY_TIME_CRITICAL };
static const int expect80[7] = { 65, 71, 72, 73, 74, 75, 80 };

static HANDLE go, sem;
static volatile LONG order[7], norder;

static DWORD WINAPI idle_thread(LPVOID arg)
{
    (void)arg;
    WaitForSingleObject(go, INFINITE);
    return 0;
}

static DWORD WINAPI queued_thread(LPVOID arg)
{
    int i = (int)(INT_PTR)arg;
    if (!SetThreadPriority(GetCurrentThread(), prios[i])) return 1;
    if (WaitForSingleObject(sem, 5000) != WAIT_OBJECT_0) return 2;
    InterlockedExchange(&order[InterlockedIncrement(&norder) - 1], i);
    return 0;
}

static int mode_rt(const char *policy)
{
    CHECK(SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS));
    CHECK_EQ(GetPriorityClass(GetCurrentProcess()), REALTIME_PRIORITY_CLASS);
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, idle_thread, NULL, 0, &tid);
    /* a new thread starts at NORMAL in the class: band 24 -> 73 */
    CHECK(wait_sched(tid, policy[0] == 'R' ? SCHED_RR : SCHED_FIFO, 73));
    for (int i = 0; i < 7; i++) {
        CHECK(SetThreadPriority(t, prios[i]));
        CHECK_EQ(GetThreadPriority(t), prios[i]);
        int pol = (prios[i] == THREAD_PRIORITY_TIME_CRITICAL || policy[0] != 'R') ? SCHED_FIFO : SCHED_RR;
        CHECK(wait_sched(tid, pol, expect80[i]));
    }
    /* RT mode locked memory at the first real-time promotion (root may) */
    CHECK_EQ(nspa_rt_memlocked(), 1);
    /* back to a band below 16: SCHED_OTHER */
    CHECK(SetPriorityClass(GetCurrentProcess(), NORMAL_PRIORITY_CLASS));
    CHECK(SetThreadPriority(t, THREAD_PRIORITY_NORMAL));
    CHECK_EQ(sched_of(tid).policy, SCHED_OTHER);
    SetEvent(go);
    WaitForSingleObject(t, 5000);
    CloseHandle(t);
    if (policy[0] == 'R') return nspa_test_done();

    /* seven waiters at the seven standard priorities, started lowest first, released
     * one at a time: highest first */
    CHECK(SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS));
    CHECK(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL));
    sem = CreateSemaphoreA(NULL, 0, 7, NULL);
    HANDLE th[7];
    for (int i = 0; i < 7; i++) {
        th[i] = CreateThread(NULL, 0, queued_thread, (LPVOID)(INT_PTR)i, 0, NULL);
        REQUIRE(wait_queued((nspa_obj_t)(uintptr_t)sem, i + 1));
    }
    for (int i = 0; i < 7; i++) {
        ReleaseSemaphore(sem, 1, NULL);
        for (int k = 0; k < 3000 && InterlockedCompareExchange(&norder, 0, 0) <= i; k++) Sleep(1);
    }
    WaitForMultipleObjects(7, th, TRUE, 5000);
    for (int i = 0; i < 7; i++) CHECK_EQ(InterlockedCompareExchange(&order[i], 0, 0), 6 - i);
    /* invalid values */
    SetLastError(0);
    CHECK(!SetThreadPriority(GetCurrentThread(), 3) == 0);   /* 3 is allowed in REALTIME */
    CHECK(SetPriorityClass(GetCurrentProcess(), NORMAL_PRIORITY_CLASS));
    CHECK(!SetThreadPriority(GetCurrentThread(), 3));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!SetPriorityClass(GetCurrentProcess(), 0x12345));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK_EQ(GetThreadPriority((HANDLE)(uintptr_t)0x1230), THREAD_PRIORITY_ERROR_RETURN);
    return nspa_test_done();
}

static int mode_baseline(void)
{
    /* nothing is promoted; the values are kept */
    CHECK(SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS));
    CHECK(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL));
    CHECK_EQ(GetThreadPriority(GetCurrentThread()), THREAD_PRIORITY_TIME_CRITICAL);
    CHECK_EQ(sched_of(GetCurrentThreadId()).policy, SCHED_OTHER);
    CHECK_EQ(nspa_rt_denied(), 0);
    CHECK_EQ(nspa_rt_memlocked(), 0);   /* not RT mode: memory left alone */
    return nspa_test_done();
}

static int mode_denied(void)
{
    /* drop CAP_SYS_NICE and RLIMIT_RTPRIO: real time is refused */
    struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    REQUIRE(syscall(SYS_capget, &hdr, data) == 0);
    data[0].effective &= ~(1u << CAP_SYS_NICE);
    data[0].permitted &= ~(1u << CAP_SYS_NICE);
    REQUIRE(syscall(SYS_capset, &hdr, data) == 0);
    struct rlimit rl = { 0, 0 };
    setrlimit(RLIMIT_RTPRIO, &rl);
    CHECK(SetPriorityClass(GetCurrentProcess(), REALTIME_PRIORITY_CLASS));   /* succeeds */
    CHECK(SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_TIME_CRITICAL));
    CHECK_EQ(GetThreadPriority(GetCurrentThread()), THREAD_PRIORITY_TIME_CRITICAL);
    CHECK_EQ(sched_of(GetCurrentThreadId()).policy, SCHED_OTHER);          /* stays */
    CHECK_EQ(nspa_rt_denied(), 1);
    return nspa_test_done();
}

static int run_child(const char *self, const char *mode, char *const envp[])
{
    pid_t p = fork();
    if (p == 0) {
        execle(self, self, mode, (char *)NULL, envp);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        if (!strcmp(argv[1], "rt")) return mode_rt("FF");
        if (!strcmp(argv[1], "rr")) return mode_rt("RR");
        if (!strcmp(argv[1], "base")) return mode_baseline();
        if (!strcmp(argv[1], "denied")) return mode_denied();
        return 2;
    }
    if (!can_rt()) {
        printf("SKIP: no permission for SCHED_FIFO here\n");
        return 77;
    }
    char ns[64];
    snprintf(ns, sizeof(ns), "NSPA_NAMESPACE=ctest-rt_priority-%d", (int)getpid());
    char *rt[] = { "NSPA_RT_PRIO=80", ns, NULL };
    char *rr[] = { "NSPA_RT_PRIO=80", "NSPA_RT_POLICY=RR", ns, NULL };
    char *base[] = { ns, NULL };
    CHECK_EQ(run_child(argv[0], "rt", rt), 0);
    CHECK_EQ(run_child(argv[0], "rr", rr), 0);
    CHECK_EQ(run_child(argv[0], "base", base), 0);
    CHECK_EQ(run_child(argv[0], "denied", rt), 0);
    return nspa_test_done();
}
