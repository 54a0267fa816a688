/* CreateProcess with STARTF_USESTDHANDLES and real handles (issue 14, item 1): a parent
 * feeds a child's stdin and captures its stdout and stderr through anonymous pipes;
 * GetStdHandle in the child answers with the parent's handle values and SetStdHandle
 * changes them; a non-NSPA child (/bin/cat) works through the same pipes; NT's
 * bInheritHandles rules (a handle that is not inherited reaches nothing: the parent's
 * read end sees ERROR_BROKEN_PIPE and no data); the parent's own standard handle passes
 * as a console's does; pipe basics (ERROR_BROKEN_PIPE, ERROR_NO_DATA, PeekNamedPipe,
 * GetFileType, reading a write end). */
#include <windows.h>
#include <ctype.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096];

static int child_main(int argc, char **argv)
{
    const char *m = argv[1];
    if (!strcmp(m, "child-echo") && argc == 5) {
        /* our standard handles are the parent's values (argv: in, out, err) */
        HANDLE in = GetStdHandle(STD_INPUT_HANDLE), out = GetStdHandle(STD_OUTPUT_HANDLE);
        HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
        if ((uintptr_t)in != strtoul(argv[2], NULL, 10)) return 10;
        if ((uintptr_t)out != strtoul(argv[3], NULL, 10)) return 11;
        if ((uintptr_t)err != strtoul(argv[4], NULL, 10)) return 12;
        if (GetFileType(in) != FILE_TYPE_PIPE || GetFileType(out) != FILE_TYPE_PIPE) return 13;
        STARTUPINFOW si;
        GetStartupInfoW(&si);
        if (!(si.dwFlags & STARTF_USESTDHANDLES) || si.hStdOutput != out || si.hStdError != err) return 19;
        char buf[256], up[300];
        DWORD n, total = 0, w;
        for (;;) {
            if (!ReadFile(in, buf, sizeof(buf), &n, NULL)) {
                if (GetLastError() != ERROR_BROKEN_PIPE) return 14;   /* the parent closed it */
                break;
            }
            for (DWORD i = 0; i < n; i++) up[i] = (char)toupper((unsigned char)buf[i]);
            if (!WriteFile(out, up, n, &w, NULL) || w != n) return 15;
            total += n;
        }
        if (!WriteFile(err, "done\n", 5, &w, NULL)) return 16;
        /* SetStdHandle: the value only (NT keeps no reference) */
        if (!SetStdHandle(STD_OUTPUT_HANDLE, err) || GetStdHandle(STD_OUTPUT_HANDLE) != err) return 17;
        if (!WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), "swap\n", 5, &w, NULL)) return 18;
        /* printf goes to fd 1, which is the stdout pipe too */
        printf("printf %lu\n", (unsigned long)total);
        fflush(stdout);
        return 0;
    }
    if (!strcmp(m, "child-block") && argc == 2) {
        char b[8];
        DWORD n;
        printf("ready\n");
        fflush(stdout);
        ReadFile(GetStdHandle(STD_INPUT_HANDLE), b, sizeof(b), &n, NULL);   /* killed here */
        return 30;
    }
    if (!strcmp(m, "child-write") && argc == 2) {
        HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
        DWORD w;
        SetLastError(0);
        BOOL ok = WriteFile(out, "leak", 4, &w, NULL);
        /* a handle that was not inherited names nothing here: the write fails */
        if (ok) return 20;
        if (GetLastError() != ERROR_INVALID_HANDLE) return 21;
        if (write(1, "x", 1) != 1) return 22;       /* fd 1 is /dev/null, not the pipe */
        return 0;
    }
    return 99;
}

static void read_all(HANDLE h, char *buf, DWORD cap, DWORD *len)
{
    DWORD n;
    *len = 0;
    while (*len < cap - 1 && ReadFile(h, buf + *len, cap - 1 - *len, &n, NULL)) *len += n;
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);      /* every writer is gone */
    buf[*len] = 0;
}

static DWORD finish(PROCESS_INFORMATION *pi)
{
    DWORD code = 0xdead;
    CHECK_EQ(WaitForSingleObject(pi->hProcess, 20000), WAIT_OBJECT_0);
    GetExitCodeProcess(pi->hProcess, &code);
    CloseHandle(pi->hProcess);
    CloseHandle(pi->hThread);
    return code;
}

