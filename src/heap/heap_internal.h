/* NSPA heap internals: the types every file of src/heap shares, the globals and the
 * functions shared between files (docs/heap.md has the design and its invariants).
 * The inline fast paths are in heap_inline.h.
 *
 * Files (one concern each, along the lines of mimalloc's split):
 *   heap_init.c    globals, size classes, errors, first-call initialisation, fork
 *   heap_os.c      OS memory: aligned mappings, segments, large blocks, commit counts
 *   heap_lock.c    the stop-the-world heap lock and the real-time (PI) waits
 *   heap_page.c    pages: remote-free batches, retiring, carving, page switches
 *   heap_thread.c  theaps (per thread and heap) and thread data, thread exit
 *   heap_alloc.c   allocation and free slow paths (the fast paths: heap_inline.h)
 *   heap_api.c     nspa_heap_* create/destroy/alloc/free/size/realloc/lock
 *   heap_walk.c    validate, walk, compact, statistics, information (world stopped)
 *   win32_heap.c   the Win32 names (HeapAlloc ...) over the same paths
 */
#ifndef NSPA_HEAP_INTERNAL_H
#define NSPA_HEAP_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include "common/export.h"
#include "common/platform.h"
#include "nspa/heap.h"

#define SEG_SHIFT    21                       /* 2 MiB arenas ("segments") */
#define SEG_SIZE     ((size_t)1 << SEG_SHIFT)
#define SEG_MASK     (SEG_SIZE - 1)
#define SLICE_SHIFT  16                       /* 64 KiB commit/decommit grain */
#define SLICE_SIZE   ((size_t)1 << SLICE_SHIFT)
#define NSLICES      32                       /* slice 0 holds the segment metadata */
#define ALL_SLICES   0xFFFFFFFEu
#define NCLASS       NSPA_HEAP_NCLASSES
#define SMALL_MAX    ((size_t)128 * 1024)     /* largest size class */
#define MAX_BLOCKS   4096                     /* 64 KiB / 16 */
#define BM_WORDS     (MAX_BLOCKS / 64)
#define HUGE_HDR     256                      /* large block: header before the data */
#define PURGE_SLICES 16                       /* decommit once 1 MiB (and a quarter) lie idle */
#define PURGE_EPOCH_NS (20 * 1000000ull)      /* ... for a whole epoch of 20 ms (theap_tick) */
#define PURGE_NOW_SLICES 128                  /* ... or half at once beyond 8 MiB and the slices in use */
#define PURGE_NOW_MAX 1024                    /* ... a limit that doubles, up to 64 MiB, for a
                                                 thread that commits again what it gave back */
#define ORPHAN_KEEP_SLICES 128                /* idle slices left in orphans: 8 MiB, or up to
                                                 * half the heap's committed memory */
#define ORPHAN_KEEP_MAX 1024                  /* ... but at most 64 MiB (orphans_settle) */
#define FIXED_MAX_BLOCK 0x7FFF8u              /* fixed heaps: largest block (Windows) */
#define ADOPT_MAX    4                        /* orphans taken over at once (heap_page.c) */
#define ADOPT_IDLE_MAX 4                      /* ... beyond the first: at most 256 KiB idle */
#define FULL_SCAN    8                        /* full pages looked at per page switch */

#define SEGMAP_BITS  47                       /* the segment map covers 2^47 bytes */

#define LD(x)      atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v)   atomic_store_explicit(&(x), (v), memory_order_relaxed)
#define STR(x, v)  atomic_store_explicit(&(x), (v), memory_order_release)

/* internal allocation flag: a failure sets errno = ENOMEM (the C allocator, heap_malloc.c) */
#define HEAP_X_ERRNO 0x40000000u

#define HEAP_MAGIC   0x4E53504148454150ull    /* "NSPAHEAP" */
#define SEG_MAGIC    0x4E53504153454721ull
#define SEG_NORMAL   1
#define SEG_HUGE     2

struct tld;
struct theap;
struct seg;

