/* NSPA heap internals (see docs/heap.md for the design and its invariants). */
#ifndef NSPA_HEAP_INTERNAL_H
#define NSPA_HEAP_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <pthread.h>
#include "common/export.h"
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
#define PURGE_SLICES 64                       /* decommit once 4 MiB lie idle */
#define FIXED_MAX_BLOCK 0x7FFF8u              /* fixed heaps: largest block (Windows) */
#define FULL_SCAN    8                        /* full pages looked at per page switch */

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
    uint32_t        pad2_;
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
    uint32_t         free_mask;   /* free slices */
    uint32_t         dirty_mask;  /* free slices still committed */
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
    uintptr_t      token;          /* owner thread token (1: shared theap, used under stw_mtx) */
    int            dead;           /* heap destroyed under us: free at thread exit */
    struct theap  *hnext, *hprev;  /* heap->theaps */
    struct theap  *tnext;          /* tld->theaps */
    uint32_t       rb_blocks;      /* blocks waiting in rb[] (all slots) */
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

#endif
