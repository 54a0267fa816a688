/* Handles across processes (issue 14, item 2): Wine's pattern (an unnamed inheritable
 * event and mutex, their values on the child's command line: the child signals the
 * event and waits on the mutex the parent releases), inheritable vs not, bInheritHandles
 * FALSE, a named inheritable object, DuplicateHandle into a child and out of it, a
 * process-arena object with waiters growing into the region (its waiters move with it),
 * a mutex owned by another thread crossing with its owner, and a non-NSPA
 * child: the handles prepared for it are given back. */
#include <windows.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static HANDLE hv(const char *s) { return (HANDLE)(uintptr_t)strtoul(s, NULL, 10); }

static int child_main(int argc, char **argv)
{
    const char *m = argv[1];
    if (!strcmp(m, "child-wine") && argc == 4) {
        /* the event and the mutex are ours under the parent's values */
        HANDLE ev = hv(argv[2]), mtx = hv(argv[3]);
        if (!SetEvent(ev)) return 10;
        if (WaitForSingleObject(mtx, 20000) != WAIT_OBJECT_0) return 11;
        if (!ReleaseMutex(mtx)) return 12;
        DWORD flags = 0;
        if (!GetHandleInformation(ev, &flags) || !(flags & HANDLE_FLAG_INHERIT)) return 13;
        return 0;
    }
    if (!strcmp(m, "child-bad") && argc == 3) {
        /* a handle that was not inherited is not there */
        SetLastError(0);
        if (WaitForSingleObject(hv(argv[2]), 0) != WAIT_FAILED) return 20;
        return GetLastError() == ERROR_INVALID_HANDLE ? 0 : 21;
    }
    if (!strcmp(m, "child-named") && argc == 3) {
        HANDLE e = hv(argv[2]);
        return SetEvent(e) ? 0 : 30;
    }
    if (!strcmp(m, "child-dup") && argc == 3) {
        /* the parent puts a handle into us, and takes one out of us */
        char name[64];
        snprintf(name, sizeof(name), "nspa-inh-ready-%s", argv[2]);
        HANDLE ready = CreateEventA(NULL, TRUE, FALSE, name);
        snprintf(name, sizeof(name), "nspa-inh-go-%s", argv[2]);
        HANDLE go = CreateEventA(NULL, TRUE, FALSE, name);
        SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
        HANDLE mine = CreateEventA(&sa, TRUE, FALSE, NULL);     /* a region object */
        char path[256];
        snprintf(path, sizeof(path), "/tmp/nspa-inh-%s", argv[2]);
        FILE *f = fopen(path, "w");
        if (!f) return 40;
        fprintf(f, "%lu\n", (unsigned long)(uintptr_t)mine);
        fclose(f);
        SetEvent(ready);
        if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 41;
        f = fopen(path, "r");
        unsigned long v = 0;
        if (!f || fscanf(f, "%lu %lu", &v, &v) != 2) return 42;
        fclose(f);
        if (!SetEvent((HANDLE)(uintptr_t)v)) return 43;        /* the handle the parent gave */
        if (!SetEvent(mine)) return 44;
        Sleep(50);
        return 0;
    }
    return 99;
}

static DWORD WINAPI wait_on(LPVOID h)
{
    return WaitForSingleObject((HANDLE)h, 20000);
}

struct pair_args { HANDLE a, b; };
static DWORD WINAPI wait_all_on(LPVOID p)
{
    struct pair_args *w = p;
    HANDLE hs[2] = { w->a, w->b };
    return WaitForMultipleObjects(2, hs, TRUE, 20000);
}

static volatile LONG held;
static DWORD WINAPI hold_mutex(LPVOID m)
{
    if (WaitForSingleObject((HANDLE)m, 20000) != WAIT_OBJECT_0) return 1;
    InterlockedExchange(&held, 1);
    while (InterlockedCompareExchange(&held, 0, 0) != 2) Sleep(1);
    ReleaseMutex((HANDLE)m);
    return 0;
}

static volatile LONG hammer_stop;
static volatile LONG hammer_errors;

/* Set/Reset/Wait(0) on an object while it grows into the region under it */
static DWORD WINAPI hammer(LPVOID h)
{
    while (!InterlockedCompareExchange(&hammer_stop, 0, 0)) {
        if (!SetEvent((HANDLE)h)) { InterlockedIncrement(&hammer_errors); fprintf(stderr, "set %u\n", (unsigned)GetLastError()); }
        DWORD w = WaitForSingleObject((HANDLE)h, 0);
        if (w != WAIT_OBJECT_0) { InterlockedIncrement(&hammer_errors); fprintf(stderr, "wait %x %u\n", (unsigned)w, (unsigned)GetLastError()); }
        if (!ResetEvent((HANDLE)h)) { InterlockedIncrement(&hammer_errors); fprintf(stderr, "reset %u\n", (unsigned)GetLastError()); }
    }
    return 0;
}

