/* Interior pointers, every offset of every size class: HeapFree of a pointer inside a
 * live block (not its start) is rejected with ERROR_INVALID_PARAMETER and changes
 * nothing, on the owner's fast path and on another thread's (remote) path. Both decode
 * the block with one multiplication by the class's reciprocal and take the fraction it
 * leaves as the block-start test (heap_inline.h, block_start): this checks that test
 * against every offset 1..size-1 of the last block of a full page of each class (the
 * largest block index, where the reciprocal's error is largest) and of the first. */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "nspa/heap.h"
#include "nspa_test.h"

static HANDLE h;
static unsigned rejected_remote;

struct probe { char *blk; size_t size; void *ticket; };

/* every interior offset of b: rejected, counted */
static unsigned probe_block(char *b, size_t size)
{
    unsigned bad = 0;
    for (size_t r = 1; r < size; r++) {
        SetLastError(0);
        if (HeapFree(h, 0, b + r) || GetLastError() != ERROR_INVALID_PARAMETER)
            bad++;
    }
    return bad;
}

static void *remote(void *arg)
{
    struct probe *pr = arg;
    /* a first, valid free gives this thread its theap of h: the probes below then take
     * the batched remote path (heap_free_remote), not only heap_free_impl */
    if (!HeapFree(h, 0, pr->ticket))
        rejected_remote = 1000000;
    else
        rejected_remote = probe_block(pr->blk, pr->size);
    /* a second free of the ticket, from the same thread: rejected on that path too */
    SetLastError(0);
    if (HeapFree(h, 0, pr->ticket) || GetLastError() != ERROR_INVALID_PARAMETER)
        rejected_remote++;
    return NULL;
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    struct nspa_heap_stats st;
    REQUIRE(nspa_heap_stats((nspa_heap_t *)h, &st) == 0);
    unsigned classes = 0;
    for (unsigned c = 0; c < NSPA_HEAP_NCLASSES; c++) {
        size_t bsize = st.classes[c].block_size;
        if (!bsize)
            continue;
        classes++;
        size_t req = bsize - 1;                 /* a request of n takes the class of n + 1 */
        /* enough blocks to fill a page of this class (pages hold up to 4,096 blocks and
         * span up to 1 MiB): the highest block index of a page is among them */
        size_t n = (1024 * 1024) / bsize + 2;
        if (n > 4097)
            n = 4097;
        char **blk = malloc(n * sizeof *blk);
        REQUIRE(blk);
        for (size_t i = 0; i < n; i++) {
            blk[i] = HeapAlloc(h, 0, req);
            REQUIRE(blk[i]);
            CHECK_EQ(nspa_heap_usable_size(blk[i]), bsize);
        }
        /* a fresh page hands its blocks out in address order: the end of the run that
         * starts at blk[0] is the last block of its page */
        size_t run = 1;
        while (run < n && blk[run] == blk[0] + run * bsize)
            run++;
        char *last = blk[run - 1];
        CHECK(run > 1 || bsize * 2 > 1024 * 1024);
        CHECK_EQ(probe_block(last, bsize), 0);
        CHECK_EQ(probe_block(blk[0], bsize < 4096 ? bsize : 4096), 0);
        void *ticket = HeapAlloc(h, 0, 8);
        REQUIRE(ticket);
        struct probe pr = {last, bsize, ticket};
        pthread_t t;
        REQUIRE(pthread_create(&t, NULL, remote, &pr) == 0);
        pthread_join(t, NULL);
        CHECK_EQ(rejected_remote, 0);
        /* nothing changed: every block is still live with its size, and freeable once */
        CHECK(HeapValidate(h, 0, NULL));
        CHECK_EQ(HeapSize(h, 0, last), req);
        for (size_t i = 0; i < n; i++)
            CHECK(HeapFree(h, 0, blk[i]));
        CHECK(!HeapFree(h, 0, last));
        free(blk);
    }
    CHECK_EQ(classes, NSPA_HEAP_NCLASSES);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
