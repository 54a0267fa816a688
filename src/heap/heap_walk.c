/* NSPA heap: everything that runs with a heap's world stopped: HeapValidate (exact, see
 * invariant 4), HeapWalk, HeapCompact, the statistics; and Set/QueryInformation. */
#include <errno.h>
#include "heap_inline.h"

/* World stopped: mark the page's free blocks (local and thread-free lists) in fm.
 * Returns 0 if a list leaves the page, is misaligned, repeats a block or loops. */
static int page_free_map(page_t *pg, uint64_t *fm, uint32_t *nlocal, uint32_t *npend)
{
    memset(fm, 0, BM_WORDS * sizeof(uint64_t));
    /* 'used' may exceed the capacity by the blocks counted in remote_cnt: a push whose
     * count came after the owner had collected its blocks leaves them counted twice
     * (collected and reused, and pending in remote_cnt) until the next collect; the
     * notice a push may post between its CAS and its count makes that window wider */
    if (pg->capacity > pg->reserved || pg->reserved > MAX_BLOCKS ||
        pg->used > pg->capacity + LD(pg->remote_cnt))
        return 0;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t n = 0;
        for (void *f = pass ? LD(pg->thread_free) : pg->free; f; f = *(void **)f) {
            uint8_t *b = f;
            if (b < pg->start || b >= pg->start + (size_t)pg->capacity * pg->bsize)
                return 0;
            uint32_t i = block_index(pg, b);
            if ((size_t)i * pg->bsize != (size_t)(b - pg->start))
                return 0;
            if (fm[i >> 6] & (1ull << (i & 63)))
                return 0;            /* the same block twice: a double free got in */
            fm[i >> 6] |= 1ull << (i & 63);
            /* every block in a free list has equal bits (invariant 1); a pending one
             * was freed by another thread, so it has R set (its A is set: it was live) */
            uint64_t a = LD(PG_BM(pg)[2 * (i >> 6)]) & (1ull << (i & 63));
            uint64_t r = LD(PG_BM(pg)[2 * (i >> 6) + 1]) & (1ull << (i & 63));
            if (!a != !r)
                return 0;
            n++;
        }
        if (pass) *npend = n; else *nlocal = n;
    }
    return 1;
}

static int page_check(page_t *pg)
{
    uint64_t fm[BM_WORDS];
    uint32_t nlocal, npend;
    if (!page_free_map(pg, fm, &nlocal, &npend))
        return 0;
    /* used counts blocks handed out and not yet collected back (pending ones included) */
    uint32_t nlive = 0;
    for (uint32_t w = 0; w < (pg->reserved + 63) / 64; w++) {   /* inline maps are short */
        uint64_t a = LD(PG_BM(pg)[2 * w]), r = LD(PG_BM(pg)[2 * w + 1]);
        uint64_t beyond = w * 64 + 64 <= pg->capacity ? 0
            : ~0ull << (pg->capacity > w * 64 ? pg->capacity - w * 64 : 0);
        if ((a | r) & beyond)
            return 0;                /* bits of blocks never carved */
        nlive += (uint32_t)__builtin_popcountll(a ^ r);
    }
    uint32_t live = pg->capacity - nlocal - npend;
    return live == nlive && pg->used == live + LD(pg->remote_cnt);
}

static int heap_check_all(heap_t *h)
{
    pthread_mutex_lock(&h->big);
    int ok = 1;
    for (seg_t *s = h->segs; s && ok; s = s->all_next) {
        if (s->magic != SEG_MAGIC || s->heap != h)
            ok = 0;
        else if (s->kind == SEG_NORMAL) {
            for (unsigned si = 1; si < NSLICES && ok; si++) {
                page_t *pg = &seg_pages(s)[si];
                int inuse = !(s->free_mask & (1u << si));
                if (!inuse)
                    continue;
                if (s->slice_first[si] == 0 || s->slice_first[si] > si)
                    ok = 0;
                else if (s->slice_first[si] == si)
                    ok = pg->bsize != 0 && page_check(pg);
            }
        }
    }
    pthread_mutex_unlock(&h->big);
    return ok;
}

NSPA_EXPORT int nspa_heap_validate(nspa_heap_t *hh, unsigned int flags, const void *p)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    int ok;
    if (p) {
        int kind;
        uint32_t bsize;
        ok = block_size_of(h, p, &kind, &bsize) != (size_t)-1;
    } else
        ok = heap_check_all(h);
    heap_unlock_impl(t, h);
    return ok ? 0 : -EINVAL;
}


/* the segment with the lowest address above 'after' (big held) */
static seg_t *seg_next_after(heap_t *h, uintptr_t after)
{
    seg_t *best = NULL;
    for (seg_t *s = h->segs; s; s = s->all_next)
        if ((uintptr_t)s > after && (!best || s < best))
            best = s;
    return best;
}

