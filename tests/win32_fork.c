/* A process that forks (without exec) and uses the Win32 layer in the child, as a
 * Unix program or plugin host may: the child is a process of its own — its thread
 * id is its own (its main thread's tid = its pid), its handles live in its own
 * table (not the parent's), the named objects are shared, and a mutex it owns when
 * it exits is abandoned for the parent, and a child leaving with exit() leaves the
 * parent's handles alone (sync-semantics.md, "Cross-process sharing"; issue 2,
 * "named objects across fork and exec"). */
#include <windows.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

struct report {
    DWORD tid;                  /* GetCurrentThreadId() in the child */
    DWORD pid;                  /* getpid() in the child */
    HANDLE opened, created, mtx;
    int set_ok;
};

/* Wait (bounded) for the child; kill it if it hangs. Returns its wait status. */
static int reap(pid_t pid)
{
    int st = -1;
    for (int i = 0; i < 1000; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return st;
        Sleep(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fprintf(stderr, "child hung\n");
    return -1;
}

int main(void)
{
    /* the parent uses NSPA first (thread registered, process attached) */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, "fk-ev");
    HANDLE sem = CreateSemaphoreA(NULL, 1, 5, NULL);
    REQUIRE(ev && sem);
    DWORD parent_tid = GetCurrentThreadId();
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        struct report r = { 0 };
        r.tid = GetCurrentThreadId();
        r.pid = (DWORD)getpid();
        r.opened = OpenEventA(EVENT_ALL_ACCESS, FALSE, "fk-ev");
        r.created = CreateEventA(NULL, TRUE, FALSE, NULL);
        r.mtx = CreateMutexA(NULL, TRUE, "fk-mx");
        r.set_ok = SetEvent(r.opened);
        if (write(fds[1], &r, sizeof(r)) != sizeof(r)) _exit(2);
        /* exit owning fk-mx, without any cleanup (as a crash would) */
        _exit(0);
    }
    close(fds[1]);
    struct report r;
    memset(&r, 0, sizeof(r));
    CHECK_EQ(read(fds[0], &r, sizeof(r)), sizeof(r));
    /* the parent opens the mutex before the child is gone (else it is freed) */
    HANDLE m = NULL;
    for (int i = 0; i < 500 && !m; i++) {
        m = OpenMutexA(SYNCHRONIZE, FALSE, "fk-mx");
        if (!m) Sleep(2);
    }
    int st = reap(pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* named objects are shared */
    CHECK(r.opened != NULL);
    CHECK(r.set_ok);
    CHECK_EQ(WaitForSingleObject(ev, 1000), WAIT_OBJECT_0);

    /* the child had a thread id of its own */
    if (r.tid != r.pid)
        fprintf(stderr, "child GetCurrentThreadId() = %u, its pid/tid = %u, parent's tid = %u\n",
                r.tid, r.pid, parent_tid);
    CHECK_EQ(r.tid, r.pid);
    CHECK(r.tid != parent_tid);

    /* the child's handles were its own: in the parent those values are not open
     * (unless they happen to be values of the parent's own handles) */
    HANDLE child_h[3] = { r.opened, r.created, r.mtx };
    for (int i = 0; i < 3; i++) {
        if (!child_h[i] || child_h[i] == ev || child_h[i] == sem || child_h[i] == m) continue;
        SetLastError(0);
        BOOL closed = CloseHandle(child_h[i]);
        if (closed) fprintf(stderr, "child handle %p is open in the parent\n", child_h[i]);
        CHECK(!closed);
    }

    /* the mutex the child owned at its exit is abandoned, not owned by the parent */
    REQUIRE(m != NULL);
    SetLastError(0);
    BOOL rel = ReleaseMutex(m);
    if (rel) fprintf(stderr, "the parent could release the child's mutex\n");
    CHECK(!rel);
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    CHECK_EQ(WaitForSingleObject(m, 5000), WAIT_ABANDONED_0);
    CHECK(ReleaseMutex(m));

    /* the parent's own handles are intact */
    CHECK_EQ(WaitForSingleObject(sem, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(sem, 0), WAIT_TIMEOUT);

    /* a child that calls nothing and leaves with exit() (atexit handlers run) does
     * not touch the parent's handles */
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) exit(0);
    st = reap(pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    SetLastError(0);
    CHECK(ReleaseSemaphore(sem, 1, NULL));
    CHECK_EQ(GetLastError(), 0);
    CHECK_EQ(WaitForSingleObject(sem, 0), WAIT_OBJECT_0);
    CloseHandle(m);
    CloseHandle(ev);
    CloseHandle(sem);
    return nspa_test_done();
}
