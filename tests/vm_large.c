/* Large pages and the lock-memory privilege: GetLargePageMinimum, the privilege rule
 * (disabled until AdjustTokenPrivileges, not grantable without CAP_IPC_LOCK or an
 * unlimited RLIMIT_MEMLOCK), the size rule, VirtualAlloc(MEM_LARGE_PAGES) and
 * SEC_LARGE_PAGES on hugetlb pages with QueryWorkingSetEx's LargePage flag, working
 * set sizes. As root the test reserves 4 huge pages and gives them back; otherwise the
 * allocation part says why it did not run. */
#include <windows.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"
#include "vm_util.h"

#define NR "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
#define FREE "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

int main(void)
{
    SIZE_T lp = GetLargePageMinimum();
    CHECK(lp == 0 || lp == 2u << 20);
    LUID l;
    CHECK(!LookupPrivilegeValueA(NULL, "SeNoSuchPrivilege", &l));
    CHECK_EQ(GetLastError(), ERROR_NO_SUCH_PRIVILEGE);
    CHECK(!AdjustTokenPrivileges((HANDLE)(uintptr_t)0x1234, FALSE, NULL, 0, NULL, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);

    /* the privilege starts disabled, as in a Windows token */
    CHECK(VirtualAlloc(NULL, lp ? lp : 2u << 20, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), lp ? ERROR_PRIVILEGE_NOT_HELD : ERROR_NO_SYSTEM_RESOURCES);

    /* a process without CAP_IPC_LOCK and with a finite RLIMIT_MEMLOCK cannot enable it */
    pid_t pid = fork();
    if (pid == 0) {
        struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct d[2];
        syscall(SYS_capget, &h, d);
        d[0].effective &= ~(1u << CAP_IPC_LOCK);
        syscall(SYS_capset, &h, d);
        struct rlimit rl = { 65536, 65536 };
        setrlimit(RLIMIT_MEMLOCK, &rl);
        HANDLE tok;
        TOKEN_PRIVILEGES tp = { 1, { { { 4, 0 }, SE_PRIVILEGE_ENABLED } } };
        if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES, &tok)) _exit(10);
        if (!AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL)) _exit(11);
        if (GetLastError() != ERROR_NOT_ALL_ASSIGNED) _exit(12);
        BOOLEAN was;
        if (RtlAdjustPrivilege(4, TRUE, FALSE, &was) != STATUS_PRIVILEGE_NOT_HELD) _exit(13);
        if (VirtualAlloc(NULL, 2u << 20, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE)) _exit(14);
        if (GetLastError() != (lp ? ERROR_PRIVILEGE_NOT_HELD : ERROR_NO_SYSTEM_RESOURCES)) _exit(15);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st));
    CHECK_EQ(WEXITSTATUS(st), 0);

    /* working set sizes map to RLIMIT_MEMLOCK */
    SIZE_T mn, mx;
    CHECK(GetProcessWorkingSetSize(GetCurrentProcess(), &mn, &mx));
    CHECK(!SetProcessWorkingSetSize(GetCurrentProcess(), 2u << 20, 1u << 20));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(SetProcessWorkingSetSize(GetCurrentProcess(), (SIZE_T)-1, (SIZE_T)-1));

    if (!lp) { printf("SKIP large-page allocation: the host has no 2 MiB huge pages\n"); return nspa_test_done(); }
    if (!set_lock_privilege(TRUE)) {
        printf("SKIP large-page allocation: the process may not lock memory (no CAP_IPC_LOCK)\n");
        return nspa_test_done();
    }
    /* a size that is not a multiple of the minimum */
    CHECK(VirtualAlloc(NULL, lp + 4096, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, lp, MEM_RESERVE | MEM_LARGE_PAGES, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    long nr = read_long(NR), added = 0;
    if (read_long(FREE) < 4 && geteuid() == 0) {
        added = 4;
        if (write_long(NR, nr + added)) added = 0;
    }
    if (read_long(FREE) < 4) {
        printf("SKIP large-page allocation: fewer than 4 free 2 MiB pages (%s)\n",
               geteuid() ? "not root: cannot reserve" : "the kernel could not reserve them");
        if (added) write_long(NR, nr);
        return nspa_test_done();
    }
    long free0 = read_long(FREE);
    char *p = VirtualAlloc(NULL, 2 * lp, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
    CHECK(p != NULL);
    if (p) {
        CHECK(((uintptr_t)p & (lp - 1)) == 0);
        CHECK(read_long(FREE) <= free0 - 2);
        memset(p, 0xab, 2 * lp);
        CHECK((unsigned char)p[2 * lp - 1] == 0xab);
        PSAPI_WORKING_SET_EX_INFORMATION w[2] = { { p, { 0 } }, { p + lp + 12345, { 0 } } };
        CHECK(QueryWorkingSetEx(GetCurrentProcess(), w, sizeof w));
        CHECK_EQ(w[0].VirtualAttributes.Valid, 1);
        CHECK_EQ(w[0].VirtualAttributes.LargePage, 1);
        CHECK_EQ(w[1].VirtualAttributes.LargePage, 1);
        CHECK_EQ(w[0].VirtualAttributes.Win32Protection, PAGE_READWRITE);
        MEMORY_BASIC_INFORMATION mi;
        VirtualQuery(p, &mi, sizeof mi);
        CHECK_EQ(mi.RegionSize, 2 * lp);
        CHECK(VirtualFree(p, 0, MEM_RELEASE));
        CHECK_EQ(read_long(FREE), free0);
    }
    /* SEC_LARGE_PAGES */
    HANDLE s = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES, 0,
                                  (DWORD)(2 * lp), NULL);
    CHECK(s != NULL);
    if (s) {
        char *v = MapViewOfFile(s, FILE_MAP_WRITE | FILE_MAP_LARGE_PAGES, 0, 0, 0);
        CHECK(v != NULL);
        if (v) {
            v[0] = 1;
            v[2 * lp - 1] = 2;
            PSAPI_WORKING_SET_EX_INFORMATION w = { v, { 0 } };
            CHECK(QueryWorkingSetEx(GetCurrentProcess(), &w, sizeof w));
            CHECK_EQ(w.VirtualAttributes.LargePage, 1);
            CHECK_EQ(w.VirtualAttributes.Shared, 1);
            CHECK(UnmapViewOfFile(v));
        }
        CloseHandle(s);
    }
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES, 0,
                             (DWORD)lp + 4096, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(set_lock_privilege(FALSE));
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE | SEC_COMMIT | SEC_LARGE_PAGES, 0,
                             (DWORD)lp, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_PRIVILEGE_NOT_HELD);
    if (added) CHECK_EQ(write_long(NR, nr), 0);
    return nspa_test_done();
}
