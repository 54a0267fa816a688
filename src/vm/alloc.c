/*
 * VirtualAlloc / VirtualFree / VirtualProtect / VirtualLock / write watches over mmap.
 *
 * A reservation is a PROT_NONE MAP_NORESERVE anonymous mapping at a 64 KiB aligned
 * address: it costs address space and no memory. Committing is an mprotect (the kernel
 * gives zero pages on first touch, as Windows does); decommitting drops the pages
 * (MADV_DONTNEED) and makes them PROT_NONE again; releasing unmaps. The Win32 state of
 * every page lives in its record (vm_internal.h), which VirtualQuery and the fault path
 * read without a lock; writers hold vm_lock.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

/* where the next 64 KiB aligned mapping is likely to fit (see vm_map_aligned) */
static _Atomic uintptr_t place_hint;

NSPA_HIDDEN void vm_place_hint(uintptr_t base, size_t len)
{
    if (!(base & (VM_GRAN - 1)) && !(len & (VM_GRAN - 1))) atomic_store_explicit(&place_hint, base, memory_order_relaxed);
}

/* Windows refuses a commit beyond its commit limit; Linux overcommits. A single commit
 * larger than RAM + swap is refused here (ERROR_NOT_ENOUGH_MEMORY), so that an absurd
 * request fails instead of writing gigabytes of page states */
static int commit_too_big(size_t len)
{
    static _Atomic size_t limit;
    size_t l = atomic_load_explicit(&limit, memory_order_relaxed);
    if (!l) {
        struct sysinfo si;
        l = sysinfo(&si) == 0 ? ((size_t)si.totalram + si.totalswap) * si.mem_unit : (size_t)1 << 40;
        atomic_store_explicit(&limit, l, memory_order_relaxed);
    }
    return len > l;
}

static inline uintptr_t pg_down(uintptr_t a) { return a & ~(VM_PAGE - 1); }
static inline uintptr_t pg_up(uintptr_t a) { return (a + VM_PAGE - 1) & ~(VM_PAGE - 1); }

