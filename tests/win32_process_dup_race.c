/* DuplicateHandle of a handle that another thread closes while the call runs (issue 14,
 * item 2), the interleaving forced with a test point (docs/sync.md "Test points").
 * The handle is one the parent gave the child (an index from REMOTE_BASE on). Thread A
 * of the child duplicates it and is held after its first look (the point
 * `dup_to_process_looked` for a target process, `dup_looked` within the child); the
 * child's main thread closes the handle and the parent gives the child a new one,
 * which lands at the same index and is not used yet. A's second look, under the
 * registry lock, must not install that new handle (that would take the registry lock
 * again: a self-deadlock, the child hung): the duplication fails with
 * ERROR_INVALID_HANDLE, the new handle works afterwards, nothing is left over. */
#include <windows.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static HANDLE named_event(const char *what, const char *tag)
{
    char name[96];
    snprintf(name, sizeof(name), "nspa-dr-%s-%s", what, tag);
    return CreateEventA(NULL, FALSE, FALSE, name);
}

static void vals_path(char *out, size_t cap, const char *tag) { snprintf(out, cap, "%s.dr-%s", self, tag); }

static unsigned long read_val(const char *tag)
{
    char path[4300];
    unsigned long v = 0;
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (fscanf(f, "%lu", &v) != 1) v = 0;
    fclose(f);
    return v;
}

static struct {
    HANDLE src, target, done;
    BOOL ok;
    DWORD err;
} a;

static void *thread_a(void *arg)
{
    (void)arg;
    HANDLE x = NULL;
    SetLastError(0);
    a.ok = DuplicateHandle(GetCurrentProcess(), a.src, a.target, &x, 0, FALSE, DUPLICATE_SAME_ACCESS);
    a.err = GetLastError();
    SetEvent(a.done);
    return NULL;
}

/* exit codes: 0 pass; 20 thread A hung (the deadlock); 21 the window was not held */
static int child(const char *mode, const char *tag)
{
    int to_parent = !strcmp(mode, "to");
    /* before the first test point this process reaches (the point reads it then) */
    setenv("NSPA_TEST_PAUSE_AT", to_parent ? "dup_to_process_looked:3000" : "dup_looked:3000", 1);
    HANDLE go = named_event("go", tag), closed = named_event("closed", tag), given = named_event("given", tag);
    a.done = CreateEventA(NULL, TRUE, FALSE, NULL);
    a.target = to_parent ? OpenProcess(PROCESS_DUP_HANDLE, FALSE, getppid()) : GetCurrentProcess();
    if (!go || !closed || !given || !a.done || !a.target) return 1;
    SetEvent(named_event("ready", tag));
    if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 2;
    unsigned long v = read_val(tag);
    if (!v) return 3;
    a.src = (HANDLE)(uintptr_t)v;
    pthread_t t;
    if (pthread_create(&t, NULL, thread_a, NULL)) return 4;
    Sleep(300);                             /* A is held after its first look */
    if (!CloseHandle(a.src)) return 5;
    SetEvent(closed);
    if (WaitForSingleObject(given, 20000) != WAIT_OBJECT_0) return 6;
    if (read_val(tag) != v) return 7;       /* the new handle took the same index */
    if (WaitForSingleObject(a.done, 0) != WAIT_TIMEOUT) return 21;
    if (WaitForSingleObject(a.done, 15000) != WAIT_OBJECT_0) _exit(20);
    pthread_join(t, NULL);
    if (a.ok || a.err != ERROR_INVALID_HANDLE) return 8;
    if (!SetEvent(a.src) || !CloseHandle(a.src)) return 9;     /* the new one */
    if (to_parent) CloseHandle(a.target);
    return 0;
}

static void run(const char *mode)
{
    char tag[48], cmd[4400], path[4300];
    snprintf(tag, sizeof(tag), "%d-%s", (int)getpid(), mode);
    HANDLE ready = named_event("ready", tag), go = named_event("go", tag), closed = named_event("closed", tag),
           given = named_event("given", tag);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);      /* private: grows when given */
    REQUIRE(ready && go && closed && given && ev);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-race %s %s", self, mode, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    vals_path(path, sizeof(path), tag);
    HANDLE w1[2] = { ready, pi.hProcess }, w2[2] = { closed, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w1, FALSE, 20000), WAIT_OBJECT_0);
    HANDLE v1 = NULL, v2 = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, pi.hProcess, &v1, 0, FALSE, DUPLICATE_SAME_ACCESS));
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "%lu\n", (unsigned long)(uintptr_t)v1);
    fclose(f);
    SetEvent(go);
    CHECK_EQ(WaitForMultipleObjects(2, w2, FALSE, 20000), WAIT_OBJECT_0);
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, pi.hProcess, &v2, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ((uintptr_t)v2, (uintptr_t)v1);
    f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "%lu\n", (unsigned long)(uintptr_t)v2);
    fclose(f);
    SetEvent(given);
    if (WaitForSingleObject(pi.hProcess, 30000) != WAIT_OBJECT_0) TerminateProcess(pi.hProcess, 99);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    if (code) fprintf(stderr, "mode %s: child exit code %lu\n", mode, (unsigned long)code);
    CHECK_EQ(code, 0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_OBJECT_0);     /* the new handle was used */
    unlink(path);
    CloseHandle(ev);
    CloseHandle(ready);
    CloseHandle(go);
    CloseHandle(closed);
    CloseHandle(given);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 4 && !strcmp(argv[1], "child-race")) return child(argv[2], argv[3]);
    run("to");      /* nspa__dup_to_process: the target is another process */
    run("self");    /* nspa_dup: within the child */
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
