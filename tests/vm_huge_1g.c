/* 1 GiB pages: VirtualAlloc2 with MEM_EXTENDED_PARAMETER_NONPAGED_HUGE and
 * MEM_LARGE_PAGES maps hugetlb pages of 1 GiB where the host has that page size. As
 * root the test reserves one 1 GiB page for the run and gives it back. With the page:
 * the block is 1 GiB aligned, the free count drops by one and recovers on
 * VirtualFree, both ends are writable and read back, QueryWorkingSetEx says LargePage.
 * Without one (the kernel may refuse a gigantic page at run time: it needs 1 GiB of
 * contiguous memory), the call fails with ERROR_NO_SYSTEM_RESOURCES and nothing is
 * left mapped; the test says which of the two it checked. Sizes that are not a
 * multiple of 1 GiB are refused with ERROR_INVALID_PARAMETER either way. */
#include <windows.h>
#include <stdio.h>
#include <unistd.h>
#include "nspa_test.h"
#include "vm_util.h"

#define DIR1G "/sys/kernel/mm/hugepages/hugepages-1048576kB"
#define GIB ((SIZE_T)1 << 30)

static void *alloc_1g(SIZE_T size)
{
    MEM_EXTENDED_PARAMETER p = { 0 };
    p.Type = MemExtendedParameterAttributeFlags;
    p.ULong64 = MEM_EXTENDED_PARAMETER_NONPAGED_HUGE;
    return VirtualAlloc2(GetCurrentProcess(), NULL, size, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES,
                         PAGE_READWRITE, &p, 1);
}

int main(void)
{
    if (access(DIR1G, F_OK) != 0) {
        SetLastError(0);
        CHECK(alloc_1g(GIB) == NULL);
        CHECK_EQ(GetLastError(), ERROR_NO_SYSTEM_RESOURCES);
        printf("SKIP 1 GiB pages: the host has no 1 GiB page size (the refusal was checked)\n");
        return nspa_test_done();
    }
    if (!set_lock_privilege(TRUE)) {
        CHECK(alloc_1g(GIB) == NULL);
        CHECK_EQ(GetLastError(), ERROR_PRIVILEGE_NOT_HELD);
        printf("SKIP 1 GiB pages: the process may not lock memory (the refusal was checked)\n");
        return nspa_test_done();
    }
    /* not a multiple of the page: refused before any reservation */
    CHECK(alloc_1g(2u << 20) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(alloc_1g(GIB + 4096) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    long nr = read_long(DIR1G "/nr_hugepages"), added = 0;
    if (read_long(DIR1G "/free_hugepages") < 1 && geteuid() == 0 && write_long(DIR1G "/nr_hugepages", nr + 1) == 0)
        added = 1;
    long free0 = read_long(DIR1G "/free_hugepages");
    char *p = alloc_1g(GIB);
    if (free0 < 1) {
        /* no page: the documented failure, and nothing left behind */
        CHECK(p == NULL);
        CHECK_EQ(GetLastError(), ERROR_NO_SYSTEM_RESOURCES);
        printf("SKIP 1 GiB page allocation: %s; checked the ERROR_NO_SYSTEM_RESOURCES answer only\n",
               geteuid() ? "not root: cannot reserve one" : "the kernel could not reserve one at run time");
    } else {
        CHECK(p != NULL);
        if (p) {
            CHECK(((uintptr_t)p & (GIB - 1)) == 0);
            CHECK_EQ(read_long(DIR1G "/free_hugepages"), free0 - 1);
            p[0] = 0x11;
            p[GIB - 1] = 0x22;
            CHECK(p[0] == 0x11 && p[GIB - 1] == 0x22);
            PSAPI_WORKING_SET_EX_INFORMATION w[2] = { { p, { 0 } }, { p + GIB / 2, { 0 } } };
            CHECK(QueryWorkingSetEx(GetCurrentProcess(), w, sizeof w));
            CHECK_EQ(w[0].VirtualAttributes.LargePage, 1);
            CHECK_EQ(w[1].VirtualAttributes.LargePage, 1);
            CHECK_EQ(w[1].VirtualAttributes.Valid, 1);
            MEMORY_BASIC_INFORMATION mi;
            CHECK(VirtualQuery(p + 12345, &mi, sizeof mi) == sizeof mi);
            CHECK(mi.BaseAddress == p);
            CHECK_EQ(mi.RegionSize, GIB);
            CHECK(VirtualFree(p, 0, MEM_RELEASE));
            CHECK_EQ(read_long(DIR1G "/free_hugepages"), free0);
            printf("1 GiB page: allocated, written at both ends, LargePage, freed\n");
        }
    }
    if (added) CHECK_EQ(write_long(DIR1G "/nr_hugepages", nr), 0);
    CHECK(set_lock_privilege(FALSE));
    return nspa_test_done();
}
