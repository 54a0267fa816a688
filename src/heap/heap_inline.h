/* NSPA heap: the inline fast paths (HeapAlloc/HeapFree and malloc/free on a thread's
 * own pages), the HeapLock entry protocol, block lookup and the small helpers the files
 * of src/heap share. Everything here is static inline: each caller gets its own copy, so
 * HeapAlloc, nspa_heap_alloc and the malloc entry points run the fast path without a
 * call (docs/heap.md). */
#ifndef NSPA_HEAP_INLINE_H
#define NSPA_HEAP_INLINE_H

#include "heap_internal.h"
#include "nspa/win32/windows.h"
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- handles, thread data ---------------------------------------------------------- */

static inline heap_t *H(nspa_heap_t *x) { return (heap_t *)x; }

static inline int heap_ok(const heap_t *h)
{
    if (likely(h == &proc_heap))
        return LD(g_init);   /* (a handle to it exists only once initialised) */
    uintptr_t a = (uintptr_t)h;
    uintptr_t base = atomic_load_explicit(&g_heap_area, memory_order_acquire);
    if (!base || a < base || (a - base) % HEAP_STRIDE ||
        (a - base) / HEAP_STRIDE >= atomic_load_explicit(&g_heap_carved, memory_order_acquire))
        return 0;
    return h->magic == HEAP_MAGIC;
}

/* 0 once the heap is initialised, -ENOMEM if it cannot be (the segment map could not be
 * reserved): callers report that as exhaustion, never abort. */
static inline int global_init(void)
{
    if (unlikely(!atomic_load_explicit(&g_init, memory_order_acquire)))
        return global_init_slow();
    return 0;
}

static inline tld_t *tld_get(void)
{
    tld_t *t = &tls_tld;
    if (unlikely(!t->inited))
        tld_init(t);
    return t;
}

static inline uintptr_t tld_token(tld_t *t) { return (uintptr_t)t; }

/* ---- size classes ------------------------------------------------------------------ */

/* 16..256 in steps of 16, then 8 classes per doubling up to 128 KiB. n >= 1. */
static inline unsigned size_class(size_t n)
{
    if (n <= 256)
        return (unsigned)((n - 1) >> 4);
    unsigned b = 63 - (unsigned)__builtin_clzl(n - 1);
    return 16 + (b - 8) * 8 + (unsigned)(((n - 1) - ((size_t)1 << b)) >> (b - 3));
}

/* ---- entering and leaving a heap (the HeapLock protocol, heap_lock.c) --------------- */

static inline void enter(tld_t *t, heap_t *h)
{
#if NSPA_TSAN
    atomic_store(&t->busy, h);
    if (unlikely(atomic_load(&h->stw)))
        enter_slow(t, h);
#else
    /* h->stw: bit 0 = a thread holds the heap lock; bit 1 = no membarrier on this
     * system, so every entry takes the slow path and fences */
    ST(t->busy, h);
    atomic_signal_fence(memory_order_seq_cst);
    if (unlikely(LD(h->stw)))
        enter_slow(t, h);
#endif
}

/* Clear busy; non-zero if the heap's world is being stopped (or there is no membarrier
 * here), when the caller must call piw_check(): a locker may sleep on our PI word. No
 * call inside, so the fast paths need no stack frame. */
static inline int leave_fast(tld_t *t, heap_t *h)
{
#if NSPA_TSAN
    atomic_store(&t->busy, NULL);
    return unlikely(atomic_load(&h->stw) != 0);
#else
    /* a locker that finds busy still set after its membarrier sees this load come after
     * the barrier, so it reads stw set (the store before it may still be buffered) */
    STR(t->busy, NULL);
    atomic_signal_fence(memory_order_seq_cst);
    return unlikely(LD(h->stw) != 0);
#endif
}

static inline void leave(tld_t *t, heap_t *h)
{
    if (leave_fast(t, h))
        piw_check(t);
}

/* Fast paths: publish busy and return non-zero if the caller must back off to its
 * generic path (someone holds the heap lock, or no membarrier here); busy is then still
 * set, and the caller leaves (out of line: alloc_backoff, free_backoff). No call inside,
 * so the fast paths need no stack frame. */
static inline int enter_fast(tld_t *t, heap_t *h)
{
#if NSPA_TSAN
    atomic_store(&t->busy, h);
    return unlikely(atomic_load(&h->stw) != 0);
#else
    ST(t->busy, h);
    atomic_signal_fence(memory_order_seq_cst);
    return unlikely(LD(h->stw) != 0);
#endif
}

