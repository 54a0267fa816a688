/*
 * The vm module's private interface (docs/vm.md): the region table, the page states,
 * the reader sections that make the table readable on the fault path without a lock,
 * the fault handler and the exception dispatcher. Every function shared between files
 * of src/vm/ is declared here, once.
 */
#ifndef NSPA_VM_INTERNAL_H
#define NSPA_VM_INTERNAL_H
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "common/export.h"
#include "nspa/vm.h"
#include "common/platform.h"

#define VM_PAGE        4096ul
#define VM_GRAN        65536ul               /* allocation granularity */
#define VM_USER_MAX    0x7fffffff0000ul      /* Windows' highest user address + 1 */

/* ---- page state: one 16-bit word per 4 KiB page of a record ----------------------------
 * The low 11 bits are the Win32 protection with its modifiers (PAGE_*, PAGE_GUARD,
 * PAGE_NOCACHE, PAGE_WRITECOMBINE); the high bits are NSPA's. A page state is written
 * by a writer (under vm_lock) and by the fault path (guard and dirty bits, by CAS). */
#define PS_PROT_MASK   0x07ffu
#define PS_BASE_MASK   0x00ffu
#define PS_GUARD       0x0100u               /* = PAGE_GUARD */
#define PS_COMMIT      0x8000u
#define PS_LOCKED      0x4000u               /* VirtualLock'ed */
#define PS_DIRTY       0x2000u               /* write watch: written since the last reset */

/* record flags */
#define VR_WRITE_WATCH 0x01u
#define VR_LARGE       0x02u                 /* hugetlb pages */
#define VR_VIEW        0x04u                 /* a view of a file mapping (MEM_MAPPED) */

/* One allocation (a VirtualAlloc reservation or a mapped view). Immutable after it is
 * published except the page states; freed only through the reader sections (vm_retire). */
struct vm_rec {
    uintptr_t base;                          /* 64 KiB aligned */
    size_t    size;                          /* page multiple */
    size_t    map_len;                       /* bytes of this header mapping */
    size_t    lpage;                         /* page size of the backing (4K, 2M, 1G) */
    uint32_t  alloc_prot;                    /* AllocationProtect */
    uint32_t  flags;                         /* VR_* */
    struct vm_rec *retired_next;
    _Atomic uint16_t pages[];                /* size / VM_PAGE page states */
};

/* ---- reader sections (rcu.c) ---------------------------------------------------------
 * A reader (the fault path, VirtualQuery, the handler lists) brackets its reads with
 * vm_read_enter/exit: one atomic increment and decrement of a counter, no lock, no
 * system call. A writer unpublishes a pointer and retires what it pointed to; retired
 * memory is given back only when the counter is seen at zero after the unpublish, so no
 * reader can still hold it (a reader that enters later loads the new pointer: the
 * counter increment and the pointer store are sequentially consistent). A writer never
 * waits for readers: a handler may itself free memory or remove a handler. */
NSPA_HIDDEN void vm_read_enter(void);
NSPA_HIDDEN void vm_read_exit(void);
/* 1 when no reader is inside a section now (callers then free what they retired) */
NSPA_HIDDEN int vm_readers_idle(void);

/* ---- the region table (table.c) -------------------------------------------------------- */
/* writers of the table (alloc, free, protect, map, unmap) hold vm_lock (a PI mutex) */
NSPA_HIDDEN void vm_lock(void);
/* a process-private priority-inheriting mutex (the writers' and the handler lists' locks) */
NSPA_HIDDEN void vm_unlock(void);
/* the record covering addr, or NULL; call inside a reader section or under vm_lock */
NSPA_HIDDEN struct vm_rec *vm_find(uintptr_t addr);
/* the record owning addr's 64 KiB granule (addr may lie in the unusable tail past its
 * size), or NULL */
NSPA_HIDDEN struct vm_rec *vm_find_granule(uintptr_t addr);
/* the bytes a record holds in the kernel: its size, up to the granule (large: its size) */
static inline size_t vm_rec_span(const struct vm_rec *r)
{
    return (r->flags & VR_LARGE) ? r->size : (r->size + VM_GRAN - 1) & ~(VM_GRAN - 1);
}
/* the first record whose base is >= addr and < limit, or NULL (VirtualQuery of free space) */
NSPA_HIDDEN struct vm_rec *vm_find_next(uintptr_t addr, uintptr_t limit);
/* a new record (not published) for [base, base + size); NULL when out of memory */
NSPA_HIDDEN struct vm_rec *vm_rec_new(uintptr_t base, size_t size, uint32_t alloc_prot,
                                      uint32_t flags, size_t lpage);
/* give a record's header back (recycled or unmapped; under vm_lock) */
NSPA_HIDDEN void vm_rec_free(struct vm_rec *r);
/* publish / unpublish a record in the table (under vm_lock); 0 or -ENOMEM */
NSPA_HIDDEN int vm_publish(struct vm_rec *r);
NSPA_HIDDEN void vm_unpublish(struct vm_rec *r);
/* retire an unpublished record: its user range [base, base + size) is kept reserved
 * (PROT_NONE) until no reader can be looking at it, then unmapped with the header */
