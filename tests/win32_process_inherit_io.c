/* Inheritance of files, sockets and pipes (issue 14, item 2), and of file mappings and
 * waitable timers: with bInheritHandles a child finds every handle marked
 * HANDLE_FLAG_INHERIT under the parent's value, inheritable again; a handle without the
 * flag, or bInheritHandles FALSE, is not there; a file's pointer is shared with the
 * child (NT's file object); the child's copies close with it (the parent's read end of a
 * pipe sees ERROR_BROKEN_PIPE after the child exits) and the parent keeps no extra
 * descriptor per spawn. DuplicateHandle of files into another process:
 * win32_process_dup_io.c. */
#include <windows.h>
#include <winsock2.h>
#include <dirent.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096];

static HANDLE hv(const char *s) { return (HANDLE)(uintptr_t)strtoul(s, NULL, 10); }

static int child_main(int argc, char **argv)
{
    const char *m = argv[1];
    DWORD n, flags = 0;
    if (!strcmp(m, "child-file") && (argc == 3 || argc == 4)) {
        HANDLE f = hv(argv[2]);
        if (argc == 4 && !SetEvent(hv(argv[3]))) return 14;   /* a sync object beside it */
        if (GetFileType(f) != FILE_TYPE_DISK) return 10;
        if (!GetHandleInformation(f, &flags) || !(flags & HANDLE_FLAG_INHERIT)) return 11;
        LARGE_INTEGER z = { 0 }, pos;
        if (!SetFilePointerEx(f, z, &pos, FILE_CURRENT) || pos.QuadPart != 6) return 12;   /* shared */
        if (!WriteFile(f, "child", 5, &n, NULL) || n != 5) return 13;
        return 0;
    }
    if (!strcmp(m, "child-ovl") && argc == 3) {
        /* an inherited FILE_FLAG_OVERLAPPED handle: overlapped reads at an offset */
        HANDLE f = hv(argv[2]);
        char b[8] = { 0 };
        OVERLAPPED ov = { 0 };
        ov.Offset = 6;
        ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
        if (!ReadFile(f, b, 5, NULL, &ov) && GetLastError() != ERROR_IO_PENDING) return 60;
        if (!GetOverlappedResult(f, &ov, &n, TRUE) || n != 5) return 61;
        if (memcmp(b, "child", 5)) return 62;
        SetLastError(0);
        if (ReadFile(f, b, 5, &n, NULL) || GetLastError() != ERROR_INVALID_PARAMETER) return 63;   /* still overlapped */
        return 0;
    }
    if (!strcmp(m, "child-absent") && argc == 3) {
        SetLastError(0);
        if (GetFileType(hv(argv[2])) != FILE_TYPE_UNKNOWN) return 20;
        if (GetLastError() != ERROR_INVALID_HANDLE) return 21;
        if (WriteFile(hv(argv[2]), "x", 1, &n, NULL)) return 22;
        return 0;
    }
    if (!strcmp(m, "child-pipe") && argc == 3) {
        HANDLE w = hv(argv[2]);
        if (GetFileType(w) != FILE_TYPE_PIPE) return 30;
        if (!WriteFile(w, "via pipe", 8, &n, NULL) || n != 8) return 31;
        return 0;
    }
    if (!strcmp(m, "child-sock") && argc == 3) {
        WSADATA d;
        if (WSAStartup(MAKEWORD(2, 2), &d)) return 40;
        SOCKET s = (SOCKET)strtoul(argv[2], NULL, 10);
        if (send(s, "ping", 4, 0) != 4) return 41;
        char b[8];
        if (recv(s, b, sizeof(b), 0) != 4 || memcmp(b, "pong", 4)) return 42;
        return 0;
    }
    if (!strcmp(m, "child-map") && argc == 4) {
        char *p = MapViewOfFile(hv(argv[2]), FILE_MAP_WRITE, 0, 0, 0);
        if (!p) return 50;
        if (strcmp(p, "from parent")) return 51;
        strcpy(p, "from child");
        UnmapViewOfFile(p);
        /* the parent armed it before the spawn: it fires here */
        if (WaitForSingleObject(hv(argv[3]), 10000) != WAIT_OBJECT_0) return 52;
        return 0;
    }
    return 99;
}

static DWORD run(const char *args, BOOL inherit)
{
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, args);
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, cmd, NULL, NULL, inherit, 0, NULL, NULL, &si, &pi)) return 0xdead;
    DWORD code = 0xbeef;
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return code;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n;
}