/* The parent feeds stdin and reads stdout and stderr of an NSPA child. */
static void test_capture(void)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE in_r, in_w, out_r, out_w, err_r, err_w;
    REQUIRE(CreatePipe(&in_r, &in_w, &sa, 0));
    REQUIRE(CreatePipe(&out_r, &out_w, &sa, 0));
    REQUIRE(CreatePipe(&err_r, &err_w, &sa, 0));
    /* the parent's ends must not reach the child (else the child never sees EOF) */
    REQUIRE(SetHandleInformation(in_w, HANDLE_FLAG_INHERIT, 0));
    REQUIRE(SetHandleInformation(out_r, HANDLE_FLAG_INHERIT, 0));
    REQUIRE(SetHandleInformation(err_r, HANDLE_FLAG_INHERIT, 0));
    STARTUPINFOA si = { sizeof(si) };
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in_r;
    si.hStdOutput = out_w;
    si.hStdError = err_w;
    char cmd[4300];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-echo %lu %lu %lu", self, (unsigned long)(uintptr_t)in_r,
             (unsigned long)(uintptr_t)out_w, (unsigned long)(uintptr_t)err_w);
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    CloseHandle(in_r);          /* the child has its own now */
    CloseHandle(out_w);
    CloseHandle(err_w);
    const char *msg = "hello through a pipe, ";
    DWORD w, total = 0;
    for (int i = 0; i < 100; i++) {
        CHECK(WriteFile(in_w, msg, (DWORD)strlen(msg), &w, NULL));
        total += w;
    }
    CHECK_EQ(total, 100 * strlen(msg));
    /* nothing is lost when the reader is slower than the writer, and Peek sees data */
    DWORD avail = 0, got = 0;
    char peek[8];
    for (int i = 0; i < 2000 && !avail; i++) {
        CHECK(PeekNamedPipe(out_r, NULL, 0, NULL, &avail, NULL));
        if (!avail) Sleep(1);
    }
    CHECK(avail > 0);
    CHECK(PeekNamedPipe(out_r, peek, sizeof(peek), &got, &avail, NULL));
    CHECK(got > 0 && !memcmp(peek, "HELLO", got < 5 ? got : 5));
    CloseHandle(in_w);          /* EOF for the child */
    static char out[8192], err[256];
    DWORD olen, elen;
    read_all(out_r, out, sizeof(out), &olen);
    read_all(err_r, err, sizeof(err), &elen);
    CHECK_EQ(finish(&pi), 0);
    char want[8192];
    size_t wl = 0;
    for (int i = 0; i < 100; i++)
        for (const char *p = msg; *p; p++) want[wl++] = (char)toupper((unsigned char)*p);
    wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "printf %lu\n", (unsigned long)total);
    CHECK_EQ(olen, wl);
    CHECK(!memcmp(out, want, wl));
    CHECK(!strcmp(err, "done\nswap\n"));
    /* the write end is gone: a peek says so too */
    SetLastError(0);
    CHECK(!PeekNamedPipe(out_r, NULL, 0, NULL, &avail, NULL));
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);
    CloseHandle(out_r);
    CloseHandle(err_r);
}

/* two inheritable pipes for a child's stdin and stdout; our ends are not inheritable */
static void stdio_pipes(STARTUPINFOA *si, HANDLE *in_r, HANDLE *in_w, HANDLE *out_r, HANDLE *out_w)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    REQUIRE(CreatePipe(in_r, in_w, &sa, 0));
    REQUIRE(CreatePipe(out_r, out_w, &sa, 0));
    SetHandleInformation(*in_w, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(*out_r, HANDLE_FLAG_INHERIT, 0);
    memset(si, 0, sizeof(*si));
    si->cb = sizeof(*si);
    si->dwFlags = STARTF_USESTDHANDLES;
    si->hStdInput = *in_r;
    si->hStdOutput = *out_w;
}

/* A child that is not an NSPA program: /bin/cat copies stdin to stdout. */
static void test_foreign(void)
{
    HANDLE in_r, in_w, out_r, out_w;
    STARTUPINFOA si;
    stdio_pipes(&si, &in_r, &in_w, &out_r, &out_w);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);   /* ours: passes as a console does */
    PROCESS_INFORMATION pi;
    char cmd[] = "/bin/cat";
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi));
    CloseHandle(in_r);
    CloseHandle(out_w);
    DWORD w;
    CHECK(WriteFile(in_w, "cat me\n", 7, &w, NULL) && w == 7);
    CloseHandle(in_w);
    char out[64];
    DWORD len;
    read_all(out_r, out, sizeof(out), &len);
    CHECK(len == 7 && !memcmp(out, "cat me\n", 7));
    CHECK_EQ(finish(&pi), 0);
    CloseHandle(out_r);
}

