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

/* A remote push into a page whose owner asked for a notice (it is in a full list, or its
 * segment is orphaned): mark the page in its segment's notify_mask, then tell the owner
 * (theap->notified, looked at on its next page switch) or, for an orphaned segment, the
 * heap (orphan_notify, looked at on the next free that passes heap_free_impl). The
 * owner clears its flag before it reads the masks, we set it after the mask: one of
 * the two sees the other. Theaps are never unmapped (heap_thread.c pools them), so a
 * notice racing with the owner's exit lands in a theap that at most looks at its
 * segments once for nothing. */
static __attribute__((noinline)) void page_notify(page_t *pg)
{
    if (!atomic_exchange(&pg->want, 0))
        return;                          /* another thread posted it */
    seg_t *s = page_seg(pg);
    uint32_t bit = 1u << (unsigned)(pg - seg_pages(s));
    if (!(atomic_load(&s->notify_mask) & bit))
        atomic_fetch_or(&s->notify_mask, bit);
    /* the flag is cleared by its reader before it reads the masks: seen set here, it
     * is read after our mask update (both in the seq_cst order) */
    theap_t *o = __atomic_load_n(&s->owner, __ATOMIC_ACQUIRE);
    _Atomic uint32_t *f = o ? &o->notified : &s->heap->orphan_notify;
    if (!atomic_load(f))
        atomic_store(f, 1);
}

/* The owner (or, for an orphan, whoever holds heap->big) asks for a notice once enough
 * of pg's blocks have come back through remote pushes: an eighth of the page (when it
 * may return to its class's available list, as a local free would bring it back), or,
 * for an orphan (orphan != 0), all of them. 'want' holds the remote_cnt value that
 * triggers it (0: no notice wanted). A push that came in before the request is noticed
 * here; one racing with it may be missed, and its page is then found by the rotating
 * scan of the full list (alloc_page). */
