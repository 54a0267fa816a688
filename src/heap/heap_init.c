/* NSPA heap: globals, size classes, errors, first-call initialisation and fork.
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
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include "heap_inline.h"
#include "nspa/win32/ntstatus.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/mman.h>
#include <linux/membarrier.h>

/* ---------------------------------------------------------------------------------- */
/* globals                                                                            */
/* ---------------------------------------------------------------------------------- */

uint32_t cls_size[NCLASS];
uint64_t cls_inv[NCLASS];
uint32_t cls_cap[NCLASS];
uint8_t  cls_small[65];
uint8_t  cls_slices[NCLASS];
_Atomic unsigned char *segmap;
_Atomic int g_init;
static _Atomic uint32_t g_init_pi;             /* PI futex word held while initialising */
int fence_mode;
int hugetlb_ok = 1;
int thp_opt;
int prefetchw_ok;
int terminate_on_corruption;
pthread_key_t g_key;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;   /* made PI at initialisation */
pthread_mutex_t theap_pool_mtx = PTHREAD_MUTEX_INITIALIZER;   /* likewise */
static pthread_mutexattr_t g_pi_attr;          /* the heap's mutexes inherit priority */
static pthread_mutexattr_t g_pi_robust_attr;   /* stw_mtx: also robust (stw_lock) */
tld_t *g_tlds;
heap_t *g_heaps;
heap_t *g_heap_pool;
heap_t proc_heap;
_Atomic uintptr_t g_heap_area;
_Atomic unsigned  g_heap_carved;
nspa_heap_exception_fn g_exc_handler;

__thread tld_t tls_tld __attribute__((tls_model("initial-exec"))) = { .self = 2 };

/* ---------------------------------------------------------------------------------- */
/* size classes                                                                       */
/* ---------------------------------------------------------------------------------- */

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

void bad_free(heap_t *h, const void *p)
{
    if (heap_ok(h))
        atomic_fetch_add_explicit(&h->bad_frees, 1, memory_order_relaxed);
    if (terminate_on_corruption) {
        fprintf(stderr, "nspa heap: invalid or double free of %p (STATUS_HEAP_CORRUPTION)\n", p);
        abort();
    }
}

void *alloc_failed(heap_t *h, unsigned flags)
{
    if ((flags | (h ? h->flags : 0)) & HEAP_GENERATE_EXCEPTIONS) {
        nspa_heap_exception_fn fn = __atomic_load_n(&g_exc_handler, __ATOMIC_ACQUIRE);
        if (fn)
            fn((unsigned)STATUS_NO_MEMORY, (nspa_heap_t *)h);
        /* no handler, or it returned: the library never aborts on exhaustion (NT would
         * raise an exception nobody handles here), so the caller gets NULL */
    }
    if (flags & HEAP_X_ERRNO)
        errno = ENOMEM;
    return NULL;   /* HeapAlloc does not set the last error (as on Windows) */
}

NSPA_EXPORT nspa_heap_exception_fn nspa_heap_set_exception_handler(nspa_heap_exception_fn fn)
{
    return __atomic_exchange_n(&g_exc_handler, fn, __ATOMIC_ACQ_REL);
}

/* ---------------------------------------------------------------------------------- */
/* init, fork                                                                         */
/* ---------------------------------------------------------------------------------- */

/* The heap's mutexes inherit priority: a real-time thread that waits for HeapUnlock, or
 * for a thread holding the registry or a heap's segment lists, boosts the holder (a
 * middle priority would starve it otherwise). Uncontended, a PI mutex is a
 * compare-exchange like any other; the kernel is only asked when there is a waiter. */
void heap_mutex_init(pthread_mutex_t *m, int robust)
{
    if (pthread_mutex_init(m, robust ? &g_pi_robust_attr : &g_pi_attr) != 0)   /* no PI futexes */
        pthread_mutex_init(m, NULL);
}

void heap_struct_init(heap_t *h, unsigned flags, size_t maximum)
{
    heap_mutex_init(&h->stw_mtx, 1);
    heap_mutex_init(&h->big, 0);
    h->flags = flags;
    h->maximum = maximum;
    ST(h->fixed_used, 0);
    ST(h->stw, fence_mode ? 2 : 0);
    atomic_store(&h->lock_owner, NULL);
    h->lock_depth = 0;
    h->segs = h->orphans = NULL;
    h->theaps = NULL;
    h->shared = NULL;
    h->huge_cache = NULL;
    h->huge_cached = 0;
    h->huge_ncached = 0;
    ST(h->huge_age_at, 0);
    ST(h->orphan_purge_at, 0);
    h->adopted_at = 0;
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
    pthread_mutex_lock(&theap_pool_mtx);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&theap_pool_mtx);
    for (heap_t *h = g_heaps; h; h = h->list_next)
        pthread_mutex_unlock(&h->big);
    pthread_mutex_unlock(&g_lock);
}

