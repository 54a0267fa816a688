/* DuplicateHandle with a file, socket or pipe handle of ANOTHER process as the source
 * (issue 14, item 2), taken without that process doing anything (it sleeps in a wait):
 * the fd map says which descriptor the value stands for and pidfd_getfd copies it.
 * The copy is the same open file description (the file pointer moves for both), keeps
 * the record's kind and flags (an overlapped file stays overlapped, a pipe write end
 * delivers to the source's read end, a UDP socket keeps its bound port); a sync object
 * of the source's own arena comes too (the source grows it when asked: its request
 * thread answers while its main thread sleeps; tests/win32_process_dup_arena.c); a
 * value that names nothing is ERROR_INVALID_HANDLE;
 * DUPLICATE_CLOSE_SOURCE of a file there: the source sends it and closes its handle
 * (src/sync/ask.c; the overlapped file: still overlapped here, gone there); a source
 * the kernel will not let us take from (not dumpable, and the caller without
 * CAP_SYS_PTRACE) gives ERROR_ACCESS_DENIED, but DUPLICATE_CLOSE_SOURCE, which the
 * source serves itself, works there too; the source's fd map file goes with it. */
#include <windows.h>
#include <winsock2.h>
#include <glob.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

static char self[4096];

static LONGLONG pos(HANDLE f, LONGLONG to, DWORD how)
{
    LARGE_INTEGER d = { .QuadPart = to }, now = { .QuadPart = -1 };
    return SetFilePointerEx(f, d, &now, how) ? now.QuadPart : -1;
}

static HANDLE named_event(const char *what, const char *tag)
{
    char name[96];
    snprintf(name, sizeof(name), "nspa-dupfrom-%s-%s", what, tag);
    return CreateEventA(NULL, TRUE, FALSE, name);
}

static void paths(char *vals, char *data, size_t cap, const char *tag)
{
    snprintf(vals, cap, "%s.df-%s", self, tag);
    snprintf(data, cap, "%s.df-%s.dat", self, tag);
}

/* The source: a file (pointer at 3), an overlapped file, a pipe (it keeps the read
 * end), a bound UDP socket, an unnamed event; the values to the parent, then it sleeps
 * until "go" and checks what the parent did through its copies. */
static int child(const char *tag, int undumpable)
{
    char vals[4300], data[4300];
    paths(vals, data, sizeof(vals), tag);
    if (undumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) return 20;
    HANDLE f = CreateFileA(data, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           CREATE_ALWAYS, 0, NULL);
    HANDLE ov = CreateFileA(data, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                            FILE_FLAG_OVERLAPPED, NULL);
    HANDLE pr = NULL, pw = NULL;
    DWORD n = 0;
    if (f == INVALID_HANDLE_VALUE || ov == INVALID_HANDLE_VALUE || !CreatePipe(&pr, &pw, NULL, 0)) return 1;
    if (!WriteFile(f, "abc", 3, &n, NULL) || n != 3) return 2;
    WSADATA wd;
    if (WSAStartup(MAKEWORD(2, 2), &wd)) return 3;
    SOCKET s = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int al = sizeof(a);
    if (s == INVALID_SOCKET || bind(s, (struct sockaddr *)&a, sizeof(a)) || getsockname(s, (struct sockaddr *)&a, &al))
        return 4;
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);          /* of its arena: grown when asked */
    FILE *o = fopen(vals, "w");
    if (!o) return 5;
    fprintf(o, "%lu %lu %lu %lu %lu %u\n", (unsigned long)(uintptr_t)f, (unsigned long)(uintptr_t)ov,
            (unsigned long)(uintptr_t)pw, (unsigned long)s, (unsigned long)(uintptr_t)ev, (unsigned)ntohs(a.sin_port));
    fclose(o);
    HANDLE go = named_event("go", tag);
    SetEvent(named_event("ready", tag));
    if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 6;
    if (undumpable) {
        SetLastError(0);                                          /* taken with CLOSE_SOURCE */
        return CloseHandle(f) || GetLastError() != ERROR_INVALID_HANDLE ? 21 : 0;
    }
    /* the parent wrote "def" through its copy: our pointer moved with it (one file) */
    if (pos(f, 0, FILE_CURRENT) != 6) return 7;
    char buf[8] = { 0 };
    if (!ReadFile(pr, buf, 3, &n, NULL) || n != 3 || memcmp(buf, "via", 3)) return 8;   /* its pipe copy */
    if (!CloseHandle(f) || !CloseHandle(pr) || !CloseHandle(pw)) return 9;   /* ours still */
    SetLastError(0);
    if (CloseHandle(ov) || GetLastError() != ERROR_INVALID_HANDLE) return 10;   /* taken with CLOSE_SOURCE */
    closesocket(s);
    CloseHandle(ev);
    return 0;
}

