/* The process environment and modules (issue 14, item 4): environment variables (case
 * of names, sizes, deletion), the environment block, %NAME% expansion, the current
 * directory, CommandLineToArgvW's rules, GetCommandLine, GetModuleHandle /
 * GetProcAddress probing (what NSPA implements answers, the rest is NULL), LoadLibrary
 * of a native shared object, GetModuleFileName, GetSystemInfo, GetVersionEx, and
 * SetConsoleCtrlHandler on a real SIGINT. */
#include <windows.h>
#include <signal.h>
#include <unistd.h>
#include "nspa_test.h"

static size_t wlen(const WCHAR *w)
{
    size_t n = 0;
    while (w[n]) n++;
    return n;
}

static int weq(const WCHAR *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != (WCHAR)(unsigned char)*b) return 0;
    return *a == 0 && *b == 0;
}

static void test_env(void)
{
    char buf[64];
    CHECK(SetEnvironmentVariableA("NSPA_T_VAR", "hello"));
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_VAR", buf, sizeof(buf)), 5);
    CHECK(!strcmp(buf, "hello"));
    CHECK_EQ(GetEnvironmentVariableA("nspa_t_var", buf, sizeof(buf)), 5);     /* case */
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_VAR", buf, 3), 6);               /* size needed */
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_VAR", NULL, 0), 6);
    CHECK(SetEnvironmentVariableA("nspa_t_var", "again"));                   /* same variable */
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_VAR", buf, sizeof(buf)), 5);
    CHECK(!strcmp(buf, "again"));
    WCHAR w[64];
    CHECK_EQ(GetEnvironmentVariableW(L"NSPA_T_VAR", w, 64), 5);
    CHECK(weq(w, "again"));
    CHECK(SetEnvironmentVariableW(L"NSPA_T_W", L"wide"));
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_W", buf, sizeof(buf)), 4);
    CHECK(SetEnvironmentVariableA("NSPA_T_VAR", NULL));                      /* delete */
    SetLastError(0);
    CHECK_EQ(GetEnvironmentVariableA("NSPA_T_VAR", buf, sizeof(buf)), 0);
    CHECK_EQ(GetLastError(), ERROR_ENVVAR_NOT_FOUND);
    SetLastError(0);
    CHECK(!SetEnvironmentVariableA("A=B", "x"));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* the block */
    LPWCH blk = GetEnvironmentStringsW();
    CHECK(blk != NULL);
    int found = 0;
    for (LPWCH p = blk; *p; p += wlen(p) + 1)
        if (weq(p, "NSPA_T_W=wide")) found = 1;
    CHECK(found);
    CHECK(FreeEnvironmentStringsW(blk));
    LPCH ba = GetEnvironmentStringsA();
    found = 0;
    for (LPCH p = ba; *p; p += strlen(p) + 1)
        if (!strcmp(p, "NSPA_T_W=wide")) found = 1;
    CHECK(found);
    FreeEnvironmentStringsA(ba);

    /* expansion: defined names replaced, others left alone; the size has the NUL */
    char out[128];
    DWORD n = ExpandEnvironmentStringsA("a %NSPA_T_W% b %NSPA_NOPE% 100%", out, sizeof(out));
    CHECK(!strcmp(out, "a wide b %NSPA_NOPE% 100%"));
    CHECK_EQ(n, strlen(out) + 1);
    CHECK_EQ(ExpandEnvironmentStringsA("%NSPA_T_W%", out, 2), 5);             /* too small */
    WCHAR wo[64];
    CHECK_EQ(ExpandEnvironmentStringsW(L"[%nspa_t_w%]", wo, 64), 7);
    CHECK(weq(wo, "[wide]"));
}

static void test_cwd(void)
{
    char old[4096], buf[4096];
    DWORD n = GetCurrentDirectoryA(sizeof(old), old);
    CHECK(n > 0 && n < sizeof(old));
    CHECK_EQ(GetCurrentDirectoryA(2, buf), n + 1);
    CHECK(SetCurrentDirectoryA("/tmp"));
    CHECK_EQ(GetCurrentDirectoryA(sizeof(buf), buf), 4);
    CHECK(!strcmp(buf, "/tmp"));
    WCHAR w[64];
    CHECK_EQ(GetCurrentDirectoryW(64, w), 4);
    CHECK(weq(w, "/tmp"));
    SetLastError(0);
    CHECK(!SetCurrentDirectoryA("/nonexistent-nspa-dir"));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(SetCurrentDirectoryW(L"/"));
    CHECK(SetCurrentDirectoryA(old));
}

