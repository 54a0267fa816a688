/* Slot directories (src/common/slots.h): the free list, the mark, chunks made on first
 * use and never before, a full table as -ENOSPC with nothing changed, claims of an exact
 * index above and below the mark, slots another writer took (busy) skipped. The unit
 * is hidden in libnspa, so it is compiled into this test. */
#include <errno.h>
#include "../src/common/slots.c"
#include "nspa_test.h"

struct rec { uint32_t link; uint32_t idx; int used; };

static void rec_init(void *slot, uint32_t i) { ((struct rec *)slot)->idx = i + 1000; }
static int rec_busy(const void *slot) { return ((const struct rec *)slot)->used; }

static void *dir[4];

static struct nspa_slots mk(int heap)
{
    struct nspa_slots s = { .dir = dir, .ndir = 4, .shift = 2, .size = sizeof(struct rec),
                            .link = offsetof(struct rec, link), .heap = heap, .init = rec_init, .busy = rec_busy };
    for (int k = 0; k < 4; k++) dir[k] = NULL;
    return s;
}

static void basics(int heap)
{
    struct nspa_slots s = mk(heap);
    uint32_t i;
    CHECK(nspa_slots_at(&s, 0) == NULL);            /* no chunk before first use */
    CHECK_EQ(nspa_slots_take(&s, &i), 0);
    CHECK_EQ(i, 0);
    struct rec *r = nspa_slots_at(&s, 0);
    REQUIRE(r != NULL);
    CHECK_EQ(r->idx, 1000);                          /* init ran with the index */
    CHECK(nspa_slots_at(&s, 4) == NULL);            /* only the chunk in use is made */
    CHECK(nspa_slots_at(&s, 16) == NULL);           /* out of range */
    for (uint32_t k = 1; k < 16; k++) {
        CHECK_EQ(nspa_slots_take(&s, &i), 0);
        CHECK_EQ(i, k);
        ((struct rec *)nspa_slots_at(&s, i))->idx = k + 1000;
    }
    CHECK_EQ(nspa_slots_hwm(&s), 16);
    CHECK_EQ(nspa_slots_take(&s, &i), -ENOSPC);     /* full: nothing changes */
    CHECK_EQ(nspa_slots_hwm(&s), 16);
    nspa_slots_give(&s, 5);
    nspa_slots_give(&s, 9);
    CHECK_EQ(nspa_slots_take(&s, &i), 0);           /* LIFO free list */
    CHECK_EQ(i, 9);
    nspa_slots_claim(&s, 5);                        /* below the mark: off the free list */
    CHECK_EQ(s.free_head, 0);
    CHECK_EQ(nspa_slots_take(&s, &i), -ENOSPC);
    if (!heap)
        for (int k = 0; k < 4; k++) munmap(dir[k], 4 * sizeof(struct rec));
    else
        for (int k = 0; k < 4; k++) free(dir[k]);
}

static void claims(void)
{
    struct nspa_slots s = mk(0);
    uint32_t i;
    /* slot 2 was taken by another writer (a handle another process inserted) */
    REQUIRE(nspa_slots_chunk(&s, 2) == 0);
    ((struct rec *)nspa_slots_at(&s, 2))->used = 1;
    CHECK_EQ(nspa_slots_take(&s, &i), 0);
    CHECK_EQ(i, 0);
    CHECK_EQ(nspa_slots_take(&s, &i), 0);
    CHECK_EQ(i, 1);
    CHECK_EQ(nspa_slots_take(&s, &i), 0);           /* 2 is busy: skipped */
    CHECK_EQ(i, 3);
    /* an exact index above the mark: the skipped free ones go on the free list */
    REQUIRE(nspa_slots_chunk(&s, 6) == 0);
    ((struct rec *)nspa_slots_at(&s, 6))->used = 1;
    nspa_slots_claim(&s, 9);
    CHECK_EQ(nspa_slots_hwm(&s), 10);
    uint32_t got[8], n = 0;
    while (n < 8 && nspa_slots_take(&s, &got[n]) == 0 && got[n] < 9) n++;
    /* 4, 5, 7, 8 freed (6 busy), then the mark's 10 */
    CHECK_EQ(n, 4);
    CHECK_EQ(got[n], 10);
    int seen = 0;
    for (uint32_t k = 0; k < n; k++) seen |= 1 << got[k];
    CHECK_EQ(seen, (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8));
    for (int k = 0; k < 4; k++)
        if (dir[k]) munmap(dir[k], 4 * sizeof(struct rec));
}

int main(void)
{
    basics(0);
    basics(1);
    claims();
    return nspa_test_done();
}
