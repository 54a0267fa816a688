/* Processes (issue 14): CreateProcess of this program in child modes, waitable process
 * and thread handles mixed with other objects, exit codes (exit, TerminateProcess,
 * signal deaths), OpenProcess of a process that is not our child, CREATE_SUSPENDED +
 * ResumeThread, the command line, the environment block (ANSI and Unicode), the current
 * directory, ".exe" optional, the search of the program's directory, and the bad input
 * of the item 7. */
#include <windows.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096];

/* ---- child modes ------------------------------------------------------------------- */

static int child_main(int argc, char **argv)
{
    const char *m = argv[1];
    if (!strcmp(m, "child-exit")) return atoi(argv[2]);
    if (!strcmp(m, "child-sleep")) {
        Sleep((DWORD)atoi(argv[2]));
        return 9;
    }
    if (!strcmp(m, "child-kill")) {
        kill(getpid(), atoi(argv[2]));
        return 1;
    }
    if (!strcmp(m, "child-touch")) {
        int fd = open(argv[2], O_CREAT | O_WRONLY, 0600);
        if (fd >= 0) close(fd);
        return 5;
    }
    if (!strcmp(m, "child-env")) {
        char buf[64];
        DWORD n = GetEnvironmentVariableA(argv[2], buf, sizeof(buf));
        return n && !strcmp(buf, argv[3]) ? 0 : 1;
    }
    if (!strcmp(m, "child-noenv")) return GetEnvironmentVariableA(argv[2], NULL, 0) == 0 ? 0 : 1;
    if (!strcmp(m, "child-cwd")) {
        char buf[4096];
        DWORD n = GetCurrentDirectoryA(sizeof(buf), buf);
        return n && !strcmp(buf, argv[2]) ? 0 : 1;
    }
    if (!strcmp(m, "child-args")) {
        /* the expected arguments follow "--"; our argv comes from the Windows rules,
         * and GetCommandLine is the parent's string */
        const char *expect[] = { "a b", "c\"d", "e\\", "f\\\\g", "" };
        if (argc != 3 + 5) return 10 + argc;
        for (int i = 0; i < 5; i++)
            if (strcmp(argv[3 + i], expect[i])) return 20 + i;
        const char *cl = GetCommandLineA();
        if (!strstr(cl, "child-args -- \"a b\" c\\\"d \"e\\\\\" f\\\\g \"\"")) return 30;
        int wc = 0;
        LPWSTR *wv = CommandLineToArgvW(GetCommandLineW(), &wc);
        if (!wv || wc != argc) return 31;
        LocalFree(wv);
        return 0;
    }
    return 99;
}

/* ---- helpers ----------------------------------------------------------------------- */

static BOOL spawn(const char *args, DWORD flags, void *env, const char *cwd, PROCESS_INFORMATION *pi)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, args);
    STARTUPINFOA si = { .cb = sizeof(si) };
    return CreateProcessA(NULL, cmd, NULL, NULL, FALSE, flags, env, cwd, &si, pi);
}

static DWORD run(const char *args, DWORD flags, void *env, const char *cwd)
{
    PROCESS_INFORMATION pi;
    if (!spawn(args, flags, env, cwd, &pi)) {
        fprintf(stderr, "CreateProcess(%s): error %u\n", args, (unsigned)GetLastError());
        return 0xdead;
    }
    DWORD code = 0xbeef;
    if (WaitForSingleObject(pi.hProcess, 20000) == WAIT_OBJECT_0) GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return code;
}

/* ---- the tests --------------------------------------------------------------------- */

