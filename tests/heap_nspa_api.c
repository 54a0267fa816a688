/* The nspa_heap_* names: the heap's native calls in the library's 0 / -errno convention
 * (every error code each call documents), aligned allocation, usable size, the C
 * allocator entry points; and that none of them touches the Win32 last error (the
 * Win32 twins map the codes; heap_badfree, heap_basic, heap_info, heap_lock, heap_walk and
 * heap_realloc check the errors Windows gives). */
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include "nspa/heap.h"
#include "nspa/win32/windows.h"
#include "nspa_test.h"

int main(void)
{
    nspa_heap_t *h = NULL;
    CHECK_EQ(nspa_heap_create(0, 0, 0, NULL), -EINVAL);
    REQUIRE(nspa_heap_create(0, 0, 0, &h) == 0 && h);
    CHECK(nspa_heap_process() != NULL && nspa_heap_process() != h);
    for (size_t a = 32; a <= (1u << 20); a <<= 1) {
        for (size_t n = 1; n < 300000; n = n * 5 + 3) {
            unsigned char *p = NULL;
            REQUIRE(nspa_heap_alloc_aligned(h, 0, a, n, (void **)&p) == 0 && p);
            CHECK_EQ((uintptr_t)p % a, 0);
            CHECK_EQ(nspa_heap_size(h, 0, p), n);
            CHECK(nspa_heap_usable_size(p) >= n);
            p[0] = 1; p[n - 1] = 2;
            CHECK_EQ(nspa_heap_validate(h, 0, p), 0);
            CHECK_EQ(nspa_heap_free(h, 0, p), 0);
            CHECK_EQ(nspa_heap_usable_size(p), 0);
        }
    }
    void *q = (void *)1;
    CHECK_EQ(nspa_heap_alloc_aligned(h, 0, 48, 10, &q), -EINVAL);      /* not a power of two */
    CHECK(q == NULL);
    CHECK_EQ(nspa_heap_alloc_aligned(h, 0, (size_t)4 << 20, 10, &q), -EINVAL);   /* > 1 MiB */
    CHECK_EQ(nspa_heap_alloc_aligned(h, 0, 64, 10, NULL), -EINVAL);
    CHECK_EQ(nspa_heap_alloc_aligned(h, 0, 64, (size_t)1 << 62, &q), -ENOMEM);

    /* none of these sets the Win32 last error */
    SetLastError(0x1234);
    void *p = nspa_heap_alloc(h, NSPA_HEAP_ZERO_MEMORY, 77);
    CHECK(nspa_heap_usable_size(p) >= 77);
    void *old = p;
    CHECK_EQ(nspa_heap_realloc(h, 0, &p, 7777), 0);
    CHECK_EQ(nspa_heap_size(h, 0, p), 7777);
    CHECK_EQ(nspa_heap_realloc(h, 0, NULL, 10), -EINVAL);
    void *nul = NULL;
    CHECK_EQ(nspa_heap_realloc(h, 0, &nul, 10), -EINVAL);
    if (old != p) {
        void *stale = old;
        CHECK_EQ(nspa_heap_realloc(h, 0, &stale, 10), -EINVAL);          /* not live */
        CHECK(stale == old);
    }
    void *keep = p;
    CHECK_EQ(nspa_heap_realloc(h, 0, &p, (size_t)1 << 60), -ENOMEM);      /* old block intact */
    CHECK(p == keep);
    CHECK_EQ(nspa_heap_size(h, 0, p), 7777);
    CHECK_EQ(nspa_heap_realloc(h, NSPA_HEAP_REALLOC_IN_PLACE_ONLY, &p, 1000000), -ENOMEM);
    CHECK(p == keep);
    CHECK_EQ(nspa_heap_free(h, 0, p), 0);
    CHECK_EQ(nspa_heap_free(h, 0, p), -EINVAL);                          /* double free */
    CHECK_EQ(nspa_heap_free(h, 0, NULL), 0);
    CHECK_EQ(nspa_heap_validate(h, 0, p), -EINVAL);
    CHECK_EQ(nspa_heap_validate(h, 0, NULL), 0);
    CHECK_EQ(nspa_heap_lock(h), 0);
    CHECK_EQ(nspa_heap_unlock(h), 0);
    CHECK_EQ(nspa_heap_unlock(h), -EPERM);                              /* not held */
    struct nspa_heap_entry e;
    memset(&e, 0, sizeof(e));
    int walked = 0, r;
    while ((r = nspa_heap_walk(h, &e)) == 0) walked++;
    CHECK_EQ(r, -ENODATA);
    CHECK(walked > 0);
    CHECK_EQ(nspa_heap_walk(h, NULL), -EINVAL);
    unsigned info = 0;
    size_t got = 0;
    CHECK_EQ(nspa_heap_query_information(h, NSPA_HEAP_INFO_COMPATIBILITY, &info, sizeof(info), &got), 0);
    CHECK_EQ(info, 2);
    CHECK_EQ(got, sizeof(info));
    CHECK_EQ(nspa_heap_query_information(h, NSPA_HEAP_INFO_COMPATIBILITY, &info, 1, &got), -ENOSPC);
    CHECK_EQ(nspa_heap_query_information(h, 99, &info, sizeof(info), &got), -EINVAL);
    info = 2;
    CHECK_EQ(nspa_heap_set_information(h, NSPA_HEAP_INFO_COMPATIBILITY, &info, sizeof(info)), 0);
    info = 1;
    CHECK_EQ(nspa_heap_set_information(h, NSPA_HEAP_INFO_COMPATIBILITY, &info, sizeof(info)), -EINVAL);
    CHECK_EQ(nspa_heap_set_information(h, NSPA_HEAP_INFO_COMPATIBILITY, &info, 1), -ENOSPC);
    CHECK_EQ(nspa_heap_set_information(h, 77, NULL, 0), -EINVAL);
    CHECK_EQ(nspa_heap_set_information(h, NSPA_HEAP_INFO_OPTIMIZE_RESOURCES, NULL, 0), 0);
    size_t largest = 1;
    CHECK_EQ(nspa_heap_compact(h, 0, &largest), 0);
    CHECK_EQ(nspa_heap_compact(h, 0, NULL), 0);
    struct nspa_heap_stats st;
    CHECK_EQ(nspa_heap_stats(h, NULL), -EINVAL);
    CHECK_EQ(nspa_heap_destroy(nspa_heap_process()), -EINVAL);           /* the process heap */
    CHECK_EQ(nspa_heap_destroy(h), 0);
    CHECK_EQ(GetLastError(), 0x1234);

    /* a handle that is not a live heap (destroyed, or never one): -EBADF everywhere */
    nspa_heap_t *bad[2] = { h, (nspa_heap_t *)&st };
    for (int i = 0; i < 2; i++) {
        nspa_heap_t *b = bad[i];
        void *x = NULL;
        CHECK_EQ(nspa_heap_destroy(b), -EBADF);
        CHECK(nspa_heap_alloc(b, 0, 10) == NULL);
        CHECK_EQ(nspa_heap_alloc_aligned(b, 0, 64, 10, &x), -EBADF);
        CHECK_EQ(nspa_heap_free(b, 0, &x), -EBADF);
        x = &st;
        CHECK_EQ(nspa_heap_realloc(b, 0, &x, 10), -EBADF);
        CHECK_EQ(nspa_heap_validate(b, 0, NULL), -EBADF);
        CHECK_EQ(nspa_heap_walk(b, &e), -EBADF);
        CHECK_EQ(nspa_heap_lock(b), -EBADF);
        CHECK_EQ(nspa_heap_unlock(b), -EBADF);
        CHECK_EQ(nspa_heap_compact(b, 0, NULL), -EBADF);
        CHECK_EQ(nspa_heap_set_information(b, NSPA_HEAP_INFO_COMPATIBILITY, &info, sizeof(info)), -EBADF);
        CHECK_EQ(nspa_heap_query_information(b, NSPA_HEAP_INFO_COMPATIBILITY, &info, sizeof(info), NULL), -EBADF);
        CHECK_EQ(nspa_heap_stats(b, &st), -EBADF);
        CHECK_EQ(nspa_heap_size(b, 0, &st), (size_t)-1);
    }
    CHECK_EQ(GetLastError(), 0x1234);

    /* the C allocator entry points (what libnspa-malloc.so exports as malloc & co.) */
    nspa_heap_t *ph = nspa_heap_process();
    unsigned char *m = nspa_malloc(100);
    REQUIRE(m);
    CHECK_EQ(nspa_heap_size(ph, 0, m), 100);          /* a process-heap block */
    m = nspa_realloc(m, 5000);
    REQUIRE(m);
    CHECK_EQ(nspa_heap_size(ph, 0, m), 5000);
    errno = 0;
    CHECK(nspa_realloc(m, (size_t)1 << 60) == NULL);  /* the block stays */
    CHECK_EQ(errno, ENOMEM);
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
    CHECK_EQ(nspa_heap_validate(ph, 0, NULL), 0);

    /* freed large blocks are kept mapped for reuse (docs/heap.md, "Large blocks"): a
     * reused one is zeroed when asked, a second free of the first is still rejected, and
     * compaction gives the cache back */
    nspa_heap_t *hl = NULL;
    REQUIRE(nspa_heap_create(0, 0, 0, &hl) == 0);
    unsigned char *L1 = nspa_heap_alloc(hl, 0, 300000);
    REQUIRE(L1);
    memset(L1, 0xAB, 300000);
    CHECK_EQ(nspa_heap_free(hl, 0, L1), 0);
    unsigned char *L2 = nspa_heap_alloc(hl, NSPA_HEAP_ZERO_MEMORY, 290000);
    REQUIRE(L2);
    int zeroed = 1;
    for (size_t i = 0; i < 290000; i++) zeroed &= L2[i] == 0;
    CHECK(zeroed);
    CHECK_EQ(nspa_heap_size(hl, 0, L2), 290000);
    if (L2 != L1)
        CHECK_EQ(nspa_heap_free(hl, 0, L1), -EINVAL);  /* cached or unmapped: not live */
    CHECK_EQ(nspa_heap_free(hl, 0, L2), 0);
    CHECK_EQ(nspa_heap_free(hl, 0, L2), -EINVAL);      /* cached now: a double free */
    CHECK_EQ(nspa_heap_size(hl, 0, L2), (size_t)-1);
    CHECK(nspa_heap_stats(hl, &st) == 0 && st.large_blocks == 0);
    CHECK_EQ(nspa_heap_compact(hl, 0, NULL), 0);
    CHECK(nspa_heap_stats(hl, &st) == 0 && st.bytes_committed < 300000);
    CHECK_EQ(nspa_heap_validate(hl, 0, NULL), 0);
    CHECK_EQ(nspa_heap_destroy(hl), 0);
    return nspa_test_done();
}
