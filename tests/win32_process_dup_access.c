/* Access masks of handles that cross processes (issue 14, item 2): a handle given to
 * another process (DuplicateHandle into it, or inherited by it) has the access it was
 * given — the one asked for (generic rights mapped for its type), the source's with
 * DUPLICATE_SAME_ACCESS, the parent handle's when inherited — and the process it went
 * to enforces it as it enforces its own handles' (tests/win32_access.c): SetEvent on a
 * SYNCHRONIZE-only handle is ERROR_ACCESS_DENIED, a wait on a MODIFY-only one
 * WAIT_FAILED / ERROR_ACCESS_DENIED. Taken from another process with
 * DUPLICATE_SAME_ACCESS, a handle has the access it had there. A handle given with
 * bInheritHandle is inheritable there (GetHandleInformation), one given without is not.
 * NtDuplicateObject into another process follows the same rules. */
#include <windows.h>
#include <winternl.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static void vals_path(char *out, size_t cap, const char *tag) { snprintf(out, cap, "%s.da-%s", self, tag); }

static int can_set(HANDLE h)
{
    SetLastError(0);
    if (SetEvent(h)) return 1;
    return GetLastError() == ERROR_ACCESS_DENIED ? 0 : -1;
}

static int can_wait(HANDLE h)
{
    SetLastError(0);
    DWORD w = WaitForSingleObject(h, 0);
    if (w == WAIT_OBJECT_0 || w == WAIT_TIMEOUT) return 1;
    return w == WAIT_FAILED && GetLastError() == ERROR_ACCESS_DENIED ? 0 : -1;
}

