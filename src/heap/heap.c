/* NSPA heap: the NT heap API over a per-thread, lock-free front end.
 *
 * Shape (docs/heap.md has the full story):
 *  - memory comes in 2 MiB-aligned segments (2 MiB huge pages when the pool has them),
 *    cut into 32 slices of 64 KiB; slice 0 holds the segment's metadata; a page is 1-16
 *    slices serving one size class;
 *  - every (thread, heap) pair has a theap that owns segments; only the owner allocates
 *    from or frees into its pages without atomics; other threads batch the blocks they
 *    free per page and push each batch onto the page's thread_free list (lock-free) for
 *    the owner to collect;
 *  - every block has an A bit (flipped by the owner) and an R bit (flipped atomically by
 *    other threads) and is live exactly when they differ: double frees and foreign
 *    pointers are rejected before they touch any list;
 *  - a global byte map (one byte per 2 MiB of address space) says whether an address is
 *    one of our segments, so any pointer can be checked without faulting;
 *  - HeapLock stops the heap's world: every operation publishes the heap it works on in
 *    a per-thread word; the locker raises heap->stw, runs membarrier() and waits for the
 *    words to clear (asymmetric Dekker: the fast path pays no fence), asleep on a PI
 *    futex word that lends the thread it waits for its priority (real-time mode).
 */
#include "heap_internal.h"
#include "common/platform.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/ntstatus.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>

#define LD(x)      atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v)   atomic_store_explicit(&(x), (v), memory_order_relaxed)
#define LDA(x)     atomic_load_explicit(&(x), memory_order_acquire)
#define STR(x, v)  atomic_store_explicit(&(x), (v), memory_order_release)

/* ---------------------------------------------------------------------------------- */
/* globals                                                                            */
/* ---------------------------------------------------------------------------------- */

static uint32_t cls_size[NCLASS];
static uint64_t cls_inv[NCLASS];   /* ceil(2^40 / size), as page_t.inv */
static uint32_t cls_cap[NCLASS];   /* blocks in a page of the class, as page_t.reserved */
static uint8_t  cls_small[65];     /* ceil(n / 16) -> class, for n <= 1024 */
static uint8_t  cls_slices[NCLASS];
static _Atomic unsigned char *segmap;          /* 2^26 bytes: addr >> 21 */
#define SEGMAP_BITS 47
static _Atomic int g_init;                     /* 1 once initialised */
static _Atomic uint32_t g_init_pi;             /* PI futex word held while initialising */
static int fence_mode;                         /* no membarrier: fence in the fast path */
static int hugetlb_ok = 1;
static int thp_opt;
static int terminate_on_corruption;
static pthread_key_t g_key;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;  /* registry, heap list, pool
                                                               (made PI at initialisation) */
static pthread_mutexattr_t g_pi_attr;          /* the heap's mutexes inherit priority */
static pthread_mutexattr_t g_pi_robust_attr;   /* stw_mtx: also robust (stw_lock) */
static tld_t *g_tlds;
static heap_t *g_heaps;
static heap_t *g_heap_pool;
static heap_t proc_heap;

/* Heap structures are carved from one reserved area and never unmapped (a destroyed one
 * is recycled with a new serial), so a handle is checked by address before anything
 * is read through it: a garbage handle gets ERROR_INVALID_HANDLE, never a fault. */
#define HEAP_STRIDE    ((sizeof(heap_t) + 63) & ~(size_t)63)
#define HEAP_AREA_MAX  65536u                 /* heaps alive at once, at the most */
static _Atomic uintptr_t g_heap_area;          /* base, 0 until the first HeapCreate */
static _Atomic unsigned  g_heap_carved;        /* structures handed out so far */

static inline int heap_ok(const heap_t *h)
{
    if (likely(h == &proc_heap))
        return 1;
    uintptr_t a = (uintptr_t)h;
    uintptr_t base = atomic_load_explicit(&g_heap_area, memory_order_acquire);
    if (!base || a < base || (a - base) % HEAP_STRIDE ||
        (a - base) / HEAP_STRIDE >= atomic_load_explicit(&g_heap_carved, memory_order_acquire))
        return 0;
    return h->magic == HEAP_MAGIC;
}
static nspa_heap_exception_fn g_exc_handler;

static __thread tld_t tls_tld __attribute__((tls_model("initial-exec"))) = { .self = 2 };

static void global_init_slow(void);
static void tld_init(tld_t *t);

static inline void global_init(void)
{
    if (unlikely(!atomic_load_explicit(&g_init, memory_order_acquire)))
        global_init_slow();
}

static inline tld_t *tld_get(void)
{
    tld_t *t = &tls_tld;
    if (unlikely(!t->inited))
        tld_init(t);
    return t;
}

static inline uintptr_t tld_token(tld_t *t) { return (uintptr_t)t; }

/* ---------------------------------------------------------------------------------- */
/* size classes                                                                       */
/* ---------------------------------------------------------------------------------- */

/* 16..256 in steps of 16, then 8 classes per doubling up to 128 KiB. n >= 1. */
static inline unsigned size_class(size_t n)
{
    if (n <= 256)
        return (unsigned)((n - 1) >> 4);
    unsigned b = 63 - (unsigned)__builtin_clzl(n - 1);
    return 16 + (b - 8) * 8 + (unsigned)(((n - 1) - ((size_t)1 << b)) >> (b - 3));
}

static void classes_init(void)
{
    for (unsigned c = 0; c < NCLASS; c++) {
        size_t s;
        if (c < 16)
            s = 16 * (c + 1);
        else {
            unsigned b = 8 + (c - 16) / 8, i = (c - 16) % 8;
            s = ((size_t)1 << b) + (size_t)(i + 1) * ((size_t)1 << (b - 3));
        }
        cls_size[c] = (uint32_t)s;
        size_t sl = 1;
        if (s > 8192) {
            sl = (s * 8 + SLICE_SIZE - 1) / SLICE_SIZE;
            if (sl > 16) sl = 16;
        }
        cls_slices[c] = (uint8_t)sl;
        cls_inv[c] = (((uint64_t)1 << 40) + s - 1) / s;
        cls_cap[c] = (uint32_t)((sl * SLICE_SIZE) / s);
    }
    cls_small[0] = 0;
    for (unsigned k = 1; k <= 64; k++)
        cls_small[k] = (uint8_t)size_class((size_t)k * 16);
}

