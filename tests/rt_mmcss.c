/* MMCSS (issue 16): in RT mode (NSPA_RT_PRIO=80) "Pro Audio" runs SCHED_FIFO at the band
 * of docs/rt.md's table (75, CRITICAL 77, VERYLOW 73), "Audio" at 69, and the revert puts
 * back exactly what the thread had (SCHED_OTHER, or a SCHED_FIFO 10 set before); a pool
 * callback's registration is undone after it returns. Outside RT mode every call
 * succeeds and the thread stays as it was. Bad input in both. SKIP (77) without
 * SCHED_FIFO permission. */
#include <windows.h>
#include <avrt.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"
#include "win32_testutil.h"


extern char **environ;

static int policy(void) { return sched_getscheduler(0); }
static int prio(void)
{
    struct sched_param sp;
    sched_getparam(0, &sp);
    return sp.sched_priority;
}

static void bad_input(void)
{
    DWORD idx = 0;
    SetLastError(0);
    CHECK(AvSetMmThreadCharacteristicsA("No Such Task", &idx) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_TASK_NAME);
    CHECK(AvSetMmThreadCharacteristicsA("Pro Audio", NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!AvRevertMmThreadCharacteristics(NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!AvRevertMmThreadCharacteristics((HANDLE)&idx));   /* not an MMCSS handle */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE h = AvSetMmThreadCharacteristicsA("pro audio", &idx);   /* names: any case */
    CHECK(h != NULL);
    CHECK(idx != 0);
    CHECK(!AvSetMmThreadPriority(h, (AVRT_PRIORITY)3));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(AvRevertMmThreadCharacteristics(h));
    CHECK(!AvRevertMmThreadCharacteristics(h));              /* twice */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

static int cb_policy = -1;
static void CALLBACK register_and_leave(PTP_CALLBACK_INSTANCE i, PVOID ctx)
{
    DWORD idx = 0;
    AvSetMmThreadCharacteristicsA("Pro Audio", &idx);   /* never reverted */
}
static void CALLBACK read_policy(PTP_CALLBACK_INSTANCE i, PVOID ctx) { W32T_ST(cb_policy, policy()); }

static int mode_rt(void)
{
    CHECK_EQ(policy(), SCHED_OTHER);
    DWORD idx = 0;
    HANDLE h = AvSetMmThreadCharacteristicsW(L"Pro Audio", &idx);
    REQUIRE(h != NULL);
    CHECK_EQ(policy(), SCHED_FIFO);
    CHECK_EQ(prio(), 75);
    CHECK(AvSetMmThreadPriority(h, AVRT_PRIORITY_CRITICAL));
    CHECK_EQ(prio(), 77);
    CHECK(AvSetMmThreadPriority(h, AVRT_PRIORITY_VERYLOW));
    CHECK_EQ(prio(), 73);
    CHECK(AvRevertMmThreadCharacteristics(h));
    CHECK_EQ(policy(), SCHED_OTHER);
    CHECK_EQ(prio(), 0);
    h = AvSetMmThreadCharacteristicsA("Audio", &idx);
    CHECK_EQ(policy(), SCHED_FIFO);
    CHECK_EQ(prio(), 69);
    CHECK(AvRevertMmThreadCharacteristics(h));
    /* the max of two: Games (High) over Playback (Medium) */
    h = AvSetMmMaxThreadCharacteristicsA("Playback", "Games", &idx);
    CHECK_EQ(prio(), 75);
    CHECK(AvRevertMmThreadCharacteristics(h));
    /* a real-time thread reverts to its own setting */
    struct sched_param sp = { .sched_priority = 10 };
    REQUIRE(sched_setscheduler(0, SCHED_FIFO, &sp) == 0);
    h = AvSetMmThreadCharacteristicsA("Pro Audio", &idx);
    CHECK_EQ(prio(), 75);
    CHECK(AvRevertMmThreadCharacteristics(h));
    CHECK_EQ(policy(), SCHED_FIFO);
    CHECK_EQ(prio(), 10);
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    /* a pool callback that registers and does not revert: undone after it returns */
    PTP_POOL p = CreateThreadpool(NULL);
    SetThreadpoolThreadMaximum(p, 1);
    TP_CALLBACK_ENVIRON env;
    InitializeThreadpoolEnvironment(&env);
    SetThreadpoolCallbackPool(&env, p);
    CHECK(TrySubmitThreadpoolCallback(register_and_leave, NULL, &env));
    CHECK(TrySubmitThreadpoolCallback(read_policy, NULL, &env));
    CHECK(W32T_EVENTUALLY(W32T_LD(cb_policy) != -1));
    CHECK_EQ(W32T_LD(cb_policy), SCHED_OTHER);
    CloseThreadpool(p);
    bad_input();
    return nspa_test_done();
}

static int mode_base(void)
{
    DWORD idx = 0;
    HANDLE h = AvSetMmThreadCharacteristicsA("Pro Audio", &idx);
    CHECK(h != NULL);
    CHECK_EQ(policy(), SCHED_OTHER);                  /* nothing changes */
    CHECK(AvSetMmThreadPriority(h, AVRT_PRIORITY_CRITICAL));
    CHECK_EQ(policy(), SCHED_OTHER);
    CHECK(AvRevertMmThreadCharacteristics(h));
    bad_input();
    return nspa_test_done();
}

static int run_child(const char *self, const char *mode, int rt)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (rt) setenv("NSPA_RT_PRIO", "80", 1);
        else unsetenv("NSPA_RT_PRIO");
        unsetenv("NSPA_RT_POLICY");
        execl(self, self, mode, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc > 1) return !strcmp(argv[1], "rt") ? mode_rt() : mode_base();
    CHECK_EQ(run_child(argv[0], "base", 0), 0);
    struct sched_param sp = { .sched_priority = 1 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP: no permission for SCHED_FIFO here (the baseline part passed)\n");
        return nspa_test_failed ? 1 : 77;
    }
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    CHECK_EQ(run_child(argv[0], "rt", 1), 0);
    return nspa_test_done();
}
