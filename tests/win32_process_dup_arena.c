/* DuplicateHandle with another process as the source, of an object that process never
 * shared (an unnamed event, semaphore and mutex made without bInheritHandle: its
 * private arena), issue 14 item 2: "an unnamed object whose handle crosses a process
 * becomes shared without its waiters noticing". The source grows the object into the
 * region when asked (src/sync/ask.c): a thread of the child that waits on the event
 * wakes when the parent sets its copy; the child's own handles go on working on the
 * same object both ways; DUPLICATE_SAME_ACCESS copies a restricted handle's access;
 * DUPLICATE_CLOSE_SOURCE closes the child's handle; a mutex the child owns stays owned
 * by it (the parent's wait succeeds once the child releases it); a value that names
 * nothing there is still ERROR_INVALID_HANDLE; nothing is left over. A source that is
 * stopped (SIGSTOP) cannot answer: the call fails after the asker's bound (10 s) with
 * WAIT_TIMEOUT instead of hanging; one that dies while asked fails at once. */
#include <windows.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static HANDLE named_event(const char *what, const char *tag)
{
    char name[96];
    snprintf(name, sizeof(name), "nspa-dar-%s-%s", what, tag);
    return CreateEventA(NULL, FALSE, FALSE, name);
}

static void vals_path(char *out, size_t cap, const char *tag) { snprintf(out, cap, "%s.dar-%s", self, tag); }

static HANDLE ev, woke;

static DWORD WINAPI waiter(void *arg)
{
    (void)arg;
    if (WaitForSingleObject(ev, 20000) == WAIT_OBJECT_0) SetEvent(woke);
    return 0;
}

static int child(const char *tag)
{
    ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE sem = CreateSemaphoreA(NULL, 0, 5, NULL);
    HANDLE mtx = CreateMutexA(NULL, TRUE, NULL);                       /* owned by us */
    HANDLE ev_sync = NULL;
    woke = named_event("woke", tag);
    HANDLE go = named_event("go", tag), done = named_event("done", tag), rel = named_event("rel", tag);
    if (!ev || !sem || !mtx || !woke || !go || !done || !rel) return 1;
    if (!DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &ev_sync, SYNCHRONIZE, FALSE, 0)) return 2;
    HANDLE t = CreateThread(NULL, 0, waiter, NULL, 0, NULL);
    if (!t) return 3;
    Sleep(100);                                                        /* it waits */
    char path[4300];
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "w");
    if (!f) return 4;
    fprintf(f, "%lu %lu %lu %lu\n", (unsigned long)(uintptr_t)ev, (unsigned long)(uintptr_t)sem,
            (unsigned long)(uintptr_t)mtx, (unsigned long)(uintptr_t)ev_sync);
    fclose(f);
    SetEvent(named_event("ready", tag));
    if (WaitForSingleObject(t, 20000) != WAIT_OBJECT_0) return 5;     /* woken by the parent's SetEvent */
    CloseHandle(t);
    if (WaitForSingleObject(rel, 20000) != WAIT_OBJECT_0) return 6;
    if (!ReleaseMutex(mtx)) return 7;                                 /* still ours after growing */
    if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 8;
    /* taken with DUPLICATE_CLOSE_SOURCE: gone here */
    SetLastError(0);
    if (ReleaseSemaphore(sem, 1, NULL) || GetLastError() != ERROR_INVALID_HANDLE) return 9;
    /* ours still work on the grown object: the parent reset it, we set it */
    if (WaitForSingleObject(ev, 0) != WAIT_TIMEOUT || !SetEvent(ev)) return 10;
    SetEvent(done);
    return 0;
}

/* every thread of @pid in the stopped state (a SIGSTOP takes effect thread by thread,
 * after kill() returns) */
static int all_stopped(DWORD pid)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%lu/task", (unsigned long)pid);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, stopped = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[400], buf[512];
        snprintf(path, sizeof(path), "%s/%s/stat", dir, e->d_name);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
        if (f) fclose(f);
        buf[len] = 0;
        const char *p = strrchr(buf, ')');
        n++;
        stopped += p && (p[2] == 'T' || p[2] == 't');
    }
    closedir(d);
    return n && n == stopped;
}

