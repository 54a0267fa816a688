/* Double frees and foreign pointers: rejected with ERROR_INVALID_PARAMETER, detected by
 * HeapValidate, and the heap stays intact (local and cross-thread, small and large). */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "nspa/heap.h"
#include "nspa_test.h"

static HANDLE h;
static void *shared;

static void *remote_double(void *arg)
{
    (void)arg;
    CHECK(HeapFree(h, 0, shared));                 /* cross-thread free: fine */
    SetLastError(0);
    CHECK(!HeapFree(h, 0, shared));                /* pending in the owner's list: rejected */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    return NULL;
}

/* each of ps[0..n) is no block of heap hp: the free fails with ERROR_INVALID_PARAMETER,
 * HeapValidate and HeapSize see no block */
static void check_rejected(HANDLE hp, void *const *ps, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        SetLastError(0);
        CHECK(!HeapFree(hp, 0, ps[i]));
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
        CHECK(!HeapValidate(hp, 0, ps[i]));
        CHECK_EQ(HeapSize(hp, 0, ps[i]), (SIZE_T)-1);
    }
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    HANDLE other = HeapCreate(0, 0, 0);
    REQUIRE(h && other);

    /* local double free of a small block */
    void *keep[64];
    for (int i = 0; i < 64; i++) keep[i] = HeapAlloc(h, 0, 48);
    void *p = keep[10];
    CHECK(HeapValidate(h, 0, p));
    CHECK(HeapFree(h, 0, p));
    CHECK(!HeapValidate(h, 0, p));
    SetLastError(0);
    CHECK(!HeapFree(h, 0, p));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(HeapValidate(h, 0, NULL));
    /* the free list is intact: the next allocations are distinct */
    void *a1 = HeapAlloc(h, 0, 48), *a2 = HeapAlloc(h, 0, 48);
    CHECK(a1 && a2 && a1 != a2);
    CHECK_EQ(HeapSize(h, 0, p), (a1 == p || a2 == p) ? 48 : (SIZE_T)-1);

    /* foreign pointers: glibc, stack, static, interior, another heap, garbage */
    void *libc = malloc(64);
    int stackvar;
    static char staticbuf[64];
    char *inner = (char *)keep[20] + 16;
    void *theirs = HeapAlloc(other, 0, 48);
    void *foreign[] = {libc, &stackvar, staticbuf, inner, theirs, (void *)(uintptr_t)0x10,
                       (void *)(uintptr_t)0x7ff0deadbee0};
    check_rejected(h, foreign, sizeof foreign / sizeof *foreign);
    /* pointers the free fast path screens out by arithmetic alone: NULL (TRUE, whatever
     * the handle), an address beyond the segment map, and addresses in this heap's own
     * segment that are no block: its metadata slice (slice 0: page descriptor 0, never
     * set up) and a slice no page uses */
    CHECK(HeapFree(h, 0, NULL));
    CHECK(HeapFree(NULL, 0, NULL));
    CHECK_EQ(nspa_heap_free((nspa_heap_t *)h, 0, NULL), 0);
    uintptr_t segbase = (uintptr_t)keep[0] & ~(uintptr_t)(2 * 1024 * 1024 - 1);
    void *inseg[] = {(void *)segbase, (void *)(segbase + 256), (void *)(segbase + 4096),
                     (void *)(segbase + 30 * 65536), (void *)(segbase + 31 * 65536 + 48),
                     (void *)(uintptr_t)0xffff800000001000ull, (void *)(uintptr_t)(1ull << 47)};
    check_rejected(h, inseg, sizeof inseg / sizeof *inseg);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapValidate(other, 0, theirs));       /* untouched by the rejected free */
    CHECK(HeapFree(other, 0, theirs));
    free(libc);

    /* bad handles: rejected before the block is touched (the free fast path only takes
     * a block whose segment belongs to the handle, so these reach the handle check) */
    static uint64_t fake_heap[64];
    SetLastError(0);
    CHECK(!HeapFree(NULL, 0, keep[0]));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    SetLastError(0);
    CHECK(!HeapFree((HANDLE)fake_heap, 0, keep[0]));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(HeapValidate(h, 0, keep[0]));
    CHECK(HeapAlloc(NULL, 0, 10) == NULL);
    /* garbage handles (unmapped, misaligned, inside a heap, a stack address) are
     * rejected by address, without a read through them: no call may fault */
    int on_stack = 0;
    HANDLE junk[] = { (HANDLE)(uintptr_t)0x1234, (HANDLE)(uintptr_t)0xdead0000beefull,
                      (HANDLE)((char *)h + 8), (HANDLE)&on_stack, (HANDLE)fake_heap };
    for (unsigned j = 0; j < sizeof junk / sizeof junk[0]; j++) {
        HANDLE g = junk[j];
        PROCESS_HEAP_ENTRY we = { 0 };
        SetLastError(0);
        CHECK(HeapAlloc(g, 0, 10) == NULL);
        CHECK(HeapAlloc(g, HEAP_ZERO_MEMORY, 5000) == NULL);
        CHECK(!HeapFree(g, 0, keep[0]));
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        CHECK(HeapReAlloc(g, 0, keep[0], 20) == NULL);
        CHECK(HeapSize(g, 0, keep[0]) == (SIZE_T)-1);
        CHECK(!HeapValidate(g, 0, NULL));
        CHECK(!HeapLock(g));
        CHECK(!HeapUnlock(g));
        CHECK(!HeapWalk(g, &we));
        CHECK(HeapCompact(g, 0) == 0);
        CHECK(!HeapDestroy(g));
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    CHECK(HeapValidate(h, 0, keep[0]));

    /* large block double free */
    void *L = HeapAlloc(h, 0, 1 << 20);
    CHECK(HeapFree(h, 0, L));
    CHECK(!HeapFree(h, 0, L));
    CHECK(!HeapValidate(h, 0, L));

    /* cross-thread double free */
    shared = HeapAlloc(h, 0, 100);
    pthread_t t;
    pthread_create(&t, NULL, remote_double, NULL);
    pthread_join(t, NULL);
    CHECK(!HeapValidate(h, 0, shared));
    SetLastError(0);
    CHECK(!HeapFree(h, 0, shared));                /* and the owner cannot free it again */
    CHECK(HeapValidate(h, 0, NULL));

    /* after all that, a burst of use is clean */
    void *many[2000];
    for (int i = 0; i < 2000; i++) { many[i] = HeapAlloc(h, 0, (size_t)(i % 300) + 1); memset(many[i], 1, (size_t)(i % 300) + 1); }
    for (int i = 0; i < 2000; i++) CHECK(HeapFree(h, 0, many[i]));
    for (int i = 0; i < 64; i++) if (keep[i] != p) CHECK(HeapFree(h, 0, keep[i]));
    CHECK(HeapFree(h, 0, a1));
    CHECK(HeapFree(h, 0, a2));
    CHECK(HeapValidate(h, 0, NULL));

    struct nspa_heap_stats st;
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &st), 0);
    CHECK(st.bad_frees >= 17);
    CHECK_EQ(st.blocks_in_use, 0);
    CHECK(HeapDestroy(h));
    CHECK(HeapDestroy(other));
    return nspa_test_done();
}
