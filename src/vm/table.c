/*
 * The region table: which allocation record covers an address, readable with no lock.
 *
 * A two-level radix over the 47-bit user address space at the 64 KiB allocation
 * granularity: l1[addr >> 32] points to a 512 KiB leaf (65536 record pointers, one per
 * granule of that 4 GiB), mapped on first use and never given back. A record is
 * published by release-storing its pointer into every granule it covers; readers
 * acquire-load. Writers (VirtualAlloc/Free/Protect, MapViewOfFile...) are serialised
 * by one PI mutex (a real-time writer boosts a preempted one); the fault path never
 * takes it. Retired records wait in a list until no reader section is open.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"

#define L1_BITS   15
#define L2_BITS   16
#define L2_SIZE   ((size_t)1 << L2_BITS)

static _Atomic(struct vm_rec *_Atomic *) l1[1u << L1_BITS];
static _Atomic unsigned readers;
static struct vm_rec *retired;               /* under vm_lock */
static pthread_mutex_t wlock;
static pthread_once_t wlock_once = PTHREAD_ONCE_INIT;

/* ---- reader sections ------------------------------------------------------------------ */

NSPA_HIDDEN void vm_read_enter(void) { atomic_fetch_add_explicit(&readers, 1, memory_order_seq_cst); }
NSPA_HIDDEN void vm_read_exit(void) { atomic_fetch_sub_explicit(&readers, 1, memory_order_release); }
NSPA_HIDDEN int vm_readers_idle(void) { return atomic_load_explicit(&readers, memory_order_seq_cst) == 0; }

/* ---- the writers' lock ------------------------------------------------------------------ */

static void wlock_init(void) { nspa_pi_mutex_init(&wlock); }

/* fork: the writers' lock is taken around it, so the child never inherits it held by a
 * thread that does not exist there; a PI mutex records its owner's tid, which the child
 * does not share, so the child makes the lock anew */
static void fork_prepare(void) { vm_lock(); }
static void fork_parent(void) { vm_unlock(); }
static void fork_child(void) { nspa_pi_mutex_init(&wlock); }

__attribute__((constructor)) static void vm_fork_hooks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

NSPA_HIDDEN void vm_lock(void)
{
    pthread_once(&wlock_once, wlock_init);
    pthread_mutex_lock(&wlock);
}

NSPA_HIDDEN void vm_unlock(void) { pthread_mutex_unlock(&wlock); }

/* ---- lookup ---------------------------------------------------------------------------- */

NSPA_HIDDEN struct vm_rec *vm_find(uintptr_t addr)
{
    if (addr >= ((uintptr_t)1 << (L1_BITS + 32))) return NULL;
    struct vm_rec *_Atomic *leaf = atomic_load_explicit(&l1[addr >> 32], memory_order_acquire);
    if (!leaf) return NULL;
    struct vm_rec *r = atomic_load_explicit(&leaf[(addr >> 16) & (L2_SIZE - 1)], memory_order_acquire);
    if (r && addr - r->base < r->size) return r;
    return NULL;
}

NSPA_HIDDEN struct vm_rec *vm_find_granule(uintptr_t addr)
{
    if (addr >= ((uintptr_t)1 << (L1_BITS + 32))) return NULL;
    struct vm_rec *_Atomic *leaf = atomic_load_explicit(&l1[addr >> 32], memory_order_acquire);
    return leaf ? atomic_load_explicit(&leaf[(addr >> 16) & (L2_SIZE - 1)], memory_order_acquire) : NULL;
}

NSPA_HIDDEN struct vm_rec *vm_find_next(uintptr_t addr, uintptr_t limit)
{
    addr = (addr + VM_GRAN - 1) & ~(VM_GRAN - 1);
    while (addr < limit && addr < ((uintptr_t)1 << (L1_BITS + 32))) {
        struct vm_rec *_Atomic *leaf = atomic_load_explicit(&l1[addr >> 32], memory_order_acquire);
        if (!leaf) {                          /* skip the whole empty 4 GiB */
            addr = ((addr >> 32) + 1) << 32;
            continue;
        }
        struct vm_rec *r = atomic_load_explicit(&leaf[(addr >> 16) & (L2_SIZE - 1)], memory_order_acquire);
        if (r && r->base == addr) return r;
        addr += VM_GRAN;
    }
    return NULL;
}

/* ---- records --------------------------------------------------------------------------- */

/* One-page headers (allocations up to ~8 MiB) are recycled: a VirtualAlloc / VirtualFree
 * pair then costs the user mapping's two system calls and nothing more. */
static struct vm_rec *small_free;            /* under vm_lock */
static unsigned small_count;

NSPA_HIDDEN struct vm_rec *vm_rec_new(uintptr_t base, size_t size, uint32_t alloc_prot,
                                      uint32_t flags, size_t lpage)
{
    /* the page-state array is demand-zero memory: reserving 64 GiB costs its 32 MiB
     * of page states only as address space */
    size_t states = (size / VM_PAGE) * sizeof(uint16_t);
    size_t len = sizeof(struct vm_rec) + states;
    len = (len + VM_PAGE - 1) & ~(VM_PAGE - 1);
    struct vm_rec *r;
    if (len == VM_PAGE && small_free) {
        r = small_free;
        small_free = r->retired_next;
        small_count--;
        memset(r->pages, 0, states);
    } else {
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) return NULL;
        r = m;
    }
    r->base = base;
    r->size = size;
    r->map_len = len;
    r->lpage = lpage;
    r->alloc_prot = alloc_prot;
    r->flags = flags;
    r->retired_next = NULL;
    return r;
}

