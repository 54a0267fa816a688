/* The nspa_heap_* names: same calls, plus aligned allocation and usable size. */
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include "nspa/heap.h"
#include "nspa_test.h"

int main(void)
{
    nspa_heap_t *h = nspa_heap_create(0, 0, 0);
    REQUIRE(h);
    CHECK(nspa_heap_process() != NULL && nspa_heap_process() != h);
    for (size_t a = 32; a <= (1u << 20); a <<= 1) {
        for (size_t n = 1; n < 300000; n = n * 5 + 3) {
            unsigned char *p = nspa_heap_alloc_aligned(h, 0, a, n);
            REQUIRE(p);
            CHECK_EQ((uintptr_t)p % a, 0);
            CHECK_EQ(nspa_heap_size(h, 0, p), n);
            CHECK(nspa_heap_usable_size(p) >= n);
            p[0] = 1; p[n - 1] = 2;
            CHECK(nspa_heap_validate(h, 0, p));
            CHECK(nspa_heap_free(h, 0, p));
            CHECK_EQ(nspa_heap_usable_size(p), 0);
        }
    }
    CHECK(nspa_heap_alloc_aligned(h, 0, 48, 10) == NULL);
    void *p = nspa_heap_alloc(h, NSPA_HEAP_ZERO_MEMORY, 77);
    CHECK(nspa_heap_usable_size(p) >= 77);
    p = nspa_heap_realloc(h, 0, p, 7777);
    CHECK_EQ(nspa_heap_size(h, 0, p), 7777);
    CHECK(nspa_heap_free(h, 0, p));
    CHECK(!nspa_heap_free(h, 0, p));
    CHECK(nspa_heap_validate(h, 0, NULL));
    CHECK(nspa_heap_lock(h) && nspa_heap_unlock(h));
    CHECK(nspa_heap_destroy(h));

    /* the C allocator entry points (what libnspa-malloc.so exports as malloc & co.) */
    nspa_heap_t *ph = nspa_heap_process();
    unsigned char *m = nspa_malloc(100);
    REQUIRE(m);
    CHECK_EQ(nspa_heap_size(ph, 0, m), 100);          /* a process-heap block */
    m = nspa_realloc(m, 5000);
    REQUIRE(m);
    CHECK_EQ(nspa_heap_size(ph, 0, m), 5000);
    nspa_free(m);
    CHECK_EQ(nspa_heap_size(ph, 0, m), (size_t)-1);
    nspa_free(m);                                      /* a second free does nothing */
    nspa_free(NULL);
    unsigned char *z = nspa_calloc(10, 30);
    REQUIRE(z);
    int zero = 1;
    for (int i = 0; i < 300; i++) zero &= z[i] == 0;
    CHECK(zero);
    CHECK(nspa_realloc(z, 0) == NULL);                 /* frees */
    CHECK_EQ(nspa_heap_size(ph, 0, z), (size_t)-1);
    errno = 0;
    CHECK(nspa_calloc((size_t)1 << 40, (size_t)1 << 40) == NULL);
    CHECK_EQ(errno, ENOMEM);
    errno = 0;
    CHECK(nspa_malloc((size_t)1 << 62) == NULL);
    CHECK_EQ(errno, ENOMEM);
    CHECK(nspa_heap_validate(ph, 0, NULL));

    /* freed large blocks are kept mapped for reuse (docs/heap.md, "Large blocks"): a
     * reused one is zeroed when asked, a second free of the first is still rejected, and
     * HeapCompact gives the cache back */
    nspa_heap_t *hl = nspa_heap_create(0, 0, 0);
    REQUIRE(hl);
    unsigned char *L1 = nspa_heap_alloc(hl, 0, 300000);
    REQUIRE(L1);
    memset(L1, 0xAB, 300000);
    CHECK(nspa_heap_free(hl, 0, L1));
    unsigned char *L2 = nspa_heap_alloc(hl, NSPA_HEAP_ZERO_MEMORY, 290000);
    REQUIRE(L2);
    int zeroed = 1;
    for (size_t i = 0; i < 290000; i++) zeroed &= L2[i] == 0;
    CHECK(zeroed);
    CHECK_EQ(nspa_heap_size(hl, 0, L2), 290000);
    if (L2 != L1)
        CHECK(!nspa_heap_free(hl, 0, L1));            /* cached or unmapped: not live */
    CHECK(nspa_heap_free(hl, 0, L2));
    CHECK(!nspa_heap_free(hl, 0, L2));                 /* cached now: a double free */
    CHECK_EQ(nspa_heap_size(hl, 0, L2), (size_t)-1);
    struct nspa_heap_stats st;
    CHECK(nspa_heap_stats(hl, &st) && st.large_blocks == 0);
    nspa_heap_compact(hl, 0);
    CHECK(nspa_heap_stats(hl, &st) && st.bytes_committed < 300000);
    CHECK(nspa_heap_validate(hl, 0, NULL));
    CHECK(nspa_heap_destroy(hl));
    return nspa_test_done();
}
