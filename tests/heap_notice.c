/* Memory that comes back, through HeapAlloc on a private heap (so that it also runs
 * under TSan): one thread allocates rounds of blocks and hands them to another, which
 * frees them (every free a remote one, into pages of the allocator's full lists).
 *  - busy owner: over 40 rounds (at most two live) the heap's peak commit stays within
 *    1.5x the two rounds' blocks plus 2 MiB (without notices the full pages were found
 *    only by the rotating scan: 19.4 MiB for 7.7 of blocks);
 *  - blocked owner: it waits while the other thread frees a round, then HeapCompact
 *    from the freeing thread brings the commit under a quarter of its peak, the owner
 *    still blocked;
 *  - gone owner: it exits with a round handed over; the frees alone (no adopter, no
 *    compact) bring the commit under a quarter of its peak.
 * HeapValidate holds throughout. */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#define ROUND 60000                 /* blocks per round: 64 bytes, ~4.6 MiB of pages */
#define ROUNDS 40
static HANDLE h;
static void *blk[2][ROUND];
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready = -1, done = -1, go_on, mode;   /* mode 0 busy, 1 blocked, 2 gone */

static size_t committed(void)
{
    struct nspa_heap_stats st;
    return nspa_heap_stats(h, &st) == 0 ? st.bytes_committed : (size_t)-1;
}

static void *producer(void *arg)
{
    int rounds = mode == 0 ? ROUNDS : 1;
    for (int r = 0; r < rounds; r++) {
        void **b = blk[r & 1];
        for (int i = 0; i < ROUND; i++) {
            b[i] = HeapAlloc(h, 0, 48 + (i & 15));
            if (!b[i]) return (void *)1;
        }
        pthread_mutex_lock(&m);
        while (done < r - 1)                       /* at most two rounds live */
            pthread_cond_wait(&cv, &m);
        ready = r;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&m);
    }
    pthread_mutex_lock(&m);
    while (mode == 1 && !go_on)                      /* blocked: wait for the check */
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    return NULL;
}

static int run(int md)
{
    mode = md;
    ready = done = -1;
    go_on = 0;
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    pthread_t p;
    REQUIRE(pthread_create(&p, NULL, producer, NULL) == 0);
    int rounds = md == 0 ? ROUNDS : 1;
    size_t peak = 0;
    for (int r = 0; r < rounds; r++) {
        pthread_mutex_lock(&m);
        while (ready < r)
            pthread_cond_wait(&cv, &m);
        pthread_mutex_unlock(&m);
        if (md == 2 && r == rounds - 1)
            pthread_join(p, NULL);                   /* gone before the frees */
        size_t c = committed();
        if (c > peak) peak = c;
        for (int i = 0; i < ROUND; i++)
            if (!HeapFree(h, 0, blk[r & 1][i]))
                CHECK(!"HeapFree");
        pthread_mutex_lock(&m);
        done = r;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&m);
        if (r % 20 == 0)
            CHECK(HeapValidate(h, 0, NULL));
    }
    CHECK(HeapValidate(h, 0, NULL));
    if (md == 1)
        HeapCompact(h, 0);                           /* the owner is still blocked */
    size_t after = committed();
    pthread_mutex_lock(&m);
    go_on = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    if (md != 2)
        pthread_join(p, NULL);
    printf("%s owner: peak commit %.1f MiB, after the frees %.1f MiB\n",
           md == 0 ? "busy" : md == 1 ? "blocked" : "gone", peak / 1048576.0, after / 1048576.0);
    if (md == 0)
        CHECK(peak <= (size_t)ROUND * 64 * 2 * 3 / 2 + ((size_t)2 << 20));
    else
        CHECK(after < peak / 4);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return 0;
}

int main(void)
{
    run(0);
    run(1);
    run(2);
    return nspa_test_done();
}
