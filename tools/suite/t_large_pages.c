/* large-pages: 2 MB pages through VirtualAlloc(MEM_LARGE_PAGES) and a SEC_LARGE_PAGES
 * mapping, 1 GB pages where the host has them (VirtualAlloc2, NONPAGED_HUGE).
 * Checks (the seed's): the privilege rule (ERROR_PRIVILEGE_NOT_HELD before
 * SeLockMemoryPrivilege is enabled), a size that is not a multiple of the minimum
 * (ERROR_INVALID_PARAMETER), the free huge pages of the host drop by >= 4 and recover,
 * the pages are writable and read back, QueryWorkingSetEx says LargePage.
 * Run as root, the test reserves the huge pages it needs in the kernel's pool and gives
 * them back; otherwise, or when the process cannot enable the privilege, it says SKIP
 * with the reason. Argument "no1g": leave the 1 GB part out. Flag "privileged" in the
 * table: the smoke run accepts its SKIP. */
#include "suite.h"
#include <psapi.h>

#define HP2 "/sys/kernel/mm/hugepages/hugepages-2048kB/"
#define HP1G "/sys/kernel/mm/hugepages/hugepages-1048576kB/"
#ifdef _WIN32
#define LINUX_PATH(p) ("Z:" p)          /* Wine's view of the Linux file system */
#else
#define LINUX_PATH(p) (p)
#endif

#ifdef _WIN32
/* mingw's import libraries do not have VirtualAlloc2 (kernelbase.dll, Windows 10 1803) */
typedef PVOID (WINAPI *va2_fn)(HANDLE, PVOID, SIZE_T, ULONG, ULONG, MEM_EXTENDED_PARAMETER *, ULONG);
static PVOID va2(HANDLE p, PVOID a, SIZE_T n, ULONG t, ULONG pr, MEM_EXTENDED_PARAMETER *e, ULONG c)
{
    va2_fn f = (va2_fn)(void *)GetProcAddress(GetModuleHandleA("kernelbase.dll"), "VirtualAlloc2");
    if (!f) { SetLastError(ERROR_CALL_NOT_IMPLEMENTED); return NULL; }
    return f(p, a, n, t, pr, e, c);
}
#else
#define va2 VirtualAlloc2
#endif

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) { if (fscanf(f, "%ld", &v) != 1) v = -1; fclose(f); }
    return v;
}
static int write_long(const char *path, long v)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int r = fprintf(f, "%ld\n", v) > 0 ? 0 : -1;
    return fclose(f) ? -1 : r;
}

static int set_priv(BOOL on, DWORD *err)
{
    HANDLE tok;
    TOKEN_PRIVILEGES tp;
    *err = 0;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok)) { *err = GetLastError(); return 0; }
    tp.PrivilegeCount = 1;
    LookupPrivilegeValueA(NULL, "SeLockMemoryPrivilege", &tp.Privileges[0].Luid);
    tp.Privileges[0].Attributes = on ? SE_PRIVILEGE_ENABLED : 0;
    BOOL ok = AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL);
    *err = GetLastError();
    CloseHandle(tok);
    return ok && *err == ERROR_SUCCESS;
}

static int large_flag(void *p)
{
    PSAPI_WORKING_SET_EX_INFORMATION w;
    memset(&w, 0, sizeof w);
    w.VirtualAddress = p;
    if (!QueryWorkingSetEx(GetCurrentProcess(), &w, sizeof w)) return -1;
    return w.VirtualAttributes.Valid && w.VirtualAttributes.LargePage;
}

/* write a pattern over n bytes and read it back */
static int pattern_ok(volatile unsigned char *p, SIZE_T n, SIZE_T step)
{
    for (SIZE_T i = 0; i < n; i += step) p[i] = (unsigned char)(i / step * 7 + 1);
    for (SIZE_T i = 0; i < n; i += step) if (p[i] != (unsigned char)(i / step * 7 + 1)) return 0;
    return 1;
}

static long nr_saved = -1, nr1g_saved = -1;
static void give_back(void)
{
    if (nr_saved >= 0) write_long(LINUX_PATH(HP2 "nr_hugepages"), nr_saved);
    if (nr1g_saved >= 0) write_long(LINUX_PATH(HP1G "nr_hugepages"), nr1g_saved);
}

