/* A thread whose use swings (docs/heap.md, "Commit and decommit"): a retire decommits
 * idle slices at once beyond a limit (8 MiB at first), and that limit doubles, up to
 * 64 MiB, each time the thread has to commit memory afresh within an epoch or two of
 * such a decommit. So:
 *  - the first large free still gives memory back at once (as heap_purge checks);
 *  - a thread that fills and frees ~24 MiB again and again (a producer whose queue
 *    fills and drains) stops giving it back and faulting it in again on every cycle:
 *    its later cycles keep the memory committed and take (almost) no page faults;
 *  - once it stops swinging, the limit comes back down (halved at each purge tick in
 *    which its use stayed below a quarter of it): a large free goes back at once again.
 * The committed memory never exceeds the first cycle's peak by more than a little.
 * HeapValidate holds throughout. */
#include <windows.h>
#include <time.h>
#include <sys/resource.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#define MiB ((size_t)1 << 20)
#define NBLK 120000                  /* 208-byte blocks: ~24 MiB of pages */
#define CYCLES 6
static HANDLE h;
static void *blk[NBLK];

static size_t committed(void)
{
    struct nspa_heap_stats st;
    return nspa_heap_stats(h, &st) == 0 ? st.bytes_committed : (size_t)-1;
}

static long faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
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

static void alloc_all(void)
{
    for (int i = 0; i < NBLK; i++) {
        blk[i] = HeapAlloc(h, 0, 200);
        if (!blk[i]) { CHECK(!"HeapAlloc"); return; }
    }
}

static void free_all(void)
{
    for (int i = 0; i < NBLK; i++)
        if (!HeapFree(h, 0, blk[i]))
            CHECK(!"HeapFree");
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);

    long flt[CYCLES];
    size_t peak[CYCLES], after[CYCLES];
    for (int c = 0; c < CYCLES; c++) {
        long f0 = faults();
        alloc_all();
        flt[c] = faults() - f0;
        peak[c] = committed();
        free_all();
        after[c] = committed();
        printf("cycle %d: %ld faults, peak %.1f MiB, after the frees %.1f MiB\n", c + 1,
               flt[c], peak[c] / (double)MiB, after[c] / (double)MiB);
    }
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(peak[0] > 20 * MiB);
    CHECK(after[0] <= 10 * MiB);     /* the first large free: back at once */
    /* the swinging thread keeps its memory and stops faulting it in again */
    CHECK(after[CYCLES - 1] >= peak[0] / 2);
    CHECK(flt[CYCLES - 1] * 8 < flt[0]);
    CHECK(flt[CYCLES - 2] * 8 < flt[0]);
    for (int c = 0; c < CYCLES; c++)
        CHECK(peak[c] <= peak[0] + 2 * MiB);

    /* it stops swinging: a few epochs of small use, each with a page switch (a tick).
     * The ticks give the idle memory back and bring the limit down again */
    for (int k = 0; k < 8; k++) {
        sleep_ms(25);
        page_switch(1100 + 300 * (size_t)k);
    }
    size_t idle = committed();
    alloc_all();
    size_t p2 = committed();
    free_all();
    size_t a2 = committed();
    printf("after 8 quiet epochs: %.1f MiB; a swing: peak %.1f MiB, after the frees %.1f MiB\n",
           idle / (double)MiB, p2 / (double)MiB, a2 / (double)MiB);
    CHECK(idle < 4 * MiB);
    CHECK(p2 > 20 * MiB);
    CHECK(a2 <= 10 * MiB);           /* back at once again */
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