/* bInheritHandles FALSE, or a handle without HANDLE_FLAG_INHERIT: the child gets the
 * value and nothing behind it (NT) — the parent's pipe sees no data, then EOF. */
static void test_not_inherited(int inherit_flag, BOOL inherit_handles)
{
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, inherit_flag };
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, &sa, 0));
    STARTUPINFOA si = { sizeof(si) };
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdOutput = w;
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-write", self);
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, inherit_handles, 0, NULL, NULL, &si, &pi));
    CloseHandle(w);
    char out[64];
    DWORD len;
    read_all(r, out, sizeof(out), &len);
    CHECK_EQ(len, 0);
    CHECK_EQ(finish(&pi), 0);
    CloseHandle(r);
}

/* A child killed while it blocks in ReadFile on its stdin: nothing stays blocked or
 * locked here — our read end sees the end, our write end sees no reader. Also with
 * CREATE_SUSPENDED (the standard handles are set before the program runs). */
static void test_killed(DWORD flags)
{
    HANDLE in_r, in_w, out_r, out_w;
    STARTUPINFOA si;
    stdio_pipes(&si, &in_r, &in_w, &out_r, &out_w);
    si.hStdError = out_w;
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-block", self);
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, TRUE, flags, NULL, NULL, &si, &pi));
    CloseHandle(in_r);
    CloseHandle(out_w);
    if (flags & CREATE_SUSPENDED) {
        DWORD avail = 1;
        Sleep(20);
        CHECK(PeekNamedPipe(out_r, NULL, 0, NULL, &avail, NULL) && avail == 0);   /* not running */
        CHECK(ResumeThread(pi.hThread) != (DWORD)-1);
    }
    char b[16];
    DWORD n;
    CHECK(ReadFile(out_r, b, 6, &n, NULL) && n == 6 && !memcmp(b, "ready\n", 6));
    Sleep(20);                                  /* let it block in ReadFile */
    CHECK(TerminateProcess(pi.hProcess, 9));
    CHECK_EQ(finish(&pi), 9);
    SetLastError(0);
    CHECK(!ReadFile(out_r, b, sizeof(b), &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);
    CHECK(!WriteFile(in_w, "x", 1, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_NO_DATA);
    CloseHandle(in_w);
    CloseHandle(out_r);
}

static void test_pipe_basics(void)
{
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, NULL, 4096));
    DWORD flags = 1, n;
    CHECK(GetHandleInformation(r, &flags) && !(flags & HANDLE_FLAG_INHERIT));
    CHECK_EQ(GetFileType(r), FILE_TYPE_PIPE);
    char b[16];
    SetLastError(0);
    CHECK(!ReadFile(w, b, 1, &n, NULL));              /* the write end cannot read */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(!WriteFile(r, "x", 1, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(WriteFile(w, "abc", 3, &n, NULL) && n == 3);
    CHECK(ReadFile(r, b, 0, &n, NULL) && n == 0);     /* zero bytes: at once */
    CHECK(ReadFile(r, b, 2, &n, NULL) && n == 2 && !memcmp(b, "ab", 2));
    CloseHandle(w);
    CHECK(ReadFile(r, b, sizeof(b), &n, NULL) && n == 1 && b[0] == 'c');   /* data before EOF */
    SetLastError(0);
    CHECK(!ReadFile(r, b, sizeof(b), &n, NULL) && n == 0);
    CHECK_EQ(GetLastError(), ERROR_BROKEN_PIPE);
    CloseHandle(r);
    REQUIRE(CreatePipe(&r, &w, NULL, 0));
    CloseHandle(r);
    SetLastError(0);
    CHECK(!WriteFile(w, "x", 1, &n, NULL));           /* no reader: ERROR_NO_DATA, no SIGPIPE */
    CHECK_EQ(GetLastError(), ERROR_NO_DATA);
    CloseHandle(w);
    SetLastError(0);
    CHECK(!CreatePipe(NULL, &w, NULL, 0));
    CHECK(!PeekNamedPipe((HANDLE)(uintptr_t)0x7ffc, NULL, 0, NULL, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!SetStdHandle(12345, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6)) return child_main(argc, argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    STARTUPINFOA own;
    GetStartupInfoA(&own);                      /* ctest started us: no standard handles given */
    CHECK(own.cb == sizeof(own) && !(own.dwFlags & STARTF_USESTDHANDLES) && !own.hStdOutput);
    test_pipe_basics();
    test_capture();
    test_foreign();
    test_not_inherited(FALSE, TRUE);
    test_not_inherited(TRUE, FALSE);
    test_killed(0);
    test_killed(CREATE_SUSPENDED);
    return nspa_test_done();
}
