/* Faults that are not the program's business go on: to the SIGSEGV handler installed
 * before NSPA's (as ASan's or a crash reporter's would be), or to the default action (the
 * process dies of SIGSEGV, with its guard page already given up, and of SIGTRAP for an
 * unclaimed int3). User-sent signals never reach the vectored handlers. Under ASan the
 * handler before NSPA's is ASan's, and the unclaimed guard fault must end in its report. */
#include <windows.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

static volatile int veh_calls;
static LONG CALLBACK pass_on(EXCEPTION_POINTERS *ep) { veh_calls++; return EXCEPTION_CONTINUE_SEARCH; }
static void prev_handler(int sig, siginfo_t *si, void *uc) { _exit(veh_calls == 1 ? 42 : 43); }

static int child_status(void (*fn)(void))
{
    pid_t pid = fork();
    if (pid == 0) { fn(); _exit(0); }
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

static void with_prev(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prev_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);              /* before NSPA installs its own */
    AddVectoredExceptionHandler(1, pass_on);
    volatile int *volatile bad = (volatile int *)(uintptr_t)8;
    *bad = 1;                                   /* nobody claims it */
}

static void default_guard(void)
{
    AddVectoredExceptionHandler(1, pass_on);
    volatile char *p = VirtualAlloc(NULL, 4096, MEM_COMMIT, PAGE_READWRITE | PAGE_GUARD);
    p[0] = 1;                                   /* unclaimed guard violation: fatal, as on Windows */
}

static void default_trap(void)
{
    AddVectoredExceptionHandler(1, pass_on);
    __asm__ volatile("int3");
}

static void user_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prev_handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    AddVectoredExceptionHandler(1, pass_on);
    veh_calls = 1;                              /* so prev_handler says 42 only if no VEH ran */
    kill(getpid(), SIGSEGV);
    _exit(1);
}

int main(void)
{
    int st = child_status(with_prev);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42);
    st = child_status(default_guard);
#if defined(__SANITIZE_ADDRESS__)
    /* the handler before NSPA's is ASan's: it reports the SEGV and exits non-zero */
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
#else
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
#endif
    st = child_status(default_trap);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTRAP);
    st = child_status(user_signal);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42);
    return nspa_test_done();
}