static void fill_block(struct nspa_heap_entry *e, page_t *pg, uint32_t i)
{
    uint8_t *b = pg->start + (size_t)i * pg->bsize;
    memset(e, 0, sizeof *e);
    e->data = b;
    if (block_live(pg, i)) {
        size_t n = trailer_get(b, pg->bsize);
        e->size = (unsigned)n;
        e->overhead = (unsigned char)((pg->bsize - n) > 255 ? 255 : pg->bsize - n);
        e->flags = PROCESS_HEAP_ENTRY_BUSY;
    } else {
        e->size = pg->bsize;
        e->flags = 0;
    }
}

/* first carved block at or after slice 'from' of s; returns 1 and fills e */
static int walk_from_slice(seg_t *s, unsigned from, struct nspa_heap_entry *e)
{
    for (unsigned si = from; si < NSLICES; si++) {
        page_t *pg = &seg_pages(s)[si];
        if (s->slice_first[si] == si && pg->bsize && pg->capacity) {
            fill_block(e, pg, 0);
            return 1;
        }
    }
    return 0;
}

static int walk_region(seg_t *s, struct nspa_heap_entry *e)
{
    memset(e, 0, sizeof *e);
    e->data = s;
    e->flags = PROCESS_HEAP_REGION;
    if (s->kind == SEG_HUGE) {
        e->size = (unsigned)(s->map_size > 0xFFFFFFFFu ? 0xFFFFFFFFu : s->map_size);
        e->u.region.committed = e->size;
        e->u.region.first_block = (uint8_t *)s + s->huge_off;
        e->u.region.last_block = (uint8_t *)s + s->map_size;
    } else {
        unsigned unc = (unsigned)__builtin_popcount(s->free_mask & ~s->dirty_mask);
        e->size = (unsigned)SEG_SIZE;
        e->u.region.committed = (unsigned)(SEG_SIZE - unc * SLICE_SIZE);
        e->u.region.uncommitted = (unsigned)(unc * SLICE_SIZE);
        e->u.region.first_block = (uint8_t *)s + SLICE_SIZE;
        e->u.region.last_block = (uint8_t *)s + SEG_SIZE;
    }
    return 1;
}

static int walk_step(heap_t *h, struct nspa_heap_entry *e)
{
    if (!e->data) {
        seg_t *s = seg_next_after(h, 0);
        return s ? walk_region(s, e) : 0;
    }
    uintptr_t a = (uintptr_t)e->data;
    seg_t *s = NULL;
    for (seg_t *x = h->segs; x; x = x->all_next)
        if (x == (seg_t *)(a & ~(uintptr_t)SEG_MASK))
            s = x;
    if (!s)
        return -1;
    if (e->flags & PROCESS_HEAP_REGION) {
        if (s->kind == SEG_HUGE) {
            memset(e, 0, sizeof *e);
            e->data = (uint8_t *)s + s->huge_off;
            e->size = (unsigned)(s->huge_size > 0xFFFFFFFFu ? 0xFFFFFFFFu : s->huge_size);
            e->flags = PROCESS_HEAP_ENTRY_BUSY;
            return 1;
        }
        if (walk_from_slice(s, 1, e))
            return 1;
    } else if (s->kind == SEG_NORMAL) {
        unsigned si = (unsigned)((a - (uintptr_t)s) >> SLICE_SHIFT);
        if (si == 0)
            return -1;
        unsigned first = s->slice_first[si];
        page_t *pg = &seg_pages(s)[first];
        if (first && pg->bsize && (uint8_t *)a >= pg->start) {
            uint32_t i = block_index(pg, (void *)a);
            if (i + 1 < pg->capacity) {
                fill_block(e, pg, i + 1);
                return 1;
            }
            if (walk_from_slice(s, first + pg->nslices, e))
                return 1;
        } else if (walk_from_slice(s, si + 1, e))
            return 1;
    }
    seg_t *n = seg_next_after(h, (uintptr_t)s);
    return n ? walk_region(n, e) : 0;
}

NSPA_EXPORT int nspa_heap_walk(nspa_heap_t *hh, struct nspa_heap_entry *e)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    if (!e)
        return -EINVAL;
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    pthread_mutex_lock(&h->big);
    int r = walk_step(h, e);
    pthread_mutex_unlock(&h->big);
    heap_unlock_impl(t, h);
    return r == 1 ? 0 : r == 0 ? -ENODATA : -EINVAL;
}

/* World stopped: we may act as every page's owner. Collect every page's remote frees,
 * retire the empty pages (not a thread's current allocation page), unmap orphaned
 * segments that are entirely free, decommit every idle slice. So HeapCompact (and
 * malloc_trim through the shim) returns what other threads freed into the pages of a
 * thread that is blocked, from any thread (docs/heap.md, "Memory that comes back"). */