NSPA_HIDDEN void vm_rec_free(struct vm_rec *r)
{
    if (r->map_len == VM_PAGE && small_count < 256) {
        /* whatever the last user left in the states is cleared when it is reused */
        r->retired_next = small_free;
        small_free = r;
        small_count++;
        return;
    }
    munmap(r, r->map_len);
}

static struct vm_rec *_Atomic *leaf_for(uintptr_t addr, int make)
{
    struct vm_rec *_Atomic *leaf = atomic_load_explicit(&l1[addr >> 32], memory_order_acquire);
    if (leaf || !make) return leaf;
    void *m = mmap(NULL, L2_SIZE * sizeof(void *), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    leaf = m;
    atomic_store_explicit(&l1[addr >> 32], leaf, memory_order_release);
    return leaf;
}

static void set_range(struct vm_rec *r, struct vm_rec *val)
{
    for (uintptr_t a = r->base; a < r->base + r->size; a += VM_GRAN) {
        struct vm_rec *_Atomic *leaf = leaf_for(a, 0);
        if (leaf) atomic_store_explicit(&leaf[(a >> 16) & (L2_SIZE - 1)], val, memory_order_release);
    }
}

NSPA_HIDDEN int vm_publish(struct vm_rec *r)
{
    /* make every leaf first, so that a failure leaves nothing half-published */
    for (uintptr_t a = r->base; a < r->base + r->size; a = ((a >> 32) + 1) << 32)
        if (!leaf_for(a, 1)) return -ENOMEM;
    set_range(r, r);
    return 0;
}

NSPA_HIDDEN void vm_unpublish(struct vm_rec *r)
{
    set_range(r, NULL);
    atomic_thread_fence(memory_order_seq_cst);
}

NSPA_HIDDEN void vm_retire(struct vm_rec *r)
{
    if (vm_readers_idle()) {                  /* seen after the unpublish: nobody holds r */
        munmap((void *)r->base, vm_rec_span(r));
        vm_rec_free(r);
        vm_reclaim();
        return;
    }
    /* drop the memory now (Windows frees it at once); keep the addresses reserved so that
     * a fault handler still inside a reader section never mprotects someone else's
     * mapping placed there meanwhile */
    mmap((void *)r->base, vm_rec_span(r), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    r->retired_next = retired;
    retired = r;
}

NSPA_HIDDEN void vm_reclaim(void)
{
    if (!retired || !vm_readers_idle()) return;
    struct vm_rec *r = retired;
    retired = NULL;
    while (r) {
        struct vm_rec *next = r->retired_next;
        munmap((void *)r->base, vm_rec_span(r));
        vm_rec_free(r);
        r = next;
    }
}

/* ---- page states and the kernel's protection -------------------------------------------- */

NSPA_HIDDEN int vm_ps_prot(const struct vm_rec *r, uint16_t ps)
{
    if (!(ps & PS_COMMIT) || (ps & PS_GUARD)) return PROT_NONE;
    int p;
    switch (ps & PS_BASE_MASK) {
    case PAGE_READONLY:          p = PROT_READ; break;
    case PAGE_READWRITE:
    case PAGE_WRITECOPY:         p = PROT_READ | PROT_WRITE; break;
    case PAGE_EXECUTE:           p = PROT_EXEC; break;
    case PAGE_EXECUTE_READ:      p = PROT_READ | PROT_EXEC; break;
    case PAGE_EXECUTE_READWRITE:
    case PAGE_EXECUTE_WRITECOPY: p = PROT_READ | PROT_WRITE | PROT_EXEC; break;
    default:                     p = PROT_NONE; break;
    }
    if ((r->flags & VR_WRITE_WATCH) && !(ps & PS_DIRTY)) p &= ~PROT_WRITE;
    return p;
}
/* a page state changed (vm_internal.h): fault.c tells a retried fault from a loop by it */
NSPA_HIDDEN _Atomic uint32_t vm_state_seq;


NSPA_HIDDEN void vm_sync_page(struct vm_rec *r, size_t page)
{
    /* Whoever changes a page state stores it and then calls this; a fault handler that
     * read an older state re-reads after its mprotect, so the last mprotect of anyone
     * matches the last state (docs/vm.md, "The fault path"). */
    size_t step = r->lpage > VM_PAGE ? r->lpage : VM_PAGE;
    uintptr_t a = (r->base + page * VM_PAGE) & ~(step - 1);
    uint16_t ps = atomic_load_explicit(&r->pages[page], memory_order_acquire);
    for (int i = 0; i < 64; i++) {
        mprotect((void *)a, step, vm_ps_prot(r, ps));
        uint16_t now = atomic_load_explicit(&r->pages[page], memory_order_acquire);
        if (now == ps) return;
        ps = now;
    }
}

NSPA_HIDDEN int vm_prot_valid(uint32_t prot)
{
    uint32_t base = prot & PS_BASE_MASK, mods = prot & ~PS_BASE_MASK;
    if (base == 0 || (base & (base - 1))) return 0;   /* exactly one base protection */
    if (mods & ~(PAGE_GUARD | PAGE_NOCACHE | PAGE_WRITECOMBINE)) return 0;
    if ((mods & PAGE_NOCACHE) && (mods & PAGE_WRITECOMBINE)) return 0;
    if ((mods & PAGE_GUARD) && (mods & (PAGE_NOCACHE | PAGE_WRITECOMBINE))) return 0;
    if (base == PAGE_NOACCESS && mods) return 0;
    return 1;
}
