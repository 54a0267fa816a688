/* A mutex held by another thread crossing processes (issue 14, item 2): thread A of
 * process P holds an unnamed mutex while P's main thread duplicates it into another
 * process (or makes it inheritable and spawns a child that inherits it). The mutex grows
 * into the namespace region with its owner: the other process's waits time out while A
 * holds it, a waiter there gets it when A releases it (WAIT_OBJECT_0), and gets
 * WAIT_ABANDONED when P dies with A still holding it — for the duplicated and for the
 * inherited handle. */
#include <windows.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096];

static HANDLE ev(const char *what, const char *tag)
{
    char name[96];
    snprintf(name, sizeof(name), "nspa-mo-%s-%s", what, tag);
    return CreateEventA(NULL, TRUE, FALSE, name);
}

static void put(const char *tag, const char *what, unsigned long v)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s.%s-%s", self, what, tag);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%lu\n", v);
        fclose(f);
    }
}

static unsigned long get(const char *tag, const char *what)
{
    char path[4300];
    snprintf(path, sizeof(path), "%s.%s-%s", self, what, tag);
    FILE *f = fopen(path, "r");
    unsigned long v = 0;
    if (f) {
        if (fscanf(f, "%lu", &v) != 1) v = 0;
        fclose(f);
    }
    unlink(path);
    return v;
}

static const char *holder_tag;
static HANDLE the_mutex;

/* thread A: takes the mutex and holds it until told */
static DWORD WINAPI thread_a(LPVOID held)
{
    if (WaitForSingleObject(the_mutex, 20000) != WAIT_OBJECT_0) return 1;
    SetEvent((HANDLE)held);
    if (WaitForSingleObject(ev("release", holder_tag), 60000) != WAIT_OBJECT_0) return 2;
    return ReleaseMutex(the_mutex) ? 0 : 3;
}

/* P: "holder <tag> dup|inherit" */
static int holder(const char *tag, const char *how)
{
    holder_tag = tag;
    the_mutex = CreateMutexA(NULL, FALSE, NULL);
    HANDLE held = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE a = CreateThread(NULL, 0, thread_a, held, 0, NULL);
    if (!the_mutex || !a || WaitForSingleObject(held, 20000) != WAIT_OBJECT_0) return 10;
    if (!strcmp(how, "dup")) {
        HANDLE parent = OpenProcess(PROCESS_DUP_HANDLE, FALSE, (DWORD)getppid()), v = NULL;
        if (!parent || !DuplicateHandle(GetCurrentProcess(), the_mutex, parent, &v, 0, FALSE, DUPLICATE_SAME_ACCESS))
            return 11;
        put(tag, "value", (unsigned long)(uintptr_t)v);
    } else {
        if (!SetHandleInformation(the_mutex, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) return 12;
        char cmd[4400];
        snprintf(cmd, sizeof(cmd), "\"%s\" waiter %s %lu", self, tag, (unsigned long)(uintptr_t)the_mutex);
        STARTUPINFOA si = { .cb = sizeof(si) };
        PROCESS_INFORMATION pi;
        if (!CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return 13;
        put(tag, "qpid", pi.dwProcessId);
    }
    if (WaitForSingleObject(the_mutex, 0) != WAIT_TIMEOUT) return 14;   /* A's, still */
    SetEvent(ev("ready", tag));
    if (WaitForSingleObject(a, 60000) != WAIT_OBJECT_0) return 15;      /* (or killed before) */
    DWORD code = 1;
    GetExitCodeThread(a, &code);
    return code ? 16 : 0;
}

/* Q: "waiter <tag> <inherited value>": the mutex is held; it says so, then waits */
static int waiter(const char *tag, HANDLE m)
{
    DWORD r = WaitForSingleObject(m, 0);
    put(tag, "first", r);
    SetEvent(ev("qwait", tag));
    r = WaitForSingleObject(m, 30000);
    if (r == WAIT_ABANDONED_0 || r == WAIT_OBJECT_0) ReleaseMutex(m);    /* ours now */
    put(tag, "second", r);
    return 0;
}

static HANDLE spawn_holder(const char *tag, const char *how, PROCESS_INFORMATION *pi)
{
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" holder %s %s", self, tag, how);
    STARTUPINFOA si = { .cb = sizeof(si) };
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, pi));
    HANDLE ready = ev("ready", tag);
    HANDLE two[2] = { ready, pi->hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, two, FALSE, 20000), WAIT_OBJECT_0);
    return ready;
}