static int spawn(const char *tag, int undumpable, PROCESS_INFORMATION *pi, unsigned long v[6])
{
    char cmd[4400], vals[4300], data[4300];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-src %s %d", self, tag, undumpable);
    STARTUPINFOA si = { .cb = sizeof(si) };
    if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, pi)) return 0;
    HANDLE rw[2] = { named_event("ready", tag), pi->hProcess };
    int ok = WaitForMultipleObjects(2, rw, FALSE, 20000) == WAIT_OBJECT_0;
    CloseHandle(rw[0]);
    paths(vals, data, sizeof(vals), tag);
    FILE *f = ok ? fopen(vals, "r") : NULL;
    ok = f && fscanf(f, "%lu %lu %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6;
    if (f) fclose(f);
    unlink(vals);
    return ok;
}

static DWORD finish(const char *tag, PROCESS_INFORMATION *pi)
{
    HANDLE go = named_event("go", tag);
    SetEvent(go);
    DWORD code = 99;
    CHECK_EQ(WaitForSingleObject(pi->hProcess, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(pi->hProcess, &code));
    CloseHandle(go);
    CloseHandle(pi->hProcess);
    CloseHandle(pi->hThread);
    return code;
}

/* the fd map files of process @pid left next to the namespace region, in whichever of
 * the region's possible directories the library chose (docs/sync.md) */
static size_t maps_of(DWORD pid)
{
    const char *ns = getenv("NSPA_NAMESPACE"), *x = getenv("XDG_RUNTIME_DIR");
    char dirs[10][256];
    int nd = 0;
    if (x) snprintf(dirs[nd++], sizeof(dirs[0]), "%s", x);
    snprintf(dirs[nd++], sizeof(dirs[0]), "/run/user/%u", (unsigned)getuid());
    snprintf(dirs[nd++], sizeof(dirs[0]), "/dev/shm/nspa-%u", (unsigned)getuid());
    for (int k = 1; k < 8; k++) snprintf(dirs[nd++], sizeof(dirs[0]), "/dev/shm/nspa-%u.%d", (unsigned)getuid(), k);
    size_t n = 0;
    for (int d = 0; d < nd; d++) {
        char pat[2900];
        snprintf(pat, sizeof(pat), "%s/nspa-%s.fd.%u.*", dirs[d], ns ? ns : "default", (unsigned)pid);
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0) n += g.gl_pathc;
        globfree(&g);
    }
    return n;
}

