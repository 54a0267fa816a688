/* libnspa-malloc.so: the C allocator over NSPA's process heap, for LD_PRELOAD.
 *   LD_PRELOAD=libnspa-malloc.so program ...
 * Every block comes from GetProcessHeap(); HeapFree/HeapSize/HeapValidate on the process
 * heap accept them too. Pointers that are not live NSPA blocks are ignored by free(). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "nspa/heap.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

static nspa_heap_t *ph_cached;
static inline nspa_heap_t *ph(void)
{
    nspa_heap_t *h = __atomic_load_n(&ph_cached, __ATOMIC_RELAXED);
    if (__builtin_expect(h == NULL, 0)) {
        h = nspa_heap_process();
        __atomic_store_n(&ph_cached, h, __ATOMIC_RELAXED);
    }
    return h;
}

/* malloc, free, calloc, realloc: one jump into the library's C allocator entry points,
 * which run the heap's inline fast paths (as HeapAlloc/HeapFree do) */
SHIM_EXPORT void *malloc(size_t n) { return nspa_malloc(n); }
SHIM_EXPORT void free(void *p) { nspa_free(p); }
SHIM_EXPORT void cfree(void *p) { nspa_free(p); }
SHIM_EXPORT void *calloc(size_t a, size_t b) { return nspa_calloc(a, b); }
SHIM_EXPORT void *realloc(void *p, size_t n) { return nspa_realloc(p, n); }

SHIM_EXPORT void *reallocarray(void *p, size_t a, size_t b)
{
    size_t n;
    if (__builtin_mul_overflow(a, b, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n);
}

static void *aligned(size_t align, size_t n)
{
    void *p;
    int r = nspa_heap_alloc_aligned(ph(), 0, align, n, &p);
    if (r) errno = -r;
    return r ? NULL : p;
}

SHIM_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p;
    int r = nspa_heap_alloc_aligned(ph(), 0, align, n, &p);
    if (r)
        return -r;
    *out = p;
    return 0;
}

SHIM_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n);
}

SHIM_EXPORT void *memalign(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n);
}

SHIM_EXPORT void *valloc(size_t n) { return aligned((size_t)sysconf(_SC_PAGESIZE), n); }

SHIM_EXPORT void *pvalloc(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return aligned(pg, (n + pg - 1) & ~(pg - 1));
}

SHIM_EXPORT size_t malloc_usable_size(void *p)
{
    return p ? nspa_heap_usable_size(p) : 0;
}

/* Give idle memory back to the system: HeapCompact on the process heap, which also
 * retires pages that other threads emptied while their owner thread is blocked. */
SHIM_EXPORT int malloc_trim(size_t pad)
{
    (void)pad;
    nspa_heap_t *h = ph();
    if (h)
        nspa_heap_compact(h, 0, NULL);
    return 1;
}