/* ---------------------------------------------------------------------------------- */
/* errors                                                                             */
/* ---------------------------------------------------------------------------------- */

static void bad_free(heap_t *h, const void *p)
{
    if (heap_ok(h))
        atomic_fetch_add_explicit(&h->bad_frees, 1, memory_order_relaxed);
    if (terminate_on_corruption) {
        fprintf(stderr, "nspa heap: invalid or double free of %p (STATUS_HEAP_CORRUPTION)\n", p);
        abort();
    }
    SetLastError(ERROR_INVALID_PARAMETER);
}

static void *alloc_failed(heap_t *h, unsigned flags)
{
    if ((flags | (h ? h->flags : 0)) & HEAP_GENERATE_EXCEPTIONS) {
        nspa_heap_exception_fn fn = __atomic_load_n(&g_exc_handler, __ATOMIC_ACQUIRE);
        if (fn)
            fn((unsigned)STATUS_NO_MEMORY, (nspa_heap_t *)h);
        fprintf(stderr, "nspa heap: HeapAlloc raised STATUS_NO_MEMORY (0x%08x)\n",
                (unsigned)STATUS_NO_MEMORY);
        abort();
    }
    return NULL;
}

NSPA_EXPORT nspa_heap_exception_fn nspa_heap_set_exception_handler(nspa_heap_exception_fn fn)
{
    return __atomic_exchange_n(&g_exc_handler, fn, __ATOMIC_ACQ_REL);
}

/* ---------------------------------------------------------------------------------- */
/* OS memory                                                                          */
/* ---------------------------------------------------------------------------------- */

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

static inline int segmap_has(uintptr_t a)
{
    if (unlikely(a >> SEGMAP_BITS) || unlikely(!segmap))
        return 0;
    return LD(segmap[a >> SEG_SHIFT]) != 0;
}

static void commit_add(heap_t *h, ptrdiff_t d)
{
    size_t v = atomic_fetch_add_explicit(&h->committed, (size_t)d, memory_order_relaxed) + (size_t)d;
    if (d > 0) {
        size_t pk = LD(h->committed_peak);
        while (v > pk && !atomic_compare_exchange_weak_explicit(&h->committed_peak, &pk, v,
                    memory_order_relaxed, memory_order_relaxed))
            ;
    }
}

/* ---------------------------------------------------------------------------------- */
/* stop-the-world heap lock                                                           */
/* ---------------------------------------------------------------------------------- */

static void enter_slow(tld_t *t, heap_t *h);
static void theap_rb_flush_all(theap_t *th);

/* stw_mtx is held from HeapLock to HeapUnlock, across the caller's code, so its holder
 * may exit with it. The heap then stays locked for good, as NT's does (and as it did
 * with a default mutex). It is a robust PI mutex: the kernel hands a dead holder's PI
 * mutex to a waiter, and glibc aborts on that unless the mutex is robust; the thread
 * that gets it (EOWNERDEAD) keeps it and sleeps for ever, so every other waiter sleeps
 * on too. Nobody spins. */
static void stw_lock(heap_t *h)
{
    if (unlikely(pthread_mutex_lock(&h->stw_mtx) == EOWNERDEAD))
        for (;;)
            pause();
}

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

static void piw_check(tld_t *t);

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

static __attribute__((noinline, cold)) void enter_slow(tld_t *t, heap_t *h)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!(atomic_load(&h->stw) & 1))
        return;
    for (;;) {
        if (atomic_load(&h->lock_owner) == t)
            return;
        STR(t->busy, NULL);
        piw_check(t);                       /* the locker may wait for us */
        stw_lock(h);
        pthread_mutex_unlock(&h->stw_mtx);
        atomic_store(&t->busy, h);
        atomic_thread_fence(memory_order_seq_cst);
        if (!(atomic_load(&h->stw) & 1))
            return;
    }
}

/* World stopped (or being re-entered by its holder): push every theap's batched remote
 * frees of h, so that whatever the holder looks at (HeapWalk, HeapValidate, statistics)
 * sees invariant 4 exact. Only the holder itself can have batched since the world
 * stopped (others wait in enter), hence the push on re-entry too. */
static void heap_push_batches(heap_t *h)
{
    pthread_mutex_lock(&h->big);
    for (theap_t *th = h->theaps; th; th = th->hnext)
        theap_rb_flush_all(th);
    pthread_mutex_unlock(&h->big);
}

/* ---- waiting for another thread, in real time ----------------------------------
 * The locker must wait for every thread inside the heap to leave it. Such a thread may
 * be preempted by the locker itself (a lower priority on the same CPU), where spinning
 * or sched_yield() would never let it run. So after a short spin the locker sleeps on
 * that thread's PI futex word with the thread's tid written in as the owner: the kernel
 * then runs the thread at the locker's priority (and further up a chain) until it
 * leaves. Leaving while stw is set (leave_fast) looks at the word and hands it over. */

#define BUSY_SPIN 64                     /* cpu_relax rounds before sleeping */
static int no_pi_futex;                  /* FUTEX_LOCK_PI failed with ENOSYS: poll */

static inline uint32_t gettid_now(void) { return (uint32_t)syscall(SYS_gettid); }

/* Busy cleared with stw set: if a locker has made us the owner of our PI word, give it
 * up (the locker takes it and goes on). The fence pairs with the locker's
 * compare-exchange of the word before it reads busy again: one of the two sees the
 * other's store. */