static void test_take(void)
{
    char tag[32], vals[4300], data[4300];
    snprintf(tag, sizeof(tag), "%d", (int)getpid());
    PROCESS_INFORMATION pi;
    unsigned long v[6];
    REQUIRE(spawn(tag, 0, &pi, v));
    CHECK_EQ(maps_of(pi.dwProcessId), 1);
    HANDLE f = NULL, ov = NULL, pw = NULL, s = NULL, x = NULL;
    /* the file: the same open file description */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[0], GetCurrentProcess(), &f, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK_EQ(pos(f, 0, FILE_CURRENT), 3);
    DWORD n = 0;
    CHECK(WriteFile(f, "def", 3, &n, NULL) && n == 3);
    CHECK_EQ(GetFileType(f), FILE_TYPE_DISK);
    /* overlapped stays overlapped: a read without an OVERLAPPED is refused */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[1], GetCurrentProcess(), &ov, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    char b[4];
    SetLastError(0);
    CHECK(!ReadFile(ov, b, 1, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* the pipe's write end: the source's read end gets what we write (checked there) */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[2], GetCurrentProcess(), &pw, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK(WriteFile(pw, "via", 3, &n, NULL) && n == 3);
    SetLastError(0);
    CHECK(!ReadFile(pw, b, 1, &n, NULL));                       /* a write end: no reading */
    /* the UDP socket, bound to the same port */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[3], GetCurrentProcess(), &s, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    struct sockaddr_in a;
    int al = sizeof(a);
    CHECK_EQ(getsockname((SOCKET)(uintptr_t)s, (struct sockaddr *)&a, &al), 0);
    CHECK_EQ(ntohs(a.sin_port), v[5]);
    /* an event of its arena (grown when asked), a value naming nothing */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[4], GetCurrentProcess(), &x, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK_EQ(WaitForSingleObject(x, 0), WAIT_TIMEOUT);
    CHECK(CloseHandle(x));
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)0x7ff0, GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    /* DUPLICATE_CLOSE_SOURCE: the source sends it and closes its handle; the copy is
     * the overlapped file still, one more record of that description */
    HANDLE ov2 = NULL;
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[1], GetCurrentProcess(), &ov2, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    SetLastError(0);
    CHECK(!ReadFile(ov2, b, 1, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(CloseHandle(ov2));
    SetLastError(0);                                            /* closed there: a second time finds nothing */
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[1], GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK_EQ(finish(tag, &pi), 0);                              /* its checks passed */
    CHECK_EQ(maps_of(pi.dwProcessId), 0);                       /* its map went with it */
    /* our copy outlives the source */
    CHECK_EQ(pos(f, 0, FILE_BEGIN), 0);
    char all[8] = { 0 };
    CHECK(ReadFile(f, all, 6, &n, NULL) && n == 6 && !memcmp(all, "abcdef", 6));
    CloseHandle(f);
    CloseHandle(ov);
    CloseHandle(pw);
    closesocket((SOCKET)(uintptr_t)s);
    paths(vals, data, sizeof(vals), tag);
    unlink(data);
}

/* drop CAP_SYS_PTRACE from our effective set (root passes ptrace checks with it) */
static void drop_ptrace_cap(void)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d)) return;
    d[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    syscall(SYS_capset, &h, d);
}

static void test_refused(void)
{
    char tag[40], vals[4300], data[4300];
    snprintf(tag, sizeof(tag), "%d-nd", (int)getpid());
    drop_ptrace_cap();
    PROCESS_INFORMATION pi;
    unsigned long v[6];
    REQUIRE(spawn(tag, 1, &pi, v));
    HANDLE x = NULL;
    SetLastError(0);
    CHECK(!DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[0], GetCurrentProcess(), &x, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    /* with DUPLICATE_CLOSE_SOURCE the source sends it itself: no ptrace right needed */
    CHECK(DuplicateHandle(pi.hProcess, (HANDLE)(uintptr_t)v[0], GetCurrentProcess(), &x, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    DWORD n = 0;
    char b[4] = { 0 };
    CHECK(pos(x, 0, FILE_BEGIN) == 0 && ReadFile(x, b, 3, &n, NULL) && n == 3 && !memcmp(b, "abc", 3));
    CHECK(CloseHandle(x));
    CHECK_EQ(finish(tag, &pi), 0);
    paths(vals, data, sizeof(vals), tag);
    unlink(data);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 4 && !strcmp(argv[1], "child-src")) return child(argv[2], atoi(argv[3]));
    WSADATA wd;
    REQUIRE(WSAStartup(MAKEWORD(2, 2), &wd) == 0);
    test_take();
    test_refused();                     /* last: it drops a capability for good */
    CHECK_EQ(nspa_check_namespace(), 0);
    return nspa_test_done();
}