NSPA_HIDDEN void vm_retire(struct vm_rec *r);
/* give back what vm_retire kept, if no reader is inside (under vm_lock) */
NSPA_HIDDEN void vm_reclaim(void);

/* the PROT_* a page state maps to (0 for reserved or guard pages; no write for a
 * write-watched page not yet dirty) */
NSPA_HIDDEN int vm_ps_prot(const struct vm_rec *r, uint16_t ps);
/* make the kernel's protection of one page agree with its page state, however the state
 * changes meanwhile (async-signal-safe; the fault path's and writers' common step) */
NSPA_HIDDEN void vm_sync_page(struct vm_rec *r, size_t page);
/* bumped at every change of a page state (protect, commit, a guard taken, a page marked
 * dirty): a fault retried at one address is a loop only while nothing changed (fault.c) */
NSPA_HIDDEN extern _Atomic uint32_t vm_state_seq;
static inline void vm_state_changed(void) { atomic_fetch_add_explicit(&vm_state_seq, 1, memory_order_release); }
/* is the Win32 protection valid for VirtualAlloc/VirtualProtect (1) */
NSPA_HIDDEN int vm_prot_valid(uint32_t prot);
/* the process's privilege to lock memory and use large pages is enabled (large.c) */
NSPA_HIDDEN int vm_lock_privilege_enabled(void);
/* the process may lock memory (CAP_IPC_LOCK or an unlimited RLIMIT_MEMLOCK) */
NSPA_HIDDEN int vm_lock_privilege_held(void);
/* the kernel page size and the locked flag of the mapping at addr (/proc/self/smaps) */
NSPA_HIDDEN int vm_smaps_info(uintptr_t addr, size_t *kpage, int *locked);
/* the huge page size for a large-page request (2 MiB, or 1 GiB when giant), 0 if none */
NSPA_HIDDEN size_t vm_huge_size(int giant);

/* ---- mapping (alloc.c) ---------------------------------------------------------------- */
/* reserve len bytes at a 64 KiB aligned address (at want if non-zero), PROT_NONE, with
 * the given extra mmap flags and fd (-1 for anonymous); alignment is 0 or a power of two
 * >= 64 KiB; returns the address or MAP_FAILED with errno set */
NSPA_HIDDEN void *vm_map_aligned(uintptr_t want, size_t len, size_t align, int prot,
                                 int flags, int fd, off_t off);
/* a released range: the next allocation of that size may go there (one system call) */
NSPA_HIDDEN void vm_place_hint(uintptr_t base, size_t len);
/* create and publish a record for a mapping just made (under vm_lock); 0 or -errno */
NSPA_HIDDEN int vm_add_record(void *base, size_t size, uint32_t alloc_prot, uint32_t flags,
                              size_t lpage, uint16_t initial_ps, struct vm_rec **out);

/* ---- faults and exceptions (fault.c, except.c) ------------------------------------------ */
/* install the process's fault handlers once (idempotent, thread-safe); 0 or -errno */
NSPA_HIDDEN int vm_fault_install(void);
NSPA_HIDDEN int vm_faults_installed(void);   /* 1 once guard pages / watches may exist */
/* give the calling thread its alternate signal stack if it has none (idempotent) */
NSPA_HIDDEN void vm_thread_altstack(void);
/* what the fault path decided about a fault in a table region */
enum vm_fault_kind { VF_RETRY, VF_GUARD, VF_ACCESS };
NSPA_HIDDEN enum vm_fault_kind vm_fault_classify(uintptr_t addr, int write, int exec);
/* dispatch an exception on the current thread: the vectored handlers, the continue
 * handlers, the unhandled filter. Returns 1 when execution continues with the (possibly
 * changed) context, 0 when nobody handled it. */
struct _EXCEPTION_RECORD;
struct _CONTEXT;
struct _EXCEPTION_POINTERS;
NSPA_HIDDEN int vm_dispatch(struct _EXCEPTION_RECORD *rec, struct _CONTEXT *ctx, int first_chance_only);
/* the handler lists (which: 0 exception handlers, 1 continue handlers); a cookie is
 * never reused; remove returns 1 when the cookie named a handler of that list */
typedef int (*vm_handler_fn)(struct _EXCEPTION_POINTERS *info);
NSPA_HIDDEN uintptr_t vm_handler_add(int which, vm_handler_fn fn, int first);
NSPA_HIDDEN int vm_handler_remove(int which, uintptr_t cookie);
NSPA_HIDDEN vm_handler_fn vm_set_filter(vm_handler_fn f);
NSPA_HIDDEN vm_handler_fn vm_get_filter(void);
NSPA_HIDDEN void vm_ctx_from_ucontext(struct _CONTEXT *c, const ucontext_t *uc);
NSPA_HIDDEN void vm_ctx_to_ucontext(ucontext_t *uc, const struct _CONTEXT *c);

/* ---- the Win32 layer ------------------------------------------------------------------ */
/* the GetLastError code of a vm -errno (nspa/vm.h's table) */

/* set the last error from a vm -errno; returns 0 (FALSE / NULL) for the caller to return */
NSPA_HIDDEN int vm_win32_fail(int err);

#endif