static void test_exit_codes(void)
{
    PROCESS_INFORMATION pi;
    REQUIRE(spawn("child-exit 42", 0, NULL, NULL, &pi));
    CHECK(pi.hProcess && pi.hThread && pi.dwProcessId && pi.dwThreadId == pi.dwProcessId);
    CHECK_EQ(GetProcessId(pi.hProcess), pi.dwProcessId);
    CHECK_EQ(GetProcessIdOfThread(pi.hThread), pi.dwProcessId);     /* the child's main thread */
    CHECK_EQ(GetProcessIdOfThread(GetCurrentThread()), GetCurrentProcessId());
    CHECK_EQ(GetThreadId(pi.hThread), pi.dwThreadId);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(pi.hThread, 20000), WAIT_OBJECT_0);
    DWORD code = 0;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 42);
    CHECK(GetExitCodeThread(pi.hThread, &code));
    CHECK_EQ(code, 42);
    FILETIME c, e, k, u;
    CHECK(GetProcessTimes(pi.hProcess, &c, &e, &k, &u));
    CHECK(c.dwHighDateTime != 0 && e.dwHighDateTime != 0);
    /* TerminateProcess on an ended process: ERROR_ACCESS_DENIED, as NT */
    SetLastError(0);
    CHECK(!TerminateProcess(pi.hProcess, 1));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(CloseHandle(pi.hProcess));
    CHECK(CloseHandle(pi.hThread));

    CHECK_EQ(run("child-kill 9", 0, NULL, NULL), 128 + 9);                 /* SIGKILL */
    CHECK_EQ(run("child-kill 15", 0, NULL, NULL), 128 + 15);               /* SIGTERM */
    CHECK_EQ(run("child-kill 2", 0, NULL, NULL), 0xC000013Au);             /* SIGINT */
}

static void test_still_active_and_mixed_waits(void)
{
    PROCESS_INFORMATION pi;
    REQUIRE(spawn("child-sleep 300", 0, NULL, NULL, &pi));
    DWORD code = 0;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, STILL_ACTIVE);
    FILETIME c, e, k, u;
    CHECK(GetProcessTimes(pi.hProcess, &c, &e, &k, &u));
    CHECK(c.dwHighDateTime != 0);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 0), WAIT_TIMEOUT);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE hs[3] = { pi.hProcess, ev, pi.hThread };
    SetEvent(ev);
    CHECK_EQ(WaitForMultipleObjects(3, hs, FALSE, 5000), WAIT_OBJECT_0 + 1);
    ResetEvent(ev);
    /* the process ends: the wait among other objects wakes on it */
    CHECK_EQ(WaitForMultipleObjects(2, hs, FALSE, 20000), WAIT_OBJECT_0);
    SetEvent(ev);
    CHECK_EQ(WaitForMultipleObjects(3, hs, TRUE, 20000), WAIT_OBJECT_0);   /* wait-all */
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 9);
    CloseHandle(ev);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

static void test_terminate(void)
{
    PROCESS_INFORMATION pi;
    REQUIRE(spawn("child-sleep 60000", 0, NULL, NULL, &pi));
    HANDLE dup = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), pi.hProcess, GetCurrentProcess(), &dup, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK(TerminateProcess(pi.hProcess, 77));
    CHECK_EQ(WaitForSingleObject(dup, 20000), WAIT_OBJECT_0);
    DWORD code = 0;
    CHECK(GetExitCodeProcess(dup, &code));
    CHECK_EQ(code, 77);
    CloseHandle(dup);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

/* A process that is not our child: a grandchild, orphaned. */
static pid_t orphan(int ms)
{
    int p[2];
    if (pipe(p)) return -1;
    pid_t c = fork();
    if (c == 0) {
        pid_t g = fork();
        if (g == 0) {
            close(p[0]);
            close(p[1]);
            char a[32];
            snprintf(a, sizeof(a), "%d", ms);
            execl(self, self, "child-sleep", a, (char *)NULL);
            _exit(127);
        }
        if (write(p[1], &g, sizeof(g)) != sizeof(g)) _exit(1);
        _exit(0);
    }
    pid_t g = -1;
    close(p[1]);
    if (read(p[0], &g, sizeof(g)) != sizeof(g)) g = -1;
    close(p[0]);
    waitpid(c, NULL, 0);
    return g;
}