static __attribute__((noinline)) void piw_check(tld_t *t)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (;;) {
        uint32_t v = atomic_load(&t->piw);
        if (likely(v == 0) || (v & FUTEX_TID_MASK) != t->tid)
            return;                      /* the locker's own tid: it is done with us */
        if (!(v & FUTEX_WAITERS)) {      /* the locker has not slept yet */
            if (atomic_compare_exchange_strong(&t->piw, &v, 0))
                return;
            continue;
        }
        NSPA_TSAN_RELEASE(&t->piw);
        nspa_futex(&t->piw, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
        return;
    }
}

/* Release a PI word the calling thread (tid me) owns. */
static void piw_unlock(_Atomic uint32_t *w, uint32_t me)
{
    uint32_t exp = me;
    NSPA_TSAN_RELEASE(w);
    if (!atomic_compare_exchange_strong(w, &exp, 0))
        nspa_futex(w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
}

/* Sleep until r leaves h or for a while, lending r our priority. 0 if the kernel
 * cannot do that here (the caller then polls, sleeping). */
static int busy_wait_pi(tld_t *t, tld_t *r, heap_t *h)
{
    uint32_t owner = r->tid, exp = 0;
    if (no_pi_futex || !owner || !atomic_compare_exchange_strong(&r->piw, &exp, owner))
        return 0;
    if (atomic_load(&r->busy) != h) {    /* left meanwhile: take the word back */
        exp = owner;
        atomic_compare_exchange_strong(&r->piw, &exp, 0);   /* (unless r did) */
        return 1;
    }
    long e;
    while ((e = nspa_futex(&r->piw, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0)) == -EINTR)
        ;
    if (e == 0) {                         /* r handed it over (or had taken it back) */
        NSPA_TSAN_ACQUIRE(&r->piw);
        piw_unlock(&r->piw, t->tid ? t->tid : gettid_now());
        return 1;
    }
    if (e == -ENOSYS)
        no_pi_futex = 1;
    /* ENOSYS: the kernel left the word alone, and r at most clears it too; ESRCH: r is
     * gone */
    atomic_store(&r->piw, 0);
    return 0;
}

static void wait_not_busy(tld_t *t, tld_t *r, heap_t *h)
{
    for (int i = 0; i < BUSY_SPIN && atomic_load(&r->busy) == h; i++)
        nspa_cpu_relax();
    while (atomic_load(&r->busy) == h) {
        if (!busy_wait_pi(t, r, h)) {
            struct timespec ts = { 0, 100000 };   /* no boost: at least let r run */
            nanosleep(&ts, NULL);
        }
    }
}

static void heap_lock_impl(tld_t *t, heap_t *h)
{
    if (atomic_load(&h->lock_owner) == t) {
        h->lock_depth++;
        heap_push_batches(h);
        return;
    }
    stw_lock(h);
    atomic_store(&h->lock_owner, t);
    h->lock_depth = 1;
    atomic_fetch_or(&h->stw, 1);
    if (!fence_mode && !NSPA_TSAN)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    pthread_mutex_lock(&g_lock);
    for (tld_t *r = g_tlds; r; r = r->next) {
        if (r != t && atomic_load(&r->busy) == h)
            wait_not_busy(t, r, h);
    }
    pthread_mutex_unlock(&g_lock);
    heap_push_batches(h);
}

static int heap_unlock_impl(tld_t *t, heap_t *h)
{
    if (atomic_load(&h->lock_owner) != t)
        return 0;
    if (--h->lock_depth == 0) {
        atomic_store(&h->lock_owner, NULL);
        atomic_fetch_and(&h->stw, ~1);
        pthread_mutex_unlock(&h->stw_mtx);
    }
    return 1;
}

/* ---------------------------------------------------------------------------------- */
/* lists                                                                              */
/* ---------------------------------------------------------------------------------- */

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

/* ---------------------------------------------------------------------------------- */
/* pages                                                                              */
/* ---------------------------------------------------------------------------------- */

static inline uint32_t block_index(const page_t *pg, const void *b)
{
    return (uint32_t)(((uint64_t)((const uint8_t *)b - pg->start) * pg->inv) >> 40);
}

/* Owner, on handing out block i: flip its allocated bit. A block is live exactly when
 * its two bits differ (invariant 1), and every block in a free list has them equal, so
 * flipping A makes it live whether it was freed here (0,0) or by another thread (1,1).
 * A plain store: only the owner writes A; other threads only ever touch R. */
static inline void abm_take(page_t *pg, uint32_t i)
{
    _Atomic uint64_t *w = &PG_BM(pg)[2 * (i >> 6)];
    ST(*w, LD(*w) ^ (1ull << (i & 63)));
}

/* Owner: take the blocks other threads freed into this page, in one splice. The count
 * is read before the list and incremented after each push, so 'used' may lag behind
 * (stay high) but never drops below the truth: a page is never retired early. */
static void page_collect(page_t *pg)
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
static void remote_push(page_t *pg, void *first, void *last, uint32_t n)
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
static void rb_flush(theap_t *th, rbatch_t *sl)
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
static void theap_rb_flush_all(theap_t *th)
{
    for (unsigned k = 0; th->rb_blocks && k < RB_SLOTS; k++)
        rb_flush(th, &th->rb[k]);
}

/* One slot per size class: the blocks a thread frees into another's pages in a burst
 * mostly come from that thread's current page of each class. */
static inline void rb_add(theap_t *th, page_t *pg, void *p)
{
    rbatch_t *sl = &th->rb[page_seg(pg)->slice_cls[pg - seg_pages(page_seg(pg))]];
    if (sl->pg != pg) {
        rb_flush(th, sl);
        sl->pg = pg;
    }
    sl->blk[sl->n++] = p;
    th->rb_blocks++;
    if (sl->n == RB_MAX)
        rb_flush(th, sl);
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

static void seg_purge(heap_t *h, seg_t *s)
{
    uint32_t m = s->dirty_mask;
    if (!m)
        return;
    if (!s->hugetlb) {
        while (m) {
            unsigned a = (unsigned)__builtin_ctz(m), e = a;
            while (e < NSLICES && (m & (1u << e))) e++;
            madvise((uint8_t *)s + (size_t)a * SLICE_SIZE, (size_t)(e - a) * SLICE_SIZE, MADV_DONTNEED);
            commit_add(h, -(ptrdiff_t)((size_t)(e - a) * SLICE_SIZE));
            m &= ~(uint32_t)(((e >= 32) ? 0xFFFFFFFFu : ((1u << e) - 1)) & ~((1u << a) - 1));
        }
    }
    s->dirty_mask = 0;
}

static void seg_release(heap_t *h, seg_t *s)
{
    pthread_mutex_lock(&h->big);
    seg_unlink_all(h, s);
    pthread_mutex_unlock(&h->big);
    ST(segmap[(uintptr_t)s >> SEG_SHIFT], 0);
    size_t committed = s->hugetlb ? SEG_SIZE
        : SEG_SIZE - (size_t)__builtin_popcount(s->free_mask & ~s->dirty_mask) * SLICE_SIZE;
    commit_add(h, -(ptrdiff_t)committed);
    atomic_fetch_sub_explicit(&h->reserved, SEG_SIZE, memory_order_relaxed);
    munmap(s, SEG_SIZE);
}

static void theap_purge(theap_t *th)
{
    for (seg_t *s = th->segs; s; s = s->own_next)
        seg_purge(th->heap, s);
    th->dirty_slices = 0;
}

/* Owner: page is empty; give its slices back to the segment. */
static void page_retire(theap_t *th, page_t *pg, int may_release)
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

static seg_t *seg_new(theap_t *th)
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

static void theap_insert_page(theap_t *th, page_t *pg)
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
static page_t *alloc_page(theap_t *th, unsigned c)
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

/* ---------------------------------------------------------------------------------- */
/* theaps and thread data                                                             */
/* ---------------------------------------------------------------------------------- */

static theap_t *theap_create(tld_t *t, heap_t *h)
{
    size_t sz = (sizeof(theap_t) + 4095) & ~(size_t)4095;
    theap_t *th = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (th == MAP_FAILED)
        return NULL;
    th->heap = h;
    th->tld = t;
    th->token = tld_token(t);
    pthread_mutex_lock(&g_lock);
    pthread_mutex_lock(&h->big);
    th->hprev = NULL;
    th->hnext = h->theaps;
    if (h->theaps) h->theaps->hprev = th;
    h->theaps = th;
    pthread_mutex_unlock(&h->big);
    th->tnext = t->theaps;
    t->theaps = th;
    pthread_mutex_unlock(&g_lock);
    return th;
}

static void theap_free_mem(theap_t *th)
{
    munmap(th, (sizeof(theap_t) + 4095) & ~(size_t)4095);
}

/* Thread exit: hand the theap's segments to the heap as orphans. */
static void theap_abandon(theap_t *th)
{
    heap_t *h = th->heap;
    tld_t *t = th->tld;
    enter(t, h);
    if (th->dead) {   /* the heap was destroyed under us */
        leave(t, h);
        return;
    }
    theap_rb_flush_all(th);
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] == si && pg->bsize) {
                page_collect(pg);
                if (pg->used == 0)
                    page_retire(th, pg, 0);
            }
        }
    }
    theap_purge(th);
    for (seg_t *s = th->segs, *nx; s; s = nx) {
        nx = s->own_next;
        slist_remove_own(&th->segs, s);
        if (s->free_mask == ALL_SLICES) {
            seg_release(h, s);
            continue;
        }
        s->owner = NULL;
        ST(s->owner_tid, 0);
        pthread_mutex_lock(&h->big);
        slist_push_own(&h->orphans, s);
        pthread_mutex_unlock(&h->big);
    }
    pthread_mutex_lock(&h->big);
    if (th->hprev) th->hprev->hnext = th->hnext; else h->theaps = th->hnext;
    if (th->hnext) th->hnext->hprev = th->hprev;
    pthread_mutex_unlock(&h->big);
    leave(t, h);
}

