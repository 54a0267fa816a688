/* DuplicateHandle with another process as the source and DUPLICATE_CLOSE_SOURCE (issue
 * 14, item 2): the handle in the source process is closed, as on Windows — the source's
 * CloseHandle of it then fails with ERROR_INVALID_HANDLE, a second duplication of the
 * value fails, the reference went with the copy (a named object lives while the copy
 * does and goes with it), the copy gets the access asked for; a handle value that names
 * nothing there is ERROR_INVALID_HANDLE; nothing is left over (nspa_check_namespace).
 * The revocation takes effect at the source's next use of the value: a source thread
 * spinning on SetEvent(value) (lookups only: no close, no miss) fails with
 * ERROR_INVALID_HANDLE once the copy is made, and the first SetEvent after a wait fails. */
#include <windows.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static HANDLE named_event(const char *what, const char *tag)
{
    char name[96];
    snprintf(name, sizeof(name), "nspa-cs-%s-%s", what, tag);
    return CreateEventA(NULL, TRUE, FALSE, name);
}

static void vals_path(char *out, size_t cap, const char *tag) { snprintf(out, cap, "%s.cs-%s", self, tag); }

/* the source: an unnamed shareable event and a named mutex; their values to the parent */
static int child(const char *tag)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE e = CreateEventA(&sa, TRUE, FALSE, NULL);
    char name[96], path[4300];
    snprintf(name, sizeof(name), "nspa-cs-mutex-%s", tag);
    HANDLE m = CreateMutexA(NULL, FALSE, name);
    HANDLE keep = CreateEventA(&sa, TRUE, FALSE, NULL);      /* not taken: stays ours */
    HANDLE spin = CreateEventA(&sa, FALSE, FALSE, NULL);     /* taken while we use it */
    if (!e || !m || !keep || !spin) return 1;
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "w");
    if (!f) return 2;
    fprintf(f, "%lu %lu %lu %lu\n", (unsigned long)(uintptr_t)e, (unsigned long)(uintptr_t)m,
            (unsigned long)(uintptr_t)keep, (unsigned long)(uintptr_t)spin);
    fclose(f);
    HANDLE go = named_event("go", tag);
    SetEvent(named_event("ready", tag));
    /* the parent takes @spin with DUPLICATE_CLOSE_SOURCE while we use it */
    ULONGLONG end = GetTickCount64() + 20000;
    SetLastError(0);
    while (SetEvent(spin))
        if (GetTickCount64() > end) return 4;                  /* never revoked */
    if (GetLastError() != ERROR_INVALID_HANDLE) return 5;
    if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 3;
    /* closed by the parent: gone here, from the first use on */
    SetLastError(0);
    if (SetEvent(e) || GetLastError() != ERROR_INVALID_HANDLE) return 9;
    SetLastError(0);
    if (CloseHandle(e) || GetLastError() != ERROR_INVALID_HANDLE) return 10;
    SetLastError(0);
    if (CloseHandle(m) || GetLastError() != ERROR_INVALID_HANDLE) return 11;
    SetLastError(0);
    if (WaitForSingleObject(e, 0) != WAIT_FAILED || GetLastError() != ERROR_INVALID_HANDLE) return 12;
    if (WaitForSingleObject(keep, 0) != WAIT_TIMEOUT || !CloseHandle(keep)) return 13;   /* untouched */
    return 0;
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 3 && !strcmp(argv[1], "child-src")) return child(argv[2]);
    char tag[32], cmd[4400], path[4300], name[96];
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    HANDLE ready = named_event("ready", tag), go = named_event("go", tag);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-src %s", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE rw[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, rw, FALSE, 20000), WAIT_OBJECT_0);
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    unsigned long ve = 0, vm = 0, vk = 0, vs = 0;
    CHECK(f && fscanf(f, "%lu %lu %lu %lu", &ve, &vm, &vk, &vs) == 4);
    if (f) fclose(f);
    unlink(path);
    HANDLE e = NULL, m = NULL, x = NULL, sp = NULL;
    Sleep(20);                                 /* the child is spinning on its handle */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vs, GetCurrentProcess(), &sp, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)ve, GetCurrentProcess(), &e, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK(SetEvent(e));
    /* closed there: a second time finds nothing */
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)ve, GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* the named mutex, with the access asked for */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)vm, GetCurrentProcess(), &m, SYNCHRONIZE, FALSE,
                          DUPLICATE_CLOSE_SOURCE));
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK(ReleaseMutex(m));
    /* a value that names nothing there */
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)0x7ffc, GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetEvent(go);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    /* the mutex's name lives with our copy, and goes with it */
    snprintf(name, sizeof(name), "nspa-cs-mutex-%s", tag);
    HANDLE again = OpenMutexA(SYNCHRONIZE, FALSE, name);
    CHECK(again != NULL);
    CloseHandle(again);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);
    CHECK(CloseHandle(m));
    CHECK(CloseHandle(e));
    CHECK(CloseHandle(sp));
    SetLastError(0);
    CHECK(OpenMutexA(SYNCHRONIZE, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(nspa_check_namespace(), 0);
    CloseHandle(ready);
    CloseHandle(go);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return nspa_test_done();
}