static void test_open_process(void)
{
    pid_t g = orphan(200);
    REQUIRE(g > 0);
    HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)g);
    REQUIRE(h != NULL);
    CHECK_EQ(GetProcessId(h), g);
    DWORD code = 0;
    CHECK(GetExitCodeProcess(h, &code));
    CHECK_EQ(code, STILL_ACTIVE);
    HANDLE h2 = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)g);    /* the same process object */
    CHECK(h2 != NULL && h2 != h);
    CHECK_EQ(WaitForSingleObject(h, 20000), WAIT_OBJECT_0);   /* noticed without being its parent */
    CHECK_EQ(WaitForSingleObject(h2, 0), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(h, &code));
    CHECK_EQ(code, 0);          /* a non-child's exit status is not known (docs/process.md) */
    CloseHandle(h);
    CloseHandle(h2);

    g = orphan(60000);
    REQUIRE(g > 0);
    h = OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)g);
    REQUIRE(h != NULL);
    CHECK(TerminateProcess(h, 5));
    CHECK_EQ(WaitForSingleObject(h, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(h, &code));
    CHECK_EQ(code, 5);
    /* the handle keeps naming the ended process, whatever reuses its pid */
    CHECK_EQ(GetProcessId(h), g);
    CloseHandle(h);

    /* ourselves: never signaled while we run */
    h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, GetCurrentProcessId());
    CHECK(h != NULL);
    CHECK_EQ(WaitForSingleObject(h, 0), WAIT_TIMEOUT);
    CHECK_EQ(GetProcessId(h), GetCurrentProcessId());
    CHECK_EQ(GetProcessId(GetCurrentProcess()), GetCurrentProcessId());
    CHECK(GetExitCodeProcess(GetCurrentProcess(), &code));
    CHECK_EQ(code, STILL_ACTIVE);
    CloseHandle(h);
    HANDLE th = OpenThread(SYNCHRONIZE | THREAD_QUERY_LIMITED_INFORMATION, FALSE, GetCurrentThreadId());
    CHECK(th != NULL);
    CHECK_EQ(GetThreadId(th), GetCurrentThreadId());
    FILETIME c, e, k, u;
    CHECK(GetThreadTimes(th, &c, &e, &k, &u));
    CHECK(c.dwHighDateTime != 0);
    CloseHandle(th);
}

static void test_suspended(void)
{
    char path[256], args[512];
    snprintf(path, sizeof(path), "/tmp/nspa-proc-touch-%d", (int)getpid());
    unlink(path);
    snprintf(args, sizeof(args), "child-touch %s", path);
    PROCESS_INFORMATION pi;
    REQUIRE(spawn(args, CREATE_SUSPENDED, NULL, NULL, &pi));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 100), WAIT_TIMEOUT);
    struct stat st;
    CHECK(stat(path, &st) < 0);                     /* it has not run */
    CHECK_EQ(ResumeThread(pi.hThread), 1);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 0;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 5);
    CHECK(stat(path, &st) == 0);
    unlink(path);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    /* a suspended child can be terminated */
    REQUIRE(spawn("child-exit 1", CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP, NULL, NULL, &pi));
    CHECK(TerminateProcess(pi.hProcess, 3));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 3);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