static void tld_destroy(void *arg)
{
    tld_t *t = arg;
    pthread_mutex_lock(&g_lock);
    theap_t *list = t->theaps;
    t->theaps = NULL;
    t->proc = NULL;
    memset(t->map, 0, sizeof t->map);
    pthread_mutex_unlock(&g_lock);
    for (theap_t *th = list, *nx; th; th = nx) {
        nx = th->tnext;
        theap_abandon(th);
        theap_free_mem(th);
    }
    pthread_mutex_lock(&g_lock);
    t->dying = 1;
    if (t->prev) t->prev->next = t->next; else g_tlds = t->next;
    if (t->next) t->next->prev = t->prev;
    t->next = t->prev = NULL;
    t->inited = 0;
    pthread_mutex_unlock(&g_lock);
}

static void tld_init(tld_t *t)
{
    global_init();
    if (t->dying)
        return;   /* past our TLS destructor: callers use the shared theap */
    pthread_mutex_lock(&g_lock);
    t->prev = NULL;
    t->next = g_tlds;
    if (g_tlds) g_tlds->prev = t;
    g_tlds = t;
    t->self = tld_token(t);
    t->tid = gettid_now();
    atomic_store(&t->piw, 0);
    t->inited = 1;
    pthread_mutex_unlock(&g_lock);
    pthread_setspecific(g_key, t);
}

static theap_t *theap_get_slow(tld_t *t, heap_t *h)
{
    if (!heap_ok(h))
        return NULL;
    if (h == &proc_heap) {
        if (!t->proc)
            t->proc = theap_create(t, h);
        return t->proc;
    }
    uint64_t serial = atomic_load(&h->serial);
    for (unsigned i = 0; i < TMAP; i++)
        if (t->map[i].heap == h && t->map[i].serial == serial)
            return t->map[i].th;
    for (theap_t *x = t->theaps; x; x = x->tnext)   /* fixed heaps stay out of the map */
        if (x->heap == h && !x->dead && h->maximum)
            return x;
    theap_t *th = theap_create(t, h);
    if (!th)
        return NULL;
    if (h->maximum)
        return th;
    unsigned i = t->map_next++ % TMAP;
    t->map[i].heap = h;
    t->map[i].serial = serial;
    t->map[i].th = th;
    return th;
}


