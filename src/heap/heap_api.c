/* NSPA heap: the nspa_heap_* API (include/nspa/heap.h): create, destroy, alloc, free,
 * size, realloc, lock. The Win32 names are in win32_heap.c; validate, walk, compact and
 * the statistics in heap_walk.c. */
#include <errno.h>
#include "heap_inline.h"
#include <sys/mman.h>

/* NULL only if the heap cannot be initialised at all (the segment map could not be
 * reserved): exhaustion, reported, never an abort. */
NSPA_EXPORT nspa_heap_t *nspa_heap_process(void)
{
    if (global_init() != 0)
        return NULL;
    return (nspa_heap_t *)&proc_heap;
}

NSPA_EXPORT int nspa_heap_create(unsigned int flags, size_t initial, size_t maximum, nspa_heap_t **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (global_init() != 0)
        return -ENOMEM;
    tld_get();
    pthread_mutex_lock(&g_lock);
    heap_t *h = g_heap_pool;
    if (h)
        g_heap_pool = h->list_next;
    pthread_mutex_unlock(&g_lock);
    if (!h) {
        /* carve a new structure (under g_lock: the area is reserved once, NORESERVE) */
        pthread_mutex_lock(&g_lock);
        uintptr_t base = atomic_load_explicit(&g_heap_area, memory_order_relaxed);
        if (!base) {
            void *m = mmap(NULL, HEAP_STRIDE * HEAP_AREA_MAX, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (m != MAP_FAILED) {
                base = (uintptr_t)m;
                atomic_store_explicit(&g_heap_area, base, memory_order_release);
            }
        }
        unsigned n = atomic_load_explicit(&g_heap_carved, memory_order_relaxed);
        if (base && n < HEAP_AREA_MAX) {
            h = (heap_t *)(base + (uintptr_t)n * HEAP_STRIDE);
            /* published before it is initialised: heap_ok still wants the magic, which
             * is stored last (below) */
            atomic_store_explicit(&g_heap_carved, n + 1, memory_order_release);
        }
        pthread_mutex_unlock(&g_lock);
        if (!h)
            return -ENOMEM;
    }
    if (maximum && maximum < initial)
        maximum = initial;
    if (maximum)
        maximum = (maximum + 4095) & ~(size_t)4095;
    heap_struct_init(h, flags & (HEAP_NO_SERIALIZE | HEAP_GENERATE_EXCEPTIONS | HEAP_CREATE_ENABLE_EXECUTE),
                     maximum);
    static _Atomic uint64_t serials = 2;
    atomic_store(&h->serial, atomic_fetch_add(&serials, 1));
    pthread_mutex_lock(&g_lock);
    h->list_prev = NULL;
    h->list_next = g_heaps;
    if (g_heaps) g_heaps->list_prev = h;
    g_heaps = h;
    h->magic = HEAP_MAGIC;
    pthread_mutex_unlock(&g_lock);
    (void)initial;   /* pages are committed on first touch; see docs/heap.md */
    *out = (nspa_heap_t *)h;
    return 0;
}

NSPA_EXPORT int nspa_heap_destroy(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    global_init();
    tld_t *t = tld_get();
    if (!heap_ok(h))
        return -EBADF;
    if (h == &proc_heap)
        return -EINVAL;
    heap_lock_impl(t, h);
    pthread_mutex_lock(&g_lock);
    h->magic = 0;
    atomic_fetch_add(&h->serial, 1);
    /* theaps: ours are freed now, other threads' are marked dead and freed at their exit */
    for (theap_t *th = h->theaps, *nx; th; th = nx) {
        nx = th->hnext;
        th->dead = 1;
        if (th->tld == t) {
            theap_t **pp = &t->theaps;
            while (*pp && *pp != th) pp = &(*pp)->tnext;
            if (*pp) *pp = th->tnext;
            theap_free_mem(th);
        }
    }
    h->theaps = NULL;
    if (h->shared) {
        theap_free_mem(h->shared);
        h->shared = NULL;
    }
    if (h->list_prev) h->list_prev->list_next = h->list_next; else g_heaps = h->list_next;
    if (h->list_next) h->list_next->list_prev = h->list_prev;
    pthread_mutex_unlock(&g_lock);
    for (seg_t *s = h->segs, *nx; s; s = nx) {
        nx = s->all_next;
        ST(segmap[(uintptr_t)s >> SEG_SHIFT], 0);
        munmap(s, s->map_size);
    }
    h->segs = h->orphans = NULL;
    pthread_mutex_lock(&h->big);
    huge_cache_drop(h);
    pthread_mutex_unlock(&h->big);
    heap_unlock_impl(t, h);
    pthread_mutex_lock(&g_lock);
    h->list_next = g_heap_pool;
    g_heap_pool = h;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

NSPA_EXPORT void *nspa_heap_alloc(nspa_heap_t *h, unsigned int flags, size_t n)
{
    return heap_alloc_impl(H(h), flags, n);
}

NSPA_EXPORT int nspa_heap_alloc_aligned(nspa_heap_t *h, unsigned int flags, size_t align, size_t n, void **out)
{
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (align == 0 || (align & (align - 1)) || align > SEG_SIZE / 2)
        return -EINVAL;
    void *p = align <= 16 ? heap_alloc_impl(H(h), flags, n) : heap_alloc_generic(H(h), flags, n, align);
    if (!p)
        return heap_ok(H(h)) ? -ENOMEM : -EBADF;
    *out = p;
    return 0;
}

NSPA_EXPORT int nspa_heap_free(nspa_heap_t *h, unsigned int flags, void *p)
{
    /* the fast path checks the handle off its hot path; NULL succeeds */
    return heap_free_fast(H(h), p) ? 0 : heap_free_error(H(h));
}

size_t block_size_of(heap_t *h, const void *p, int *kind, uint32_t *bsize)
{
    seg_t *s;
    page_t *pg;
    uint32_t i;
    int k = locate(p, &s, &pg, &i);
    if (!k || s->heap != h)
        return (size_t)-1;
    *kind = k;
    if (k == 2) {
        *bsize = 0;
        return s->huge_size;
    }
    if (!block_live(pg, i))
        return (size_t)-1;
    *bsize = pg->bsize;
    return trailer_get(p, pg->bsize);
}

NSPA_EXPORT size_t nspa_heap_size(nspa_heap_t *hh, unsigned int flags, const void *p)
{
    heap_t *h = H(hh);
    int kind;
    uint32_t bsize;
    if (!heap_ok(h) || !p)
        return (size_t)-1;
    return block_size_of(h, p, &kind, &bsize);
}

NSPA_EXPORT size_t nspa_heap_usable_size(const void *p)
{
    seg_t *s;
    page_t *pg;
    uint32_t i;
    int k = p ? locate(p, &s, &pg, &i) : 0;
    if (k == 2)
        return s->map_size - s->huge_off;
    if (k == 1 && block_live(pg, i))
        return pg->bsize;
    return 0;
}

/* The block's new address, or NULL with *err: -EBADF, -EINVAL (NULL or not a live
 * block), -ENOMEM (the old block is intact). HeapReAlloc and the C realloc call it
 * directly; nspa_heap_realloc in its 0 / -errno shape. */
void *heap_realloc_err(heap_t *h, unsigned int flags, void *p, size_t n, int *err)
{
    *err = -ENOMEM;
    if (!heap_ok(h)) {
        *err = -EBADF;
        return NULL;
    }
    if (!p) {
        *err = -EINVAL;
        return NULL;
    }
    int kind;
    uint32_t bsize;
    size_t old = block_size_of(h, p, &kind, &bsize);
    if (old == (size_t)-1) {
        bad_free(h, p);
        *err = -EINVAL;
        return NULL;
    }
    unsigned eff = flags | h->flags;
    if (n >= ((size_t)1 << 46) || (h->maximum && n >= FIXED_MAX_BLOCK))
        return alloc_failed(h, flags);
    /* in place: the block (keeping its one trailer byte) still holds n */
    int fits = 0;
    if (kind == 2) {
        seg_t *s = (seg_t *)((uintptr_t)p & ~(uintptr_t)SEG_MASK);
        fits = n + s->huge_off <= s->map_size && n >= SMALL_MAX / 2;
        if (fits) {
            if (h->maximum) {
                if (n > old && !fixed_charge(h, n - old))
                    fits = 0;
                else if (n < old)
                    atomic_fetch_sub_explicit(&h->fixed_used, old - n, memory_order_relaxed);
            }
            if (fits) {
                if ((eff & HEAP_ZERO_MEMORY) && n > old)
                    memset((uint8_t *)p + old, 0, n - old);
                s->huge_size = n;
                return p;
            }
        }
    } else if (n + 1 <= bsize) {
        void *q = NULL;
        if (n + 1 <= bsize / 2 && !(flags & HEAP_REALLOC_IN_PLACE_ONLY))   /* shrink a lot: move */
            q = heap_alloc_impl(h, flags & ~(unsigned)(HEAP_ZERO_MEMORY | HEAP_GENERATE_EXCEPTIONS), n);
        if (!q) {
            if ((eff & HEAP_ZERO_MEMORY) && n > old)
                memset((uint8_t *)p + old, 0, n - old);
            trailer_set(p, bsize, n);
            return p;
        }
        memcpy(q, p, old < n ? old : n);
        if ((eff & HEAP_ZERO_MEMORY) && n > old)
            memset((uint8_t *)q + old, 0, n - old);
        heap_free_impl(h, p);
        return q;
    }
    if (flags & HEAP_REALLOC_IN_PLACE_ONLY)
        return alloc_failed(h, flags);
    void *q = heap_alloc_impl(h, flags & ~(unsigned)(HEAP_ZERO_MEMORY | HEAP_GENERATE_EXCEPTIONS), n);
    if (!q)
        return alloc_failed(h, flags);
    memcpy(q, p, old < n ? old : n);
    if ((eff & HEAP_ZERO_MEMORY) && n > old)
        memset((uint8_t *)q + old, 0, n - old);
    heap_free_impl(h, p);
    return q;
}

NSPA_EXPORT int nspa_heap_realloc(nspa_heap_t *h, unsigned int flags, void **mem, size_t n)
{
    if (!mem)
        return -EINVAL;
    int err;
    void *q = heap_realloc_err(H(h), flags, *mem, n, &err);
    if (!q)
        return err;
    *mem = q;
    return 0;
}


/* ---------------------------------------------------------------------------------- */
/* validate, walk, compact, stats (world stopped)                                      */
/* ---------------------------------------------------------------------------------- */
NSPA_EXPORT int nspa_heap_lock(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    heap_lock_impl(tld_get(), h);
    return 0;
}

NSPA_EXPORT int nspa_heap_unlock(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    if (!heap_ok(h))
        return -EBADF;
    return heap_unlock_impl(tld_get(), h) ? 0 : -EPERM;
}