struct wait_arg {
    HANDLE m;
    volatile LONG result;
};

static DWORD WINAPI wait_thread(LPVOID p)
{
    struct wait_arg *w = p;
    DWORD r = WaitForSingleObject(w->m, 30000);
    InterlockedExchange(&w->result, (LONG)r);
    if (r == WAIT_OBJECT_0 || r == WAIT_ABANDONED_0) ReleaseMutex(w->m);
    return 0;
}

/* the duplicated handle: released by A (@kill 0), or P killed while A holds it */
static void test_dup(int kill)
{
    char tag[32];
    snprintf(tag, sizeof(tag), "%d-d%d", (int)getpid(), kill);
    HANDLE release = ev("release", tag);
    PROCESS_INFORMATION pi;
    HANDLE ready = spawn_holder(tag, "dup", &pi);
    struct wait_arg w = { (HANDLE)(uintptr_t)get(tag, "value"), -1 };
    REQUIRE(w.m);
    CHECK_EQ(WaitForSingleObject(w.m, 0), WAIT_TIMEOUT);          /* A holds it, in P */
    HANDLE t = CreateThread(NULL, 0, wait_thread, &w, 0, NULL);
    Sleep(50);
    CHECK_EQ(InterlockedCompareExchange(&w.result, 0, 0), -1);     /* still waiting */
    if (kill) CHECK(TerminateProcess(pi.hProcess, 9));
    else SetEvent(release);
    CHECK_EQ(WaitForSingleObject(t, 30000), WAIT_OBJECT_0);
    CHECK_EQ((DWORD)w.result, kill ? WAIT_ABANDONED_0 : WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, kill ? 9u : 0u);
    CHECK_EQ(WaitForSingleObject(w.m, 0), WAIT_OBJECT_0);          /* free now */
    CHECK(ReleaseMutex(w.m));
    CloseHandle(t);
    CloseHandle(w.m);
    CloseHandle(ready);
    CloseHandle(release);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

/* the inherited handle in P's child Q: P killed while A holds it */
static void test_inherit(void)
{
    char tag[32];
    snprintf(tag, sizeof(tag), "%d-i", (int)getpid());
    HANDLE qwait = ev("qwait", tag);
    PROCESS_INFORMATION pi;
    HANDLE ready = spawn_holder(tag, "inherit", &pi);
    DWORD qpid = (DWORD)get(tag, "qpid");
    HANDLE q = qpid ? OpenProcess(SYNCHRONIZE, FALSE, qpid) : NULL;
    REQUIRE(q);
    CHECK_EQ(WaitForSingleObject(qwait, 20000), WAIT_OBJECT_0);
    Sleep(50);                                                     /* Q sleeps in its wait */
    CHECK(TerminateProcess(pi.hProcess, 9));
    CHECK_EQ(WaitForSingleObject(q, 30000), WAIT_OBJECT_0);
    CHECK_EQ(get(tag, "first"), WAIT_TIMEOUT);                     /* A held it for Q too */
    CHECK_EQ(get(tag, "second"), WAIT_ABANDONED_0);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CloseHandle(q);
    CloseHandle(qwait);
    CloseHandle(ready);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 4 && !strcmp(argv[1], "holder")) return holder(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "waiter")) return waiter(argv[2], (HANDLE)(uintptr_t)strtoul(argv[3], NULL, 10));
    test_dup(0);
    test_dup(1);
    test_inherit();
    return nspa_test_done();
}
