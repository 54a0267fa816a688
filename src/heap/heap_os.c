/* NSPA heap: OS memory. 2 MiB-aligned mappings (a huge page from the pool when there is
 * one), segments (map, purge, release), large blocks, the commit counters. */
#include "heap_inline.h"
#include <sys/mman.h>

static void *os_map_aligned(size_t size, int exec, int *huge)
{
    int prot = PROT_READ | PROT_WRITE | (exec ? PROT_EXEC : 0);
    *huge = 0;
    if (size == SEG_SIZE && __atomic_load_n(&hugetlb_ok, __ATOMIC_RELAXED)) {
        void *p = mmap(NULL, SEG_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p != MAP_FAILED) {
            if (((uintptr_t)p & SEG_MASK) == 0) { *huge = 1; return p; }
            munmap(p, SEG_SIZE);
        }
        __atomic_store_n(&hugetlb_ok, 0, __ATOMIC_RELAXED);  /* silent fallback */
    }
    size_t len = size + SEG_SIZE;
    uint8_t *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)p + SEG_MASK) & ~(uintptr_t)SEG_MASK;
    if (a > (uintptr_t)p)
        munmap(p, a - (uintptr_t)p);
    size_t tail = (uintptr_t)p + len - (a + size);
    if (tail)
        munmap((void *)(a + size), tail);
    if (thp_opt && size == SEG_SIZE)
        madvise((void *)a, size, MADV_HUGEPAGE);
    return (void *)a;
}
void commit_add(heap_t *h, ptrdiff_t d)
{
    size_t v = atomic_fetch_add_explicit(&h->committed, (size_t)d, memory_order_relaxed) + (size_t)d;
    if (d > 0) {
        size_t pk = LD(h->committed_peak);
        while (v > pk && !atomic_compare_exchange_weak_explicit(&h->committed_peak, &pk, v,
                    memory_order_relaxed, memory_order_relaxed))
            ;
    }
}
/* ---- segments ----------------------------------------------------------------------- */

static void seg_link_all(heap_t *h, seg_t *s)
{
    s->all_prev = NULL;
    s->all_next = h->segs;
    if (h->segs) h->segs->all_prev = s;
    h->segs = s;
}

static void seg_unlink_all(heap_t *h, seg_t *s)
{
    if (s->all_prev) s->all_prev->all_next = s->all_next; else h->segs = s->all_next;
    if (s->all_next) s->all_next->all_prev = s->all_prev;
}
/* Decommit the free slices of s in m (a subset of its dirty ones); returns how many. */
uint32_t seg_purge_mask(heap_t *h, seg_t *s, uint32_t m)
{
    m &= s->dirty_mask;
    uint32_t n = (uint32_t)__builtin_popcount(m);
    s->dirty_mask &= ~m;
    s->dirty_old &= ~m;
    if (s->hugetlb)
        return n;
    while (m) {
        unsigned a = (unsigned)__builtin_ctz(m), e = a;
        while (e < NSLICES && (m & (1u << e))) e++;
        madvise((uint8_t *)s + (size_t)a * SLICE_SIZE, (size_t)(e - a) * SLICE_SIZE, MADV_DONTNEED);
        commit_add(h, -(ptrdiff_t)((size_t)(e - a) * SLICE_SIZE));
        m &= ~(uint32_t)(((e >= 32) ? 0xFFFFFFFFu : ((1u << e) - 1)) & ~((1u << a) - 1));
    }
    return n;
}

void seg_purge(heap_t *h, seg_t *s)
{
    seg_purge_mask(h, s, s->dirty_mask);
}

static void seg_unmap(heap_t *h, seg_t *s)
{
    ST(segmap[(uintptr_t)s >> SEG_SHIFT], 0);
    size_t committed = s->hugetlb ? SEG_SIZE
        : SEG_SIZE - (size_t)__builtin_popcount(s->free_mask & ~s->dirty_mask) * SLICE_SIZE;
    commit_add(h, -(ptrdiff_t)committed);
    atomic_fetch_sub_explicit(&h->reserved, SEG_SIZE, memory_order_relaxed);
    munmap(s, SEG_SIZE);
}

/* An entirely free segment goes back to the system. */
void seg_release(heap_t *h, seg_t *s)
{
    pthread_mutex_lock(&h->big);
    seg_unlink_all(h, s);
    pthread_mutex_unlock(&h->big);
    seg_unmap(h, s);
}

void seg_release_locked(heap_t *h, seg_t *s)
{
    seg_unlink_all(h, s);
    seg_unmap(h, s);
}


