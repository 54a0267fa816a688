/* HeapCreate/HeapAlloc/HeapFree/HeapSize/HeapDestroy/GetProcessHeap basics. */
#include <windows.h>
#include <stdint.h>
#include "nspa_test.h"

int main(void)
{
    HANDLE ph = GetProcessHeap();
    REQUIRE(ph != NULL);
    CHECK(GetProcessHeap() == ph);

    /* 0 bytes: a unique pointer each time */
    void *z1 = HeapAlloc(ph, 0, 0), *z2 = HeapAlloc(ph, 0, 0);
    CHECK(z1 && z2 && z1 != z2);
    CHECK_EQ(HeapSize(ph, 0, z1), 0);
    CHECK(HeapFree(ph, 0, z1));
    CHECK(HeapFree(ph, 0, z2));

    /* every size: 16-byte aligned, HeapSize is the requested size, blocks don't overlap */
    static void *blk[3000];
    static size_t sz[3000];
    for (int i = 0; i < 3000; i++) {
        sz[i] = (size_t)(i * 37) % 5000 + (i % 7 == 0 ? 200000 : 0);
        blk[i] = HeapAlloc(ph, 0, sz[i]);
        REQUIRE(blk[i] != NULL);
        CHECK_EQ((uintptr_t)blk[i] % 16, 0);
        memset(blk[i], i & 0xff, sz[i]);
    }
    for (int i = 0; i < 3000; i++) {
        CHECK_EQ(HeapSize(ph, 0, blk[i]), sz[i]);
        unsigned char *p = blk[i];
        int ok = 1;
        for (size_t k = 0; k < sz[i]; k++)
            if (p[k] != (unsigned char)(i & 0xff)) { ok = 0; break; }
        CHECK(ok);
    }
    for (int i = 0; i < 3000; i++)
        CHECK(HeapFree(ph, 0, blk[i]));

    /* HEAP_ZERO_MEMORY zeroes recycled memory */
    void *a = HeapAlloc(ph, 0, 500);
    memset(a, 0xAB, 500);
    HeapFree(ph, 0, a);
    unsigned char *zz = HeapAlloc(ph, HEAP_ZERO_MEMORY, 500);
    int allzero = 1;
    for (int k = 0; k < 500; k++) allzero &= zz[k] == 0;
    CHECK(allzero);
    HeapFree(ph, 0, zz);
    unsigned char *big = HeapAlloc(ph, HEAP_ZERO_MEMORY, 3 << 20);
    REQUIRE(big);
    CHECK(big[0] == 0 && big[(3 << 20) - 1] == 0);
    CHECK_EQ(HeapSize(ph, 0, big), 3 << 20);
    HeapFree(ph, 0, big);

    /* HeapFree(NULL) succeeds */
    CHECK(HeapFree(ph, 0, NULL));

    /* private growable heap: grows without limit, destroy releases everything at once */
    HANDLE h = HeapCreate(0, 0, 0);
    REQUIRE(h != NULL);
    CHECK(h != ph);
    for (int i = 0; i < 20000; i++)
        CHECK(HeapAlloc(h, 0, 1000) != NULL);   /* ~20 MB, never freed one by one */
    CHECK(HeapAlloc(h, 0, 5 << 20) != NULL);
    CHECK(HeapDestroy(h));
    /* a destroyed handle is rejected */
    SetLastError(0);
    CHECK(!HeapDestroy(h));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);

    /* the process heap cannot be destroyed */
    SetLastError(0);
    CHECK(!HeapDestroy(ph));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* many heaps created and destroyed; blocks of one are not blocks of another */
    for (int r = 0; r < 50; r++) {
        HANDLE h1 = HeapCreate(HEAP_NO_SERIALIZE, 4096, 0), h2 = HeapCreate(0, 0, 0);
        REQUIRE(h1 && h2);
        void *p1 = HeapAlloc(h1, 0, 100), *p2 = HeapAlloc(h2, 0, 100);
        CHECK(p1 && p2);
        CHECK_EQ(HeapSize(h1, 0, p2), (SIZE_T)-1);
        CHECK(HeapValidate(h1, 0, p1));
        CHECK(!HeapValidate(h1, 0, p2));
        CHECK(HeapDestroy(h1));
        CHECK(HeapDestroy(h2));
    }

    /* executable heap */
    HANDLE hx = HeapCreate(HEAP_CREATE_ENABLE_EXECUTE, 0, 0);
    REQUIRE(hx);
    CHECK(HeapAlloc(hx, 0, 64) != NULL);
    CHECK(HeapDestroy(hx));
    return nspa_test_done();
}