/* the child: what its parent gave it; exit code: the first check that failed */
static int child(const char *tag)
{
    char path[4300];
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    unsigned long v[8] = { 0 };
    if (!f || fscanf(f, "%lu %lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
        return 1;
    fclose(f);
    HANDLE ev_sync = (HANDLE)v[0], ev_mod = (HANDLE)v[1], ev_same = (HANDLE)v[2], sem_w = (HANDLE)v[3],
           proc_q = (HANDLE)v[4], inh_sync = (HANDLE)v[5], inh_mod = (HANDLE)v[6];
    if (can_wait(ev_sync) != 1 || can_set(ev_sync) != 0) return 2;        /* SYNCHRONIZE */
    if (can_set(ev_mod) != 1 || can_wait(ev_mod) != 0) return 3;          /* EVENT_MODIFY_STATE */
    if (can_wait(ev_same) != 1 || can_set(ev_same) != 0) return 4;        /* SAME_ACCESS of a SYNCHRONIZE one */
    SetLastError(0);                                                       /* GENERIC_WRITE on a semaphore */
    if (!ReleaseSemaphore(sem_w, 1, NULL) || can_wait(sem_w) != 0) return 5;
    DWORD code = 0;                                                        /* PROCESS_QUERY_LIMITED_INFORMATION */
    if (!GetExitCodeProcess(proc_q, &code) || code != STILL_ACTIVE || can_wait(proc_q) != 0) return 6;
    if (can_wait(inh_sync) != 1 || can_set(inh_sync) != 0) return 7;      /* inherited: the parent's */
    if (can_set(inh_mod) != 1 || can_wait(inh_mod) != 0) return 8;
    /* bInheritHandle of DuplicateHandle into this process: r[1] TRUE, r[0] FALSE; an
     * inherited handle stays inheritable */
    DWORD fl = 0;
    if (!GetHandleInformation(ev_mod, &fl) || !(fl & HANDLE_FLAG_INHERIT)) return 14;
    if (!GetHandleInformation(ev_sync, &fl) || (fl & HANDLE_FLAG_INHERIT)) return 15;
    if (!GetHandleInformation(inh_sync, &fl) || !(fl & HANDLE_FLAG_INHERIT)) return 16;
    /* a SYNCHRONIZE-only handle of its own, for the parent to take with SAME_ACCESS */
    HANDLE mine = NULL;
    if (!DuplicateHandle(GetCurrentProcess(), ev_mod, GetCurrentProcess(), &mine, SYNCHRONIZE, FALSE, 0)) return 9;
    if (can_set(mine) != 0) return 10;
    f = fopen(path, "w");
    if (!f) return 11;
    fprintf(f, "%lu\n", (unsigned long)(uintptr_t)mine);
    fclose(f);
    char name[96];
    snprintf(name, sizeof(name), "nspa-da-done-%s", tag);
    HANDLE done = OpenEventA(EVENT_MODIFY_STATE | SYNCHRONIZE, FALSE, name);
    snprintf(name, sizeof(name), "nspa-da-quit-%s", tag);
    HANDLE quit = OpenEventA(SYNCHRONIZE, FALSE, name);
    if (!done || !quit || !SetEvent(done)) return 12;
    if (WaitForSingleObject(quit, 20000) != WAIT_OBJECT_0) return 13;
    return 0;
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 3 && !strcmp(argv[1], "child-acc")) return child(argv[2]);
    char tag[32], cmd[4400], path[4300], name[96];
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    snprintf(name, sizeof(name), "nspa-da-done-%s", tag);
    HANDLE done = CreateEventA(NULL, FALSE, FALSE, name);
    snprintf(name, sizeof(name), "nspa-da-quit-%s", tag);
    HANDLE quit = CreateEventA(NULL, TRUE, FALSE, name);
    snprintf(name, sizeof(name), "nspa-da-ev-%s", tag);
    HANDLE named = CreateEventA(NULL, TRUE, FALSE, name);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);                /* private: grows */
    HANDLE sem = CreateSemaphoreA(NULL, 0, 10, NULL);
    HANDLE synconly = OpenEventA(SYNCHRONIZE, FALSE, name);
    HANDLE me = OpenProcess(PROCESS_ALL_ACCESS, FALSE, GetCurrentProcessId());
    REQUIRE(done && quit && named && ev && sem && synconly && me);
    /* inheritable copies with restricted access (the child inherits them as they are) */
    HANDLE inh_sync = NULL, inh_mod = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &inh_sync, SYNCHRONIZE, TRUE, 0));
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &inh_mod, EVENT_MODIFY_STATE, TRUE, 0));
    snprintf(cmd, sizeof(cmd), "\"%s\" child-acc %s", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si, &pi));
    HANDLE r[5] = { 0 };
    /* through the NT call (DuplicateHandle is over it): the same rules */
    CHECK_EQ(NtDuplicateObject(GetCurrentProcess(), ev, pi.hProcess, &r[0], SYNCHRONIZE, 0, 0), STATUS_SUCCESS);
    CHECK(DuplicateHandle(GetCurrentProcess(), ev, pi.hProcess, &r[1], EVENT_MODIFY_STATE, TRUE, 0));
    CHECK(DuplicateHandle(GetCurrentProcess(), synconly, pi.hProcess, &r[2], EVENT_ALL_ACCESS, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK(DuplicateHandle(GetCurrentProcess(), sem, pi.hProcess, &r[3], GENERIC_WRITE, FALSE, 0));
    CHECK(DuplicateHandle(GetCurrentProcess(), me, pi.hProcess, &r[4], PROCESS_QUERY_LIMITED_INFORMATION, FALSE, 0));
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    for (int i = 0; i < 5; i++) fprintf(f, "%lu ", (unsigned long)(uintptr_t)r[i]);
    fprintf(f, "%lu %lu\n", (unsigned long)(uintptr_t)inh_sync, (unsigned long)(uintptr_t)inh_mod);
    fclose(f);
    CHECK(ResumeThread(pi.hThread) == 1);
    HANDLE w[2] = { done, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, w, FALSE, 20000), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_OBJECT_0);               /* set through r[1] */
    LONG prev = -1;
    CHECK(ReleaseSemaphore(sem, 1, &prev));                            /* the child released one */
    CHECK_EQ(prev, 1);
    /* from the child: its SYNCHRONIZE-only handle with DUPLICATE_SAME_ACCESS, and with
     * the access asked for */
    f = fopen(path, "r");
    unsigned long vm = 0;
    CHECK(f && fscanf(f, "%lu", &vm) == 1);
    if (f) fclose(f);
    unlink(path);
    HANDLE same = NULL, asked = NULL;
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vm, GetCurrentProcess(), &same, EVENT_ALL_ACCESS, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK_EQ(can_set(same), 0);
    CHECK_EQ(can_wait(same), 1);
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vm, GetCurrentProcess(), &asked, EVENT_MODIFY_STATE, FALSE,
                          0));
    CHECK_EQ(can_set(asked), 1);
    CHECK_EQ(can_wait(asked), 0);
    SetEvent(quit);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 99;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    if (code) fprintf(stderr, "child exit code %lu\n", (unsigned long)code);
    CHECK_EQ(code, 0);
    HANDLE all[] = { same, asked, inh_sync, inh_mod, ev, sem, synconly, named, me, done, quit, pi.hProcess, pi.hThread };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) CHECK(CloseHandle(all[i]));
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