static inline uint32_t gettid_now(void) { return (uint32_t)syscall(SYS_gettid); }

/* ---- lists ------------------------------------------------------------------------- */

/* in the full list, a page comes back once an eighth of it is free again */
static inline void page_mark_full(page_t *pg, int full)
{
    pg->in_full = (uint8_t)full;
    uint32_t back = (pg->reserved + 7) / 8;
    pg->trigger = full ? (pg->capacity > back ? pg->capacity - back : 0) : 0;
}

static inline void plist_remove(page_t **head, page_t *p)
{
    if (p->prev) p->prev->next = p->next; else *head = p->next;
    if (p->next) p->next->prev = p->prev;
    p->next = p->prev = NULL;
}

static inline void plist_push(page_t **head, page_t *p)
{
    p->prev = NULL;
    p->next = *head;
    if (*head) (*head)->prev = p;
    *head = p;
}

/* Owner: take pg off its class's full list, keeping the scan position valid. */
static inline void full_unlink(struct theap *th, page_t *pg)
{
    if (th->full_scan[pg->cls] == pg)
        th->full_scan[pg->cls] = pg->next;
    plist_remove(&th->full[pg->cls], pg);
    ST(pg->want, 0);                     /* in rotation again: no notice needed */
}

static inline void slist_remove_own(seg_t **head, seg_t *s)
{
    if (s->own_prev) s->own_prev->own_next = s->own_next; else *head = s->own_next;
    if (s->own_next) s->own_next->own_prev = s->own_prev;
    s->own_next = s->own_prev = NULL;
}

static inline void slist_push_own(seg_t **head, seg_t *s)
{
    s->own_prev = NULL;
    s->own_next = *head;
    if (*head) (*head)->own_prev = s;
    *head = s;
}

/* ---- blocks and their bits --------------------------------------------------------- */

static inline uint32_t block_index(const page_t *pg, const void *b)
{
    return (uint32_t)(((uint64_t)((const uint8_t *)b - pg->start) * pg->inv) >> 40);
}

/* Block start test and index in one multiplication. With inv = ceil(2^40 / bsize),
 * e = bsize * inv - 2^40 (0 <= e < bsize) and off = i * bsize + r (0 <= r < bsize):
 * off * inv = i * 2^40 + i * e + r * inv. For off < 2^21 (inside a segment) and bsize
 * <= 2^17 (the largest class), inv >= 2^23 > (i + 1) * bsize > (i + 1) * e, so the low
 * 40 bits are i * e < inv when r == 0, and r * inv + i * e, which is >= inv and < 2^40,
 * when r > 0: the high bits are i either way, and off is a block start exactly when the
 * low 40 bits are below inv. This replaces "i * bsize == off", whose multiplication
 * waited for the index (three more cycles on the free path's dependent chain, and a load
 * of bsize). tests/heap_interior.c checks every offset of every class. */
#define BLOCK_FRAC_MASK (((uint64_t)1 << 40) - 1)
static inline int block_start(uint32_t off, uint64_t inv, uint32_t *ip)
{
    uint64_t x = (uint64_t)off * inv;
    *ip = (uint32_t)(x >> 40);
    return (x & BLOCK_FRAC_MASK) < inv;
}
_Static_assert(SEG_SHIFT <= 21 && SMALL_MAX <= ((size_t)1 << 17),
               "block_start's exactness needs offsets below 2^21 and blocks of at most 2^17");

/* Owner, on handing out block i: flip its allocated bit. A block is live exactly when
 * its two bits differ (invariant 1), and every block in a free list has them equal, so
 * flipping A makes it live whether it was freed here (0,0) or by another thread (1,1).
 * A plain store: only the owner writes A; other threads only ever touch R. */
static inline void abm_take(page_t *pg, uint32_t i)
{
    _Atomic uint64_t *w = &PG_BM(pg)[2 * (i >> 6)];
    ST(*w, LD(*w) ^ (1ull << (i & 63)));
}

/* Owner (or world stopped): blocks of pg that are live, parked in another thread's
 * batch or on their way in a push. 'used' counts every block handed out and not yet
 * collected, remote_cnt the pushed blocks counted since the last collect, so 0 means
 * the page is empty (even with pushed blocks still on its thread_free list). */
static inline uint32_t page_live(const page_t *pg)
{
    return pg->used - atomic_load_explicit(&pg->remote_cnt, memory_order_acquire);
}

/* ---- block lookup ------------------------------------------------------------------ */