void page_arm(page_t *pg, int orphan)
{
    uint32_t rc = atomic_load_explicit(&pg->remote_cnt, memory_order_acquire);
    uint32_t live = pg->used - rc;   /* (page_live) */
    uint32_t need = orphan || live <= pg->trigger ? live : live - pg->trigger;
    atomic_store(&pg->want, rc + (need ? need : 1));
    if (atomic_load(&pg->remote_cnt) >= rc + need)
        page_notify(pg);
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
    /* The blocks are on the list but not yet counted: until the add below the owner's
     * 'used' still counts them, so the page (and its segment) cannot go away, and a
     * notice can still be posted in the segment (docs/heap.md, "Memory that comes
     * back"), if this push brings the count to what the owner asked for. */
    uint32_t w = LD(pg->want);
    if (unlikely(w) && LD(pg->remote_cnt) + n >= w)
        page_notify(pg);
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
/* Give a page's slices back to its segment (they stay committed: dirty). */
void page_free_slices(seg_t *s, page_t *pg)
{
    unsigned si = (unsigned)(pg - seg_pages(s)), n = pg->nslices;
    uint32_t bits = (uint32_t)(((n >= 32) ? 0xFFFFFFFFull : ((1ull << n) - 1)) << si);
    for (unsigned i = si; i < si + n; i++)
        s->slice_first[i] = 0;
    pg->bsize = 0;
    pg->free = NULL;
    page_mark_full(pg, 0);
    ST(pg->want, 0);
    s->free_mask |= bits;
    s->dirty_mask |= bits;
}

/* Decommit idle slices of th, the longest idle (dirty_old) first, until at most
 * 'target' remain. */
static void theap_purge_down(theap_t *th, uint32_t target)
{
    for (int pass = 0; pass < 2; pass++)
        for (seg_t *s = th->segs; s && th->dirty_slices > target; s = s->own_next) {
            uint32_t m = pass ? s->dirty_mask : s->dirty_old & s->dirty_mask;
            while (m && th->dirty_slices > target) {
                uint32_t one = m & -m;
                m &= m - 1;
                th->dirty_slices -= seg_purge_mask(th->heap, s, one);
            }
        }
}

/* Owner (or world stopped): pg is empty; give its slices back to the segment. They stay
 * committed ("dirty") and go back to the system at a purge tick (theap_tick) once they
 * have been idle for a whole epoch; once more than th->purge_now (8 MiB at first) and
 * the slices in use lie idle, half of them (the longest idle first) are decommitted at
 * once. That limit adapts (page_new, theap_tick): a thread whose use swings by more
 * than it (a producer whose queue fills and drains every few milliseconds) gave its
 * memory back at every drain and faulted it in again at every fill. */
void page_retire(theap_t *th, page_t *pg)
{
    seg_t *s = (seg_t *)((uintptr_t)pg & ~(uintptr_t)SEG_MASK);
    unsigned n = pg->nslices;
    if (pg->in_full)
        full_unlink(th, pg);
    else
        plist_remove(&th->pages[pg->cls], pg);
    page_free_slices(s, pg);
    th->dirty_slices += n;
    th->used_slices -= n;
    if (th->dirty_slices > th->purge_now && th->dirty_slices > th->used_slices) {
        theap_purge_down(th, th->dirty_slices / 2);
        th->purged_now = 2;              /* recent for this epoch and the next */
    }
}

/* Owner: n slices of a new page were committed afresh (not idle ones reused). If the
 * thread decommitted memory at once within the last epoch or two, that bet lost: it
 * needed the memory again and pays a page fault per 4 KiB for it. Double the limit
 * (once per such purge), up to PURGE_NOW_MAX; theap_tick halves it again once the
 * thread's use stays well below it. */
static void purge_now_lost(theap_t *th)
{
    th->purged_now = 0;
    if (th->purge_now < PURGE_NOW_MAX)
        th->purge_now *= 2;
}

/* Owner, at a page switch: idle memory goes back to the system once it has been idle
 * for a whole epoch (PURGE_EPOCH_NS, so between one and two epochs): a program whose
 * use of memory goes up and down within an epoch keeps it committed instead of paying
 * a decommit, page faults and fresh zero pages each time (xmalloc's shape faulted 8x its
 * peak in; rptest's 25x). What stays idle for good is bounded as before: free slices
 * are decommitted only while more than 1 MiB and a quarter of the slices in use lie
 * idle, and an entirely free segment is unmapped (it was free at the last tick too)
 * unless it is the thread's last spare. The clock is the coarse one (a vDSO read, no
 * system call), read only when something is idle. */
void theap_tick(theap_t *th)
{
    uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC_COARSE);
    if (now < th->purge_tick)
        return;
    th->purge_tick = now + PURGE_EPOCH_NS;
    /* the at-once limit comes back down (halves) at each epoch in which the thread's
     * use stayed below a quarter of it: a thread that stopped swinging gives large
     * frees back at once again */
    if (th->purged_now)
        th->purged_now--;
    if (th->purge_now > PURGE_NOW_SLICES && th->used_peak < th->purge_now / 4)
        th->purge_now /= 2;
    th->used_peak = th->used_slices;
    uint64_t oat = LD(th->heap->orphan_purge_at);
    if (oat && now >= oat)
        orphans_purge_aged(th->heap, now);
    uint64_t hat = LD(th->heap->huge_age_at);
    if (hat && now >= hat)
        huge_cache_age(th->heap, now);
    int purge = th->dirty_slices > PURGE_SLICES && th->dirty_slices > th->used_slices / 4;
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        if (s->free_mask == ALL_SLICES && s->empty_old) {
            /* keep one empty segment per theap as a spare; release the others */
            int other = 0;
            for (seg_t *o = th->segs; o; o = o->own_next)
                if (o != s && o->free_mask != 0) { other = 1; break; }
            if (other) {
                th->dirty_slices -= (uint32_t)__builtin_popcount(s->dirty_mask);
                slist_remove_own(&th->segs, s);
                seg_release(th->heap, s);
                continue;
            }
        }
        if (purge)
            th->dirty_slices -= seg_purge_mask(th->heap, s, s->dirty_old);
        s->dirty_old = s->dirty_mask;
        s->empty_old = s->free_mask == ALL_SLICES;
    }
}

static int find_run(uint32_t mask, unsigned n)
{
    uint32_t want = (uint32_t)((1ull << n) - 1);
    for (unsigned i = 1; i + n <= NSLICES; i++)
        if (((mask >> i) & want) == want)
            return (int)i;
    return -1;
}


