/* DuplicateHandle of files and pipes into another process (issue 14, item 2): the
 * descriptor crosses (SCM_RIGHTS through the target's mailbox) and the target finds a
 * working handle under the value DuplicateHandle returned: a file whose pointer is
 * shared with the giver (NT's one file object), a pipe write end (the reader sees the
 * data, then ERROR_BROKEN_PIPE once both copies are closed: the giver's with
 * DUPLICATE_CLOSE_SOURCE), a connected TCP socket (send/recv in the target, the peer
 * sees the FIN when the target closes it), 40 gifts at once (more than a datagram queue would hold),
 * gifts the target never uses (nothing leaks in the giver when it exits), 200 gifts
 * streamed to a target that takes them as they come, and a file given to another
 * process taken back from it as a source (tests/win32_process_dup_from.c has the rest). */
#include <windows.h>
#include <winsock2.h>
#include <dirent.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

#define MANY 40

static char self[4096], vals[4200];

static HANDLE hv(unsigned long v) { return (HANDLE)(uintptr_t)v; }

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n;
}

static HANDLE named_event(const char *what, int tag)
{
    char name[64];
    snprintf(name, sizeof(name), "nspa-dupio-%s-%d", what, tag);
    return CreateEventA(NULL, TRUE, FALSE, name);
}

/* the child: says it is there (a named event attaches it to the namespace), waits for
 * the parent's values, uses them */
static int child_main(int tag)
{
    HANDLE ready = named_event("ready", tag), go = named_event("go", tag);
    if (!ready || !go || !SetEvent(ready)) return 1;
    if (WaitForSingleObject(go, 20000) != WAIT_OBJECT_0) return 2;
    FILE *f = fopen(vals, "r");
    unsigned long file = 0, pipe = 0, sock = 0, many[MANY];
    if (!f || fscanf(f, "%lu %lu %lu", &file, &pipe, &sock) != 3) return 3;
    for (int i = 0; i < MANY; i++)
        if (fscanf(f, "%lu", &many[i]) != 1) return 4;
    fclose(f);
    DWORD n, flags = 1;
    if (GetFileType(hv(file)) != FILE_TYPE_DISK) return 10;
    if (!GetHandleInformation(hv(file), &flags) || flags) return 11;        /* not inheritable */
    LARGE_INTEGER z = { 0 }, pos;
    if (!SetFilePointerEx(hv(file), z, &pos, FILE_CURRENT) || pos.QuadPart != 6) return 12;   /* shared */
    if (!WriteFile(hv(file), "child", 5, &n, NULL) || n != 5) return 13;
    if (GetFileType(hv(pipe)) != FILE_TYPE_PIPE) return 20;
    if (!GetHandleInformation(hv(pipe), &flags) || flags != HANDLE_FLAG_INHERIT) return 19;   /* bInheritHandle */
    if (!WriteFile(hv(pipe), "via dup", 7, &n, NULL) || n != 7) return 21;
    if (!CloseHandle(hv(pipe))) return 22;
    SetLastError(0);
    if (WriteFile(hv(pipe), "x", 1, &n, NULL) || GetLastError() != ERROR_INVALID_HANDLE) return 23;   /* closed */
    /* a connected TCP socket: Winsock calls on the given value */
    WSADATA d;
    if (WSAStartup(MAKEWORD(2, 2), &d)) return 24;
    if (send((SOCKET)sock, "ping", 4, 0) != 4) return 25;
    char pb[8];
    if (recv((SOCKET)sock, pb, sizeof(pb), 0) != 4 || memcmp(pb, "pong", 4)) return 26;
    if (closesocket((SOCKET)sock)) return 27;
    for (int i = 0; i < MANY; i++) {
        if (GetFileType(hv(many[i])) != FILE_TYPE_DISK) return 30;
        if (i % 2 && !CloseHandle(hv(many[i]))) return 31;   /* the rest go at exit */
    }
    /* tell the parent the file handle is in use; it tries to take it back */
    SetEvent(named_event("used", tag));
    if (WaitForSingleObject(named_event("done", tag), 20000) != WAIT_OBJECT_0) return 40;
    return 0;
}

