/* DuplicateHandle into a child that has not run yet (CREATE_SUSPENDED, issue 14 item 2):
 * as on Windows, the handles can be given before ResumeThread and the child finds them
 * under the values DuplicateHandle returned (an unnamed event it signals, a named mutex
 * it takes), not inheritable (bInheritHandle FALSE), next to the handles it inherited
 * (bInheritHandles TRUE: inheritable); a file into it is parked with the parent until
 * the child fetches it after it attaches (one file description: the pointer the child
 * moves is the parent's); a suspended child terminated before it ran gives back every
 * reference it was given (nspa_check_namespace), and the file parked for it is closed. */
#include <windows.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

/* our descriptors, but for pidfds: the library's pidfd of a child is closed by whoever
 * drops the last reference to its record, which may be the watcher thread a moment
 * after our wait returned; the files given to the child are closed before it is
 * signaled (that is what is counted) */
static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d)) continue;
        char path[300], to[64];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, to, sizeof(to) - 1);
        to[k > 0 ? k : 0] = 0;
        n += strcmp(to, "anon_inode:[pidfd]") != 0;
    }
    closedir(d);
    return n;
}

static void vals_path(char *out, size_t cap, const char *tag) { snprintf(out, cap, "%s.ds-%s", self, tag); }

/* the child: the values from the file its parent wrote before resuming it */
static int child(const char *tag)
{
    char path[4300];
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "r");
    unsigned long ve = 0, vm = 0, vi = 0, vf = 0;
    if (!f || fscanf(f, "%lu %lu %lu %lu", &ve, &vm, &vi, &vf) != 4) return 1;
    fclose(f);
    HANDLE e = (HANDLE)(uintptr_t)ve, m = (HANDLE)(uintptr_t)vm, in = (HANDLE)(uintptr_t)vi;
    HANDLE file = (HANDLE)(uintptr_t)vf;                               /* fetched from the parent */
    DWORD n = 0;
    if (GetFileType(file) != FILE_TYPE_DISK || !WriteFile(file, "def", 3, &n, NULL) || n != 3) return 8;
    if (!CloseHandle(file)) return 9;
    DWORD fl = 99;
    if (!GetHandleInformation(e, &fl) || fl != 0) return 2;          /* given: not inheritable */
    if (vi && (!GetHandleInformation(in, &fl) || !(fl & HANDLE_FLAG_INHERIT))) return 3;   /* inherited */
    if (WaitForSingleObject(m, 0) != WAIT_OBJECT_0 || !ReleaseMutex(m)) return 4;
    if (vi && !SetEvent(in)) return 5;
    if (!SetEvent(e)) return 6;
    if (!CloseHandle(e) || !CloseHandle(m)) return 7;
    return 0;
}

static void run(int inherit, const char *tag)
{
    char cmd[4400], path[4300], name[96];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-susp %s", self, tag);
    snprintf(name, sizeof(name), "nspa-ds-mutex-%s", tag);
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);                /* private: grows */
    HANDLE m = CreateMutexA(NULL, FALSE, name);
    HANDLE in = inherit ? CreateEventA(&sa, TRUE, FALSE, NULL) : NULL;
    REQUIRE(e && m && (!inherit || in));
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, inherit, CREATE_SUSPENDED, NULL, NULL, &si, &pi));
    HANDLE re = NULL, rm = NULL, rf = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), e, pi.hProcess, &re, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(DuplicateHandle(GetCurrentProcess(), m, pi.hProcess, &rm, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(re != NULL && rm != NULL && re != rm);
    /* a file: parked here until the child fetches it; one file description (the
     * pointer the child moves is ours) */
    char dpath[4300];
    snprintf(dpath, sizeof(dpath), "%s.ds-%s.dat", self, tag);
    HANDLE file = CreateFileA(dpath, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    DWORD n = 0;
    REQUIRE(file != INVALID_HANDLE_VALUE);
    CHECK(WriteFile(file, "abc", 3, &n, NULL) && n == 3);
    CHECK(DuplicateHandle(GetCurrentProcess(), file, pi.hProcess, &rf, 0, FALSE, DUPLICATE_SAME_ACCESS));
    vals_path(path, sizeof(path), tag);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "%lu %lu %lu %lu\n", (unsigned long)(uintptr_t)re, (unsigned long)(uintptr_t)rm,
            (unsigned long)(uintptr_t)in, (unsigned long)(uintptr_t)rf);
    fclose(f);
    CHECK_EQ(WaitForSingleObject(e, 100), WAIT_TIMEOUT);           /* it has not run */
    CHECK_EQ(ResumeThread(pi.hThread), 1);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 99;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);            /* it signaled our event */
    LARGE_INTEGER at = { 0 };
    CHECK(SetFilePointerEx(file, (LARGE_INTEGER){ 0 }, &at, FILE_CURRENT));
    CHECK_EQ(at.QuadPart, 6);                                       /* it wrote "def" through its copy */
    CloseHandle(file);
    unlink(dpath);
    if (in) CHECK_EQ(WaitForSingleObject(in, 0), WAIT_OBJECT_0);
    unlink(path);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(e);
    CloseHandle(m);
    if (in) CloseHandle(in);
}

/* given handles and a file to a suspended child that is terminated before it runs */
static void never_runs(const char *tag)
{
    char cmd[4400], name[96], fpath[4300];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-susp %s-never", self, tag);
    snprintf(name, sizeof(name), "nspa-ds-never-%s", tag);
    HANDLE m = CreateMutexA(NULL, FALSE, name);
    REQUIRE(m);
    int base = count_fds();
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, CREATE_SUSPENDED, NULL, NULL, &si, &pi));
    HANDLE rm = NULL, rf = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), m, pi.hProcess, &rm, 0, FALSE, DUPLICATE_SAME_ACCESS));
    snprintf(fpath, sizeof(fpath), "%s.ds-%s.dat", self, tag);
    HANDLE file = CreateFileA(fpath, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    REQUIRE(file != INVALID_HANDLE_VALUE);
    int fds = count_fds();
    CHECK(DuplicateHandle(GetCurrentProcess(), file, pi.hProcess, &rf, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(count_fds(), fds + 1);                                 /* parked here */
    CloseHandle(file);
    unlink(fpath);
    CHECK(TerminateProcess(pi.hProcess, 5));
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CHECK_EQ(count_fds(), base);                                    /* never fetched: gone with it */
    /* its reference went with it: our close removes the name */
    CHECK(CloseHandle(m));
    SetLastError(0);
    CHECK(OpenMutexA(SYNCHRONIZE, FALSE, name) == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 3 && !strcmp(argv[1], "child-susp")) return child(argv[2]);
    char tag[32];
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    run(0, tag);
    snprintf(tag, sizeof(tag), "%d-i", (int)getpid());
    run(1, tag);
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    never_runs(tag);
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
