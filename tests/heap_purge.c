/* Idle memory goes back after an epoch (docs/heap.md, "Commit and decommit"):
 *  - a thread that frees everything it allocated keeps at most 8 MiB (PURGE_NOW_SLICES)
 *    of idle slices committed meanwhile, and after two purge ticks an epoch (20 ms)
 *    apart (ticks happen at page switches) they are decommitted;
 *  - a thread that exits leaves at most 8 MiB of idle slices in the orphans
 *    (ORPHAN_KEEP_SLICES), and the first tick of another thread an epoch later gives
 *    them back;
 *  - what another thread frees into a gone thread's pages goes back at once;
 *  - a thread whose use swings: the at-once limit doubles (up to 64 MiB) each time the
 *    thread commits afresh within an epoch or two of an at-once decommit, so a thread
 *    that fills and frees ~24 MiB again and again stops giving it back and faulting it
 *    in again on every cycle; once it stops swinging, the limit comes back down (halved
 *    at each tick in which its use stayed below a quarter of it) and a large free goes
 *    back at once again (swing(), on a heap of its own: the limit is per thread and heap).
 * HeapValidate holds throughout. */
#include <windows.h>
#include <pthread.h>
#include <time.h>
#include <sys/resource.h>
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

static long faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

#define CYCLES 6
#define SWING_BLK 6000               /* 4000-byte blocks: ~24 MiB, few calls per cycle */
static void *sblk[SWING_BLK];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void swing(void)
{
    long flt[CYCLES];
    size_t peak[CYCLES], after[CYCLES];
    double slowest = 0;
    for (int c = 0; c < CYCLES; c++) {
        double t0 = now_ms();
        long f0 = faults();
        for (int i = 0; i < SWING_BLK; i++)
            if (!(sblk[i] = HeapAlloc(h, 0, 4000)))
                CHECK(!"HeapAlloc");
        flt[c] = faults() - f0;
        peak[c] = committed();
        for (int i = 0; i < SWING_BLK; i++)
            if (!HeapFree(h, 0, sblk[i]))
                CHECK(!"HeapFree");
        after[c] = committed();
        double ms = now_ms() - t0;
        if (c > 0 && ms > slowest)   /* (the first cycle also faults everything in) */
            slowest = ms;
        printf("swing %d: %.1f ms, %ld faults, peak %.1f MiB, after the frees %.1f MiB\n",
               c + 1, ms, flt[c], peak[c] / (double)MiB, after[c] / (double)MiB);
    }
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(peak[0] > 20 * MiB);
    CHECK(after[0] <= 10 * MiB);     /* the first large free: back at once */
    for (int c = 0; c < CYCLES; c++)
        CHECK(peak[c] <= peak[0] + 2 * MiB);
    /* the swinging thread keeps its memory and stops faulting it in again. That holds
     * for swings within an epoch or two (20 ms each); a machine (or a sanitizer) that
     * makes one cycle last longer than an epoch makes it a slow swing, whose memory the
     * purge ticks give back by design: then these three checks do not apply, and the
     * test says so (an at-once decommit counts as recent for at least one epoch: a
     * commit less than 20 ms after it always doubles the limit) */
    if (slowest < 20) {
        CHECK(after[CYCLES - 1] >= peak[0] / 2);
        CHECK(flt[CYCLES - 1] * 8 < flt[0]);
        CHECK(flt[CYCLES - 2] * 8 < flt[0]);
    } else
        printf("NOT CHECKED: a swing took %.1f ms, longer than an epoch (20 ms) allows\n",
               slowest);

    /* it stops swinging: epochs of small use, each with a page switch (a tick). The
     * ticks give the idle memory back and bring the limit down again */
    for (int k = 0; k < 8; k++) {
        sleep_ms(25);
        page_switch(1100 + 300 * (size_t)k);
    }
    size_t idle = committed();
    for (int i = 0; i < SWING_BLK; i++)
        if (!(sblk[i] = HeapAlloc(h, 0, 4000)))
            CHECK(!"HeapAlloc");
    size_t p2 = committed();
    for (int i = 0; i < SWING_BLK; i++)
        if (!HeapFree(h, 0, sblk[i]))
            CHECK(!"HeapFree");
    size_t a2 = committed();
    printf("after 8 quiet epochs: %.1f MiB; a swing: peak %.1f MiB, after the frees %.1f MiB\n",
           idle / (double)MiB, p2 / (double)MiB, a2 / (double)MiB);
    CHECK(idle < 4 * MiB);
    CHECK(p2 > 20 * MiB);
    CHECK(a2 <= 10 * MiB);           /* back at once again */
    CHECK(HeapValidate(h, 0, NULL));
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

    h = HeapCreate(0, 0, 0);         /* a heap (so a theap, a limit) of its own */
    REQUIRE(h);
    swing();
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
