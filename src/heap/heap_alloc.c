/* NSPA heap: allocation and free off the fast paths (heap_inline.h has those): a page
 * switch, the generic allocation (any size, alignment, fixed heaps, a thread's first
 * call), the remote free with its per-class batches, large blocks, bad pointers. */
#include <errno.h>
#include "heap_inline.h"

static void *alloc_small_slow(tld_t *t, theap_t *th, unsigned c, size_t n, unsigned flags);

static inline void *alloc_in_class(tld_t *t, theap_t *th, unsigned c, size_t n, unsigned flags)
{
    page_t *pg = th->pages[c];
    void *b;
    if (likely(pg != NULL) && likely((b = pg->free) != NULL)) {
        void *next = *(void **)b;
        pg->free = next;
        /* the next block of this class is popped a few dozen operations from now:
         * fetch its link now so that pop does not wait for memory */
        __builtin_prefetch(next, 1, 3);
        pg->used++;
        abm_take(pg, block_index(pg, b));
        trailer_set(b, pg->bsize, n);
        return b;
    }
    return alloc_small_slow(t, th, c, n, flags);
}

static void *alloc_small_slow(tld_t *t, theap_t *th, unsigned c, size_t n, unsigned flags)
{
    page_t *pg = alloc_page(th, c);
    if (!pg)
        return NULL;
    void *b = pg->free;
    pg->free = *(void **)b;
    pg->used++;
    abm_take(pg, block_index(pg, b));
    trailer_set(b, pg->bsize, n);
    return b;
}

__attribute__((noinline)) void *alloc_fast_miss(tld_t *t, theap_t *th, heap_t *h,
                                                       unsigned c, unsigned flags, size_t n)
{
    void *b = alloc_small_slow(t, th, c, n, flags);
    leave(t, h);
    if (unlikely(!b))
        return alloc_failed(h, flags);
    if (unlikely(flags & HEAP_ZERO_MEMORY))
        memset(b, 0, n);
    return b;
}

__attribute__((noinline)) void *zero_block(void *b, size_t n)
{
    return memset(b, 0, n);
}

/* The fast paths' exits when stw is set: off the fast path, so that it needs no frame */
__attribute__((noinline)) void *alloc_backoff(tld_t *t, heap_t *h, unsigned flags, size_t n)
{
    leave(t, h);
    return heap_alloc_generic(h, flags, n, 16);
}

__attribute__((noinline)) void *alloc_leave_slow(tld_t *t, void *b, unsigned flags, size_t n)
{
    piw_check(t);
    if (unlikely(flags & HEAP_ZERO_MEMORY))
        memset(b, 0, n);
    return b;
}

/* Any size, any alignment, fixed heaps, first call of a thread. Never inlined: the
 * fast path that falls back to it then needs no stack frame. */
__attribute__((noinline)) void *heap_alloc_generic(heap_t *h, unsigned flags, size_t n, size_t align)
{
    tld_t *t = tld_get();
    if (!heap_ok(h)) {
        if (flags & HEAP_X_ERRNO)
            errno = ENOMEM;              /* malloc before an initialisation that failed */
        return NULL;
    }
    if (h->maximum && (n >= FIXED_MAX_BLOCK || n >= h->maximum))
        return alloc_failed(h, flags);
    void *b = NULL;
    size_t need = n, charged = 0;
    if (align > 16)
        need = ((n ? n : 1) + align - 1) & ~(align - 1);
    if (need < SMALL_MAX && need + 1 <= SMALL_MAX && align <= 65536) {
        unsigned c = size_class(need + 1);
        while (c < NCLASS && (cls_size[c] & (align - 1)))
            c++;
        if (c < NCLASS) {
            theap_t *th = t->inited ? theap_get(t, h) : NULL;
            if (!th && t->inited)
                return alloc_failed(h, flags);
            if (h->maximum) {
                if (!fixed_charge(h, cls_size[c]))
                    return alloc_failed(h, flags);
                charged = cls_size[c];
            }
            op_begin(t, h);
            if (!th)
                th = shared_theap(h);
            b = th ? alloc_in_class(t, th, c, n, flags) : NULL;
            op_end(t, h);
            if (!b && charged)
                atomic_fetch_sub_explicit(&h->fixed_used, charged, memory_order_relaxed);
            goto done;
        }
    }
    if (align > SEG_SIZE / 2)
        return alloc_failed(h, flags);
    if (h->maximum) {
        if (!fixed_charge(h, n + HUGE_HDR))
            return alloc_failed(h, flags);
    }
    op_begin(t, h);
    b = huge_alloc(h, n, align);
    op_end(t, h);
    if (!b && h->maximum)
        atomic_fetch_sub_explicit(&h->fixed_used, n + HUGE_HDR, memory_order_relaxed);
done:
    if (!b)
        return alloc_failed(h, flags);
    if (flags & HEAP_ZERO_MEMORY)
        memset(b, 0, n);
    return b;
}