typedef struct page {
    /* owner-hot cache line: only the owning thread touches these */
    void           *free;         /* local free list */
    uint32_t        used;         /* blocks handed out and not yet collected back */
    uint32_t        capacity;     /* blocks carved so far */
    _Atomic uint64_t *bm;         /* this page's bitmap words (segment metadata) */
    uint32_t        bsize;        /* block size (0: slice not in use) */
    uint32_t        trigger;      /* a local free that brings used to this calls the slow path */
    uint64_t        inv;          /* ceil(2^40 / bsize): block index by multiplication */
    uint8_t        *start;
    struct page    *next, *prev;  /* owner's per-class list (available or full) */
    /* remote cache line: other threads push freed blocks here; the owner's cold fields */
    _Atomic(void *) thread_free __attribute__((aligned(64)));
    _Atomic uint32_t remote_cnt;  /* blocks pushed on thread_free, counted after the push */
    uint32_t        reserved;     /* blocks that fit */
    uint16_t        cls;
    uint8_t         nslices;
    uint8_t         in_full;
    _Atomic uint32_t want;        /* remote_cnt at which the owner wants a notice (0:
                                     none; the page is in a full list, or orphaned) */
    /* pages of up to 128 blocks keep their bitmap words here, next to the page */
    _Atomic uint64_t bm_inline[4];
    char            pad3_[8];
} page_t;

typedef struct seg {
    /* first cache line: everything a free needs */
    uint64_t         magic;
    struct heap     *heap;
    _Atomic uintptr_t owner_tid;  /* token of the owning thread, 0 when orphaned */
    uint16_t         kind;
    uint16_t         hugetlb;
    uint32_t         meta_off;    /* where this segment's seg_meta_t starts (its colour) */
    uint8_t          slice_first[NSLICES];  /* slice -> first slice of its page (0: free) */
    /* second line: the class of each page (by first slice: another thread's free finds
     * the block and its bitmap word without reading the owner's page descriptor), the
     * owner and the lists */
    struct theap    *owner;
    uint8_t          slice_cls[NSLICES];
    struct seg      *all_next, *all_prev;   /* heap->segs (heap->big) */
    struct seg      *own_next, *own_prev;   /* owner's list, or heap->orphans */
    size_t           map_size;
    size_t           huge_size;   /* large block: requested size */
    size_t           huge_off;    /* large block: offset of the data */
    uint64_t         cached_at;   /* large block in the heap's cache: since (ns); an
                                     orphaned segment: orphaned since (heap->big) */
    uint32_t         free_mask;   /* free slices */
    uint32_t         dirty_mask;  /* free slices still committed */
    uint32_t         dirty_old;   /* of those, the ones already idle at the owner's last
                                     purge tick (theap_tick) */
    uint32_t         empty_old;   /* the segment was entirely free at that tick */
    _Atomic uint32_t notify_mask; /* pages (by first slice) with a notice for the owner */
} seg_t;

/* The page descriptors and bitmaps of a segment, in slice 0 after the header at an
 * offset that differs from segment to segment ("colour"): at one fixed offset in every
 * 2 MiB-aligned segment they would all compete for the same few cache sets. */
typedef struct seg_meta {
    page_t           pages[NSLICES];
    /* per page (by first slice): word 2w = A bits (the owner flips them), word 2w+1 =
     * R bits (other threads flip them, atomically); a block is live when its bits
     * differ; side by side so that a local free reads one line */
    _Atomic uint64_t bm[NSLICES][2 * BM_WORDS];
} seg_meta_t;

#define SEG_META_BASE   256u                     /* header, rounded up */
#define SEG_COLOUR_STEP 1088u                    /* 17 lines: moves the L1 set too */
#define SEG_COLOURS     26u
_Static_assert(sizeof(seg_t) <= SEG_META_BASE, "segment header fits before the metadata");
_Static_assert(SEG_META_BASE + (SEG_COLOURS - 1) * SEG_COLOUR_STEP + sizeof(seg_meta_t) <= SLICE_SIZE,
               "segment metadata must fit in slice 0 at every colour");