/* ---------------------------------------------------------------------------------- */
/* init, fork                                                                         */
/* ---------------------------------------------------------------------------------- */

/* The heap's mutexes inherit priority: a real-time thread that waits for HeapUnlock, or
 * for a thread holding the registry or a heap's segment lists, boosts the holder (a
 * middle priority would starve it otherwise). Uncontended, a PI mutex is a
 * compare-exchange like any other; the kernel is only asked when there is a waiter. */
static void mutex_init(pthread_mutex_t *m, int robust)
{
    if (pthread_mutex_init(m, robust ? &g_pi_robust_attr : &g_pi_attr) != 0)   /* no PI futexes */
        pthread_mutex_init(m, NULL);
}

static void heap_struct_init(heap_t *h, unsigned flags, size_t maximum)
{
    mutex_init(&h->stw_mtx, 1);
    mutex_init(&h->big, 0);
    h->flags = flags;
    h->maximum = maximum;
    ST(h->fixed_used, 0);
    ST(h->stw, fence_mode ? 2 : 0);
    atomic_store(&h->lock_owner, NULL);
    h->lock_depth = 0;
    h->segs = h->orphans = NULL;
    h->theaps = NULL;
    h->shared = NULL;
    ST(h->committed, 0);
    ST(h->committed_peak, 0);
    ST(h->reserved, 0);
    ST(h->bad_frees, 0);
}

static void atfork_prepare(void)
{
    pthread_mutex_lock(&g_lock);
    for (heap_t *h = g_heaps; h; h = h->list_next)
        pthread_mutex_lock(&h->big);
}