static __attribute__((noinline)) void free_local_slow(theap_t *th, page_t *pg)
{
    if (pg->used == 0 && th->pages[pg->cls] != pg) {
        page_retire(th, pg);
        theap_tick(th);
        return;
    }
    /* a full page goes back to the available list only once an eighth of it is free
     * again (before that, alloc_page still finds it when nothing else has room) */
    if (pg->in_full) {
        full_unlink(th, pg);
        page_mark_full(pg, 0);
        theap_insert_page(th, pg);
    }
}

/* Atomically flip bit b of *w; returns its old value. On x86-64 one lock btc (GCC
 * makes a compare-exchange loop of fetch_xor when the old value is used, which under
 * contention costs a second transfer of the line); TSan gets the plain C11 form. */
static inline unsigned flip_bit_relaxed(_Atomic uint64_t *w, unsigned b)
{
#if defined(__x86_64__) && !NSPA_TSAN
    unsigned char c;
    __asm__ __volatile__("lock btcq %2, %0"
                         : "+m"(*(volatile uint64_t *)w), "=@ccc"(c)
                         : "r"((uint64_t)b) : "memory");
    return c;
#else
    return (unsigned)((atomic_fetch_xor_explicit(w, 1ull << b, memory_order_relaxed) >> b) & 1);
#endif
}

/* Ask for p's line in exclusive state (PREFETCHW, where the CPU has it). */
static inline void prefetch_excl(const void *p)
{
#if defined(__x86_64__) && !NSPA_TSAN
    if (likely(prefetchw_ok))
        __asm__ ("prefetchw %0" : : "m"(*(const char *)p));
#else
    (void)p;
#endif
}

/* Another thread's block: flip R first (the line comes over once, for writing), then
 * read A; if the bits were equal before, the block was not live: flip R back (only an
 * operation racing with this invalid free could see the moment) and return 0. */
static inline __attribute__((always_inline)) int remote_kill(_Atomic uint64_t *w, uint32_t i)
{
    uint64_t bit = 1ull << (i & 63);
    uint64_t r = (uint64_t)flip_bit_relaxed(&w[1], i & 63) << (i & 63);
    uint64_t a = LD(w[0]) & bit;
    if (unlikely(!(a ^ r))) {
        atomic_fetch_xor_explicit(&w[1], bit, memory_order_relaxed);
        return 0;
    }
    return 1;
}

/* 0: not a live block (double free). fth: the calling thread's theap of this heap, if
 * it has one that may batch (NULL: push a remote free at once). w: the block's bitmap
 * word pair, c its class (from the segment: see heap_free_impl). */
/* One slot per size class: the blocks a thread frees into another's pages in a burst
 * mostly come from that thread's current page of each class. */
static inline void rb_add(theap_t *th, page_t *pg, void *p, unsigned c)
{
    rbatch_t *sl = &th->rb[c];           /* c: pg's class (< RB_SLOTS) */
    if (sl->pg != pg) {
        rb_flush(th, sl);
        sl->pg = pg;
    }
    sl->blk[sl->n++] = p;
    th->rb_blocks++;
    if (sl->n == RB_MAX)
        rb_flush(th, sl);
}

static inline __attribute__((always_inline)) int free_core(tld_t *t, theap_t *fth, seg_t *s, page_t *pg, void *p, uint32_t i,
                            _Atomic uint64_t *w, unsigned c)
{
    uint64_t bit = 1ull << (i & 63);
    if (LD(s->owner_tid) == tld_token(t)) {
        uint64_t a = LD(w[0]);
        if (unlikely(!((a ^ LD(w[1])) & bit)))
            return 0;
        ST(w[0], a ^ bit);
        *(void **)p = pg->free;
        pg->free = p;
        if (unlikely(--pg->used == pg->trigger))
            free_local_slow(s->owner, pg);
        return 1;
    }
    if (unlikely(!remote_kill(w, i)))
        return 0;
    if (fth && c < RB_SLOTS)
        rb_add(fth, pg, p, c);
    else
        remote_push(pg, p, p, 1);
    return 1;
}