static inline seg_meta_t *seg_meta(const seg_t *s) { return (seg_meta_t *)((uint8_t *)s + s->meta_off); }
static inline page_t *seg_pages(const seg_t *s) { return seg_meta(s)->pages; }

#define PG_BM(pg) ((pg)->bm)

static inline seg_t *page_seg(const page_t *pg) { return (seg_t *)((uintptr_t)pg & ~(uintptr_t)SEG_MASK); }


_Static_assert(offsetof(seg_t, owner) == 64, "free-path fields share one cache line");
_Static_assert(sizeof(page_t) == 128, "page descriptor is two cache lines");

/* Remote frees batched per owner page (docs/heap.md, "Cross-thread free"): the freeing
 * thread flips each block's R bit at once (so a double free is caught on the spot) but
 * links the blocks and pushes them on the page's thread_free only when the slot fills
 * up, is needed for another page, or the heap's world is stopped. */
#define RB_SLOTS     32                       /* one per class up to 1 KiB; larger blocks
                                                 are pushed one by one */
#define RB_MAX       32                       /* blocks per slot */
typedef struct rbatch {
    page_t        *pg;             /* owner page of the blocks (meaningful while n > 0) */
    uint32_t       n;
    void          *blk[RB_MAX];
} rbatch_t;

typedef struct theap {
    page_t        *pages[NCLASS];  /* available pages; the head is the allocation page */
    page_t        *full[NCLASS];
    page_t        *full_scan[NCLASS]; /* where the next look at full[] starts (NULL: head) */
    struct heap   *heap;
    struct tld    *tld;
    seg_t         *segs;           /* owned segments */
    uint32_t       dirty_slices;   /* free but still committed slices in owned segments */
    uint32_t       used_slices;    /* slices holding pages */
    uint32_t       purge_now;      /* idle slices beyond which a retire decommits at once
                                      (PURGE_NOW_SLICES .. PURGE_NOW_MAX, page_retire) */
    uint32_t       used_peak;      /* most slices in use since the last purge tick */
    uint32_t       purged_now;     /* ticks for which an at-once decommit still counts as
                                      recent (2 after one, page_new / theap_tick) */
    uint64_t       purge_tick;     /* CLOCK_MONOTONIC_COARSE ns of the next purge tick */
    uintptr_t      token;          /* owner thread token (1: shared theap, used under stw_mtx) */
    int            dead;           /* heap destroyed under us: free at thread exit */
    struct theap  *hnext, *hprev;  /* heap->theaps */
    struct theap  *tnext;          /* tld->theaps */
    uint32_t       rb_blocks;      /* blocks waiting in rb[] (all slots) */
    /* some owned segment has a notice (notify_mask); written by other threads, so on a
     * line of its own */
    _Atomic uint32_t notified __attribute__((aligned(64)));
    char           pad_notified_[60];
    rbatch_t       rb[RB_SLOTS];   /* this thread's pending frees into others' pages */
} theap_t;

typedef struct heap {
    uint64_t          magic;
    _Atomic uint64_t  serial;
    unsigned int      flags;
    size_t            maximum;     /* 0: growable */
    _Atomic size_t    fixed_used;
    _Atomic int       stw;         /* a thread holds the heap lock: others wait */
    _Atomic(struct tld *) lock_owner;
    int               lock_depth;
    pthread_mutex_t   stw_mtx;
    pthread_mutex_t   big;         /* segment lists, orphans, large blocks, theaps */
    seg_t            *segs;        /* every segment and large block */
    seg_t            *orphans;
    theap_t          *theaps;
    theap_t          *shared;      /* for threads past their TLS destructor (stw_mtx) */
    _Atomic size_t    committed, committed_peak, reserved;
    _Atomic size_t    bad_frees;
    _Atomic uint32_t  orphan_notify;  /* some orphaned segment has a notice */
    _Atomic uint64_t  orphan_purge_at; /* exited threads left idle slices committed in
                                          the orphans: purge them at this time (ns) */
    uint64_t          adopted_at;  /* a thread last took over an orphan (ns; big) */
    seg_t            *huge_cache;  /* freed large blocks kept mapped (heap_os.c; big) */
    size_t            huge_cached; /* their bytes */
    unsigned          huge_ncached;
    _Atomic uint64_t  huge_age_at; /* a cached large block ages out at this time (0: none) */
    struct heap      *list_next, *list_prev;  /* live heaps (g_lock) */
} heap_t;

