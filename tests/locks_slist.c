/* SList (issue 16): the Windows x64 header layout, LIFO order, depth, flush, a pushed
 * chain, and 4 threads pushing and popping the same entries (each entry is owned by
 * exactly one place at any time: none lost, none twice). */
#include <windows.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include "nspa_test.h"

typedef struct { SLIST_ENTRY e; int v; int held; } item;

static void test_layout_and_order(void)
{
    CHECK_EQ(sizeof(SLIST_HEADER), 16);
    CHECK_EQ(_Alignof(SLIST_HEADER), 16);
    CHECK_EQ(_Alignof(SLIST_ENTRY), 16);
    SLIST_HEADER h;
    InitializeSListHead(&h);
    CHECK_EQ(QueryDepthSList(&h), 0);
    CHECK(InterlockedPopEntrySList(&h) == NULL);
    CHECK(InterlockedFlushSList(&h) == NULL);
    item *it = aligned_alloc(16, sizeof(item) * 8);
    for (int i = 0; i < 5; i++) {
        it[i].v = i;
        PSLIST_ENTRY prev = InterlockedPushEntrySList(&h, &it[i].e);
        CHECK(prev == (i ? &it[i - 1].e : NULL));          /* returns the old first */
    }
    CHECK_EQ(QueryDepthSList(&h), 5);
    CHECK_EQ(h.HeaderX64.Depth, 5);
    CHECK(RtlFirstEntrySList(&h) == &it[4].e);
    CHECK_EQ((uint64_t)h.HeaderX64.NextEntry << 4, (uint64_t)(uintptr_t)&it[4].e);
    CHECK(h.HeaderX64.Sequence >= 5);
    PSLIST_ENTRY e = InterlockedPopEntrySList(&h);
    CHECK(e == &it[4].e);
    CHECK_EQ(QueryDepthSList(&h), 4);
    /* flush returns the chain, newest first */
    PSLIST_ENTRY c = InterlockedFlushSList(&h);
    CHECK_EQ(QueryDepthSList(&h), 0);
    int n = 0;
    for (; c; c = c->Next) CHECK_EQ(((item *)c)->v, 3 - n++);
    CHECK_EQ(n, 4);
    /* a chain 5 -> 6 -> 7 pushed at once, on top of entry 0 */
    InterlockedPushEntrySList(&h, &it[0].e);
    for (int i = 5; i < 8; i++) it[i].v = i;
    it[5].e.Next = &it[6].e;
    it[6].e.Next = &it[7].e;
    PSLIST_ENTRY prev = InterlockedPushListSListEx(&h, &it[5].e, &it[7].e, 3);
    CHECK(prev == &it[0].e);
    CHECK_EQ(QueryDepthSList(&h), 4);
    int want[] = { 5, 6, 7, 0 };
    for (int i = 0; i < 4; i++) {
        e = InterlockedPopEntrySList(&h);
        REQUIRE(e != NULL);
        CHECK_EQ(((item *)e)->v, want[i]);
    }
    CHECK(InterlockedPopEntrySList(&h) == NULL);
    free(it);
}

/* Wine's test_slist (run on Windows): a header full of garbage is initialized to depth
 * 0; a chain pushed with a count adds that count to the depth, whatever its length
 * (ntdll's RtlInterlockedPushListSList(Ex)); a pop of the emptied list returns NULL and
 * leaves the depth alone; a flush of it returns NULL and sets the depth to 0 (Windows 8
 * and later); 65536 pushes wrap the 16-bit depth to 0 and a flush then returns all of
 * them, newest first. */