/* Put pg on its class's available list, behind the current allocation page. */
static void theap_insert_avail(theap_t *th, page_t *pg)
{
    page_mark_full(pg, 0);
    page_t *head = th->pages[pg->cls];
    if (head) {
        pg->prev = head;
        pg->next = head->next;
        if (head->next) head->next->prev = pg;
        head->next = pg;
    } else
        plist_push(&th->pages[pg->cls], pg);
}

void theap_insert_page(theap_t *th, page_t *pg)
{
    if (!pg->free && pg->capacity == pg->reserved) {
        page_mark_full(pg, 1);
        plist_push(&th->full[pg->cls], pg);
        page_arm(pg, 0);
    } else
        theap_insert_avail(th, pg);
}

/* Take over a segment whose owner thread has exited. */
static int adopt_orphan(theap_t *th, int live_only)
{
    heap_t *h = th->heap;
    pthread_mutex_lock(&h->big);
    /* among the first few, prefer one with committed idle slices (reused without page
     * faults), then one with free slices (a full one makes the caller map a segment
     * anyway); live_only: only one that holds pages in use and few idle slices (an
     * adopter keeps idle slices under its own hysteresis, where an orphan's go back an
     * epoch after its thread exited: rpmalloc-benchmark's rptest at 1 thread peaked
     * 0.9 MiB higher when the extra orphans' idle slices came along) */
    seg_t *s = h->orphans, *best = NULL;
    int rank = -1;
    for (unsigned k = 0; s && k < 8; s = s->own_next, k++) {
        if (live_only && (s->free_mask == ALL_SLICES ||
                          __builtin_popcount(s->dirty_mask) > ADOPT_IDLE_MAX))
            continue;
        int r = s->dirty_mask ? 2 : s->free_mask ? 1 : 0;
        if (r > rank) { rank = r; best = s; }
        if (r == 2) break;
    }
    s = best;
    if (s) {
        slist_remove_own(&h->orphans, s);
        h->adopted_at = nspa_clock_ns(CLOCK_MONOTONIC_COARSE);
    }
    pthread_mutex_unlock(&h->big);
    if (!s)
        return 0;
    __atomic_store_n(&s->owner, th, __ATOMIC_RELEASE);
    ST(s->owner_tid, th->token);
    slist_push_own(&th->segs, s);
    th->dirty_slices += (uint32_t)__builtin_popcount(s->dirty_mask);
    atomic_store(&s->notify_mask, 0);    /* every page is looked at now */
    for (unsigned si = 1; si < NSLICES; si++) {
        page_t *pg = &seg_pages(s)[si];
        if (s->slice_first[si] != si || !pg->bsize)
            continue;
        ST(pg->want, 0);                 /* theap_insert_page asks again if it is full */
        pg->next = pg->prev = NULL;
        th->used_slices += pg->nslices;
        page_collect(pg);
        theap_insert_page(th, pg);
        if (pg->used == 0)
            page_retire(th, pg);
    }
    return 1;
}