static void test_into_child(void)
{
    int tag = (int)getpid();
    snprintf(vals, sizeof(vals), "%s.dupio-%d", self, tag);
    char path[4200], cmd[8400];
    snprintf(path, sizeof(path), "%s.dupio-file-%d", self, tag);
    HANDLE ready = named_event("ready", tag), go = named_event("go", tag);
    HANDLE used = named_event("used", tag), done = named_event("done", tag);
    REQUIRE(ready && go && used && done);
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           CREATE_ALWAYS, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    DWORD n;
    CHECK(WriteFile(f, "parent", 6, &n, NULL));
    HANDLE r = NULL, w = NULL;
    REQUIRE(CreatePipe(&r, &w, NULL, 0));
    WSADATA wd;
    REQUIRE(WSAStartup(MAKEWORD(2, 2), &wd) == 0);
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
    SOCKET sk = accept(l, NULL, NULL);
    REQUIRE(sk != INVALID_SOCKET);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-dup %d", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE rw[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, rw, FALSE, 20000), WAIT_OBJECT_0);
    HANDLE rf = NULL, rp = NULL, many[MANY];
    CHECK(DuplicateHandle(GetCurrentProcess(), f, pi.hProcess, &rf, 0, FALSE, DUPLICATE_SAME_ACCESS));
    /* the pipe's write end moves: ours is closed by the call */
    CHECK(DuplicateHandle(GetCurrentProcess(), w, pi.hProcess, &rp, 0, TRUE,      /* inheritable there */
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    SetLastError(0);
    CHECK(!CloseHandle(w) && GetLastError() == ERROR_INVALID_HANDLE);
    HANDLE rs = NULL;                                    /* the socket moves too */
    CHECK(DuplicateHandle(GetCurrentProcess(), (HANDLE)sk, pi.hProcess, &rs, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    int fds = count_fds();
    for (int i = 0; i < MANY; i++) {
        many[i] = NULL;
        CHECK(DuplicateHandle(GetCurrentProcess(), f, pi.hProcess, &many[i], 0, FALSE, DUPLICATE_SAME_ACCESS));
    }
    /* the values are the target's: not handles here */
    CHECK(rf && rp && rf != rp && GetFileType(rf) == FILE_TYPE_UNKNOWN);
    CHECK_EQ(count_fds(), fds);                          /* nothing kept here */
    FILE *out = fopen(vals, "w");
    REQUIRE(out);
    fprintf(out, "%lu %lu %lu", (unsigned long)(uintptr_t)rf, (unsigned long)(uintptr_t)rp,
            (unsigned long)(uintptr_t)rs);
    for (int i = 0; i < MANY; i++) fprintf(out, " %lu", (unsigned long)(uintptr_t)many[i]);
    fclose(out);
    SetEvent(go);
    char pb[8];
    CHECK_EQ(recv(c, pb, sizeof(pb), 0), 4);            /* from the child, through its copy */
    CHECK(!memcmp(pb, "ping", 4));
    CHECK_EQ(send(c, "pong", 4, 0), 4);
    HANDLE uw[2] = { used, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, uw, FALSE, 20000), WAIT_OBJECT_0);
    /* a file handle of another process as the source (a gift it used): taken back */
    HANDLE back = NULL;
    CHECK(DuplicateHandle(pi.hProcess, rf, GetCurrentProcess(), &back, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(back && GetFileType(back) == FILE_TYPE_DISK);
    CloseHandle(back);
    SetEvent(done);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    /* the child's write moved the pointer we share */
    LARGE_INTEGER z = { 0 }, pos;
    CHECK(SetFilePointerEx(f, z, &pos, FILE_CURRENT) && pos.QuadPart == 11);
    char buf[32] = { 0 };
    DWORD total = 0;
    CHECK(SetFilePointerEx(f, z, NULL, FILE_BEGIN));
    CHECK(ReadFile(f, buf, sizeof(buf) - 1, &n, NULL) && n == 11 && !strcmp(buf, "parentchild"));
    /* both write ends are gone: the data, then the end */
    memset(buf, 0, sizeof(buf));
    while (ReadFile(r, buf + total, sizeof(buf) - 1 - total, &n, NULL) && n) total += n;
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);
    CHECK(total == 7 && !strcmp(buf, "via dup"));
    CHECK_EQ(recv(c, pb, sizeof(pb), 0), 0);            /* its copy closed, ours too: the FIN */
    closesocket(c);
    closesocket(l);
    CloseHandle(r);
    CloseHandle(f);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    unlink(path);
    unlink(vals);
    CloseHandle(ready);
    CloseHandle(go);
    CloseHandle(used);
    CloseHandle(done);
}

/* gifts a process never takes: they die with it (the kernel held the descriptors), the
 * giver's descriptors and the target's ledger marks are not leaked */
static void test_unused(void)
{
    int tag = (int)getpid() + 1000000;
    HANDLE ready = named_event("ready", tag), go = named_event("go", tag);
    HANDLE r = NULL, w = NULL;
    REQUIRE(ready && go && CreatePipe(&r, &w, NULL, 0));
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-idle %d", self, tag);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    HANDLE rw[2] = { ready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, rw, FALSE, 20000), WAIT_OBJECT_0);
    int fds = count_fds();
    HANDLE x = NULL;
    for (int i = 0; i < 5; i++)
        CHECK(DuplicateHandle(GetCurrentProcess(), w, pi.hProcess, &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(count_fds(), fds);
    CloseHandle(w);
    SetEvent(go);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    /* the write ends sent to the child closed with it: the reader sees the end */
    char b[4];
    DWORD n;
    SetLastError(0);
    CHECK(!ReadFile(r, b, sizeof(b), &n, NULL) && GetLastError() == ERROR_BROKEN_PIPE);
    /* a process that is gone: no mailbox, the call fails */
    SetLastError(0);
    CHECK(!DuplicateHandle(GetCurrentProcess(), r, pi.hProcess, &x, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK_EQ(nspa_check_namespace(), 0);
    CloseHandle(r);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(ready);
    CloseHandle(go);
}

/* gifts streamed while the target takes them: the parent sends a handle value down the
 * child's stdin after each DuplicateHandle, the child uses each value as it reads it, so
 * its mailbox is drained while new gifts arrive (a gift caught between its giver's
 * connect and send must not be lost) */
#define STREAM 200

static int child_stream(const char *tag)
{
    SetEvent(named_event("sready", atoi(tag)));
    HANDLE in = GetStdHandle(STD_INPUT_HANDLE);
    int used = 0;
    for (;;) {
        uint32_t v = 0;
        DWORD n = 0, got = 0;
        while (got < sizeof(v) && ReadFile(in, (char *)&v + got, sizeof(v) - got, &n, NULL) && n) got += n;
        if (got < sizeof(v) || !v) break;
        if (GetFileType(hv(v)) != FILE_TYPE_DISK) return 50;
        if (!CloseHandle(hv(v))) return 51;
        used++;
    }
    return used == STREAM ? 0 : 52;
}

static void test_stream(void)
{
    int tag = (int)getpid() + 2000000;
    char cmd[4400], path[4200];
    HANDLE sready = named_event("sready", tag);
    snprintf(path, sizeof(path), "%s.dupio-stream-%d", self, tag);
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE r = NULL, w = NULL;
    REQUIRE(sready && f != INVALID_HANDLE_VALUE && CreatePipe(&r, &w, &sa, 0));
    CHECK(SetHandleInformation(w, HANDLE_FLAG_INHERIT, 0));
    STARTUPINFOA si = { .cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES };
    si.hStdInput = r;
    si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    snprintf(cmd, sizeof(cmd), "\"%s\" child-stream %d", self, tag);
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    CloseHandle(r);
    HANDLE rw[2] = { sready, pi.hProcess };
    CHECK_EQ(WaitForMultipleObjects(2, rw, FALSE, 20000), WAIT_OBJECT_0);
    int ok = 0;
    for (int i = 0; i < STREAM; i++) {
        HANDLE x = NULL;
        DWORD n;
        if (!DuplicateHandle(GetCurrentProcess(), f, pi.hProcess, &x, 0, FALSE, DUPLICATE_SAME_ACCESS)) break;
        uint32_t v = (uint32_t)(uintptr_t)x;
        if (!WriteFile(w, &v, sizeof(v), &n, NULL)) break;
        ok++;
    }
    CHECK_EQ(ok, STREAM);
    uint32_t end = 0;
    DWORD n;
    CHECK(WriteFile(w, &end, sizeof(end), &n, NULL));
    CloseHandle(w);
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 30000), WAIT_OBJECT_0);
    DWORD code = 1;
    CHECK(GetExitCodeProcess(pi.hProcess, &code));
    CHECK_EQ(code, 0);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CloseHandle(f);
    unlink(path);
    CloseHandle(sready);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    if (argc == 3 && !strcmp(argv[1], "child-dup")) {
        snprintf(vals, sizeof(vals), "%s.dupio-%s", self, argv[2]);
        return child_main(atoi(argv[2]));
    }
    if (argc == 3 && !strcmp(argv[1], "child-stream")) return child_stream(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "child-idle")) {
        int tag = atoi(argv[2]);
        HANDLE ready = named_event("ready", tag), go = named_event("go", tag);
        SetEvent(ready);
        return WaitForSingleObject(go, 20000) == WAIT_OBJECT_0 ? 0 : 1;
    }
    test_into_child();
    test_unused();
    test_stream();
    return nspa_test_done();
}