/* A block's requested size lives in its last bytes: the last byte is the slack
 * (block size - requested) when below 255, else 255 and the slack as a u32 before it.
 * Every block holds at least one byte more than requested, so there is always room. */
static inline void trailer_set(uint8_t *b, uint32_t bsize, size_t n)
{
    size_t slack = bsize - n;
    if (likely(slack < 255))
        b[bsize - 1] = (uint8_t)slack;
    else {
        uint32_t s32 = (uint32_t)slack;
        b[bsize - 1] = 255;
        memcpy(b + bsize - 5, &s32, 4);
    }
}

static inline size_t trailer_get(const uint8_t *b, uint32_t bsize)
{
    size_t slack = b[bsize - 1];
    if (slack == 255) {
        uint32_t s32;
        memcpy(&s32, b + bsize - 5, 4);
        slack = s32;
    }
    if (slack == 0 || slack > bsize)   /* scribbled over by the user */
        slack = 1;
    return bsize - slack;
}

/* Resolve p to its page and index; 0 if p is not a carved block start of a normal
 * segment. For large blocks returns 2 with *sp set. Does not check the allocated bit. */
static inline int locate(const void *p, seg_t **sp, page_t **pgp, uint32_t *ip)
{
    uintptr_t a = (uintptr_t)p;
    if (unlikely(a >> SEGMAP_BITS) || unlikely(!segmap))
        return 0;
    unsigned char kind = LD(segmap[a >> SEG_SHIFT]);
    if (unlikely(!kind))
        return 0;
    seg_t *s = (seg_t *)(a & ~(uintptr_t)SEG_MASK);
    *sp = s;
    if (unlikely(kind == SEG_HUGE))
        return (a == (uintptr_t)s + s->huge_off) ? 2 : 0;
    unsigned si = (unsigned)((a - (uintptr_t)s) >> SLICE_SHIFT);
    if (unlikely(si == 0))
        return 0;
    page_t *pg = &seg_pages(s)[s->slice_first[si]];
    uint32_t bsize = pg->bsize;
    if (unlikely(!bsize || s->slice_first[si] == 0))
        return 0;
    uint32_t off = (uint32_t)(a - (uintptr_t)pg->start);
    uint32_t i = block_index(pg, p);
    if (unlikely(i * bsize != off || i >= __atomic_load_n(&pg->capacity, __ATOMIC_RELAXED)))
        return 0;
    *pgp = pg;
    *ip = i;
    return 1;
}

static inline int block_live(const page_t *pg, uint32_t i)
{
    _Atomic uint64_t *w = &PG_BM(pg)[2 * (i >> 6)];
    return (int)(((LD(w[0]) ^ LD(w[1])) >> (i & 63)) & 1);
}

/* ---- the fast paths ---------------------------------------------------------------- */

static inline int fixed_charge(heap_t *h, size_t bytes)
{
    size_t u = atomic_fetch_add_explicit(&h->fixed_used, bytes, memory_order_relaxed) + bytes;
    if (u > h->maximum) {
        atomic_fetch_sub_explicit(&h->fixed_used, bytes, memory_order_relaxed);
        return 0;
    }
    return 1;
}

static inline theap_t *theap_lookup_fast(tld_t *t, heap_t *h)
{
    if (likely(h == &proc_heap))
        return t->proc;
    /* compare addresses first: h is read only once it is known to be a heap (a garbage
     * handle goes to the generic path, which rejects it) */
    if (unlikely(!h))
        return NULL;       /* (empty map slots hold NULL) */
    uint64_t serial = 0;
    for (unsigned i = 0; i < TMAP; i++) {
        if (t->map[i].heap == h) {
            if (!serial)
                serial = LD(h->serial);
            if (t->map[i].serial == serial)
                return t->map[i].th;
        }
    }
    return NULL;
}

static inline theap_t *theap_get(tld_t *t, heap_t *h)
{
    theap_t *th = theap_lookup_fast(t, h);
    return likely(th != NULL) ? th : theap_get_slow(t, h);
}

/* Fast path: a thread with a theap for h (fixed heaps never get one in the map), a
 * block below 1 KiB, a page with a free block. Everything else: heap_alloc_generic. */
