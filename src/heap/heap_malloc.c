/* NSPA heap: the C allocator entry points over the process heap (nspa_malloc ...), which
 * libnspa-malloc.so exports as malloc & co. They run the inline fast paths themselves:
 * malloc through the shim costs what HeapAlloc costs (one more jump), where the shim used
 * to call nspa_heap_alloc from a function with its own frame and errno check. A failure
 * sets errno through the internal HEAP_X_ERRNO flag, so the fast path is HeapAlloc's. */
#include "heap_inline.h"

NSPA_EXPORT void *nspa_malloc(size_t n)
{
    return heap_alloc_impl(&proc_heap, HEAP_X_ERRNO, n);
}

NSPA_EXPORT void nspa_free(void *p)
{
    heap_free_fast(&proc_heap, p);   /* NULL and bad pointers: the slow path (ignored) */
}

NSPA_EXPORT void *nspa_calloc(size_t a, size_t b)
{
    size_t n;
    if (__builtin_mul_overflow(a, b, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    return heap_alloc_impl(&proc_heap, HEAP_X_ERRNO | HEAP_ZERO_MEMORY, n);
}

NSPA_EXPORT void *nspa_realloc(void *p, size_t n)
{
    if (!p)
        return nspa_malloc(n);
    if (n == 0) {
        nspa_free(p);
        return NULL;
    }
    int err;
    void *q = heap_realloc_err(&proc_heap, 0, p, n, &err);
    if (!q)
        errno = -err;          /* ENOMEM; EINVAL for a pointer that is not a live block */
    return q;
}
