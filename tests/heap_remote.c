/* Cross-thread frees through the batched path (docs/heap.md, "Cross-thread free"): a
 * thread that has its own theap of the heap keeps the blocks it frees into other threads'
 * pages in per-page batches. Checked here: a block is dead the moment it is freed (HeapSize,
 * HeapValidate, a second free from either thread), HeapValidate(NULL) and the statistics
 * are exact while blocks wait in a batch (the world-stopping lock pushes them), batches
 * that fill up, collide or stay partial until thread exit all reach the owner, and large
 * blocks (pushed one by one) mix with small ones. */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#define N 3000

static HANDLE h;
static size_t base;                                  /* blocks in use before the scenario */
static void *blk[N];
static size_t sz[N];
static pthread_barrier_t bar;

static size_t in_use(void)
{
    struct nspa_heap_stats st;
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &st), 0);
    return st.blocks_in_use - base;
}

static void *remote(void *arg)
{
    (void)arg;
    /* a theap of our own first: our frees into the owner's pages are batched */
    void *mine = HeapAlloc(h, 0, 64);
    REQUIRE(mine);

    /* one block: dead at once, although it only sits in our batch */
    CHECK(HeapFree(h, 0, blk[0]));
    CHECK_EQ(HeapSize(h, 0, blk[0]), (SIZE_T)-1);
    SetLastError(0);
    CHECK(!HeapFree(h, 0, blk[0]));                 /* second free from the batch */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!HeapValidate(h, 0, blk[0]));
    CHECK(HeapValidate(h, 0, NULL));                 /* counts exact with a batch pending */

    /* many blocks of many classes (slots fill up and collide), and large ones */
    for (int i = 1; i < N; i++) {
        CHECK_EQ(HeapSize(h, 0, blk[i]), sz[i]);
        CHECK_EQ(((unsigned char *)blk[i])[0], (unsigned char)i);
        CHECK(HeapFree(h, 0, blk[i]));
        if (i % 97 == 0) {
            SetLastError(0);
            CHECK(!HeapFree(h, 0, blk[i]));
            CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
        }
    }
    for (int i = 1; i < N; i += 13)
        CHECK_EQ(HeapSize(h, 0, blk[i]), (SIZE_T)-1);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK_EQ(in_use(), 1);                          /* 'mine' */
    pthread_barrier_wait(&bar);                      /* owner checks its side */
    pthread_barrier_wait(&bar);

    /* freeing another thread's block while holding the lock: the batch is pushed when
     * the holder looks (HeapValidate/HeapWalk re-enter the lock) */
    CHECK(HeapLock(h));
    CHECK(HeapFree(h, 0, blk[5]));
    CHECK(!HeapValidate(h, 0, blk[5]));
    CHECK(HeapValidate(h, 0, NULL));
    PROCESS_HEAP_ENTRY e;
    e.lpData = NULL;
    int seen = 0, busy = 0;
    while (HeapWalk(h, &e)) {
        if (e.lpData == blk[5]) { seen = 1; busy = (e.wFlags & PROCESS_HEAP_ENTRY_BUSY) != 0; }
    }
    CHECK(seen && !busy);
    CHECK(HeapUnlock(h));

    /* a few blocks left in a partial batch when we exit */
    for (int i = 0; i < 5; i++)
        CHECK(HeapFree(h, 0, blk[i]));
    CHECK(HeapFree(h, 0, mine));
    return NULL;
}

static void fill(void)
{
    for (int i = 0; i < N; i++) {
        sz[i] = (i % 50 == 49) ? (size_t)2000 + (size_t)i : (size_t)(i * 37 % 1000) + 1;
        blk[i] = HeapAlloc(h, 0, sz[i]);
        REQUIRE(blk[i]);
        memset(blk[i], i & 0xFF, sz[i]);
    }
}

static void scenario(HANDLE heap)
{
    h = heap;
    base = 0;
    base = in_use();
    fill();
    CHECK_EQ(in_use(), N);

    pthread_t t;
    pthread_create(&t, NULL, remote, NULL);
    pthread_barrier_wait(&bar);
    /* the owner cannot free what the other thread freed, pending or collected */
    for (int i = 0; i < N; i += 7) {
        SetLastError(0);
        CHECK(!HeapFree(h, 0, blk[i]));
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    /* and it gets the memory back: a second round reuses the freed blocks */
    struct nspa_heap_stats before, after;
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &before), 0);
    fill();
    CHECK_EQ(nspa_heap_stats((nspa_heap_t *)h, &after), 0);
    CHECK_EQ(after.segments, before.segments);
    CHECK(HeapValidate(h, 0, NULL));
    pthread_barrier_wait(&bar);
    pthread_join(t, NULL);

    /* the exiting thread's partial batch reached our pages */
    CHECK_EQ(in_use(), N - 6);
    CHECK(HeapValidate(h, 0, NULL));
    for (int i = 0; i < 6; i++) {
        SetLastError(0);
        CHECK(!HeapFree(h, 0, blk[i]));
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    for (int i = 6; i < N; i++) {
        CHECK_EQ(HeapSize(h, 0, blk[i]), sz[i]);
        CHECK(HeapFree(h, 0, blk[i]));
    }
    CHECK_EQ(in_use(), 0);
    CHECK(HeapValidate(h, 0, NULL));
}

int main(void)
{
    pthread_barrier_init(&bar, NULL, 2);
    HANDLE priv = HeapCreate(0, 0, 0);
    REQUIRE(priv);
    scenario(priv);
    CHECK(HeapDestroy(priv));
    scenario(GetProcessHeap());   /* the benchmark's path: the thread's process-heap theap */
    return nspa_test_done();
}