static DWORD run(const char *args, BOOL inherit)
{
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, args);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, cmd, NULL, NULL, inherit, 0, NULL, NULL, &si, &pi)) return 0xdead;
    DWORD code = 0xbeef;
    if (WaitForSingleObject(pi.hProcess, 20000) == WAIT_OBJECT_0) GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return code;
}

static void test_wine_pattern(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE ev = CreateEventA(&sa, FALSE, FALSE, NULL);
    HANDLE mtx = CreateMutexA(&sa, TRUE, NULL);               /* owned by us */
    REQUIRE(ev && mtx);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-wine %lu %lu", self, (unsigned long)(uintptr_t)ev,
             (unsigned long)(uintptr_t)mtx);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    /* the child signals the event, then waits on the mutex we hold */
    HANDLE both[2] = { ev, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, both, FALSE, 20000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 100), WAIT_TIMEOUT);     /* it waits on the mutex */
    CHECK(ReleaseMutex(mtx));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    /* the child released the mutex: ours again */
    CHECK_EQ(WaitForSingleObject(mtx, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(mtx));
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);

    /* bInheritHandles FALSE: nothing goes */
    char args[64];
    snprintf(args, sizeof(args), "child-bad %lu", (unsigned long)(uintptr_t)ev);
    CHECK_EQ(run(args, FALSE), 0);
    CloseHandle(ev);
    CloseHandle(mtx);

    /* a handle that is not inheritable does not go */
    HANDLE priv = CreateEventA(NULL, FALSE, FALSE, NULL);
    snprintf(args, sizeof(args), "child-bad %lu", (unsigned long)(uintptr_t)priv);
    CHECK_EQ(run(args, TRUE), 0);
    CloseHandle(priv);

    /* a named object, inheritable through SetHandleInformation */
    HANDLE named = CreateEventA(NULL, TRUE, FALSE, "nspa-inherit-named");
    CHECK(SetHandleInformation(named, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    snprintf(args, sizeof(args), "child-named %lu", (unsigned long)(uintptr_t)named);
    CHECK_EQ(run(args, TRUE), 0);
    CHECK_EQ(WaitForSingleObject(named, 0), WAIT_OBJECT_0);
    CloseHandle(named);
}

static void test_duplicate_across(void)
{
    char args[64], name[64], path[256];
    int tag = (int)getpid();
    snprintf(args, sizeof(args), "child-dup %d", tag);
    snprintf(name, sizeof(name), "nspa-inh-ready-%d", tag);
    HANDLE ready = CreateEventA(NULL, TRUE, FALSE, name);
    snprintf(name, sizeof(name), "nspa-inh-go-%d", tag);
    HANDLE go = CreateEventA(NULL, TRUE, FALSE, name);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, args);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE rw[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, rw, FALSE, 20000), WAIT_OBJECT_0);
    snprintf(path, sizeof(path), "/tmp/nspa-inh-%d", tag);
    FILE *f = fopen(path, "r");
    unsigned long theirs = 0;
    CHECK(f && fscanf(f, "%lu", &theirs) == 1);
    if (f) fclose(f);
    /* out of the child: its event, here */
    HANDLE got = NULL;
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)theirs, GetCurrentProcess(), &got, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    /* into the child: an event of ours (created inheritable: a region object) */
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE ours = CreateEventA(&sa, TRUE, FALSE, NULL);
    HANDLE remote = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), ours, pi.hProcess, &remote, 0, FALSE, DUPLICATE_SAME_ACCESS));
    /* a process-arena object with waiters queued on it grows into the region and
     * crosses: its waiters (a single wait and a wait-all with another event) start
     * their waits again on the region object and are woken through it */
    HANDLE arena = CreateEventA(NULL, TRUE, FALSE, NULL), r2 = NULL;
    HANDLE other = CreateEventA(NULL, TRUE, TRUE, NULL);
    struct pair_args wa = { arena, other };
    HANDLE waiter = CreateThread(NULL, 0, wait_on, arena, 0, NULL);
    HANDLE waiter_all = CreateThread(NULL, 0, wait_all_on, &wa, 0, NULL);
    while (nspa_obj_waiters((nspa_obj_t)(uintptr_t)arena) < 2) Sleep(1);
    CHECK(DuplicateHandle(GetCurrentProcess(), arena, pi.hProcess, &r2, 0, FALSE, DUPLICATE_SAME_ACCESS));
    /* the handle names the region object now, and both waiters queue there again */
    int moved = 0;
    for (int i = 0; i < 5000 && !(moved = nspa_obj_waiters((nspa_obj_t)(uintptr_t)arena) == 2); i++) Sleep(1);
    CHECK(moved);
    CHECK_EQ(WaitForSingleObject(waiter, 0), WAIT_TIMEOUT);       /* still waiting */
    SetEvent(arena);
    CHECK_EQ(WaitForSingleObject(waiter, 20000), WAIT_OBJECT_0);
    DWORD wcode = 1;
    CHECK(GetExitCodeThread(waiter, &wcode) && wcode == WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(waiter_all, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeThread(waiter_all, &wcode) && wcode == WAIT_OBJECT_0);
    CloseHandle(waiter);
    CloseHandle(waiter_all);
    CloseHandle(other);
    CHECK_EQ(WaitForSingleObject(arena, 0), WAIT_OBJECT_0);     /* its state came along */
    /* a mutex another thread owns crosses with its owner (win32_process_mutex_owner.c
     * has the other process's side) */
    HANDLE owned = CreateMutexA(NULL, FALSE, NULL), r3 = NULL;
    HANDLE holder = CreateThread(NULL, 0, hold_mutex, owned, 0, NULL);
    while (InterlockedCompareExchange(&held, 0, 0) != 1) Sleep(1);
    CHECK(DuplicateHandle(GetCurrentProcess(), owned, pi.hProcess, &r3, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(WaitForSingleObject(owned, 0), WAIT_TIMEOUT);   /* still the holder's */
    InterlockedExchange(&held, 2);
    CHECK_EQ(WaitForSingleObject(holder, 20000), WAIT_OBJECT_0);
    CloseHandle(holder);
    CloseHandle(owned);
    /* (DUPLICATE_CLOSE_SOURCE with the child as the source: win32_process_close_source.c) */
    CloseHandle(arena);
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%lu %lu\n", theirs, (unsigned long)(uintptr_t)remote);
        fclose(f);
    }
    SetEvent(go);
    HANDLE both[2] = { ours, got };
    CHECK_EQ(WaitForMultipleObjects(2, both, TRUE, 20000), WAIT_OBJECT_0);   /* the child set both */
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CHECK_EQ(code, 0);
    unlink(path);
    CloseHandle(got);
    CloseHandle(ours);
    CloseHandle(ready);
    CloseHandle(go);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

/* Objects created not inheritable, made so later: they grow into the region when the
 * child is created (the Wine pattern with SetHandleInformation / DuplicateHandle) */
static void test_grown(void)
{
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE ev2 = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &ev2, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(SetHandleInformation(ev, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    HANDLE m0 = CreateMutexA(NULL, TRUE, NULL), mtx = NULL;                   /* owned by us */
    CHECK(DuplicateHandle(GetCurrentProcess(), m0, GetCurrentProcess(), &mtx, 0, TRUE, DUPLICATE_SAME_ACCESS));
    CloseHandle(m0);
    /* another object grows while a thread works on it */
    HANDLE busy = CreateEventA(NULL, TRUE, FALSE, NULL);
    CHECK(SetHandleInformation(busy, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    InterlockedExchange(&hammer_stop, 0);
    HANDLE th = CreateThread(NULL, 0, hammer, busy, 0, NULL);
    Sleep(5);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-wine %lu %lu", self, (unsigned long)(uintptr_t)ev,
             (unsigned long)(uintptr_t)mtx);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    HANDLE both[2] = { ev2, pi.hProcess };                   /* through the other handle */
    CHECK_EQ(WaitForMultipleObjects(2, both, FALSE, 20000), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(mtx));                                /* ours still, now in the region */
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    CHECK_EQ(WaitForSingleObject(mtx, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(mtx));
    Sleep(5);
    InterlockedExchange(&hammer_stop, 1);
    CHECK_EQ(WaitForSingleObject(th, 20000), WAIT_OBJECT_0);
    CHECK_EQ(hammer_errors, 0);
    CHECK_EQ(nspa_check_namespace(), 0);
    CloseHandle(th);
    CloseHandle(busy);
    CloseHandle(ev);
    CloseHandle(ev2);
    CloseHandle(mtx);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
}

static void test_foreign_child(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE ev = CreateEventA(&sa, TRUE, FALSE, NULL);
    struct nspa_ns_stats s0, s1;
    REQUIRE(nspa_namespace_stats(&s0) == 0);
    char cmd[] = "/bin/true";
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CHECK_EQ(code, 0);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    /* the watcher gives the slot back after the wake (it may be behind on a loaded
     * machine: up to 10 s) */
    REQUIRE(nspa_namespace_stats(&s1) == 0);
    for (int i = 0; i < 500 && s1.processes != s0.processes; i++) {
        Sleep(20);
        REQUIRE(nspa_namespace_stats(&s1) == 0);
    }
    CHECK_EQ(s1.processes, s0.processes);
    CloseHandle(ev);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6)) return child_main(argc, argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    test_wine_pattern();
    test_duplicate_across();
    test_grown();
    test_foreign_child();
    return nspa_test_done();
}