static void atfork_parent(void)
{
    for (heap_t *h = g_heaps; h; h = h->list_next)
        pthread_mutex_unlock(&h->big);
    pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
    /* only this thread survives: the others' theaps stay as they are (their segments are
     * simply never allocated from again); their busy words no longer matter */
    for (heap_t *h = g_heaps; h; h = h->list_next) {
        mutex_init(&h->big, 0);
        mutex_init(&h->stw_mtx, 1);
        if (atomic_load(&h->lock_owner) != &tls_tld) {
            atomic_store(&h->lock_owner, NULL);
            h->lock_depth = 0;
            atomic_store(&h->stw, fence_mode ? 2 : 0);
        } else
            stw_lock(h);
    }
    tld_t *me = &tls_tld;
    g_tlds = NULL;
    me->tid = gettid_now();   /* (no locker waits across fork: it holds g_lock) */
    atomic_store(&me->piw, 0);
    if (me->inited) {
        me->next = me->prev = NULL;
        g_tlds = me;
    }
    mutex_init(&g_lock, 0);
    if (!fence_mode && syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
        fence_mode = 1;
}

/* The first heap call initialises under g_init_pi, a PI futex word: a thread that
 * arrives meanwhile sleeps on it and lends the initialising thread its priority (a
 * real-time thread spinning or yielding here could keep a lower-priority initialiser on
 * its CPU from ever finishing). */
static void global_init_slow(void)
{
    uint32_t me = gettid_now(), owner = 0;
    if (!atomic_compare_exchange_strong(&g_init_pi, &owner, me)) {
        if ((owner & FUTEX_TID_MASK) == me) {
            fprintf(stderr, "nspa heap: initialisation re-entered\n");
            abort();
        }
        long e;
        while ((e = nspa_futex(&g_init_pi, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0)) == -EINTR)
            ;
        if (e != 0) {                     /* no PI futexes here: poll, sleeping */
            while (!atomic_load_explicit(&g_init, memory_order_acquire)) {
                struct timespec ts = { 0, 100000 };
                nanosleep(&ts, NULL);
            }
            return;
        }
        NSPA_TSAN_ACQUIRE(&g_init_pi);
    }
    if (atomic_load_explicit(&g_init, memory_order_acquire)) {   /* done by the other */
        piw_unlock(&g_init_pi, me);
        return;
    }
    classes_init();
    /* nothing has used g_lock yet: every user calls global_init() first */
    pthread_mutexattr_init(&g_pi_attr);
    pthread_mutexattr_setprotocol(&g_pi_attr, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_init(&g_pi_robust_attr);
    pthread_mutexattr_setprotocol(&g_pi_robust_attr, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_setrobust(&g_pi_robust_attr, PTHREAD_MUTEX_ROBUST);
    mutex_init(&g_lock, 0);
    size_t mapsz = (size_t)1 << (SEGMAP_BITS - SEG_SHIFT);
    void *m = mmap(NULL, mapsz, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "nspa heap: cannot reserve the segment map\n");
        abort();
    }
    segmap = m;
    if (NSPA_TSAN || syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
        fence_mode = 1;
    if (!nspa_env_flag("NSPA_HEAP_LARGE_PAGES", 1))
        hugetlb_ok = 0;
    thp_opt = nspa_env_flag("NSPA_HEAP_THP", 0);
    pthread_key_create(&g_key, tld_destroy);
    heap_struct_init(&proc_heap, 0, 0);
    proc_heap.magic = HEAP_MAGIC;
    atomic_store(&proc_heap.serial, 1);
    g_heaps = &proc_heap;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    atomic_store_explicit(&g_init, 1, memory_order_release);
    piw_unlock(&g_init_pi, me);
}

/* ---------------------------------------------------------------------------------- */
/* large blocks                                                                       */
/* ---------------------------------------------------------------------------------- */

static void *huge_alloc(heap_t *h, size_t n, size_t align)
{
    size_t off = align > HUGE_HDR ? align : HUGE_HDR;
    if (n > ((size_t)1 << 46))
        return NULL;
    size_t map = (off + (n ? n : 1) + 4095) & ~(size_t)4095;
    int huge;
    seg_t *s = os_map_aligned(map, (h->flags & HEAP_CREATE_ENABLE_EXECUTE) != 0, &huge);
    if (!s)
        return NULL;
    s->magic = SEG_MAGIC;
    s->kind = SEG_HUGE;
    s->heap = h;
    s->map_size = map;
    s->huge_size = n;
    s->huge_off = off;
    atomic_fetch_add_explicit(&h->reserved, map, memory_order_relaxed);
    commit_add(h, (ptrdiff_t)map);
    pthread_mutex_lock(&h->big);
    seg_link_all(h, s);
    pthread_mutex_unlock(&h->big);
    atomic_store_explicit(&segmap[(uintptr_t)s >> SEG_SHIFT], SEG_HUGE, memory_order_release);
    return (uint8_t *)s + off;
}

static void huge_free(heap_t *h, seg_t *s)
{
    pthread_mutex_lock(&h->big);
    seg_unlink_all(h, s);
    pthread_mutex_unlock(&h->big);
    ST(segmap[(uintptr_t)s >> SEG_SHIFT], 0);
    atomic_fetch_sub_explicit(&h->reserved, s->map_size, memory_order_relaxed);
    commit_add(h, -(ptrdiff_t)s->map_size);
    munmap(s, s->map_size);
}

/* ---------------------------------------------------------------------------------- */
/* block lookup                                                                       */
/* ---------------------------------------------------------------------------------- */

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

/* ---------------------------------------------------------------------------------- */
/* alloc / free                                                                       */
/* ---------------------------------------------------------------------------------- */

static void *alloc_small_slow(tld_t *t, theap_t *th, unsigned c, size_t n, unsigned flags);

static inline int fixed_charge(heap_t *h, size_t bytes)
{
    size_t u = atomic_fetch_add_explicit(&h->fixed_used, bytes, memory_order_relaxed) + bytes;
    if (u > h->maximum) {
        atomic_fetch_sub_explicit(&h->fixed_used, bytes, memory_order_relaxed);
        return 0;
    }
    return 1;
}

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

static __attribute__((noinline)) void *heap_alloc_generic(heap_t *h, unsigned flags, size_t n, size_t align);

static __attribute__((noinline)) void *alloc_fast_miss(tld_t *t, theap_t *th, heap_t *h,
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

static __attribute__((noinline)) void *zero_block(void *b, size_t n)
{
    return memset(b, 0, n);
}

/* The fast paths' exits when stw is set: off the fast path, so that it needs no frame */
static __attribute__((noinline)) void *alloc_backoff(tld_t *t, heap_t *h, unsigned flags, size_t n)
{
    leave(t, h);
    return heap_alloc_generic(h, flags, n, 16);
}

static __attribute__((noinline)) void *alloc_leave_slow(tld_t *t, void *b, unsigned flags, size_t n)
{
    piw_check(t);
    if (unlikely(flags & HEAP_ZERO_MEMORY))
        memset(b, 0, n);
    return b;
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

static theap_t *shared_theap(heap_t *h)   /* stw_mtx held */
{
    if (!h->shared) {
        size_t sz = (sizeof(theap_t) + 4095) & ~(size_t)4095;
        theap_t *th = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (th == MAP_FAILED)
            return NULL;
        th->heap = h;
        th->token = 1;
        h->shared = th;
    }
    return h->shared;
}

/* Any size, any alignment, fixed heaps, first call of a thread. Never inlined: the
 * fast path that falls back to it then needs no stack frame. */
static __attribute__((noinline)) void *heap_alloc_generic(heap_t *h, unsigned flags, size_t n, size_t align)
{
    tld_t *t = tld_get();
    if (!heap_ok(h))
        return NULL;
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
        page_retire(th, pg, 1);
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

/* 0: not a live block (double free). fth: the calling thread's theap of this heap, if
 * it has one that may batch (NULL: push a remote free at once). w: the block's bitmap
 * word pair, c its class (from the segment: see heap_free_impl). */
static inline int free_core(tld_t *t, theap_t *fth, seg_t *s, page_t *pg, void *p, uint32_t i,
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
    /* remote: flip R first (the line comes over once, for writing), then read A; if
     * the bits were equal before, the block was not live: flip R back (only an
     * operation racing with this invalid free could see the moment) */
    uint64_t r = (uint64_t)flip_bit_relaxed(&w[1], i & 63) << (i & 63);
    uint64_t a = LD(w[0]) & bit;
    if (unlikely(!(a ^ r))) {
        atomic_fetch_xor_explicit(&w[1], bit, memory_order_relaxed);
        return 0;
    }
    if (fth && c < RB_SLOTS)
        rb_add(fth, pg, p);
    else
        remote_push(pg, p, p, 1);
    return 1;
}

/* Returns 1 freed, 0 rejected (bad_free already reported). */
static int heap_free_impl(heap_t *h, void *p);

static __attribute__((noinline, cold)) int fail_invalid_handle(void)
{
    SetLastError(ERROR_INVALID_HANDLE);
    return 0;
}

static __attribute__((noinline)) int free_local_slow_leave(tld_t *t, heap_t *h, theap_t *th, page_t *pg)
{
    free_local_slow(th, pg);
    leave(t, h);
    return 1;
}

static __attribute__((noinline)) int free_leave_slow(tld_t *t)
{
    piw_check(t);
    return 1;
}

static __attribute__((noinline)) int free_backoff(tld_t *t, heap_t *h, void *p)
{
    leave(t, h);
    return heap_free_impl(h, p);
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
    if (unlikely(LD(s->owner_tid) != t->self) || unlikely(s->heap != h))
        return heap_free_impl(h, p);
    if (unlikely(enter_fast(t, h)))
        return free_backoff(t, h, p);
    unsigned f = s->slice_first[(a >> SLICE_SHIFT) & (NSLICES - 1)];
    page_t *pg = &seg_pages(s)[f];
    uint32_t off = (uint32_t)(a - (uintptr_t)pg->start);
    uint32_t i = block_index(pg, p);
    /* f == 0 (a free slice, or slice 0) selects descriptor 0, which describes slice 0
     * (the metadata) and is never set up: its capacity stays 0, so the capacity check
     * rejects it */
    if (unlikely(i * pg->bsize != off) || unlikely(i >= pg->capacity))
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

static __attribute__((noinline)) int heap_free_impl(heap_t *h, void *p)
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
    uint32_t i = (uint32_t)(((uint64_t)off * cls_inv[c]) >> 40);
    if (unlikely(i * bsize != off) || unlikely(i >= cls_cap[c]))
        goto bad;
    page_t *pg = &seg_pages(s)[f];
    _Atomic uint64_t *w = (bsize >= SLICE_SIZE / 128 ? pg->bm_inline : seg_meta(s)->bm[f]) + 2 * (i >> 6);
    tld_t *t = &tls_tld;
    if (unlikely(!t->inited))
        t = tld_get();
    /* batch only with a theap that lives in the fast lookup (not fixed heaps' theaps
     * nor the shared one of exiting threads) */
    theap_t *fth = t->inited ? theap_lookup_fast(t, h) : NULL;
    op_begin(t, h);
    if (unlikely(!free_core(t, fth, s, pg, p, i, w, c))) {
        op_end(t, h);
        goto bad;
    }
    op_end(t, h);
    if (unlikely(h->maximum))
        atomic_fetch_sub_explicit(&h->fixed_used, bsize, memory_order_relaxed);
    return 1;
bad:
    bad_free(h, p);
    return 0;
}

/* ---------------------------------------------------------------------------------- */
/* public API                                                                         */
/* ---------------------------------------------------------------------------------- */

static inline heap_t *H(nspa_heap_t *x) { return (heap_t *)x; }

NSPA_EXPORT nspa_heap_t *nspa_heap_process(void)
{
    global_init();
    return (nspa_heap_t *)&proc_heap;
}

NSPA_EXPORT nspa_heap_t *nspa_heap_create(unsigned int flags, size_t initial, size_t maximum)
{
    global_init();
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
        if (!h) {
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return NULL;
        }
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
    return (nspa_heap_t *)h;
}

NSPA_EXPORT int nspa_heap_destroy(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    global_init();
    tld_t *t = tld_get();
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    if (h == &proc_heap) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
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
    heap_unlock_impl(t, h);
    pthread_mutex_lock(&g_lock);
    h->list_next = g_heap_pool;
    g_heap_pool = h;
    pthread_mutex_unlock(&g_lock);
    return 1;
}

NSPA_EXPORT void *nspa_heap_alloc(nspa_heap_t *h, unsigned int flags, size_t n)
{
    return heap_alloc_impl(H(h), flags, n);
}

NSPA_EXPORT void *nspa_heap_alloc_aligned(nspa_heap_t *h, unsigned int flags, size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1)) || align > SEG_SIZE / 2) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    if (align <= 16)
        return heap_alloc_impl(H(h), flags, n);
    return heap_alloc_generic(H(h), flags, n, align);
}

NSPA_EXPORT int nspa_heap_free(nspa_heap_t *h, unsigned int flags, void *p)
{
    return heap_free_fast(H(h), p);   /* NULL: TRUE, on the slow path */   /* checks the handle off its fast path */
}

static size_t block_size_of(heap_t *h, const void *p, int *kind, uint32_t *bsize)
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

NSPA_EXPORT void *nspa_heap_realloc(nspa_heap_t *hh, unsigned int flags, void *p, size_t n)
{
    heap_t *h = H(hh);
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return NULL;
    }
    if (!p) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    int kind;
    uint32_t bsize;
    size_t old = block_size_of(h, p, &kind, &bsize);
    if (old == (size_t)-1) {
        bad_free(h, p);
        return NULL;
    }
    unsigned eff = flags | h->flags;
    if (n >= ((size_t)1 << 46) || (h->maximum && n >= FIXED_MAX_BLOCK)) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return alloc_failed(h, flags);
    }
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
    if (flags & HEAP_REALLOC_IN_PLACE_ONLY) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return alloc_failed(h, flags);
    }
    void *q = heap_alloc_impl(h, flags & ~(unsigned)(HEAP_ZERO_MEMORY | HEAP_GENERATE_EXCEPTIONS), n);
    if (!q) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return alloc_failed(h, flags);
    }
    memcpy(q, p, old < n ? old : n);
    if ((eff & HEAP_ZERO_MEMORY) && n > old)
        memset((uint8_t *)q + old, 0, n - old);
    heap_free_impl(h, p);
    return q;
}