NSPA_HIDDEN void *vm_map_aligned(uintptr_t want, size_t len, size_t align, int prot,
                                 int flags, int fd, off_t off)
{
    if (want) {
        void *p = mmap((void *)want, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
        if (p != MAP_FAILED && (uintptr_t)p != want) {   /* a kernel without NOREPLACE */
            munmap(p, len);
            errno = EEXIST;
            return MAP_FAILED;
        }
        return p;
    }
    if (align < VM_GRAN) align = VM_GRAN;
    if (align == VM_GRAN) {
        /* the place just given back, or the one below the last allocation (the kernel
         * fills top-down): an aligned mapping in one system call when it is free */
        uintptr_t h = atomic_exchange_explicit(&place_hint, 0, memory_order_relaxed);
        if (h && h >= ((uintptr_t)1 << 30) && h + len <= VM_USER_MAX) {
            void *p = mmap((void *)h, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
            if (p != MAP_FAILED && (uintptr_t)p == h) {
                atomic_store_explicit(&place_hint, h - len, memory_order_relaxed);
                return p;
            }
            if (p != MAP_FAILED) munmap(p, len);
        }
        void *p = mmap(NULL, len, prot, flags, fd, off);
        if (p == MAP_FAILED) return p;
        if (((uintptr_t)p & (align - 1)) == 0) {
            atomic_store_explicit(&place_hint, (uintptr_t)p - len, memory_order_relaxed);
            return p;
        }
        munmap(p, len);
    }
    size_t over = len + align - VM_PAGE;
    if (over < len) { errno = ENOMEM; return MAP_FAILED; }
    /* anonymous memory: map it over-long with its real protection and trim; a file is
     * mapped at the aligned place inside a PROT_NONE reservation (its offset matters) */
    int anon = fd < 0;
    void *r = anon ? mmap(NULL, over, prot, flags, -1, 0)
                   : mmap(NULL, over, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) return r;
    uintptr_t a = ((uintptr_t)r + align - 1) & ~(align - 1);
    void *p = anon ? (void *)a : mmap((void *)a, len, prot, flags | MAP_FIXED, fd, off);
    if (p == MAP_FAILED) { munmap(r, over); return p; }
    if (a > (uintptr_t)r) munmap(r, a - (uintptr_t)r);
    uintptr_t end = (uintptr_t)r + over;
    if (end > a + len) munmap((void *)(a + len), end - (a + len));
    return p;
}

NSPA_HIDDEN int vm_add_record(void *base, size_t size, uint32_t alloc_prot, uint32_t flags,
                              size_t lpage, uint16_t initial_ps, struct vm_rec **out)
{
    struct vm_rec *r = vm_rec_new((uintptr_t)base, size, alloc_prot, flags, lpage);
    if (!r) return -ENOMEM;
    if (initial_ps)
        for (size_t i = 0; i < size / VM_PAGE; i++)
            atomic_store_explicit(&r->pages[i], initial_ps, memory_order_relaxed);
    int e = vm_publish(r);
    if (e) { munmap(r, r->map_len); return e; }
    if (out) *out = r;
    return 0;
}

/* mprotect [first, last) pages to what their states say, one call per run. Called
 * outside vm_lock (inside a reader section, which keeps the record): a page whose state
 * changed meanwhile is synced again on its own (vm_sync_page's rule), so the last
 * mprotect of anyone matches the last state. */
static void sync_range(struct vm_rec *r, size_t first, size_t last)
{
    if (r->lpage > VM_PAGE) {
        for (size_t i = first; i < last; i += r->lpage / VM_PAGE) vm_sync_page(r, i);
        return;
    }
    size_t i = first;
    while (i < last) {
        int p = vm_ps_prot(r, atomic_load(&r->pages[i]));
        size_t j = i + 1;
        while (j < last && vm_ps_prot(r, atomic_load(&r->pages[j])) == p) j++;
        mprotect((void *)(r->base + i * VM_PAGE), (j - i) * VM_PAGE, p);
        for (size_t k = i; k < j; k++)
            if (vm_ps_prot(r, atomic_load(&r->pages[k])) != p) vm_sync_page(r, k);
        i = j;
    }
}

/* leave vm_lock but keep the record alive (a reader section) for a sync_range after */
static void unlock_keep(void)
{
    vm_read_enter();
    vm_unlock();
}

/* replace the bits in mask of pages [first, last) by val (CAS: the fault path changes
 * the guard and dirty bits concurrently) */
static void set_states(struct vm_rec *r, size_t first, size_t last, uint16_t mask, uint16_t val)
{
    for (size_t i = first; i < last; i++) {
        uint16_t o = atomic_load_explicit(&r->pages[i], memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(&r->pages[i], &o, (uint16_t)((o & ~mask) | val),
                                                      memory_order_release, memory_order_relaxed))
            ;
    }
    vm_state_changed();
}

/* the record wholly containing [start, end), or NULL */
static struct vm_rec *rec_for_range(uintptr_t start, uintptr_t end)
{
    struct vm_rec *r = vm_find(start);
    if (!r || end > r->base + r->size || end <= start) return NULL;
    return r;
}

static int all_committed(struct vm_rec *r, size_t first, size_t last)
{
    for (size_t i = first; i < last; i++)
        if (!(atomic_load(&r->pages[i]) & PS_COMMIT)) return 0;
    return 1;
}

static int reserve(void **addr, size_t size, uint32_t type, uint32_t prot, size_t align, int giant)
{
    uintptr_t want = (uintptr_t)*addr;
    uintptr_t base = want & ~(VM_GRAN - 1);
    size_t len;
    size_t lpage = VM_PAGE;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    int commit = (type & MEM_COMMIT) != 0;
    if (want) {
        uintptr_t end = pg_up(want + size);
        if (end < want || end > VM_USER_MAX) return -ENOMEM;
        len = end - base;
    } else {
        len = pg_up(size);
    }
    if (type & MEM_LARGE_PAGES) {
        lpage = vm_huge_size(giant);
        if (!lpage) return -ENOSPC;
        if (!commit || (size & (lpage - 1)) || (want & (lpage - 1))) return -EINVAL;
        if (!vm_lock_privilege_enabled()) return -EPERM;
        /* huge pages are reserved at mmap time (no NORESERVE) and made present now: large
         * pages on Windows are committed and resident from the start */
        flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE |
                ((giant ? 30 : 21) << MAP_HUGE_SHIFT);
    }
    if (commit && commit_too_big(len)) return -ENOMEM;
    uint16_t ps = commit ? (uint16_t)(PS_COMMIT | prot) : 0;
    uint32_t rflags = (type & MEM_WRITE_WATCH ? VR_WRITE_WATCH : 0) | (lpage > VM_PAGE ? VR_LARGE : 0);
    if (rflags & VR_WRITE_WATCH || (prot & PAGE_GUARD)) {
        int e = vm_fault_install();
        if (e) return e;
    }
    struct vm_rec tmp = { .flags = rflags };
    int kprot = commit ? vm_ps_prot(&tmp, ps) : PROT_NONE;
    /* the rest of the last 64 KiB granule stays reserved (PROT_NONE) so that nothing
     * else is placed there, as on Windows */
    size_t glen = (len + VM_GRAN - 1) & ~(VM_GRAN - 1);
    int tail = lpage == VM_PAGE && glen > len && kprot != PROT_NONE;
    /* with a tail, map it all PROT_NONE and open the used part: under mlockall
     * (MCL_FUTURE, RT mode) an accessible tail would be populated for nothing */
    void *p = (lpage > VM_PAGE) ? mmap((void *)want, len, kprot, flags | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0)
                                : vm_map_aligned(base, glen, align, tail ? PROT_NONE : kprot, flags, -1, 0);
    if (p == MAP_FAILED)
        return errno == EEXIST ? -EADDRNOTAVAIL : (lpage > VM_PAGE ? -ENOSPC : -ENOMEM);
    if (tail) mprotect(p, len, kprot);
    vm_lock();
    int e = vm_add_record(p, len, prot, rflags, lpage, ps, NULL);
    vm_reclaim();
    vm_unlock();
    if (e) { munmap(p, lpage > VM_PAGE ? len : glen); return e; }
    *addr = p;
    return 0;
}

static int commit_range(void **addr, size_t size, uint32_t prot)
{
    uintptr_t start = pg_down((uintptr_t)*addr), end = pg_up((uintptr_t)*addr + size);
    if (end < start) return -EINVAL;
    if (commit_too_big(end - start)) return -ENOMEM;
    vm_lock();
    struct vm_rec *r = rec_for_range(start, end);
    if (!r) { vm_unlock(); return -EADDRNOTAVAIL; }
    if (prot & PAGE_GUARD) {
        int e = vm_fault_install();
        if (e) { vm_unlock(); return e; }
    }
    size_t first = (start - r->base) / VM_PAGE, last = (end - r->base) / VM_PAGE;
    /* committing committed pages keeps their contents and sets the protection */
    set_states(r, first, last, PS_PROT_MASK | PS_COMMIT, (uint16_t)(PS_COMMIT | prot));
    unlock_keep();
    sync_range(r, first, last);
    vm_read_exit();
    *addr = (void *)start;
    return 0;
}

NSPA_EXPORT int nspa_vm_alloc(void **addr, size_t size, uint32_t type, uint32_t prot, size_t align, int giant)
{
    const uint32_t known = MEM_COMMIT | MEM_RESERVE | MEM_RESET | MEM_RESET_UNDO | MEM_TOP_DOWN |
                           MEM_WRITE_WATCH | MEM_LARGE_PAGES;
    if (!addr) return -EFAULT;
    if (!size || (type & ~known)) return -EINVAL;
    if (size > VM_USER_MAX) return -ENOMEM;
    if ((uintptr_t)*addr >= VM_USER_MAX) return -EINVAL;
    if (type & MEM_RESET_UNDO) return -ENOTSUP;          /* docs/vm.md: not provided */
    if (type & MEM_RESET) {
        /* MEM_RESET stands alone; the protection is ignored but must be valid */
        if ((type & ~MEM_TOP_DOWN) != MEM_RESET || !*addr || !vm_prot_valid(prot)) return -EINVAL;
        uintptr_t start = pg_down((uintptr_t)*addr), end = pg_up((uintptr_t)*addr + size);
        vm_lock();
        struct vm_rec *r = rec_for_range(start, end);
        int e = 0;
        /* inside one allocation, committed or not (as Windows); the pages' contents are no
         * longer wanted: the kernel may take them back lazily */
        if (!r) e = -EADDRNOTAVAIL;
        else if (!(r->flags & VR_VIEW)) madvise((void *)start, end - start, MADV_FREE);
        vm_unlock();
        if (!e) *addr = (void *)start;
        return e;
    }
    if (!(type & (MEM_COMMIT | MEM_RESERVE)) || !vm_prot_valid(prot)) return -EINVAL;
    if ((type & MEM_WRITE_WATCH) && !(type & MEM_RESERVE)) return -EINVAL;
    if ((type & MEM_LARGE_PAGES) && (prot & ~PS_BASE_MASK)) return -EINVAL;
    if (align && (align < VM_GRAN || (align & (align - 1)))) return -EINVAL;
    /* MEM_COMMIT with no address reserves as well, as on Windows */
    if ((type & MEM_RESERVE) || !*addr) return reserve(addr, size, type | MEM_RESERVE, prot, align, giant);
    return commit_range(addr, size, prot);
}

NSPA_EXPORT int nspa_vm_free(void *addr, size_t size, uint32_t type)
{
    if (type != MEM_RELEASE && type != MEM_DECOMMIT) return -EINVAL;
    if (!addr) return -EADDRNOTAVAIL;
    uintptr_t a = (uintptr_t)addr;
    vm_lock();
    struct vm_rec *r = vm_find(a);
    int e = 0;
    if (type == MEM_RELEASE) {
        if (size) e = -EINVAL;
        else if (!r || r->base != a || (r->flags & VR_VIEW)) e = -EADDRNOTAVAIL;
        else {
            vm_unpublish(r);
            vm_place_hint(r->base, vm_rec_span(r));
            if (vm_readers_idle()) {
                /* nobody can reach r any more: unmap outside the lock */
                vm_unlock();
                munmap((void *)r->base, vm_rec_span(r));
                vm_lock();
                vm_rec_free(r);
            } else {
                vm_retire(r);
            }
        }
        vm_reclaim();
        vm_unlock();
        return e;
    }
    uintptr_t start = pg_down(a), end = size ? pg_up(a + size) : (r ? r->base + r->size : 0);
    if (!r || end < start || end > r->base + r->size) e = -EADDRNOTAVAIL;
    else if (r->flags & (VR_VIEW | VR_LARGE)) e = -EINVAL;        /* docs/vm.md */
    else {
        size_t first = (start - r->base) / VM_PAGE, last = (end - r->base) / VM_PAGE;
        set_states(r, first, last, 0xffff, 0);
        munlock((void *)start, end - start);
        madvise((void *)start, end - start, MADV_DONTNEED);     /* zero on recommit */
        mprotect((void *)start, end - start, PROT_NONE);
    }
    vm_reclaim();
    vm_unlock();
    return e;
}

NSPA_EXPORT int nspa_vm_protect(void *addr, size_t size, uint32_t prot, uint32_t *old)
{
    if (!old) return -EFAULT;
    if (!vm_prot_valid(prot) || !size) return -EINVAL;
    uintptr_t start = pg_down((uintptr_t)addr), end = pg_up((uintptr_t)addr + size);
    vm_lock();
    struct vm_rec *r = rec_for_range(start, end);
    size_t first = r ? (start - r->base) / VM_PAGE : 0, last = r ? (end - r->base) / VM_PAGE : 0;
    int e = 0;
    if (!r || !all_committed(r, first, last)) e = -EADDRNOTAVAIL;
    else if (r->lpage > VM_PAGE && ((start | end) & (r->lpage - 1))) e = -EINVAL;
    else {
        if ((prot & PAGE_GUARD) && (e = vm_fault_install())) goto out;
        *old = atomic_load(&r->pages[first]) & PS_PROT_MASK;
        set_states(r, first, last, PS_PROT_MASK, (uint16_t)prot);
        unlock_keep();                        /* the system call outside the lock */
        nspa__test_point("vm_protect_states_set");   /* (the state ahead of the kernel) */
        sync_range(r, first, last);
        vm_read_exit();
        return 0;
    }
out:
    vm_unlock();
    return e;
}

/* VirtualLock / VirtualUnlock: the committed pages of one record, or any other mapping */
static int lock_range(void *addr, size_t size, int lock)
{
    if (!size) return -EINVAL;
    uintptr_t start = pg_down((uintptr_t)addr), end = pg_up((uintptr_t)addr + size);
    vm_lock();
    struct vm_rec *r = vm_find(start);
    int e = 0;
    if (r) {
        size_t first = (start - r->base) / VM_PAGE, last = (end - r->base) / VM_PAGE;
        if (end > r->base + r->size || !all_committed(r, first, last)) {
            e = -EFAULT;
        } else if (lock) {
            if (mlock((void *)start, end - start)) e = -EAGAIN;
            else set_states(r, first, last, PS_LOCKED, PS_LOCKED);
        } else {
            for (size_t i = first; i < last; i++)
                if (!(atomic_load(&r->pages[i]) & PS_LOCKED)) e = -ENOLCK;
            munlock((void *)start, end - start);
            set_states(r, first, last, PS_LOCKED, 0);
        }
    } else if (lock ? mlock((void *)start, end - start) : munlock((void *)start, end - start)) {
        e = lock && errno != ENOMEM ? -EAGAIN : -EFAULT;
    }
    vm_unlock();
    return e;
}

NSPA_EXPORT int nspa_vm_lock(void *addr, size_t size) { return lock_range(addr, size, 1); }
NSPA_EXPORT int nspa_vm_unlock(void *addr, size_t size) { return lock_range(addr, size, 0); }

NSPA_EXPORT int nspa_vm_write_watch(void *base, size_t size, int reset, void **pages, size_t *count)
{
    if (!count) return -EFAULT;
    if (!*count) return -EINVAL;              /* Windows: an empty buffer is a bad parameter */
    if (!pages) return -EFAULT;
    uintptr_t start = pg_down((uintptr_t)base), end = pg_up((uintptr_t)base + size);
    if (!size) return -EINVAL;
    vm_lock();
    struct vm_rec *r = rec_for_range(start, end);
    if (!r || !(r->flags & VR_WRITE_WATCH)) { vm_unlock(); return -EINVAL; }
    size_t n = 0, cap = *count;
    for (size_t i = (start - r->base) / VM_PAGE; i < (end - r->base) / VM_PAGE && n < cap; i++) {
        if (!(atomic_load(&r->pages[i]) & PS_DIRTY)) continue;
        pages[n++] = (void *)(r->base + i * VM_PAGE);
        if (reset) {
            /* clear first, then write-protect: a write in between is counted before the
             * reset (it happened before the reset finished) */
            set_states(r, i, i + 1, PS_DIRTY, 0);
            vm_sync_page(r, i);
        }
    }
    vm_unlock();
    *count = n;
    return 0;
}

NSPA_EXPORT int nspa_vm_reset_write_watch(void *base, size_t size)
{
    uintptr_t start = pg_down((uintptr_t)base), end = pg_up((uintptr_t)base + size);
    if (!size) return -EINVAL;
    vm_lock();
    struct vm_rec *r = rec_for_range(start, end);
    if (!r || !(r->flags & VR_WRITE_WATCH)) { vm_unlock(); return -EINVAL; }
    size_t first = (start - r->base) / VM_PAGE, last = (end - r->base) / VM_PAGE;
    set_states(r, first, last, PS_DIRTY, 0);
    sync_range(r, first, last);
    vm_unlock();
    return 0;
}

NSPA_EXPORT int nspa_vm_before_kernel_write(void *addr, size_t len)
{
    /* The kernel writing into a watched page that is not dirty would get EFAULT (the page
     * is write-protected to catch the first user write): count the write now and open
     * the pages, as the first fault would (Windows counts the whole buffer of a read
     * as written when the read is issued). A guard page in the buffer: as in a system
     * service on Windows, the guard goes (one-shot, no exception is raised) and the
     * call fails (-EFAULT: ERROR_NOACCESS); the next call gets through. */
    if (!len || !vm_faults_installed()) return 0;
    uintptr_t a = pg_down((uintptr_t)addr), end = pg_up((uintptr_t)addr + len);
    int guard = 0;
    vm_read_enter();
    while (a < end) {
        struct vm_rec *r = vm_find(a);
        if (!r) {
            a = (a + VM_GRAN) & ~(uintptr_t)(VM_GRAN - 1);   /* records cover whole granules */
            continue;
        }
        uintptr_t stop = end < r->base + r->size ? end : r->base + r->size;
        for (size_t i = (a - r->base) / VM_PAGE; i < (stop - r->base) / VM_PAGE; i++) {
            uint16_t ps = atomic_load(&r->pages[i]);
            while ((ps & PS_COMMIT) && ((ps & PS_GUARD) || ((r->flags & VR_WRITE_WATCH) && !(ps & PS_DIRTY)))) {
                uint16_t want = (ps & PS_GUARD) ? ps & ~PS_GUARD : ps | PS_DIRTY;
                if (!atomic_compare_exchange_weak(&r->pages[i], &ps, want)) continue;
                vm_state_changed();
                if (ps & PS_GUARD) guard = 1;   /* ours: the CAS winner reports it */
                vm_sync_page(r, i);
                break;
            }
        }
        a = stop;
    }
    vm_read_exit();
    return guard ? -EFAULT : 0;
}