static page_t *page_new(theap_t *th, unsigned c)
{
    unsigned n = cls_slices[c];
    seg_t *s;
    int si = -1;
    /* committed (dirty) slices first: no page faults, and they are not left to idle */
    for (s = th->segs; s; s = s->own_next)
        if ((si = find_run(s->free_mask & s->dirty_mask, n)) >= 0)
            break;
    for (int round = 0; round < 3 && si < 0; round++) {
        for (s = th->segs; s; s = s->own_next)
            if ((si = find_run(s->free_mask, n)) >= 0)
                break;
        if (si >= 0)
            break;
        /* Out of room: take over what exited threads left before mapping more, and
         * then up to ADOPT_MAX - 1 more orphans that hold pages in use (and little
         * idle memory), not just one:
         * a thread that takes over another's work (larson's server threads, each
         * handing its live blocks to the next and exiting) frees into every segment
         * the other left, and an orphan left alone comes back only page by page as
         * its pages empty, while the adopter fills fresh slices with the same live
         * data (larson at 1 thread: peak RSS 10.0 -> 8.9 MiB in the runs where the
         * next thread starts after the last one exited; docs/heap.md, "Threads that
         * exit"). Only here, when the thread has no free slice left: adopting orphans
         * while its own segments still have room (the next thread started before the
         * last one exited) kept both sets of pages half full for good (measured). */
        if (round == 0 && adopt_orphan(th, 0)) {
            for (unsigned k = 1; k < ADOPT_MAX && adopt_orphan(th, 1); k++)
                ;
            continue;
        }
        if (round <= 1) {
            if (!seg_new(th))
                return NULL;
        }
    }
    if (si < 0)
        return NULL;
    uint32_t bits = (uint32_t)(((1ull << n) - 1) << si);
    s->free_mask &= ~bits;
    s->dirty_old &= ~bits;
    s->empty_old = 0;
    uint32_t was_dirty = s->dirty_mask & bits;
    if (was_dirty) {
        th->dirty_slices -= (uint32_t)__builtin_popcount(was_dirty);
        s->dirty_mask &= ~bits;
    }
    unsigned fresh = n - (unsigned)__builtin_popcount(was_dirty);
    if (!s->hugetlb)
        commit_add(th->heap, (ptrdiff_t)((size_t)fresh * SLICE_SIZE));
    if (fresh && th->purged_now)
        purge_now_lost(th);
    /* the class before the slice map: another thread's free reads the map first (a
     * stale pointer racing with this reuse then sees a class that matches the page) */
    s->slice_cls[si] = (uint8_t)c;
    atomic_thread_fence(memory_order_release);
    for (unsigned i = (unsigned)si; i < (unsigned)si + n; i++)
        s->slice_first[i] = (uint8_t)si;
    th->used_slices += n;
    if (th->used_slices > th->used_peak)
        th->used_peak = th->used_slices;
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
    ST(pg->want, 0);
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
    if (unlikely(LD(th->notified)))
        theap_collect_notified(th);
    if (th->dirty_slices || th->purge_now > PURGE_NOW_SLICES ||
        LD(th->heap->orphan_purge_at) || LD(th->heap->huge_age_at))
        theap_tick(th);   /* (a raised at-once limit comes down at the ticks too) */
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
        page_arm(pg, 0);
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

/* ---- memory that comes back (docs/heap.md) ------------------------------------------ */

/* The notices posted in s (cleared), as a mask of first slices. */
static uint32_t notices_take(seg_t *s)
{
    return LD(s->notify_mask) ? atomic_exchange(&s->notify_mask, 0) : 0;
}

/* The next page of *m that is still set up (it may have been retired meanwhile). */
static page_t *notice_next(seg_t *s, uint32_t *m)
{
    while (*m) {
        unsigned si = (unsigned)__builtin_ctz(*m);
        *m &= *m - 1;
        page_t *pg = &seg_pages(s)[si];
        if (s->slice_first[si] == si && pg->bsize)
            return pg;
    }
    return NULL;
}

/* Owner, at a page switch: act on the notices other threads' pushes posted (pages of
 * the full lists that got blocks back): an empty page is retired (its memory goes back
 * to the system under the decommit hysteresis), one with an eighth of its blocks free
 * returns to its class's available list, the others ask for a notice again. */
void theap_collect_notified(theap_t *th)
{
    atomic_store(&th->notified, 0);
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        uint32_t m = notices_take(s);
        for (page_t *pg; (pg = notice_next(s, &m)) != NULL; ) {
            /* no collect (walking a long remote list to splice it costs): the page
             * is judged by its count */
            uint32_t live = page_live(pg);
            if (live == 0 && th->pages[pg->cls] != pg)
                page_retire(th, pg);
            else if (pg->in_full && live <= pg->trigger) {
                /* an eighth free again, as a local free would bring it back (with
                 * fewer, the owner would switch pages every few blocks); the blocks
                 * are collected when the page's own list runs dry */
                full_unlink(th, pg);
                theap_insert_avail(th, pg);
            } else if (pg->in_full)
                page_arm(pg, 0);
        }
    }
}

/* A purge tick found idle slices exited threads left in the orphans: decommit those of
 * the orphans that have been orphans for an epoch, unmap the ones that are entirely free,
 * and set the time of the next. Each orphan ages on its own: purging every orphan when the
 * oldest came due threw away the segments of threads that had exited a moment before,
 * and the next threads mapped and faulted in fresh ones (mstress at 2 threads: 35 fresh
 * segments and 2.3x glibc's page faults a run). A trylock: if another thread holds
 * heap->big, the next tick does it. */