#define TMAP 8
typedef struct tld {
    _Atomic(heap_t *) busy;       /* heap this thread is operating on */
    theap_t          *proc;       /* theap of the process heap */
    uintptr_t         self;       /* its token (its address) once registered, 2 before:
                                     the free fast path compares it with owner_tid */
    struct { heap_t *heap; uint64_t serial; theap_t *th; } map[TMAP];
    unsigned          map_next;
    int               inited;
    int               dying;      /* TLS destructor ran: use the shared theap */
    uint32_t          tid;        /* kernel thread id, once registered */
    /* PI futex word (0, or owner tid | FUTEX_WAITERS): a HeapLock caller that must wait
     * for this thread to leave the heap puts this thread's tid here and sleeps on it,
     * so that the kernel runs this thread at the caller's priority; leaving with the
     * world being stopped hands the word over (docs/heap.md, "Waiting in real time") */
    _Atomic uint32_t  piw;
    theap_t          *theaps;
    struct tld       *next, *prev;   /* registry (g_lock) */
} tld_t;

/* ---- globals (heap_init.c) --------------------------------------------------------- */

extern uint32_t cls_size[NCLASS];
extern uint64_t cls_inv[NCLASS];     /* ceil(2^40 / size), as page_t.inv */
extern uint32_t cls_cap[NCLASS];     /* blocks in a page of the class, as page_t.reserved */
extern uint8_t  cls_small[65];       /* ceil(n / 16) -> class, for n <= 1024 */
extern uint8_t  cls_slices[NCLASS];
extern _Atomic unsigned char *segmap;    /* 2^26 bytes: addr >> 21 */
extern _Atomic int g_init;               /* 1 once initialised */
extern int fence_mode;                   /* no membarrier: fence in the fast path */
extern int hugetlb_ok;                   /* try MAP_HUGETLB for segments */
extern int thp_opt;                      /* NSPA_HEAP_THP */
extern int prefetchw_ok;                 /* the CPU has PREFETCHW (heap_init.c) */
extern int terminate_on_corruption;
extern pthread_key_t g_key;
extern pthread_mutex_t g_lock;           /* registry, heap list, pool (PI once initialised) */
extern pthread_mutex_t theap_pool_mtx;   /* pooled theap memory (heap_thread.c) */
extern tld_t *g_tlds;                    /* registered threads (g_lock) */
extern heap_t *g_heaps;                  /* live heaps (g_lock) */
extern heap_t *g_heap_pool;              /* destroyed heap structures, for reuse (g_lock) */
extern heap_t proc_heap;
extern nspa_heap_exception_fn g_exc_handler;
extern __thread tld_t tls_tld __attribute__((tls_model("initial-exec")));

/* Heap structures are carved from one reserved area and never unmapped (a destroyed one
 * is recycled with a new serial), so a handle is checked by address before anything
 * is read through it: a garbage handle gets ERROR_INVALID_HANDLE, never a fault. */
#define HEAP_STRIDE    ((sizeof(heap_t) + 63) & ~(size_t)63)
#define HEAP_AREA_MAX  65536u                 /* heaps alive at once, at the most */
extern _Atomic uintptr_t g_heap_area;    /* base, 0 until the first HeapCreate */
extern _Atomic unsigned  g_heap_carved;  /* structures handed out so far */

/* ---- functions shared between files ----------------------------------------------- */