/* a source that cannot answer: stopped, then killed */
static int child_stopped(const char *tag)
{
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
    char path[4300];
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "w");
    if (!e || !f) return 1;
    fprintf(f, "%lu\n", (unsigned long)(uintptr_t)e);
    fclose(f);
    SetEvent(named_event("ready", tag));
    Sleep(30000);
    return 0;
}

static void test_stopped(void)
{
    char tag[40], cmd[4400], path[4300];
    snprintf(tag, sizeof(tag), "%d-stop", (int)getpid());
    HANDLE ready = named_event("ready", tag);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-stopped %s", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(ready && CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE w[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w, FALSE, 20000), WAIT_OBJECT_0);
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    unsigned long ve = 0;
    CHECK(f && fscanf(f, "%lu", &ve) == 1);
    if (f) fclose(f);
    unlink(path);
    CHECK_EQ(kill((pid_t)pi.dwProcessId, SIGSTOP), 0);
    for (int k = 0; k < 500 && !all_stopped(pi.dwProcessId); k++) Sleep(10);
    CHECK(all_stopped(pi.dwProcessId));
    HANDLE x = NULL;
    ULONGLONG t0 = GetTickCount64();
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)ve, GetCurrentProcess(), &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    ULONGLONG took = GetTickCount64() - t0;
    CHECK(took >= 9000 && took < 30000);
    CHECK(TerminateProcess(pi.hProcess, 3));                  /* SIGKILL: stopped or not */
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    SetLastError(0);                                          /* gone: at once */
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)ve, GetCurrentProcess(), &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(ready);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 3 && !strcmp(argv[1], "child-arena")) return child(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "child-stopped")) return child_stopped(argv[2]);
    char tag[32], cmd[4400], path[4300];
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    HANDLE ready = named_event("ready", tag), woke_p = named_event("woke", tag), go = named_event("go", tag),
           done = named_event("done", tag), rel = named_event("rel", tag);
    REQUIRE(ready && woke_p && go && done && rel);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-arena %s", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE w[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w, FALSE, 20000), WAIT_OBJECT_0);
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    unsigned long ve = 0, vs = 0, vm = 0, vq = 0;
    CHECK(f && fscanf(f, "%lu %lu %lu %lu", &ve, &vs, &vm, &vq) == 4);
    if (f) fclose(f);
    unlink(path);
    HANDLE e = NULL, s = NULL, m = NULL, q = NULL, x = NULL;
    /* the event its thread waits on: the waiter does not notice, and wakes */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)ve, GetCurrentProcess(), &e, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(SetEvent(e));
    HANDLE w2[2] = { woke_p, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w2, FALSE, 20000), WAIT_OBJECT_0);
    CHECK(ResetEvent(e));
    /* a SYNCHRONIZE-only handle of it, with its access */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vq, GetCurrentProcess(), &q, 0, FALSE, DUPLICATE_SAME_ACCESS));
    SetLastError(0);
    CHECK(!SetEvent(q));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    /* its owned mutex: owned by the child until it releases it */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vm, GetCurrentProcess(), &m, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_TIMEOUT);
    SetEvent(rel);
    CHECK_EQ(WaitForSingleObject(m, 20000), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    /* the semaphore, closing the child's handle */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vs, GetCurrentProcess(), &s, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK(ReleaseSemaphore(s, 2, NULL));
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vs, GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* a value that names nothing there */
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)0x7ffc, GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetEvent(go);
    HANDLE w3[2] = { done, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w3, FALSE, 20000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);              /* set by the child's own handle */
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 99;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    if (code) fprintf(stderr, "child exit code %lu\n", (unsigned long)code);
    CHECK_EQ(code, 0);
    HANDLE all[] = { e, s, m, q, ready, woke_p, go, done, rel, pi.hProcess, pi.hThread };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CHECK(CloseHandle(all[i]));
    test_stopped();
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
