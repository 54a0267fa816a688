/* NSPA heap: pages. Remote-free batches and their push, collecting them, carving free
 * lists, retiring empty pages (with the decommit hysteresis), adopting orphaned
 * segments, setting up a page and switching the allocation page of a class. */
#include "heap_inline.h"

/* ---------------------------------------------------------------------------------- */
/* Owner: take the blocks other threads freed into this page, in one splice. The count
 * is read before the list and incremented after each push, so 'used' may lag behind
 * (stay high) but never drops below the truth: a page is never retired early. */
void page_collect(page_t *pg)
{
    if (!LD(pg->thread_free) && !LD(pg->remote_cnt))
        return;
    uint32_t cnt = atomic_exchange_explicit(&pg->remote_cnt, 0, memory_order_acquire);
    void *l = atomic_exchange_explicit(&pg->thread_free, NULL, memory_order_acquire);
    pg->used -= cnt;
    if (!l)
        return;
    if (pg->free) {
        void *t = l;
        while (*(void **)t)
            t = *(void **)t;
        *(void **)t = pg->free;
    }
    pg->free = l;
}

/* Push the chain first..last (n blocks, already linked) on pg's thread_free: one CAS,
 * then the count (after the push: see page_collect). */
void remote_push(page_t *pg, void *first, void *last, uint32_t n)
{
    void *head = LD(pg->thread_free);
    do {
        *(void **)last = head;
    } while (!atomic_compare_exchange_weak_explicit(&pg->thread_free, &head, first,
                 memory_order_release, memory_order_relaxed));
    atomic_fetch_add_explicit(&pg->remote_cnt, n, memory_order_release);
}

/* Link a batch slot's blocks (the stores miss in the owner's cache, but with no locked
 * instruction between them they overlap) and push them in one go. */
void rb_flush(theap_t *th, rbatch_t *sl)
{
    uint32_t n = sl->n;
    if (!n)
        return;
    void **b = sl->blk;
    for (uint32_t k = 0; k + 1 < n; k++)
        *(void **)b[k] = b[k + 1];
    remote_push(sl->pg, b[0], b[n - 1], n);
    th->rb_blocks -= n;
    sl->n = 0;
}

/* Every pending remote free of th (its thread, or a world-stopped locker). */
void theap_rb_flush_all(theap_t *th)
{
    for (unsigned k = 0; th->rb_blocks && k < RB_SLOTS; k++)
        rb_flush(th, &th->rb[k]);
}

static void page_extend(page_t *pg)
{
    uint32_t k = 8192 / pg->bsize;
    if (k < 1) k = 1;
    if (k > pg->reserved - pg->capacity) k = pg->reserved - pg->capacity;
    uint8_t *b = pg->start + (size_t)(pg->capacity + k - 1) * pg->bsize;
    void *f = pg->free;
    for (uint32_t i = 0; i < k; i++, b -= pg->bsize) {
        *(void **)b = f;
        f = b;
    }
    pg->free = f;
    __atomic_store_n(&pg->capacity, pg->capacity + k, __ATOMIC_RELAXED);
}

void theap_purge(theap_t *th)
{
    for (seg_t *s = th->segs; s; s = s->own_next)
        seg_purge(th->heap, s);
    th->dirty_slices = 0;
}

/* Owner: page is empty; give its slices back to the segment. */
void page_retire(theap_t *th, page_t *pg, int may_release)
{
    seg_t *s = (seg_t *)((uintptr_t)pg & ~(uintptr_t)SEG_MASK);
    unsigned si = (unsigned)(pg - seg_pages(s)), n = pg->nslices;
    if (pg->in_full)
        full_unlink(th, pg);
    else
        plist_remove(&th->pages[pg->cls], pg);
    uint32_t bits = (uint32_t)(((n >= 32) ? 0xFFFFFFFFull : ((1ull << n) - 1)) << si);
    for (unsigned i = si; i < si + n; i++)
        s->slice_first[i] = 0;
    pg->bsize = 0;
    pg->free = NULL;
    page_mark_full(pg, 0);
    s->free_mask |= bits;
    s->dirty_mask |= bits;
    th->dirty_slices += n;
    th->used_slices -= n;
    if (may_release && s->free_mask == ALL_SLICES) {
        /* keep one empty segment per theap as a spare; release the others */
        int other = 0;
        for (seg_t *o = th->segs; o; o = o->own_next)
            if (o != s && o->free_mask != 0) { other = 1; break; }
        if (other) {
            th->dirty_slices -= (uint32_t)__builtin_popcount(s->dirty_mask);
            slist_remove_own(&th->segs, s);
            seg_release(th->heap, s);
            return;
        }
    }
    /* hysteresis: decommit only when the idle committed memory exceeds 1 MiB and an
     * eighth of what the thread's pages hold */
    if (th->dirty_slices > PURGE_SLICES && th->dirty_slices > th->used_slices / 8)
        theap_purge(th);
}

static int find_run(uint32_t mask, unsigned n)
{
    uint32_t want = (uint32_t)((1ull << n) - 1);
    for (unsigned i = 1; i + n <= NSLICES; i++)
        if (((mask >> i) & want) == want)
            return (int)i;
    return -1;
}


void theap_insert_page(theap_t *th, page_t *pg)
{
    if (!pg->free && pg->capacity == pg->reserved) {
        page_mark_full(pg, 1);
        plist_push(&th->full[pg->cls], pg);
    } else {
        page_mark_full(pg, 0);
        /* behind the current allocation page */
        page_t *head = th->pages[pg->cls];
        if (head) {
            pg->prev = head;
            pg->next = head->next;
            if (head->next) head->next->prev = pg;
            head->next = pg;
        } else
            plist_push(&th->pages[pg->cls], pg);
    }
}