static void atfork_child(void)
{
    /* only this thread survives: the others' theaps stay as they are (their segments are
     * simply never allocated from again); their busy words no longer matter */
    for (heap_t *h = g_heaps; h; h = h->list_next) {
        heap_mutex_init(&h->big, 0);
        heap_mutex_init(&h->stw_mtx, 1);
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
    heap_mutex_init(&g_lock, 0);
    heap_mutex_init(&theap_pool_mtx, 0);
    if (!fence_mode && syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
        fence_mode = 1;
}

/* PREFETCHW (CPUID 0x80000001 ECX bit 8): the remote free asks for a block's line in
 * exclusive state ahead of the link store its batch's push makes (heap_alloc.c,
 * heap_free_impl). Only where the CPU reports it: older x86-64 CPUs need not treat the
 * opcode as a no-op. */
static int cpu_has_prefetchw(void)
{
#if defined(__x86_64__) && !NSPA_TSAN
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d))
        return (c >> 8) & 1;
#endif
    return 0;
}

/* The first heap call initialises under g_init_pi, a PI futex word: a thread that
 * arrives meanwhile sleeps on it and lends the initialising thread its priority (a
 * real-time thread spinning or yielding here could keep a lower-priority initialiser on
 * its CPU from ever finishing). If the segment map cannot be reserved, or the thread key
 * or fork handlers cannot be set up, nothing stays reserved and the call fails with
 * -ENOMEM (its caller reports exhaustion); the next heap call tries again. A heap call
 * made by the initialisation itself (a malloc from inside pthread_atfork through the
 * shim) fails the same way instead of waiting for itself. */
int global_init_slow(void)
{
    uint32_t me = gettid_now();
    for (;;) {
        uint32_t owner = 0;
        if (atomic_compare_exchange_strong(&g_init_pi, &owner, me))
            break;
        if ((owner & FUTEX_TID_MASK) == me)
            return -ENOMEM;                   /* re-entered from our own initialisation */
        long e;
        while ((e = nspa_futex(&g_init_pi, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0)) == -EINTR)
            ;
        if (e == 0) {
            NSPA_TSAN_ACQUIRE(&g_init_pi);
            break;
        }
        /* no PI futexes here: poll, sleeping, until it is done or has failed */
        while (!atomic_load_explicit(&g_init, memory_order_acquire) && atomic_load(&g_init_pi)) {
            struct timespec ts = { 0, 100000 };
            nanosleep(&ts, NULL);
        }
        if (atomic_load_explicit(&g_init, memory_order_acquire))
            return 0;
    }
    if (atomic_load_explicit(&g_init, memory_order_acquire)) {   /* done by the other */
        piw_unlock(&g_init_pi, me);
        return 0;
    }
    classes_init();
    /* nothing has used g_lock yet: every user calls global_init() first */
    pthread_mutexattr_init(&g_pi_attr);
    pthread_mutexattr_setprotocol(&g_pi_attr, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_init(&g_pi_robust_attr);
    pthread_mutexattr_setprotocol(&g_pi_robust_attr, PTHREAD_PRIO_INHERIT);
    pthread_mutexattr_setrobust(&g_pi_robust_attr, PTHREAD_MUTEX_ROBUST);
    heap_mutex_init(&g_lock, 0);
    heap_mutex_init(&theap_pool_mtx, 0);
    size_t mapsz = (size_t)1 << (SEGMAP_BITS - SEG_SHIFT);
    void *m = mmap(NULL, mapsz, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        goto fail;
    if (pthread_key_create(&g_key, tld_destroy) != 0)
        goto fail_unmap;
    /* fork handlers cannot be removed again: registered last */
    if (pthread_atfork(atfork_prepare, atfork_parent, atfork_child) != 0)
        goto fail_key;
    segmap = m;
    if (NSPA_TSAN || syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0)
        fence_mode = 1;
    if (!nspa_env_flag("NSPA_HEAP_LARGE_PAGES", 1))
        hugetlb_ok = 0;
    thp_opt = nspa_env_flag("NSPA_HEAP_THP", 0);
    prefetchw_ok = cpu_has_prefetchw();
    heap_struct_init(&proc_heap, 0, 0);
    proc_heap.magic = HEAP_MAGIC;
    atomic_store(&proc_heap.serial, 1);
    g_heaps = &proc_heap;
    atomic_store_explicit(&g_init, 1, memory_order_release);
    piw_unlock(&g_init_pi, me);
    return 0;
fail_key:
    pthread_key_delete(g_key);
fail_unmap:
    munmap(m, mapsz);
fail:
    piw_unlock(&g_init_pi, me);
    return -ENOMEM;
}