/* heap_free_remote's rarer endings, out of line so that its common case makes no call
 * (and needs no saved registers). */
static __attribute__((noinline)) int remote_general(tld_t *t, theap_t *th, heap_t *h, seg_t *s,
                                                    page_t *pg, void *p, uint32_t i,
                                                    _Atomic uint64_t *w, unsigned c)
{
    if (unlikely(!free_core(t, th, s, pg, p, i, w, c))) {
        leave(t, h);
        bad_free(h, p);                     /* not live: a double free (invariant 2) */
        return 0;
    }
    if (unlikely(LD(h->orphan_notify)))
        orphans_reclaim(h);
    leave(t, h);
    return 1;
}

static __attribute__((noinline)) int remote_batch_slow(tld_t *t, theap_t *th, heap_t *h,
                                                       page_t *pg, void *p, unsigned c)
{
    rb_add(th, pg, p, c);
    if (unlikely(LD(h->orphan_notify)))
        orphans_reclaim(h);
    leave(t, h);
    return 1;
}

static __attribute__((noinline)) int remote_dead(tld_t *t, heap_t *h, void *p)
{
    leave(t, h);
    bad_free(h, p);                         /* not live: a double free (invariant 2) */
    return 0;
}

/* Another thread's block, from the free fast path (heap_free_fast), which has already
 * found p in a normal segment of h that the calling thread does not own. The common
 * remote free (a thread with its own theap of h freeing a small block of another
 * thread's into the batch it is filling) runs here with no call, without
 * heap_free_impl's second look at the segment map, its handle check and its large
 * stack frame; anything else (no theap yet, a pointer that is no block start, the world
 * being stopped) goes on to heap_free_impl, which decides as before, and the rarer
 * endings (a batch to push, a block of 1 KiB or more, a double free) are out of line.
 * The checks are free_core's. Why: on xmalloc's shape the consumer's free was ~150
 * instructions, most of them that path's generality (docs/heap-perf.md, tenth
 * session). */
__attribute__((noinline)) int heap_free_remote(heap_t *h, seg_t *s, void *p)
{
    tld_t *t = &tls_tld;
    theap_t *th = theap_lookup_fast(t, h);
    if (unlikely(!th) || unlikely(!t->inited))
        return heap_free_impl(h, p);
    uintptr_t a = (uintptr_t)p;
    unsigned f = s->slice_first[(a >> SLICE_SHIFT) & (NSLICES - 1)];
    unsigned c = s->slice_cls[f];
    uint32_t off = (uint32_t)((a & SEG_MASK) - ((uintptr_t)f << SLICE_SHIFT));
    uint32_t i;
    if (unlikely(f == 0) || unlikely(!block_start(off, cls_inv[c], &i)) ||
        unlikely(i >= cls_cap[c]))
        return heap_free_impl(h, p);        /* no block start: rejected there */
    page_t *pg = &seg_pages(s)[f];
    _Atomic uint64_t *w = (cls_size[c] >= SLICE_SIZE / 128 ? pg->bm_inline : seg_meta(s)->bm[f]) + 2 * (i >> 6);
    prefetch_excl(p);                       /* see heap_free_impl */
    if (unlikely(enter_fast(t, h)))
        return free_backoff(t, h, p);
    /* (the segment cannot have become this thread's since the fast path looked: only
     * the thread itself adopts for itself; remote_general still checks, as free_core) */
    if (unlikely(c >= RB_SLOTS) || unlikely(LD(s->owner_tid) == t->self))
        return remote_general(t, th, h, s, pg, p, i, w, c);
    if (unlikely(!remote_kill(w, i)))
        return remote_dead(t, h, p);
    rbatch_t *sl = &th->rb[c];
    /* rb_add without the pushes: the block joins the batch it is filling, which does
     * not fill up with it */
    if (unlikely(sl->pg != pg) || unlikely(sl->n + 1 >= RB_MAX) || unlikely(LD(h->orphan_notify)))
        return remote_batch_slow(t, th, h, pg, p, c);
    sl->blk[sl->n++] = p;
    th->rb_blocks++;
    if (unlikely(leave_fast(t, h)))
        return free_leave_slow(t);
    return 1;
}

static __attribute__((noinline, cold)) int fail_invalid_handle(void)
{
    return 0;   /* the caller tells why: heap_free_error */
}

/* Why a free was rejected (off the hot path): -EBADF not a heap, -EINVAL not a live
 * block of it. */
__attribute__((noinline, cold)) int heap_free_error(heap_t *h)
{
    return heap_ok(h) ? -EINVAL : -EBADF;
}