static void test_argv(void)
{
    static const struct { const WCHAR *cmd; int n; const char *v[5]; } cases[] = {
        { L"prog a b", 3, { "prog", "a", "b" } },
        { L"\"C:\\Program Files\\x.exe\" \"a b\"", 2, { "C:\\Program Files\\x.exe", "a b" } },
        { L"p a\\\\\\\"b c\\d", 3, { "p", "a\\\"b", "c\\d" } },       /* 3 backslashes + quote */
        { L"p \"a\\\\\" b", 3, { "p", "a\\", "b" } },                 /* 2 backslashes + quote */
        { L"p \"\"\"a\"\"\"", 2, { "p", "\"a\"" } },                  /* tripled quotes */
        { L"p \"\" x", 3, { "p", "", "x" } },
        { L"p\ta   \t b ", 3, { "p", "a", "b" } },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int argc = -1;
        LPWSTR *v = CommandLineToArgvW(cases[i].cmd, &argc);
        CHECK(v != NULL);
        if (!v) continue;
        CHECK_EQ(argc, cases[i].n);
        for (int k = 0; k < argc && k < cases[i].n; k++) {
            if (!weq(v[k], cases[i].v[k])) {
                fprintf(stderr, "case %zu arg %d differs\n", i, k);
                CHECK(0);
            }
        }
        CHECK(v[argc] == NULL);
        CHECK(LocalFree(v) == NULL);
    }
    int argc = 0;
    LPWSTR *v = CommandLineToArgvW(L"", &argc);               /* the program's path */
    CHECK(v && argc == 1 && v[0][0] == '/');
    LocalFree(v);
    SetLastError(0);
    CHECK(CommandLineToArgvW(L"x", NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* our own command line: argv quoted by the Windows rules */
    CHECK(strstr(GetCommandLineA(), "win32_environ") != NULL);
    CHECK(GetCommandLineW()[0] != 0);
}

typedef HANDLE (WINAPI *create_event_fn)(LPSECURITY_ATTRIBUTES, BOOL, BOOL, LPCSTR);
typedef double (*cos_fn)(double);

static void test_modules(void)
{
    HMODULE k32 = GetModuleHandleA("kernel32.dll");
    CHECK(k32 != NULL);
    CHECK(GetModuleHandleA("KERNEL32") == k32);
    CHECK(GetModuleHandleW(L"ntdll.dll") == k32);
    create_event_fn ce = (create_event_fn)(void *)GetProcAddress(k32, "CreateEventA");
    CHECK(ce == (create_event_fn)CreateEventA);
    HANDLE e = ce ? ce(NULL, TRUE, TRUE, NULL) : NULL;
    CHECK(e && WaitForSingleObject(e, 0) == WAIT_OBJECT_0);
    CloseHandle(e);
    SetLastError(0);
    CHECK(GetProcAddress(k32, "CreateRemoteThreadEx") == NULL);            /* not implemented */
    CHECK_EQ(GetLastError(), ERROR_PROC_NOT_FOUND);
    CHECK(GetProcAddress(k32, "malloc") == NULL);                          /* libc's, not ours */
    CHECK(GetProcAddress(k32, "nspa_create_event") == NULL);               /* not a Win32 export */
    CHECK(GetProcAddress(k32, (LPCSTR)(uintptr_t)5) == NULL);              /* ordinals */
    HMODULE av = LoadLibraryA("avrt.dll");
    CHECK(av != NULL);
    CHECK(FreeLibrary(av));
    HMODULE self = GetModuleHandleA(NULL);
    CHECK(self != NULL);
    CHECK(GetProcAddress(self, "WaitForSingleObject") != NULL);
    SetLastError(0);
    CHECK(LoadLibraryA("nspa-no-such-library.dll") == NULL);
    CHECK_EQ(GetLastError(), ERROR_MOD_NOT_FOUND);
    CHECK(GetModuleHandleA("nspa-no-such-library.dll") == NULL);

    /* a native shared object */
    HMODULE m = LoadLibraryA("libm.so.6");
    CHECK(m != NULL);
    cos_fn c = m ? (cos_fn)(void *)GetProcAddress(m, "cos") : NULL;
    CHECK(c && c(0.0) == 1.0);
    char path[4096];
    DWORD n = GetModuleFileNameA(m, path, sizeof(path));
    CHECK(n > 0 && strstr(path, "libm") != NULL);
    CHECK(FreeLibrary(m));
    HMODULE got = NULL;
    CHECK(GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                             (LPCSTR)(void *)CreateEventA, &got));
    CHECK(got == k32);

    n = GetModuleFileNameA(NULL, path, sizeof(path));
    CHECK(n > 0 && path[0] == '/' && strstr(path, "win32_environ"));
    char small[4];
    SetLastError(0);
    CHECK_EQ(GetModuleFileNameA(NULL, small, sizeof(small)), sizeof(small));   /* truncated */
    CHECK_EQ(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    CHECK_EQ(small[3], 0);
    WCHAR wp[4096];
    CHECK_EQ(GetModuleFileNameW(NULL, wp, 4096), n);
}

static void test_sysinfo(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    CHECK_EQ(si.wProcessorArchitecture, PROCESSOR_ARCHITECTURE_AMD64);
    CHECK_EQ(si.dwNumberOfProcessors, sysconf(_SC_NPROCESSORS_ONLN));
    CHECK_EQ(si.dwPageSize, sysconf(_SC_PAGESIZE));
    CHECK_EQ(si.dwAllocationGranularity, 65536);
    CHECK(si.dwActiveProcessorMask != 0);
    SYSTEM_INFO ni;
    GetNativeSystemInfo(&ni);
    CHECK(!memcmp(&si, &ni, sizeof(si)));
    OSVERSIONINFOA v = { .dwOSVersionInfoSize = sizeof(v) };
    CHECK(GetVersionExA(&v));
    CHECK_EQ(v.dwMajorVersion, 10);
    CHECK_EQ(v.dwPlatformId, VER_PLATFORM_WIN32_NT);
    OSVERSIONINFOEXW vw = { .dwOSVersionInfoSize = sizeof(vw) };
    CHECK(GetVersionExW((LPOSVERSIONINFOW)&vw));
    CHECK_EQ(vw.dwBuildNumber, v.dwBuildNumber);
    v.dwOSVersionInfoSize = 3;
    SetLastError(0);
    CHECK(!GetVersionExA(&v));
    CHECK_EQ(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
}

static volatile LONG ctrl_seen = -1;
static HANDLE ctrl_event;

static BOOL WINAPI on_ctrl(DWORD type)
{
    InterlockedExchange(&ctrl_seen, (LONG)type);
    SetEvent(ctrl_event);
    return TRUE;
}

static BOOL WINAPI pass_ctrl(DWORD type)
{
    (void)type;
    return FALSE;                 /* the next handler (registered earlier) decides */
}

static void test_ctrl(void)
{
    ctrl_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK(SetConsoleCtrlHandler(on_ctrl, TRUE));
    CHECK(SetConsoleCtrlHandler(pass_ctrl, TRUE));
    kill(getpid(), SIGINT);
    CHECK_EQ(WaitForSingleObject(ctrl_event, 10000), WAIT_OBJECT_0);
    CHECK_EQ(ctrl_seen, CTRL_C_EVENT);
    kill(getpid(), SIGTERM);
    CHECK_EQ(WaitForSingleObject(ctrl_event, 10000), WAIT_OBJECT_0);
    CHECK_EQ(ctrl_seen, CTRL_CLOSE_EVENT);
    CHECK(SetConsoleCtrlHandler(pass_ctrl, FALSE));
    SetLastError(0);
    CHECK(!SetConsoleCtrlHandler(pass_ctrl, FALSE));               /* not registered */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* ignoring Ctrl+C: no handler runs */
    CHECK(SetConsoleCtrlHandler(NULL, TRUE));
    kill(getpid(), SIGINT);
    CHECK_EQ(WaitForSingleObject(ctrl_event, 200), WAIT_TIMEOUT);
    CHECK(SetConsoleCtrlHandler(NULL, FALSE));
    CHECK(SetConsoleCtrlHandler(on_ctrl, FALSE));
    CloseHandle(ctrl_event);
}

int main(void)
{
    test_env();
    test_cwd();
    test_argv();
    test_modules();
    test_sysinfo();
    test_ctrl();
    return nspa_test_done();
}