static void test_wine_slist(void)
{
    item i1 = { .v = 1 }, i2 = { .v = 2 }, i3 = { .v = 3 };
    SLIST_HEADER h;
    memset(&h, 0xff, sizeof(h));
    InitializeSListHead(&h);
    CHECK_EQ(QueryDepthSList(&h), 0);
    CHECK(InterlockedPushEntrySList(&h, &i3.e) == NULL);
    i2.e.Next = &i1.e;
    PSLIST_ENTRY e = RtlInterlockedPushListSList(&h, &i2.e, &i1.e, 42);
    CHECK(e == &i3.e);
    CHECK_EQ(QueryDepthSList(&h), 43);
    int want[] = { 2, 1, 3 };
    for (int i = 0; i < 3; i++) {
        e = InterlockedPopEntrySList(&h);
        REQUIRE(e != NULL);
        CHECK_EQ(((item *)e)->v, want[i]);
        CHECK_EQ(RtlQueryDepthSList(&h), 42 - i);
    }
    CHECK(RtlInterlockedPopEntrySList(&h) == NULL);
    CHECK_EQ(QueryDepthSList(&h), 40);
    CHECK(InterlockedFlushSList(&h) == NULL);
    CHECK_EQ(QueryDepthSList(&h), 0);
    /* the Ex form and the ntdll names */
    RtlInitializeSListHead(&h);
    CHECK(RtlInterlockedPushEntrySList(&h, &i3.e) == NULL);
    i2.e.Next = &i1.e;
    CHECK(RtlInterlockedPushListSListEx(&h, &i2.e, &i1.e, 42) == &i3.e);
    CHECK_EQ(QueryDepthSList(&h), 43);
    e = RtlInterlockedFlushSList(&h);
    int n = 0;
    for (; e; e = e->Next) CHECK_EQ(((item *)e)->v, want[n++]);
    CHECK_EQ(n, 3);
    CHECK_EQ(QueryDepthSList(&h), 0);
    /* 65536 entries: the depth wraps */
    enum { MANY = 65536 };
    item *many = aligned_alloc(16, sizeof(item) * MANY);
    REQUIRE(many != NULL);
    int bad = 0;
    for (int i = 0; i < MANY; i++) {
        many[i].v = i + 1;
        e = InterlockedPushEntrySList(&h, &many[i].e);
        if (e != (i ? &many[i - 1].e : NULL)) bad++;
        if (QueryDepthSList(&h) != ((i + 1) & 0xffff)) bad++;
    }
    CHECK_EQ(bad, 0);
    e = InterlockedFlushSList(&h);
    for (int i = MANY; i > 0; i--, e = e ? e->Next : NULL)
        if (!e || ((item *)e)->v != i) bad++;
    CHECK_EQ(bad, 0);
    CHECK(e == NULL);
    CHECK_EQ(QueryDepthSList(&h), 0);
    CHECK(InterlockedPopEntrySList(&h) == NULL);
    free(many);
}

#define NITEMS 64
#define ROUNDS 200000
static SLIST_HEADER shared;
static item *pool;

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    PSLIST_ENTRY mine[8];
    int n = 0;
    for (int r = 0; r < ROUNDS; r++) {
        seed = seed * 1103515245u + 12345u;
        if (n < 8 && (n == 0 || (seed >> 16) & 1)) {
            PSLIST_ENTRY e = InterlockedPopEntrySList(&shared);
            if (e) {
                item *it = (item *)e;
                if (__atomic_fetch_add(&it->held, 1, __ATOMIC_ACQ_REL) != 0) return (void *)1;  /* twice */
                mine[n++] = e;
            }
        } else if (n) {
            item *it = (item *)mine[--n];
            __atomic_fetch_sub(&it->held, 1, __ATOMIC_ACQ_REL);
            InterlockedPushEntrySList(&shared, &it->e);
        }
    }
    while (n) {
        item *it = (item *)mine[--n];
        __atomic_fetch_sub(&it->held, 1, __ATOMIC_ACQ_REL);
        InterlockedPushEntrySList(&shared, &it->e);
    }
    return NULL;
}

static void test_threads(void)
{
    pool = aligned_alloc(16, sizeof(item) * NITEMS);
    InitializeSListHead(&shared);
    for (int i = 0; i < NITEMS; i++) {
        pool[i].v = i;
        pool[i].held = 0;
        InterlockedPushEntrySList(&shared, &pool[i].e);
    }
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
    CHECK_EQ(QueryDepthSList(&shared), NITEMS);
    int seen[NITEMS] = { 0 }, n = 0;
    for (PSLIST_ENTRY e; (e = InterlockedPopEntrySList(&shared)); n++) seen[((item *)e)->v]++;
    CHECK_EQ(n, NITEMS);
    for (int i = 0; i < NITEMS; i++) CHECK_EQ(seen[i], 1);
    free(pool);
}

int main(void)
{
    test_layout_and_order();
    test_wine_slist();
    test_threads();
    return nspa_test_done();
}