static size_t heap_compact_locked(heap_t *h)
{
    size_t best = 0;
    pthread_mutex_lock(&h->big);
    for (seg_t *s = h->segs, *nx; s; s = nx) {
        nx = s->all_next;
        if (s->kind != SEG_NORMAL)
            continue;
        theap_t *owner = __atomic_load_n(&s->owner, __ATOMIC_RELAXED);
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] != si || !pg->bsize)
                continue;
            page_collect(pg);
            if (pg->used == 0 && (!owner || owner->pages[pg->cls] != pg)) {
                if (!owner)
                    page_free_slices(s, pg);
                else
                    page_retire(owner, pg);
            } else if (!owner || pg->in_full)
                page_arm(pg, !owner);    /* the count restarted: ask again */
        }
        if (!owner && s->free_mask == ALL_SLICES) {
            slist_remove_own(&h->orphans, s);
            seg_release_locked(h, s);
            continue;
        }
        seg_purge(h, s);
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] == si && pg->bsize && pg->free && pg->bsize > best)
                best = pg->bsize;
        }
        uint32_t m = s->free_mask;
        unsigned run = 0, cur = 0;
        for (unsigned si = 1; si < NSLICES; si++) {
            cur = (m & (1u << si)) ? cur + 1 : 0;
            if (cur > run) run = cur;
        }
        if (run * SLICE_SIZE > best)
            best = run * SLICE_SIZE;
    }
    huge_cache_drop(h);
    pthread_mutex_unlock(&h->big);
    for (theap_t *th = h->theaps; th; th = th->hnext)
        th->dirty_slices = 0;
    return best;
}

NSPA_EXPORT int nspa_heap_compact(nspa_heap_t *hh, unsigned int flags, size_t *largest)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    size_t r = heap_compact_locked(h);
    heap_unlock_impl(t, h);
    if (largest)
        *largest = r;
    return 0;
}

NSPA_EXPORT int nspa_heap_set_information(nspa_heap_t *hh, int cls, const void *info, size_t len)
{
    heap_t *h = H(hh);
    global_init();
    if (cls == NSPA_HEAP_INFO_TERMINATE_ON_CORRUPTION) {
        terminate_on_corruption = 1;
        return 0;
    }
    if (!heap_ok(h))
        return -EBADF;
    if (cls == NSPA_HEAP_INFO_COMPATIBILITY) {
        if (!info || len < sizeof(unsigned int))
            return -ENOSPC;
        unsigned v;
        memcpy(&v, info, sizeof v);
        return v == 0 || (v == 2 && !(h->flags & HEAP_NO_SERIALIZE)) ? 0 : -EINVAL;
    }
    if (cls == NSPA_HEAP_INFO_OPTIMIZE_RESOURCES)
        return nspa_heap_compact(hh, 0, NULL);
    return -EINVAL;
}

NSPA_EXPORT int nspa_heap_query_information(nspa_heap_t *hh, int cls, void *info, size_t len,
                                            size_t *ret_len)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    if (cls != NSPA_HEAP_INFO_COMPATIBILITY)
        return -EINVAL;
    if (ret_len)
        *ret_len = sizeof(unsigned int);
    if (!info || len < sizeof(unsigned int))
        return -ENOSPC;
    unsigned v = (h->flags & HEAP_NO_SERIALIZE) ? 0 : 2;
    memcpy(info, &v, sizeof v);
    return 0;
}

NSPA_EXPORT int nspa_heap_stats(nspa_heap_t *hh, struct nspa_heap_stats *st)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    if (!st)
        return -EINVAL;
    global_init();
    memset(st, 0, sizeof *st);
    for (unsigned c = 0; c < NCLASS; c++)
        st->classes[c].block_size = cls_size[c];
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    pthread_mutex_lock(&h->big);
    for (seg_t *s = h->segs; s; s = s->all_next) {
        if (s->kind == SEG_HUGE) {
            st->large_blocks++;
            st->blocks_in_use++;
            st->bytes_in_use += s->huge_size;
            continue;
        }
        st->segments++;
        st->large_page_segments += s->hugetlb;
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] != si || !pg->bsize)
                continue;
            uint64_t fm[BM_WORDS];
            uint32_t nlocal = 0, npend = 0;
            size_t live = 0;
            if (page_free_map(pg, fm, &nlocal, &npend))
                live = pg->capacity - nlocal - npend;
            st->classes[pg->cls].pages++;
            st->classes[pg->cls].blocks_in_use += live;
            st->blocks_in_use += live;
            st->bytes_in_use += live * pg->bsize;
        }
    }
    pthread_mutex_unlock(&h->big);
    st->bytes_committed = LD(h->committed);
    st->bytes_committed_peak = LD(h->committed_peak);
    st->bytes_reserved = LD(h->reserved);
    st->bad_frees = LD(h->bad_frees);
    heap_unlock_impl(t, h);
    return 0;
}
