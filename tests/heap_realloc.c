/* HeapReAlloc: contents kept, zeroing of the grown part, HEAP_REALLOC_IN_PLACE_ONLY. */
#include <windows.h>
#include <stdint.h>
#include "nspa_test.h"

static int pattern_ok(const unsigned char *p, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 7)) return 0;
    return 1;
}

static void fill(unsigned char *p, size_t n, unsigned char seed)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(seed + i * 7);
}

int main(void)
{
    HANDLE h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    /* grow through small, medium and large sizes, contents kept */
    size_t sizes[] = {1, 15, 16, 17, 100, 1000, 5000, 70000, 131071, 200000, 3 << 20, 50, 3};
    unsigned char *p = HeapAlloc(h, 0, 1);
    fill(p, 1, 9);
    size_t cur = 1;
    for (unsigned k = 1; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        unsigned char *q = HeapReAlloc(h, 0, p, n);
        REQUIRE(q);
        CHECK(pattern_ok(q, cur < n ? cur : n, 9));
        CHECK_EQ(HeapSize(h, 0, q), n);
        fill(q, n, 9);
        p = q;
        cur = n;
    }
    CHECK(HeapFree(h, 0, p));

    /* HEAP_ZERO_MEMORY zeroes the grown part, in place and when moving */
    p = HeapAlloc(h, 0, 20);
    memset(p, 0xEE, 20);
    p = HeapReAlloc(h, HEAP_ZERO_MEMORY, p, 28);        /* same 32-byte class: in place */
    REQUIRE(p);
    int ok = 1;
    for (int i = 0; i < 20; i++) ok &= p[i] == 0xEE;
    for (int i = 20; i < 28; i++) ok &= p[i] == 0;
    CHECK(ok);
    p = HeapReAlloc(h, HEAP_ZERO_MEMORY, p, 5000);      /* moves */
    REQUIRE(p);
    ok = 1;
    for (int i = 0; i < 20; i++) ok &= p[i] == 0xEE;
    for (int i = 28; i < 5000; i++) ok &= p[i] == 0;
    CHECK(ok);
    HeapFree(h, 0, p);

    /* in place only: shrinking works and keeps the address; growing past the block fails,
     * the block stays valid and unchanged */
    p = HeapAlloc(h, 0, 1000);
    fill(p, 1000, 3);
    unsigned char *q = HeapReAlloc(h, HEAP_REALLOC_IN_PLACE_ONLY, p, 10);
    CHECK(q == p);
    CHECK_EQ(HeapSize(h, 0, p), 10);
    q = HeapReAlloc(h, HEAP_REALLOC_IN_PLACE_ONLY, p, 1000);
    CHECK(q == p);
    CHECK_EQ(HeapSize(h, 0, p), 1000);
    CHECK(pattern_ok(p, 10, 3));
    SetLastError(0);
    q = HeapReAlloc(h, HEAP_REALLOC_IN_PLACE_ONLY, p, 100000);
    CHECK(q == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);
    CHECK_EQ(HeapSize(h, 0, p), 1000);
    CHECK(HeapValidate(h, 0, p));
    CHECK(pattern_ok(p, 10, 3));
    /* large blocks grow in place within their mapping */
    unsigned char *L = HeapAlloc(h, 0, 300000);
    fill(L, 300000, 5);
    q = HeapReAlloc(h, HEAP_REALLOC_IN_PLACE_ONLY, L, 300100);
    CHECK(q == L);
    CHECK_EQ(HeapSize(h, 0, L), 300100);
    CHECK(pattern_ok(L, 300000, 5));
    CHECK(HeapFree(h, 0, L));
    CHECK(HeapFree(h, 0, p));

    /* NULL or freed pointer */
    SetLastError(0);
    CHECK(HeapReAlloc(h, 0, NULL, 10) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    p = HeapAlloc(h, 0, 40);
    HeapFree(h, 0, p);
    SetLastError(0);
    CHECK(HeapReAlloc(h, 0, p, 80) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