int t_large_pages(int argc, char **argv)
{
    SIZE_T lp = GetLargePageMinimum();
    if (!lp) return suite_skip("GetLargePageMinimum is 0: the host has no large pages");
    suite_note("large page minimum %lu KiB", (unsigned long)(lp / 1024));
    DWORD err;
    /* the privilege rule: disabled in a new process's token */
    set_priv(FALSE, &err);
    void *np = VirtualAlloc(NULL, lp, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
    DWORD np_err = GetLastError();
    if (np) VirtualFree(np, 0, MEM_RELEASE);
    if (!set_priv(TRUE, &err))
        return suite_skip("SeLockMemoryPrivilege cannot be enabled (error %lu): run as root or with CAP_IPC_LOCK",
                          (unsigned long)err);
    if (np || np_err != ERROR_PRIVILEGE_NOT_HELD)
        return suite_fail("without the privilege: %s, error %lu (expected ERROR_PRIVILEGE_NOT_HELD)",
                          np ? "allocated" : "failed", (unsigned long)np_err);
    /* huge pages in the kernel's pool: reserve 8 more as root */
    long free0 = read_long(LINUX_PATH(HP2 "free_hugepages"));
    if (free0 < 0) return suite_skip("cannot read %s", HP2 "free_hugepages");
    if (free0 < 8) {
        long nr = read_long(LINUX_PATH(HP2 "nr_hugepages"));
        if (nr >= 0 && write_long(LINUX_PATH(HP2 "nr_hugepages"), nr + 8) == 0) nr_saved = nr;
        free0 = read_long(LINUX_PATH(HP2 "free_hugepages"));
        if (free0 < 8) {
            give_back();
            return suite_skip("fewer than 8 free 2 MB huge pages (%ld) and %s", free0,
                              nr_saved >= 0 ? "the kernel could not reserve more" : "not root: cannot reserve them");
        }
        suite_note("reserved 8 huge pages (nr_hugepages %ld -> %ld), given back at the end", nr_saved, nr_saved + 8);
    }
    int fails = 0;
    char why[256] = "";
#define FAILIF(c, ...) do { if (c) { fails++; if (!why[0]) snprintf(why, sizeof why, __VA_ARGS__); } } while (0)
    /* size rule */
    void *bad = VirtualAlloc(NULL, lp + 4096, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
    FAILIF(bad || GetLastError() != ERROR_INVALID_PARAMETER, "unaligned size: %s, error %lu",
           bad ? "allocated" : "failed", (unsigned long)GetLastError());
    if (bad) VirtualFree(bad, 0, MEM_RELEASE);

    /* VirtualAlloc(MEM_LARGE_PAGES): 4 pages */
    unsigned char *p = VirtualAlloc(NULL, 4 * lp, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
    long free1 = read_long(LINUX_PATH(HP2 "free_hugepages"));
    FAILIF(!p, "VirtualAlloc(MEM_LARGE_PAGES) failed: %lu", (unsigned long)GetLastError());
    if (p) {
        FAILIF(free0 - free1 < 4, "free huge pages dropped by %ld, expected >= 4", free0 - free1);
        FAILIF(!pattern_ok(p, 4 * lp, 4096), "VirtualAlloc large pages do not read back");
        FAILIF(large_flag(p) != 1 || large_flag(p + 3 * lp + 100) != 1, "QueryWorkingSetEx: no LargePage flag");
        VirtualFree(p, 0, MEM_RELEASE);
        long free2 = read_long(LINUX_PATH(HP2 "free_hugepages"));
        FAILIF(free2 != free0, "free huge pages %ld after VirtualFree, expected %ld", free2, free0);
        suite_fig("va_drop", (double)(free0 - free1), "pages", "info", "VirtualAlloc: free 2 MB pages drop");
    }
    /* SEC_LARGE_PAGES */
    HANDLE s = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES,
                                  0, (DWORD)(4 * lp), NULL);
    FAILIF(!s, "CreateFileMapping(SEC_LARGE_PAGES) failed: %lu", (unsigned long)GetLastError());
    if (s) {
        unsigned char *v = MapViewOfFile(s, FILE_MAP_WRITE | FILE_MAP_LARGE_PAGES, 0, 0, 0);
        long free1s = read_long(LINUX_PATH(HP2 "free_hugepages"));
        FAILIF(!v, "MapViewOfFile(SEC_LARGE_PAGES) failed: %lu", (unsigned long)GetLastError());
        if (v) {
            FAILIF(free0 - free1s < 4, "section: free huge pages dropped by %ld, expected >= 4", free0 - free1s);
            FAILIF(!pattern_ok(v, 4 * lp, 4096), "section large pages do not read back");
            FAILIF(large_flag(v) != 1, "section view: no LargePage flag");
            UnmapViewOfFile(v);
            suite_fig("sec_drop", (double)(free0 - free1s), "pages", "info", "SEC_LARGE_PAGES: free 2 MB pages drop");
        }
        CloseHandle(s);
        long free2 = read_long(LINUX_PATH(HP2 "free_hugepages"));
        FAILIF(free2 != free0, "free huge pages %ld after the section closed, expected %ld", free2, free0);
    }
    HANDLE bs = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES,
                                   0, (DWORD)(lp + 4096), NULL);
    FAILIF(bs || GetLastError() != ERROR_INVALID_PARAMETER, "section, unaligned size: %s, error %lu",
           bs ? "created" : "failed", (unsigned long)GetLastError());
    if (bs) CloseHandle(bs);

    /* 1 GB pages where the host has them (not in the smoke run: reserving one takes a
     * contiguous GiB of the machine's memory) */
    long g_free = read_long(LINUX_PATH(HP1G "free_hugepages"));
    if (argc > 1 && !strcmp(argv[1], "no1g")) {
        suite_note("1 GB pages: not tried (no1g)");
    } else if (g_free < 0) {
        suite_note("1 GB pages: the host has none");
    } else {
        if (g_free < 1) {
            long nr = read_long(LINUX_PATH(HP1G "nr_hugepages"));
            if (nr >= 0 && write_long(LINUX_PATH(HP1G "nr_hugepages"), nr + 1) == 0) nr1g_saved = nr;
            g_free = read_long(LINUX_PATH(HP1G "free_hugepages"));
        }
        if (g_free < 1) {
            suite_note("1 GB pages: none free and %s", nr1g_saved >= 0 ? "the kernel could not reserve one (fragmented memory)"
                                                                       : "not root: cannot reserve one");
        } else {
            MEM_EXTENDED_PARAMETER ep;
            memset(&ep, 0, sizeof ep);
            ep.Type = MemExtendedParameterAttributeFlags;
            ep.ULong64 = MEM_EXTENDED_PARAMETER_NONPAGED_HUGE;
            unsigned char *g = va2(GetCurrentProcess(), NULL, (SIZE_T)1 << 30,
                                             MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE, &ep, 1);
            FAILIF(!g, "VirtualAlloc2 1 GB page failed: %lu", (unsigned long)GetLastError());
            if (g) {
                long gf = read_long(LINUX_PATH(HP1G "free_hugepages"));
                FAILIF(gf != g_free - 1, "1 GB: free pages %ld, expected %ld", gf, g_free - 1);
                FAILIF(!pattern_ok(g, (SIZE_T)1 << 30, 1 << 20), "1 GB page does not read back");
                FAILIF(large_flag(g) != 1, "1 GB page: no LargePage flag");
                VirtualFree(g, 0, MEM_RELEASE);
                suite_note("1 GB page allocated, written and freed");
            }
        }
    }
    /* without the privilege again: SEC_LARGE_PAGES refused */
    set_priv(FALSE, &err);
    HANDLE ns = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES,
                                   0, (DWORD)lp, NULL);
    FAILIF(ns || GetLastError() != ERROR_PRIVILEGE_NOT_HELD, "section without the privilege: %s, error %lu",
           ns ? "created" : "failed", (unsigned long)GetLastError());
    if (ns) CloseHandle(ns);
    give_back();
    suite_fig("checks_failed", fails, "count", "lower", "Failed checks");
    return fails ? suite_fail("%s (%d failed checks)", why, fails) : suite_pass();
}
