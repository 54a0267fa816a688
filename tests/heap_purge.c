/* Idle memory goes back after an epoch (docs/heap.md, "Commit and decommit"):
 *  - a thread that frees everything it allocated keeps at most 8 MiB (PURGE_NOW_SLICES)
 *    of idle slices committed meanwhile, and after two purge ticks an epoch (20 ms)
 *    apart (ticks happen at page switches) they are decommitted;
 *  - a thread that exits leaves at most 8 MiB of idle slices in the orphans
 *    (ORPHAN_KEEP_SLICES), and the first tick of another thread an epoch later gives
 *    them back;
 *  - what another thread frees into a gone thread's pages goes back at once.
 * HeapValidate holds throughout. */
#include <windows.h>
#include <pthread.h>
#include <time.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#define MiB ((size_t)1 << 20)
#define NBLK 120000                  /* 208-byte blocks: ~24 MiB of pages */
static HANDLE h;
static void *blk[NBLK];

static size_t committed(void)
{
    struct nspa_heap_stats st;
    return nspa_heap_stats(h, &st) == 0 ? st.bytes_committed : (size_t)-1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

/* a page switch (a class not used before gets its first page): a purge tick */
static void page_switch(size_t n)
{
    void *p = HeapAlloc(h, 0, n);
    CHECK(p != NULL);
    CHECK(HeapFree(h, 0, p));
}

static void alloc_all(int n)
{
    for (int i = 0; i < n; i++) {
        blk[i] = HeapAlloc(h, 0, 200);
        if (!blk[i]) { CHECK(!"HeapAlloc"); return; }
    }
}

static void free_all(int n)
{
    for (int i = 0; i < n; i++)
        if (!HeapFree(h, 0, blk[i]))
            CHECK(!"HeapFree");
}

static void *gone_thread(void *arg)
{
    (void)arg;
    alloc_all(NBLK / 2);             /* ~12 MiB of pages: more than the bound */
    free_all(NBLK / 2);
    return NULL;
}

static void *handing_thread(void *arg)
{
    (void)arg;
    alloc_all(NBLK / 8);             /* the main thread frees them once we are gone */
    return NULL;
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);

    /* own memory */
    alloc_all(NBLK);
    size_t peak = committed();
    free_all(NBLK);
    size_t after = committed();
    CHECK(HeapValidate(h, 0, NULL));
    sleep_ms(30);
    page_switch(3000);
    sleep_ms(30);
    page_switch(5000);
    size_t later = committed();
    printf("own: peak %.1f MiB, after the frees %.1f MiB, two epochs later %.1f MiB\n",
           peak / (double)MiB, after / (double)MiB, later / (double)MiB);
    CHECK(peak > 20 * MiB);
    CHECK(after <= 10 * MiB);        /* 8 MiB of idle slices + metadata and current pages */
    CHECK(later < 3 * MiB);

    /* a gone thread's idle slices */
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, gone_thread, NULL) == 0);
    pthread_join(t, NULL);
    size_t gone = committed();
    sleep_ms(30);
    page_switch(7000);
    size_t gone_later = committed();
    printf("gone thread: at its exit %.1f MiB, an epoch later %.1f MiB\n",
           gone / (double)MiB, gone_later / (double)MiB);
    CHECK(gone <= later + 9 * MiB);  /* 8 MiB kept for an adopter, + its metadata */
    CHECK(gone_later < 3 * MiB);

    /* what others free into a gone thread's pages goes back at once */
    REQUIRE(pthread_create(&t, NULL, handing_thread, NULL) == 0);
    pthread_join(t, NULL);
    size_t handed = committed();
    free_all(NBLK / 8);
    size_t back = committed();
    printf("handed over by a gone thread: %.1f MiB, after the frees %.1f MiB\n",
           handed / (double)MiB, back / (double)MiB);
    CHECK(handed > 2 * MiB);
    CHECK(back < 3 * MiB);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
