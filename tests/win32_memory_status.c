/* GlobalMemoryStatusEx: the structure's size is checked, the figures agree with the
 * kernel's (sysinfo) and with each other. */
#include <sys/sysinfo.h>
#include <windows.h>
#include "nspa_test.h"

int main(void)
{
    MEMORYSTATUSEX st;
    memset(&st, 0, sizeof(st));
    SetLastError(0);
    CHECK(!GlobalMemoryStatusEx(&st));                 /* dwLength not set */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!GlobalMemoryStatusEx(NULL));
    st.dwLength = sizeof(st);
    CHECK(GlobalMemoryStatusEx(&st));
    struct sysinfo si;
    REQUIRE(sysinfo(&si) == 0);
    unsigned long long total = (unsigned long long)si.totalram * si.mem_unit;
    CHECK(st.ullTotalPhys > total / 2 && st.ullTotalPhys <= total + (1ull << 20));
    CHECK(st.ullAvailPhys > 0 && st.ullAvailPhys <= st.ullTotalPhys);
    CHECK(st.dwMemoryLoad <= 100);
    CHECK(st.ullTotalPageFile >= st.ullTotalPhys);
    CHECK(st.ullAvailPageFile >= st.ullAvailPhys && st.ullAvailPageFile <= st.ullTotalPageFile);
    CHECK(st.ullTotalVirtual >= (1ull << 46));
    CHECK(st.ullAvailVirtual > 0 && st.ullAvailVirtual < st.ullTotalVirtual);
    /* mapping 1 GiB more shows in the virtual figure */
    DWORDLONG before = st.ullAvailVirtual;
    void *p = VirtualAlloc(NULL, 1ull << 30, MEM_RESERVE, PAGE_NOACCESS);
    REQUIRE(p);
    CHECK(GlobalMemoryStatusEx(&st));
    CHECK(before - st.ullAvailVirtual >= (1ull << 30) - (1ull << 24));
    VirtualFree(p, 0, MEM_RELEASE);
    return nspa_test_done();
}