/* ---------------------------------------------------------------------------------- */
/* validate, walk, compact, stats (world stopped)                                      */
/* ---------------------------------------------------------------------------------- */

/* World stopped: mark the page's free blocks (local and thread-free lists) in fm.
 * Returns 0 if a list leaves the page, is misaligned, repeats a block or loops. */
static int page_free_map(page_t *pg, uint64_t *fm, uint32_t *nlocal, uint32_t *npend)
{
    memset(fm, 0, BM_WORDS * sizeof(uint64_t));
    if (pg->capacity > pg->reserved || pg->reserved > MAX_BLOCKS || pg->used > pg->capacity)
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
        return 0;
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
    return ok;
}

NSPA_EXPORT int nspa_heap_lock(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    heap_lock_impl(tld_get(), h);
    return 1;
}

NSPA_EXPORT int nspa_heap_unlock(nspa_heap_t *hh)
{
    heap_t *h = H(hh);
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    if (!heap_unlock_impl(tld_get(), h)) {
        SetLastError(ERROR_NOT_LOCKED);
        return 0;
    }
    return 1;
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
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    if (!e) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    pthread_mutex_lock(&h->big);
    int r = walk_step(h, e);
    pthread_mutex_unlock(&h->big);
    heap_unlock_impl(t, h);
    if (r == 1)
        return 1;
    SetLastError(r == 0 ? ERROR_NO_MORE_ITEMS : ERROR_INVALID_PARAMETER);
    return 0;
}

