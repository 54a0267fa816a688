/* A NULL or INVALID_HANDLE_VALUE standard handle in STARTUPINFO with STARTF_USESTDHANDLES
 * (issue 14, item 1): as on Windows 8 and later, the child's GetStdHandle answers with
 * that value (GetStartupInfo too) and there is no stream behind it — the child does not
 * get the caller's stream. Its fd 0/1/2 is /dev/null then (a read sees the end at once,
 * writes vanish), also for a program that is not an NSPA one (/bin/sh). SetStdHandle
 * with NULL: GetStdHandle answers NULL. */
#include <windows.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096];

static int child_main(void)
{
    if (GetStdHandle(STD_INPUT_HANDLE) != NULL) return 10;
    if (GetStdHandle(STD_ERROR_HANDLE) != INVALID_HANDLE_VALUE) return 11;
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    if (GetFileType(out) != FILE_TYPE_PIPE) return 12;
    STARTUPINFOA si;
    GetStartupInfoA(&si);
    if (!(si.dwFlags & STARTF_USESTDHANDLES) || si.hStdInput != NULL || si.hStdError != INVALID_HANDLE_VALUE ||
        si.hStdOutput != out)
        return 13;
    char b[8];
    DWORD n = 1;
    SetLastError(0);
    if (ReadFile(GetStdHandle(STD_INPUT_HANDLE), b, sizeof(b), &n, NULL) || GetLastError() != ERROR_INVALID_HANDLE)
        return 14;
    if (read(0, b, sizeof(b)) != 0) return 15;               /* /dev/null, not the parent's stdin */
    if (write(2, "lost\n", 5) != 5) return 16;               /* /dev/null, not the parent's stderr */
    if (!WriteFile(out, "child ok", 8, &n, NULL) || n != 8) return 17;
    return 0;
}

static DWORD spawn(char *cmd, HANDLE out_w, PROCESS_INFORMATION *pi)
{
    STARTUPINFOA si = { .cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES };
    si.hStdInput = NULL;
    si.hStdOutput = out_w;
    si.hStdError = INVALID_HANDLE_VALUE;
    return CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, pi);
}

static void collect(HANDLE r, char *buf, DWORD cap, DWORD *len)
{
    DWORD n;
    *len = 0;
    while (*len < cap - 1 && ReadFile(r, buf + *len, cap - 1 - *len, &n, NULL)) *len += n;
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);
    buf[*len] = 0;
}

static DWORD finish(PROCESS_INFORMATION *pi)
{
    DWORD code = 0xdead;
    CHECK_EQ(WaitForSingleObject(pi->hProcess, 20000), WAIT_OBJECT_0);
    CHECK(GetExitCodeProcess(pi->hProcess, &code));
    CloseHandle(pi->hProcess);
    CloseHandle(pi->hThread);
    return code;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "child-null")) return child_main();
    ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(sn > 0);
    self[sn] = 0;
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    char cmd[4200], out[64];
    DWORD len;
    PROCESS_INFORMATION pi;

    /* an NSPA child */
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, &sa, 0));
    snprintf(cmd, sizeof(cmd), "\"%s\" child-null", self);
    REQUIRE(spawn(cmd, w, &pi));
    CloseHandle(w);
    collect(r, out, sizeof(out), &len);
    CHECK(len == 8 && !strcmp(out, "child ok"));
    CHECK_EQ(finish(&pi), 0);
    CloseHandle(r);

    /* a program that is not an NSPA one: its stdin is empty at once (it does not read
     * ours: this test's stdin is a terminal or ctest's), its stderr goes nowhere */
    REQUIRE(CreatePipe(&r, &w, &sa, 0));
    snprintf(cmd, sizeof(cmd), "/bin/sh -c \"echo in=$(cat | wc -c); echo err >&2\"");
    REQUIRE(spawn(cmd, w, &pi));
    CloseHandle(w);
    collect(r, out, sizeof(out), &len);
    CHECK(!strcmp(out, "in=0\n"));
    CHECK_EQ(finish(&pi), 0);
    CloseHandle(r);

    /* SetStdHandle with NULL: the value only */
    HANDLE old = GetStdHandle(STD_INPUT_HANDLE);
    CHECK(SetStdHandle(STD_INPUT_HANDLE, NULL));
    CHECK(GetStdHandle(STD_INPUT_HANDLE) == NULL);
    CHECK(SetStdHandle(STD_INPUT_HANDLE, INVALID_HANDLE_VALUE));
    CHECK(GetStdHandle(STD_INPUT_HANDLE) == INVALID_HANDLE_VALUE);
    CHECK(SetStdHandle(STD_INPUT_HANDLE, old));
    CHECK(GetStdHandle(STD_INPUT_HANDLE) == old);
    return nspa_test_done();
}