void orphans_purge_aged(heap_t *h, uint64_t now)
{
    if (pthread_mutex_trylock(&h->big))
        return;
    uint64_t next = 0;
    for (seg_t *s = h->orphans, *nx; s; s = nx) {
        nx = s->own_next;
        uint64_t due = s->cached_at + PURGE_EPOCH_NS;
        if (due > now) {
            if (s->dirty_mask && (!next || due < next))
                next = due;
            continue;
        }
        if (s->free_mask == ALL_SLICES) {
            slist_remove_own(&h->orphans, s);
            seg_release_locked(h, s);
        } else
            seg_purge(h, s);
    }
    ST(h->orphan_purge_at, next);
    pthread_mutex_unlock(&h->big);
}

/* Threads come and go in this heap: one took over an orphan within the last two epochs.
 * Then what others free into orphans is kept for the next adopter too. */
static int orphans_in_demand(heap_t *h, uint64_t now)
{
    return h->adopted_at && now - h->adopted_at < 2 * PURGE_EPOCH_NS;
}

/* Orphaned segments (their thread has exited) that got blocks back: collect them, free
 * the empty pages, decommit the free slices, unmap a segment that is entirely free.
 * While threads come and go (orphans_in_demand), the freed slices stay committed for
 * the next adopter instead, within the orphans' bound and for an epoch (orphans_settle):
 * decommitted at once, the next thread of mstress faulted them in again. Called by any
 * thread inside the heap (busy set) when orphan_notify is up; heap->big keeps adopters
 * and HeapLock holders out. */
void orphans_reclaim(heap_t *h)
{
    pthread_mutex_lock(&h->big);
    atomic_store(&h->orphan_notify, 0);
    int keep = orphans_in_demand(h, nspa_clock_ns(CLOCK_MONOTONIC_COARSE));
    for (seg_t *s = h->orphans, *nx; s; s = nx) {
        nx = s->own_next;
        uint32_t m = notices_take(s);
        if (!m)
            continue;
        uint32_t was_free = s->free_mask;
        for (page_t *pg; (pg = notice_next(s, &m)) != NULL; ) {
            if (page_live(pg) == 0)
                page_free_slices(s, pg);     /* (page_new resets its lists) */
            else
                page_arm(pg, 1);
        }
        /* what other threads freed into a gone thread's pages goes back at once, unless
         * an adopter is likely (the idle slices its thread left at exit stay for an
         * adopter: orphans_settle) */
        if (!keep)
            seg_purge_mask(h, s, s->free_mask & ~was_free);
        if (s->free_mask == ALL_SLICES && !s->dirty_mask) {
            slist_remove_own(&h->orphans, s);
            seg_release_locked(h, s);
        }
    }
    if (keep)
        orphans_settle(h);
    pthread_mutex_unlock(&h->big);
}

/* heap->big held: the idle slices of exited threads' segments stay committed, up to
 * max(ORPHAN_KEEP_SLICES, half the heap's committed memory) over all orphans (at most
 * ORPHAN_KEEP_MAX), for the next thread that adopts them (a program that runs threads one
 * after another then reuses them without page faults); each orphan's go back to the
 * system at the first purge tick of any thread of the heap an epoch after it became an
 * orphan (orphans_purge_aged). Beyond the bound they are decommitted at once, and an
 * orphan that is entirely free with nothing kept is unmapped. Half the committed memory:
 * the idle memory kept this way is never more than what the heap holds otherwise; a
 * fixed 8 MiB was less than two mstress threads leave, and each generation of threads
 * faulted the rest in afresh. */
void orphans_settle(heap_t *h)
{
    uint32_t kept = 0, bound = ORPHAN_KEEP_SLICES;
    uint32_t half = (uint32_t)(atomic_load_explicit(&h->committed, memory_order_relaxed) / SLICE_SIZE / 2);
    if (half > bound)
        bound = half < ORPHAN_KEEP_MAX ? half : ORPHAN_KEEP_MAX;
    for (seg_t *s = h->orphans, *nx; s; s = nx) {
        nx = s->own_next;
        uint32_t d = (uint32_t)__builtin_popcount(s->dirty_mask);
        if (kept + d > bound) {
            seg_purge(h, s);
            d = 0;
        }
        kept += d;
        if (s->free_mask == ALL_SLICES && !d) {
            slist_remove_own(&h->orphans, s);
            seg_release_locked(h, s);
        }
    }
    if (kept && !LD(h->orphan_purge_at))
        ST(h->orphan_purge_at, nspa_clock_ns(CLOCK_MONOTONIC_COARSE) + PURGE_EPOCH_NS);
}