static size_t heap_compact_locked(heap_t *h)
{
    size_t best = 0;
    pthread_mutex_lock(&h->big);
    for (seg_t *s = h->segs; s; s = s->all_next) {
        if (s->kind != SEG_NORMAL)
            continue;
        seg_purge(h, s);
        for (unsigned si = 1; si < NSLICES; si++) {
            page_t *pg = &seg_pages(s)[si];
            if (s->slice_first[si] == si && pg->bsize) {
                page_collect(pg);   /* world stopped: we may act as the owner */
                if (pg->free && pg->bsize > best)
                    best = pg->bsize;
            }
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
    pthread_mutex_unlock(&h->big);
    for (theap_t *th = h->theaps; th; th = th->hnext)
        th->dirty_slices = 0;
    return best;
}

NSPA_EXPORT size_t nspa_heap_compact(nspa_heap_t *hh, unsigned int flags)
{
    heap_t *h = H(hh);
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    tld_t *t = tld_get();
    heap_lock_impl(t, h);
    size_t r = heap_compact_locked(h);
    heap_unlock_impl(t, h);
    if (!r)
        SetLastError(NO_ERROR);
    return r;
}

NSPA_EXPORT int nspa_heap_set_information(nspa_heap_t *hh, int cls, const void *info, size_t len)
{
    heap_t *h = H(hh);
    global_init();
    if (cls == NSPA_HEAP_INFO_TERMINATE_ON_CORRUPTION) {
        terminate_on_corruption = 1;
        return 1;
    }
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    if (cls == NSPA_HEAP_INFO_COMPATIBILITY) {
        if (!info || len < sizeof(unsigned int)) {
            SetLastError(ERROR_INSUFFICIENT_BUFFER);
            return 0;
        }
        unsigned v;
        memcpy(&v, info, sizeof v);
        if (v == 0 || (v == 2 && !(h->flags & HEAP_NO_SERIALIZE)))
            return 1;
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (cls == NSPA_HEAP_INFO_OPTIMIZE_RESOURCES) {
        nspa_heap_compact(hh, 0);
        return 1;
    }
    SetLastError(ERROR_INVALID_PARAMETER);
    return 0;
}

NSPA_EXPORT int nspa_heap_query_information(nspa_heap_t *hh, int cls, void *info, size_t len,
                                            size_t *ret_len)
{
    heap_t *h = H(hh);
    if (!heap_ok(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
    if (cls != NSPA_HEAP_INFO_COMPATIBILITY) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (ret_len)
        *ret_len = sizeof(unsigned int);
    if (!info || len < sizeof(unsigned int)) {
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        return 0;
    }
    unsigned v = (h->flags & HEAP_NO_SERIALIZE) ? 0 : 2;
    memcpy(info, &v, sizeof v);
    return 1;
}

NSPA_EXPORT int nspa_heap_stats(nspa_heap_t *hh, struct nspa_heap_stats *st)
{
    heap_t *h = H(hh);
    if (!heap_ok(h) || !st) {
        SetLastError(ERROR_INVALID_HANDLE);
        return 0;
    }
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
    return 1;
}

/* ---------------------------------------------------------------------------------- */
/* Win32 names                                                                        */
/* ---------------------------------------------------------------------------------- */

NSPA_EXPORT HANDLE WINAPI GetProcessHeap(void) { return nspa_heap_process(); }
NSPA_EXPORT HANDLE WINAPI HeapCreate(DWORD f, SIZE_T init, SIZE_T max)
{ return nspa_heap_create(f, init, max); }
NSPA_EXPORT BOOL WINAPI HeapDestroy(HANDLE h) { return nspa_heap_destroy(h); }
NSPA_EXPORT LPVOID WINAPI HeapAlloc(HANDLE h, DWORD f, SIZE_T n) { return heap_alloc_impl(h, f, n); }
NSPA_EXPORT BOOL WINAPI HeapFree(HANDLE h, DWORD f, LPVOID p)
{
    return heap_free_fast(h, p);   /* checks the handle off its fast path; NULL: TRUE */
}
NSPA_EXPORT LPVOID WINAPI HeapReAlloc(HANDLE h, DWORD f, LPVOID p, SIZE_T n)
{ return nspa_heap_realloc(h, f, p, n); }
NSPA_EXPORT SIZE_T WINAPI HeapSize(HANDLE h, DWORD f, LPCVOID p) { return nspa_heap_size(h, f, p); }
NSPA_EXPORT BOOL WINAPI HeapValidate(HANDLE h, DWORD f, LPCVOID p) { return nspa_heap_validate(h, f, p); }
NSPA_EXPORT BOOL WINAPI HeapWalk(HANDLE h, LPPROCESS_HEAP_ENTRY e)
{ return nspa_heap_walk(h, (struct nspa_heap_entry *)e); }
NSPA_EXPORT BOOL WINAPI HeapLock(HANDLE h) { return nspa_heap_lock(h); }
NSPA_EXPORT BOOL WINAPI HeapUnlock(HANDLE h) { return nspa_heap_unlock(h); }
NSPA_EXPORT SIZE_T WINAPI HeapCompact(HANDLE h, DWORD f) { return nspa_heap_compact(h, f); }
NSPA_EXPORT BOOL WINAPI HeapSetInformation(HANDLE h, HEAP_INFORMATION_CLASS c, PVOID info, SIZE_T len)
{ return nspa_heap_set_information(h, (int)c, info, len); }
NSPA_EXPORT BOOL WINAPI HeapQueryInformation(HANDLE h, HEAP_INFORMATION_CLASS c, PVOID info, SIZE_T len,
                                             PSIZE_T ret)
{ return nspa_heap_query_information(h, (int)c, info, len, ret); }

_Static_assert(sizeof(struct nspa_heap_entry) == sizeof(PROCESS_HEAP_ENTRY), "entry layout");
