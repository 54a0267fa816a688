/* Bad input to the vm calls: each gets its documented error, never a crash. */
#include <windows.h>
#include <stdint.h>
#include "nspa_test.h"

int main(void)
{
    DWORD old;
    MEMORY_BASIC_INFORMATION mi;
    /* VirtualAlloc */
    CHECK(VirtualAlloc(NULL, 0, MEM_RESERVE, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, 0, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, MEM_RESERVE | 0x40000000u, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, MEM_RESERVE, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, MEM_RESERVE, PAGE_READWRITE | PAGE_READONLY) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, MEM_COMMIT, PAGE_NOACCESS | PAGE_GUARD) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, (SIZE_T)-1, MEM_RESERVE, PAGE_READWRITE) == NULL);       /* absurd sizes */
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);
    /* a commit beyond RAM + swap: refused, not overcommitted */
    CHECK(VirtualAlloc(NULL, (SIZE_T)1 << 46, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);
    CHECK(VirtualAlloc((void *)(uintptr_t)0x7ffffffff0000ull, 4096, MEM_RESERVE, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* commit where nothing is reserved */
    char *r = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_READWRITE);
    REQUIRE(r != NULL);
    CHECK(VirtualFree(r, 0, MEM_RELEASE));
    CHECK(VirtualAlloc(r, 4096, MEM_COMMIT, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(VirtualAlloc(NULL, 4096, MEM_RESET, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualAlloc(NULL, 4096, MEM_RESET_UNDO, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_SUPPORTED);

    /* two allocations side by side: nothing spans them */
    char *both = VirtualAlloc(NULL, 2 * 65536, MEM_RESERVE, PAGE_READWRITE);
    REQUIRE(both != NULL && VirtualFree(both, 0, MEM_RELEASE));
    char *a = VirtualAlloc(both, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    char *b = VirtualAlloc(both + 65536, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    REQUIRE(a != NULL);
    if (b == a + 65536) {
        CHECK(!VirtualProtect(a + 60000, 10000, PAGE_READONLY, &old));
        CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
        VirtualQuery(a, &mi, sizeof mi);
        CHECK_EQ(mi.Protect, PAGE_READWRITE);       /* unchanged */
        CHECK(!VirtualFree(a + 4096, 65536, MEM_DECOMMIT));
        CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    } else {
        printf("note: the place after the first allocation was taken; the spanning checks did not run\n");
    }
    /* misaligned release, NULL, decommit past the end */
    CHECK(!VirtualFree(a + 1, 0, MEM_RELEASE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualFree(NULL, 0, MEM_RELEASE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualFree(a, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!VirtualFree(a, 0, 0x12345));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!VirtualFree((void *)(uintptr_t)0x10000, 0, MEM_RELEASE));   /* not ours */
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(VirtualFree(a, 0, MEM_RELEASE));
    if (b) CHECK(VirtualFree(b, 0, MEM_RELEASE));
    /* VirtualProtect / VirtualQuery of nonsense */
    CHECK(!VirtualProtect(NULL, 4096, PAGE_READWRITE, &old));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualProtect((void *)(uintptr_t)-4096, 4096, PAGE_READWRITE, &old));
    CHECK_EQ(VirtualQuery((void *)(uintptr_t)-1, &mi, sizeof mi), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK_EQ(VirtualQuery(&mi, &mi, 10), 0);
    CHECK_EQ(GetLastError(), ERROR_BAD_LENGTH);
    CHECK_EQ(VirtualQuery(NULL, &mi, sizeof mi), sizeof mi);
    CHECK_EQ(mi.State, MEM_FREE);
    CHECK(mi.BaseAddress == NULL);
    /* write watches and locks on nothing */
    ULONG_PTR n = 1;
    ULONG g;
    void *pg[1];
    CHECK(GetWriteWatch(0, NULL, 4096, pg, &n, &g) != 0);
    CHECK(GetWriteWatch(0x8, NULL, 4096, pg, &n, &g) != 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(ResetWriteWatch(NULL, 4096) != 0);
    CHECK(!VirtualUnlock(NULL, 0));
    /* another process: not supported */
    CHECK(VirtualAllocEx((HANDLE)(uintptr_t)0x1234, NULL, 4096, MEM_COMMIT, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_SUPPORTED);
    /* handlers: NULL and stale */
    CHECK(AddVectoredExceptionHandler(1, NULL) == NULL);
    CHECK_EQ(RemoveVectoredExceptionHandler((void *)(uintptr_t)0xdead0), 0);
    /* file mappings */
    CHECK(MapViewOfFile(NULL, FILE_MAP_READ, 0, 0, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(OpenFileMappingA(FILE_MAP_READ, FALSE, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(OpenFileMappingA(FILE_MAP_READ, FALSE, "vm-bad-input-none") == NULL);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0xffffffffu, 0xffffffffu, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);
    CHECK(CreateFileMappingA((HANDLE)(uintptr_t)0x40, NULL, PAGE_READWRITE, 0, 4096, NULL) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!UnmapViewOfFile(NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!FlushViewOfFile(NULL, 0));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    return nspa_test_done();
}