/* heap_init.c */
int global_init_slow(void);              /* 0, or -ENOMEM (nothing reserved) */
int heap_free_error(heap_t *h);
void *heap_realloc_err(heap_t *h, unsigned int flags, void *p, size_t n, int *err);
void bad_free(heap_t *h, const void *p);
void *alloc_failed(heap_t *h, unsigned flags);
void heap_mutex_init(pthread_mutex_t *m, int robust);
void heap_struct_init(heap_t *h, unsigned flags, size_t maximum);

/* heap_os.c */
void commit_add(heap_t *h, ptrdiff_t d);
seg_t *seg_new(theap_t *th);
void seg_purge(heap_t *h, seg_t *s);
uint32_t seg_purge_mask(heap_t *h, seg_t *s, uint32_t m);
void seg_release(heap_t *h, seg_t *s);
void seg_release_locked(heap_t *h, seg_t *s);   /* heap->big held */
void *huge_alloc(heap_t *h, size_t n, size_t align);
void huge_free(heap_t *h, seg_t *s);
void huge_cache_drop(heap_t *h);         /* heap->big held */
void huge_cache_age(heap_t *h, uint64_t now);

/* heap_lock.c */
void stw_lock(heap_t *h);
void enter_slow(tld_t *t, heap_t *h);
void piw_check(tld_t *t);
void piw_unlock(_Atomic uint32_t *w, uint32_t me);
void heap_lock_impl(tld_t *t, heap_t *h);
int heap_unlock_impl(tld_t *t, heap_t *h);

/* heap_page.c */
void page_collect(page_t *pg);
void remote_push(page_t *pg, void *first, void *last, uint32_t n);
void rb_flush(theap_t *th, rbatch_t *sl);
void theap_rb_flush_all(theap_t *th);
void theap_purge(theap_t *th);
void page_retire(theap_t *th, page_t *pg);
void theap_tick(theap_t *th);
void page_free_slices(seg_t *s, page_t *pg);
void page_arm(page_t *pg, int orphan);
void theap_collect_notified(theap_t *th);
void orphans_reclaim(heap_t *h);
void orphans_purge_aged(heap_t *h, uint64_t now);
void orphans_settle(heap_t *h);                 /* heap->big held */
void theap_insert_page(theap_t *th, page_t *pg);
page_t *alloc_page(theap_t *th, unsigned c);

/* heap_thread.c */
theap_t *theap_create(tld_t *t, heap_t *h);
void theap_free_mem(theap_t *th);
void tld_init(tld_t *t);
void tld_destroy(void *arg);             /* the thread key's destructor */
theap_t *theap_get_slow(tld_t *t, heap_t *h);
theap_t *shared_theap(heap_t *h);        /* stw_mtx held */

/* heap_alloc.c: the fast paths' out-of-line exits and the generic paths */
void *heap_alloc_generic(heap_t *h, unsigned flags, size_t n, size_t align) __attribute__((noinline));
void *alloc_fast_miss(tld_t *t, theap_t *th, heap_t *h, unsigned c, unsigned flags, size_t n)
    __attribute__((noinline));
void *zero_block(void *b, size_t n) __attribute__((noinline));
void *alloc_backoff(tld_t *t, heap_t *h, unsigned flags, size_t n) __attribute__((noinline));
void *alloc_leave_slow(tld_t *t, void *b, unsigned flags, size_t n) __attribute__((noinline));
int heap_free_impl(heap_t *h, void *p) __attribute__((noinline));   /* 1 freed, 0 rejected */
int heap_free_remote(heap_t *h, struct seg *s, void *p) __attribute__((noinline));
int free_local_slow_leave(tld_t *t, heap_t *h, theap_t *th, page_t *pg) __attribute__((noinline));
int free_leave_slow(tld_t *t) __attribute__((noinline));
int free_backoff(tld_t *t, heap_t *h, void *p) __attribute__((noinline));

/* heap_api.c */
size_t block_size_of(heap_t *h, const void *p, int *kind, uint32_t *bsize);

#endif