/* Take over a segment whose owner thread has exited. */
static int adopt_orphan(theap_t *th)
{
    heap_t *h = th->heap;
    pthread_mutex_lock(&h->big);
    seg_t *s = h->orphans;
    if (s)
        slist_remove_own(&h->orphans, s);
    pthread_mutex_unlock(&h->big);
    if (!s)
        return 0;
    s->owner = th;
    ST(s->owner_tid, th->token);
    slist_push_own(&th->segs, s);
    th->dirty_slices += (uint32_t)__builtin_popcount(s->dirty_mask);
    for (unsigned si = 1; si < NSLICES; si++) {
        page_t *pg = &seg_pages(s)[si];
        if (s->slice_first[si] != si || !pg->bsize)
            continue;
        pg->next = pg->prev = NULL;
        th->used_slices += pg->nslices;
        page_collect(pg);
        theap_insert_page(th, pg);
        if (pg->used == 0)
            page_retire(th, pg, 0);
    }
    return 1;
}

static page_t *page_new(theap_t *th, unsigned c)
{
    unsigned n = cls_slices[c];
    seg_t *s;
    int si = -1;
    for (int round = 0; round < 3 && si < 0; round++) {
        for (s = th->segs; s; s = s->own_next)
            if ((si = find_run(s->free_mask, n)) >= 0)
                break;
        if (si >= 0)
            break;
        if (round == 0 && adopt_orphan(th))
            continue;
        if (round <= 1) {
            if (!seg_new(th))
                return NULL;
        }
    }
    if (si < 0)
        return NULL;
    uint32_t bits = (uint32_t)(((1ull << n) - 1) << si);
    s->free_mask &= ~bits;
    uint32_t was_dirty = s->dirty_mask & bits;
    if (was_dirty) {
        th->dirty_slices -= (uint32_t)__builtin_popcount(was_dirty);
        s->dirty_mask &= ~bits;
    }
    if (!s->hugetlb)
        commit_add(th->heap, (ptrdiff_t)((size_t)(n - (unsigned)__builtin_popcount(was_dirty)) * SLICE_SIZE));
    /* the class before the slice map: another thread's free reads the map first (a
     * stale pointer racing with this reuse then sees a class that matches the page) */
    s->slice_cls[si] = (uint8_t)c;
    atomic_thread_fence(memory_order_release);
    for (unsigned i = (unsigned)si; i < (unsigned)si + n; i++)
        s->slice_first[i] = (uint8_t)si;
    th->used_slices += n;
    page_t *pg = &seg_pages(s)[si];
    pg->free = NULL;
    pg->used = 0;
    __atomic_store_n(&pg->capacity, 0, __ATOMIC_RELAXED);
    pg->bsize = cls_size[c];
    pg->reserved = (uint32_t)(((size_t)n * SLICE_SIZE) / pg->bsize);
    pg->inv = (((uint64_t)1 << 40) + pg->bsize - 1) / pg->bsize;
    pg->start = (uint8_t *)s + (size_t)si * SLICE_SIZE;
    pg->cls = (uint16_t)c;
    pg->nslices = (uint8_t)n;
    page_mark_full(pg, 0);
    ST(pg->thread_free, NULL);
    ST(pg->remote_cnt, 0);
    /* collected remote frees leave bits behind in an emptied page: start clean */
    for (unsigned w = 0; w < 2 * BM_WORDS; w++)
        ST(seg_meta(s)->bm[si][w], 0);
    for (unsigned w = 0; w < 4; w++)
        ST(pg->bm_inline[w], 0);
    pg->bm = pg->reserved <= 128 ? pg->bm_inline : seg_meta(s)->bm[si];
    plist_push(&th->pages[c], pg);
    return pg;
}

/* Owner: find a page of class c with a free block and make it the head. */
page_t *alloc_page(theap_t *th, unsigned c)
{
    page_t *pg = th->pages[c];
    while (pg) {
        page_t *nx = pg->next;
        if (!pg->free)
            page_collect(pg);
        if (!pg->free && pg->capacity < pg->reserved)
            page_extend(pg);
        if (pg->free)
            goto found;
        plist_remove(&th->pages[c], pg);
        page_mark_full(pg, 1);
        plist_push(&th->full[c], pg);
        pg = nx;
    }
    /* Full pages get blocks back from local frees (below the 1/8 that brings a page
     * back by itself) and from other threads. Look at FULL_SCAN of them per page switch,
     * going on from where the last look stopped: a long full list costs a bounded
     * amount per switch, and every full page is looked at again after length/FULL_SCAN
     * switches (a scan from the head looked at the same barren pages every time). */
    page_t *start = th->full_scan[c] ? th->full_scan[c] : th->full[c];
    pg = start;
    for (unsigned k = 0; pg && k < FULL_SCAN; k++) {
        page_t *nx = pg->next ? pg->next : th->full[c];
        if (pg->free || LD(pg->thread_free)) {
            page_collect(pg);
            if (pg->free) {
                full_unlink(th, pg);
                th->full_scan[c] = nx != pg ? nx : NULL;
                page_mark_full(pg, 0);
                plist_push(&th->pages[c], pg);
                return pg;
            }
        }
        pg = nx;
        if (pg == start)
            break;
    }
    th->full_scan[c] = pg;
    pg = page_new(th, c);
    if (pg)
        page_extend(pg);
    return pg;
found:
    if (th->pages[c] != pg) {
        plist_remove(&th->pages[c], pg);
        plist_push(&th->pages[c], pg);
    }
    return pg;
}