static void test_cmdline_env_cwd(void)
{
    CHECK_EQ(run("child-args -- \"a b\" c\\\"d \"e\\\\\" f\\\\g \"\"", 0, NULL, NULL), 0);
    /* ANSI block */
    static const char envA[] = "FOO=bar\0OTHER=1\0";
    CHECK_EQ(run("child-env FOO bar", 0, (void *)envA, NULL), 0);
    CHECK_EQ(run("child-env foo bar", 0, (void *)envA, NULL), 0);   /* names ignore case */
    CHECK_EQ(run("child-noenv HOME", 0, (void *)envA, NULL), 0);    /* the block is all */
    /* Unicode block */
    static const WCHAR envW[] = L"WIDE=w\x00e9\0\0";
    CHECK_EQ(run("child-env WIDE w\xc3\xa9", CREATE_UNICODE_ENVIRONMENT, (void *)envW, NULL), 0);
    CHECK_EQ(run("child-cwd /tmp", 0, NULL, "/tmp"), 0);
    CHECK_EQ(run("child-exit 3", CREATE_NEW_PROCESS_GROUP, NULL, NULL), 3);

    /* CreateProcessW, lpApplicationName given, ".exe" optional */
    char app[4200];
    snprintf(app, sizeof(app), "%s.exe", self);
    WCHAR wapp[4200], wcmd[4300];
    for (size_t i = 0; i <= strlen(app); i++) wapp[i] = (WCHAR)(unsigned char)app[i];
    const char *c = "x child-exit 12";
    for (size_t i = 0; i <= strlen(c); i++) wcmd[i] = (WCHAR)c[i];
    STARTUPINFOW si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    CHECK(CreateProcessW(wapp, wcmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    DWORD code = 0;
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 12);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);

    /* a bare name: found in the program's own directory */
    const char *base = strrchr(self, '/') + 1;
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "%s child-exit 13", base);
    STARTUPINFOA sa = { .cb = sizeof(sa) };
    CHECK(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &sa, &pi));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 13);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

static void test_bad_input(void)
{
    PROCESS_INFORMATION pi;
    STARTUPINFOA si = { .cb = sizeof(si) };
    char cmd[64];
    strcpy(cmd, "nspa-no-such-program-xyz arg");
    SetLastError(0);
    CHECK(!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    SetLastError(0);
    CHECK(!CreateProcessA("/tmp", NULL, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));   /* a directory */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    char path[256];
    snprintf(path, sizeof(path), "/tmp/nspa-proc-noexec-%d", (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0) close(fd);
    SetLastError(0);
    CHECK(!CreateProcessA(path, NULL, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));     /* not executable */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    unlink(path);
    char *lng = malloc(40000);
    snprintf(lng, 40000, "\"%s\" child-exit 1 ", self);
    size_t l = strlen(lng);
    memset(lng + l, 'x', 40000 - l - 1);
    lng[39999] = 0;
    SetLastError(0);
    CHECK(!CreateProcessA(NULL, lng, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));     /* over-long */
    CHECK_EQ(GetLastError(), ERROR_FILENAME_EXCED_RANGE);
    free(lng);
    SetLastError(0);
    snprintf(cmd, sizeof(cmd), "x");
    CHECK(!CreateProcessA(self, cmd, NULL, NULL, FALSE, 0, NULL, "/nonexistent-dir", &si, &pi));
    CHECK_EQ(GetLastError(), ERROR_DIRECTORY);

    DWORD code;
    SetLastError(0);
    CHECK(!GetExitCodeProcess((HANDLE)(uintptr_t)0x12345670, &code));                 /* garbage */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    SetLastError(0);
    CHECK(!GetExitCodeProcess(ev, &code));                                             /* wrong type */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!TerminateProcess(ev, 1));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(ev);
    REQUIRE(spawn("child-exit 0", 0, NULL, NULL, &pi));
    WaitForSingleObject(pi.hProcess, 20000);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    SetLastError(0);
    CHECK(!GetExitCodeProcess(pi.hProcess, &code));                                    /* closed */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 0), WAIT_FAILED);

    /* OpenProcess: no such pid, pid 0 */
    SetLastError(0);
    CHECK(OpenProcess(SYNCHRONIZE, FALSE, 0x3ffffff0u) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(OpenProcess(SYNCHRONIZE, FALSE, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6)) return child_main(argc, argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    test_exit_codes();
    test_still_active_and_mixed_waits();
    test_terminate();
    test_open_process();
    test_suspended();
    test_cmdline_env_cwd();
    test_bad_input();
    return nspa_test_done();
}