__attribute__((noinline)) int free_local_slow_leave(tld_t *t, heap_t *h, theap_t *th, page_t *pg)
{
    free_local_slow(th, pg);
    leave(t, h);
    return 1;
}

__attribute__((noinline)) int free_leave_slow(tld_t *t)
{
    piw_check(t);
    return 1;
}

__attribute__((noinline)) int free_backoff(tld_t *t, heap_t *h, void *p)
{
    leave(t, h);
    return heap_free_impl(h, p);
}

/* Returns 1 freed, 0 rejected (bad_free already reported). */
__attribute__((noinline)) int heap_free_impl(heap_t *h, void *p)
{
    if (!p)
        return 1;   /* HeapFree(h, 0, NULL) succeeds, whatever h is (as before) */
    /* the fast path only took p when its segment belongs to h: a bad handle lands here */
    if (unlikely(!heap_ok(h)))
        return fail_invalid_handle();
    /* Find the block from the segment's lines and the class tables only: mostly this
     * is another thread's free, and the page descriptor's first line is written by the
     * owner all the time. A bad pointer may compute a word inside the page's bitmap
     * area that is not its own; the bit check then rejects it. */
    uintptr_t a = (uintptr_t)p;
    if (unlikely(a >> SEGMAP_BITS) || unlikely(!segmap))
        goto bad;
    unsigned char kind = LD(segmap[a >> SEG_SHIFT]);
    if (unlikely(!kind))
        goto bad;
    seg_t *s = (seg_t *)(a & ~(uintptr_t)SEG_MASK);
    if (unlikely(kind == SEG_HUGE)) {
        if (a == (uintptr_t)s + s->huge_off && s->heap == h && s->magic == SEG_MAGIC) {
            tld_t *t = tld_get();
            if (h->maximum)
                atomic_fetch_sub_explicit(&h->fixed_used, s->huge_size + HUGE_HDR, memory_order_relaxed);
            op_begin(t, h);
            huge_free(h, s);
            op_end(t, h);
            return 1;
        }
        goto bad;
    }
    if (unlikely(s->heap != h))
        goto bad;
    unsigned f = s->slice_first[(a >> SLICE_SHIFT) & (NSLICES - 1)];
    if (unlikely(f == 0))
        goto bad;
    unsigned c = s->slice_cls[f];
    uint32_t bsize = cls_size[c];
    uint32_t off = (uint32_t)(a - (uintptr_t)s - ((uintptr_t)f << SLICE_SHIFT));
    uint32_t i;
    if (unlikely(!block_start(off, cls_inv[c], &i)) || unlikely(i >= cls_cap[c]))
        goto bad;
    page_t *pg = &seg_pages(s)[f];
    _Atomic uint64_t *w = (bsize >= SLICE_SIZE / 128 ? pg->bm_inline : seg_meta(s)->bm[f]) + 2 * (i >> 6);
    /* A remote free's push links the block (rb_flush, remote_push): a store into a line
     * that its owner most likely wrote last (a producer fills what its consumer frees).
     * Ask for it in exclusive state now: its transfer then overlaps the bitmap flip and
     * the next frees, instead of up to 32 store misses queueing in front of the push's
     * CAS (docs/heap.md, "Cross-thread free"). */
    prefetch_excl(p);
    tld_t *t = &tls_tld;
    if (unlikely(!t->inited))
        t = tld_get();
    /* batch only with a theap that lives in the fast lookup (not fixed heaps' theaps
     * nor the shared one of exiting threads). A thread that only frees (the consumer
     * of a producer/consumer pair) gets one here: without it every one of its frees
     * was a push of its own, two locked instructions on the owner's page line per
     * block (xmalloc's shape: 4,097,000 pushes for 4,096,000 frees). Before busy is
     * set: creating a theap takes g_lock. */
    theap_t *fth = t->inited ? theap_lookup_fast(t, h) : NULL;
    if (unlikely(!fth) && t->inited && !h->maximum)
        fth = theap_get_slow(t, h);
    op_begin(t, h);
    if (unlikely(!free_core(t, fth, s, pg, p, i, w, c))) {
        op_end(t, h);
        goto bad;
    }
    if (unlikely(LD(h->orphan_notify)))
        orphans_reclaim(h);              /* blocks came back to an exited thread's pages */
    op_end(t, h);
    if (unlikely(h->maximum))
        atomic_fetch_sub_explicit(&h->fixed_used, bsize, memory_order_relaxed);
    return 1;
bad:
    bad_free(h, p);
    return 0;
}