static inline __attribute__((always_inline)) void *heap_alloc_impl(heap_t *h, unsigned flags, size_t n)
{
    tld_t *t = &tls_tld;
    if (unlikely(n >= 1024))
        return heap_alloc_generic(h, flags, n, 16);
    theap_t *th = theap_lookup_fast(t, h);
    if (unlikely(th == NULL))
        return heap_alloc_generic(h, flags, n, 16);
    unsigned c = cls_small[(n + 16) >> 4];
    if (unlikely(enter_fast(t, h)))
        return alloc_backoff(t, h, flags, n);
    page_t *pg = th->pages[c];
    void *b;
    if (unlikely(pg == NULL) || unlikely((b = pg->free) == NULL))
        return alloc_fast_miss(t, th, h, c, flags, n);
    void *next = *(void **)b;
    pg->free = next;
    /* the next block of this class is popped a few dozen operations from now: fetch
     * its link now so that pop does not wait for memory */
    __builtin_prefetch(next, 1, 3);
    pg->used++;
    abm_take(pg, block_index(pg, b));
    /* n < 1024 here, so the class is less than 255 bytes wider than n: the one-byte
     * form of trailer_set */
    ((uint8_t *)b)[pg->bsize - 1] = (uint8_t)(pg->bsize - n);
    if (unlikely(leave_fast(t, h)))
        return alloc_leave_slow(t, b, flags, n);
    if (unlikely(flags & HEAP_ZERO_MEMORY))
        return zero_block(b, n);   /* tail call: no frame here */
    return b;
}

/* A thread past its TLS destructor (glibc still frees per-thread data then) works on
 * the heap's shared theap under stw_mtx, which also excludes HeapLock holders. */
static inline void op_begin(tld_t *t, heap_t *h)
{
    if (likely(t->inited)) enter(t, h); else stw_lock(h);
}

static inline void op_end(tld_t *t, heap_t *h)
{
    if (likely(t->inited)) leave(t, h); else pthread_mutex_unlock(&h->stw_mtx);
}

/* Fast path: a block of a growable heap's arena that the calling thread owns. Anything
 * else (remote, large, fixed heap, bad pointer) goes to heap_free_impl. */
static inline __attribute__((always_inline)) int heap_free_fast(heap_t *h, void *p)
{
    uintptr_t a = (uintptr_t)p;
    uintptr_t sn = a >> SEG_SHIFT;
    /* NULL (segment 0 is never ours) and addresses beyond the map take the slow path */
    if (unlikely(sn - 1 >= ((uintptr_t)1 << (SEGMAP_BITS - SEG_SHIFT)) - 1))
        return heap_free_impl(h, p);
    _Atomic unsigned char *sm = segmap;
    if (unlikely(!sm) || unlikely(LD(sm[sn]) != SEG_NORMAL))
        return heap_free_impl(h, p);
    seg_t *s = (seg_t *)(a & ~(uintptr_t)SEG_MASK);
    tld_t *t = &tls_tld;
    if (unlikely(s->heap != h))
        return heap_free_impl(h, p);
    if (unlikely(LD(s->owner_tid) != t->self))
        return heap_free_remote(h, s, p);   /* another thread's block */
    if (unlikely(enter_fast(t, h)))
        return free_backoff(t, h, p);
    unsigned f = s->slice_first[(a >> SLICE_SHIFT) & (NSLICES - 1)];
    page_t *pg = &seg_pages(s)[f];
    /* a page starts at its first slice (page_new), so the offset needs only f, not the
     * descriptor's start: the multiplication waits for one load of the descriptor (inv)
     * instead of two in a row */
    uint32_t off = (uint32_t)((a & SEG_MASK) - ((uintptr_t)f << SLICE_SHIFT));
    uint32_t i;
    /* f == 0 (a free slice, or slice 0) selects descriptor 0, which describes slice 0
     * (the metadata) and is never set up: its capacity stays 0, so the capacity check
     * rejects it */
    if (unlikely(!block_start(off, pg->inv, &i)) || unlikely(i >= pg->capacity))
        goto slow;
    _Atomic uint64_t *w = &pg->bm[2 * (i >> 6)];
    uint64_t bit = 1ull << (i & 63);
    uint64_t al = LD(w[0]);
    if (unlikely(!((al ^ LD(w[1])) & bit)))   /* not live: bad or double free */
        goto slow;
    ST(w[0], al ^ bit);
    *(void **)p = pg->free;
    pg->free = p;
    if (unlikely(--pg->used == pg->trigger))
        return free_local_slow_leave(t, h, s->owner, pg);   /* tail call: no frame here */
    if (unlikely(leave_fast(t, h)))
        return free_leave_slow(t);
    return 1;
slow:
    return free_backoff(t, h, p);
}

#endif