seg_t *seg_new(theap_t *th)
{
    heap_t *h = th->heap;
    int huge;
    seg_t *s = os_map_aligned(SEG_SIZE, (h->flags & HEAP_CREATE_ENABLE_EXECUTE) != 0, &huge);
    if (!s)
        return NULL;
    static _Atomic unsigned colours;
    s->magic = SEG_MAGIC;
    s->kind = SEG_NORMAL;
    s->hugetlb = (uint16_t)huge;
    s->meta_off = SEG_META_BASE + (atomic_fetch_add_explicit(&colours, 1, memory_order_relaxed)
                                   % SEG_COLOURS) * SEG_COLOUR_STEP;
    s->heap = h;
    s->owner = th;
    ST(s->owner_tid, th->token);
    s->map_size = SEG_SIZE;
    s->free_mask = ALL_SLICES;
    s->dirty_mask = 0;
    s->dirty_old = 0;
    s->empty_old = 0;
    atomic_fetch_add_explicit(&h->reserved, SEG_SIZE, memory_order_relaxed);
    commit_add(h, huge ? (ptrdiff_t)SEG_SIZE : (ptrdiff_t)SLICE_SIZE);
    pthread_mutex_lock(&h->big);
    seg_link_all(h, s);
    pthread_mutex_unlock(&h->big);
    /* fixed heaps' arenas are marked 3 so that the free fast path (which does no
     * accounting) leaves them to the generic path */
    atomic_store_explicit(&segmap[(uintptr_t)s >> SEG_SHIFT], h->maximum ? 3 : SEG_NORMAL,
                          memory_order_release);
    slist_push_own(&th->segs, s);
    return s;
}
/* ---- large blocks (> 128 KiB - 1): their own 2 MiB-aligned mapping -------------- */

/* Freed large blocks are kept mapped (and resident) in a small per-heap cache, so that a
 * program that allocates and frees big buffers in turn does not pay a mapping, page
 * faults on fresh zero pages and an unmapping each time (mstress spent 40% of its time
 * clearing pages). A cached mapping is off the segment map and off the heap's list:
 * every call sees its block as freed (a second free is rejected, HeapWalk skips it).
 * Bounded: HUGE_CACHE_N mappings of at most HUGE_CACHE_ONE bytes, HUGE_CACHE_ALL in all,
 * each for two epochs at most (the purge tick of any thread of the heap unmaps older
 * ones: huge_cache_age); HeapCompact and HeapDestroy unmap them. heap->big guards the
 * cache. */
#define HUGE_CACHE_N    16
#define HUGE_CACHE_ONE  ((size_t)16 << 20)
#define HUGE_CACHE_ALL  ((size_t)64 << 20)
#define HUGE_CACHE_AGE  (2 * PURGE_EPOCH_NS)

static seg_t *huge_cache_take(heap_t *h, size_t map)
{
    seg_t *best = NULL;
    pthread_mutex_lock(&h->big);
    for (seg_t *c = h->huge_cache; c; c = c->all_next)   /* the smallest that fits */
        if (c->map_size >= map && (!best || c->map_size < best->map_size))
            best = c;
    if (best) {
        if (best->all_prev) best->all_prev->all_next = best->all_next;
        else h->huge_cache = best->all_next;
        if (best->all_next) best->all_next->all_prev = best->all_prev;
        h->huge_cached -= best->map_size;
        h->huge_ncached--;
    }
    pthread_mutex_unlock(&h->big);
    if (best && best->map_size > 2 * map) {
        /* much larger than needed: give the tail back (one munmap, where a fresh
         * mapping costs a map, two trims and a page fault per page touched) */
        size_t tail = best->map_size - map;
        munmap((uint8_t *)best + map, tail);
        atomic_fetch_sub_explicit(&h->reserved, tail, memory_order_relaxed);
        commit_add(h, -(ptrdiff_t)tail);
        best->map_size = map;
    }
    return best;
}

/* heap->big held: unmap every cached large block (HeapCompact, HeapDestroy) */
void huge_cache_drop(heap_t *h)
{
    for (seg_t *c = h->huge_cache, *nx; c; c = nx) {
        nx = c->all_next;
        atomic_fetch_sub_explicit(&h->reserved, c->map_size, memory_order_relaxed);
        commit_add(h, -(ptrdiff_t)c->map_size);
        munmap(c, c->map_size);
    }
    h->huge_cache = NULL;
    h->huge_cached = 0;
    h->huge_ncached = 0;
    ST(h->huge_age_at, 0);
}

