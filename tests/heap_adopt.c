/* A thread that takes over an exited thread's work reuses its memory (docs/heap.md,
 * "Threads that exit"): thread A allocates ~5 MiB of blocks (8..1000 bytes, so its
 * pages fill three segments) and exits with them live; thread B then replaces every one
 * of them in random order (free one, allocate one of the same size), as larson's server
 * threads do. Out of room at its first page, B adopts all of A's segments (up to
 * ADOPT_MAX), so its frees are local and its allocations reuse the freed blocks: the
 * heap's committed memory may grow by a small part of the live data, not by all of it
 * (before, B adopted one of A's three segments and the two others came back only page
 * by page as they emptied, while B filled fresh slices: the peak grew by ~70% of the live data).
 * HeapValidate holds before and after, and every block comes back. */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#define NBLK 10000
static HANDLE h;
static void *blk[NBLK];
static uint32_t sz[NBLK];
static uint32_t order[NBLK];

static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int stats(struct nspa_heap_stats *st)
{
    return nspa_heap_stats(h, st);
}

static void *thread_a(void *arg)
{
    (void)arg;
    uint64_t r = 12345;
    for (int i = 0; i < NBLK; i++) {
        sz[i] = 8 + (uint32_t)(rnd(&r) % 993);
        blk[i] = HeapAlloc(h, 0, sz[i]);
        if (!blk[i]) { CHECK(!"HeapAlloc"); return NULL; }
        ((char *)blk[i])[0] = (char)i;
    }
    return NULL;                     /* exits with every block live */
}

static void *thread_b(void *arg)
{
    (void)arg;
    for (int k = 0; k < NBLK; k++) {
        int i = (int)order[k];
        if (!HeapFree(h, 0, blk[i])) { CHECK(!"HeapFree of A's block"); return NULL; }
        blk[i] = HeapAlloc(h, 0, sz[i]);
        if (!blk[i]) { CHECK(!"HeapAlloc"); return NULL; }
        ((char *)blk[i])[0] = (char)i;
    }
    return NULL;
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    uint64_t r = 777;
    for (int i = 0; i < NBLK; i++)
        order[i] = (uint32_t)i;
    for (int i = NBLK - 1; i > 0; i--) {
        int j = (int)(rnd(&r) % (uint64_t)(i + 1));
        uint32_t t = order[i]; order[i] = order[j]; order[j] = t;
    }

    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, thread_a, NULL) == 0);
    pthread_join(t, NULL);           /* A is gone: its segments are orphans */
    struct nspa_heap_stats st0, st1;
    REQUIRE(stats(&st0) == 0);
    CHECK(HeapValidate(h, 0, NULL));
    size_t live = st0.bytes_in_use;
    printf("A gone: %zu live bytes, %.2f MiB committed, %zu segments\n", live,
           st0.bytes_committed / 1048576.0, st0.segments);
    CHECK(st0.segments >= 3);        /* the case this test is about: several orphans */

    REQUIRE(pthread_create(&t, NULL, thread_b, NULL) == 0);
    pthread_join(t, NULL);
    REQUIRE(stats(&st1) == 0);
    CHECK(HeapValidate(h, 0, NULL));
    size_t grew = st1.bytes_committed_peak - st0.bytes_committed;
    printf("B replaced every block: peak %.2f MiB committed (+%.2f MiB, %.0f%% of the live "
           "data), %zu segments\n", st1.bytes_committed_peak / 1048576.0, grew / 1048576.0,
           100.0 * (double)grew / (double)live, st1.segments);
    CHECK(st1.blocks_in_use == NBLK);
    /* adopted: B's blocks go into A's freed ones; a fifth of the live data covers the
     * pages B starts afresh before its first page switch finds A's blocks */
    CHECK(grew <= live / 5);
    CHECK(st1.segments <= st0.segments + 1);

    for (int i = 0; i < NBLK; i++)
        if (!HeapFree(h, 0, blk[i]))
            CHECK(!"HeapFree");
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