static void test_file(void)
{
    char path[4200], arg[64];
    snprintf(path, sizeof(path), "%s.inh-%d", self, (int)getpid());
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa,
                           CREATE_ALWAYS, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    DWORD n;
    CHECK(WriteFile(f, "parent", 6, &n, NULL));
    HANDLE ev = CreateEventA(&sa, TRUE, FALSE, NULL);   /* inherited in the same spawn */
    REQUIRE(ev);
    snprintf(arg, sizeof(arg), "child-file %lu %lu", (unsigned long)(uintptr_t)f, (unsigned long)(uintptr_t)ev);
    CHECK_EQ(run(arg, TRUE), 0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_OBJECT_0);
    CloseHandle(ev);
    /* the child's write moved the pointer we share */
    LARGE_INTEGER z = { 0 }, pos;
    CHECK(SetFilePointerEx(f, z, &pos, FILE_CURRENT) && pos.QuadPart == 11);
    char buf[32] = { 0 };
    CHECK(SetFilePointerEx(f, z, NULL, FILE_BEGIN));
    CHECK(ReadFile(f, buf, sizeof(buf) - 1, &n, NULL) && n == 11);
    CHECK(!strcmp(buf, "parentchild"));
    HANDLE o = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, OPEN_EXISTING,
                           FILE_FLAG_OVERLAPPED, NULL);
    REQUIRE(o != INVALID_HANDLE_VALUE);
    snprintf(arg, sizeof(arg), "child-ovl %lu", (unsigned long)(uintptr_t)o);
    CHECK_EQ(run(arg, TRUE), 0);
    CloseHandle(o);
    /* bInheritHandles FALSE: not there */
    snprintf(arg, sizeof(arg), "child-absent %lu", (unsigned long)(uintptr_t)f);
    CHECK_EQ(run(arg, FALSE), 0);
    /* no HANDLE_FLAG_INHERIT: not there; set later with SetHandleInformation: there */
    CHECK(SetHandleInformation(f, HANDLE_FLAG_INHERIT, 0));
    CHECK_EQ(run(arg, TRUE), 0);
    HANDLE g = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, 0, NULL);
    REQUIRE(g != INVALID_HANDLE_VALUE);
    CHECK(SetHandleInformation(g, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    CHECK(SetFilePointerEx(g, (LARGE_INTEGER){ .QuadPart = 6 }, NULL, FILE_BEGIN));
    snprintf(arg, sizeof(arg), "child-file %lu", (unsigned long)(uintptr_t)g);
    CHECK_EQ(run(arg, TRUE), 0);
    /* a file handle put into a child that has not run yet (suspended: parked here until
     * it fetches it; terminated first: dropped; tests/win32_process_dup_suspended.c) */
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-absent 4", self);
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, CREATE_SUSPENDED, NULL, NULL, &si, &pi));
    HANDLE remote = NULL;
    SetLastError(0);
    CHECK(DuplicateHandle(GetCurrentProcess(), g, pi.hProcess, &remote, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetFileType(g), FILE_TYPE_DISK);
    TerminateProcess(pi.hProcess, 0);
    WaitForSingleObject(pi.hProcess, 10000);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(g);
    CloseHandle(f);
    DeleteFileA(path);
}

static void test_pipe(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, &sa, 0));
    SetHandleInformation(r, HANDLE_FLAG_INHERIT, 0);
    int fds = count_fds();
    char arg[64];
    snprintf(arg, sizeof(arg), "child-pipe %lu", (unsigned long)(uintptr_t)w);
    CHECK_EQ(run(arg, TRUE), 0);
    CHECK_EQ(count_fds(), fds);                   /* the spawn's copies are closed */
    CloseHandle(w);
    char buf[32];
    DWORD n, total = 0;
    while (ReadFile(r, buf + total, sizeof(buf) - total, &n, NULL)) total += n;
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);  /* the child's copy closed with it */
    CHECK(total == 8 && !memcmp(buf, "via pipe", 8));
    CloseHandle(r);
}

static void test_socket(void)
{
    WSADATA d;
    REQUIRE(WSAStartup(MAKEWORD(2, 2), &d) == 0);
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int al = sizeof(a);
    REQUIRE(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0);
    REQUIRE(getsockname(l, (struct sockaddr *)&a, &al) == 0);
    SOCKET c = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    REQUIRE(connect(c, (struct sockaddr *)&a, sizeof(a)) == 0);
    SOCKET s = accept(l, NULL, NULL);
    REQUIRE(s != INVALID_SOCKET);
    CHECK(SetHandleInformation((HANDLE)s, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT));
    char arg[64];
    snprintf(arg, sizeof(arg), "child-sock %lu", (unsigned long)s);
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" %s", self, arg);
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    char b[8];
    CHECK_EQ(recv(c, b, sizeof(b), 0), 4);
    CHECK(!memcmp(b, "ping", 4));
    CHECK_EQ(send(c, "pong", 4, 0), 4);
    DWORD code = 1;
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    GetExitCodeProcess(pi.hProcess, &code);
    CHECK_EQ(code, 0);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    closesocket(s);
    CHECK_EQ(recv(c, b, sizeof(b), 0), 0);        /* both copies closed: the peer's FIN */
    closesocket(c);
    closesocket(l);
}

static void test_mapping_and_timer(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE m = CreateFileMappingA(INVALID_HANDLE_VALUE, &sa, PAGE_READWRITE, 0, 65536, NULL);
    REQUIRE(m);
    char *p = MapViewOfFile(m, FILE_MAP_WRITE, 0, 0, 0);
    REQUIRE(p);
    strcpy(p, "from parent");
    HANDLE t = CreateWaitableTimerA(&sa, TRUE, NULL);
    REQUIRE(t);
    LARGE_INTEGER due = { .QuadPart = -200 * 10000LL };   /* 200 ms */
    CHECK(SetWaitableTimer(t, &due, 0, NULL, NULL, FALSE));
    char arg[96];
    snprintf(arg, sizeof(arg), "child-map %lu %lu", (unsigned long)(uintptr_t)m, (unsigned long)(uintptr_t)t);
    CHECK_EQ(run(arg, TRUE), 0);
    CHECK(!strcmp(p, "from child"));
    UnmapViewOfFile(p);
    CloseHandle(m);
    CloseHandle(t);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6)) return child_main(argc, argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    test_file();
    test_pipe();
    test_socket();
    test_mapping_and_timer();
    return nspa_test_done();
}