void *huge_alloc(heap_t *h, size_t n, size_t align)
{
    size_t off = align > HUGE_HDR ? align : HUGE_HDR;
    if (n > ((size_t)1 << 46))
        return NULL;
    size_t map = (off + (n ? n : 1) + 4095) & ~(size_t)4095;
    seg_t *s = map <= HUGE_CACHE_ONE ? huge_cache_take(h, map) : NULL;
    if (s) {
        map = s->map_size;                /* (already counted as reserved and committed) */
    } else {
        int huge;
        s = os_map_aligned(map, (h->flags & HEAP_CREATE_ENABLE_EXECUTE) != 0, &huge);
        if (!s)
            return NULL;
        atomic_fetch_add_explicit(&h->reserved, map, memory_order_relaxed);
        commit_add(h, (ptrdiff_t)map);
    }
    s->magic = SEG_MAGIC;
    s->kind = SEG_HUGE;
    s->heap = h;
    s->map_size = map;
    s->huge_size = n;
    s->huge_off = off;
    pthread_mutex_lock(&h->big);
    seg_link_all(h, s);
    pthread_mutex_unlock(&h->big);
    atomic_store_explicit(&segmap[(uintptr_t)s >> SEG_SHIFT], SEG_HUGE, memory_order_release);
    return (uint8_t *)s + off;
}

static void huge_unmap(heap_t *h, seg_t *s)
{
    atomic_fetch_sub_explicit(&h->reserved, s->map_size, memory_order_relaxed);
    commit_add(h, -(ptrdiff_t)s->map_size);
    munmap(s, s->map_size);
}

/* The cache keeps the most recently freed blocks: a new one goes in front and pushes
 * the oldest out when the bounds are reached (a full cache of small blocks used to turn
 * every large block away: mstress mapped 54 blocks of 2.5-5 MiB afresh at 2 threads). */
void huge_free(heap_t *h, seg_t *s)
{
    seg_t *evict = NULL;
    pthread_mutex_lock(&h->big);
    seg_unlink_all(h, s);
    ST(segmap[(uintptr_t)s >> SEG_SHIFT], 0);
    if (s->map_size > HUGE_CACHE_ONE) {
        pthread_mutex_unlock(&h->big);
        huge_unmap(h, s);
        return;
    }
    s->cached_at = nspa_clock_ns(CLOCK_MONOTONIC_COARSE);
    s->all_prev = NULL;
    s->all_next = h->huge_cache;
    if (h->huge_cache) h->huge_cache->all_prev = s;
    h->huge_cache = s;
    h->huge_cached += s->map_size;
    h->huge_ncached++;
    if (!LD(h->huge_age_at))
        ST(h->huge_age_at, s->cached_at + HUGE_CACHE_AGE);
    seg_t *last = s;
    while (last->all_next)
        last = last->all_next;
    while (h->huge_ncached > HUGE_CACHE_N || h->huge_cached > HUGE_CACHE_ALL) {
        seg_t *o = last;
        last = o->all_prev;
        last->all_next = NULL;
        h->huge_cached -= o->map_size;
        h->huge_ncached--;
        o->all_next = evict;
        evict = o;
    }
    pthread_mutex_unlock(&h->big);
    for (seg_t *o; (o = evict) != NULL; ) {
        evict = o->all_next;
        huge_unmap(h, o);
    }
}

/* A purge tick found a cached large block older than HUGE_CACHE_AGE: unmap those (the
 * oldest are at the end of the list). A trylock: if another thread holds heap->big, the
 * next tick does it. */
void huge_cache_age(heap_t *h, uint64_t now)
{
    if (pthread_mutex_trylock(&h->big))
        return;
    seg_t *last = h->huge_cache, *evict = NULL;
    while (last && last->all_next)
        last = last->all_next;
    while (last && last->cached_at + HUGE_CACHE_AGE <= now) {
        seg_t *o = last;
        last = o->all_prev;
        if (last) last->all_next = NULL; else h->huge_cache = NULL;
        h->huge_cached -= o->map_size;
        h->huge_ncached--;
        o->all_next = evict;
        evict = o;
    }
    ST(h->huge_age_at, last ? last->cached_at + HUGE_CACHE_AGE : 0);
    pthread_mutex_unlock(&h->big);
    for (seg_t *o; (o = evict) != NULL; ) {
        evict = o->all_next;
        huge_unmap(h, o);
    }
}
