/* NSPA heap: the NT heap API (HeapAlloc & co.) on a per-thread, lock-free front end.
 *
 * Every function here has a Win32 twin in <heapapi.h> (HeapAlloc, HeapFree, ...) with
 * the same semantics; only the names differ. Handles are interchangeable: a handle from
 * nspa_heap_create() may be passed to HeapAlloc() and vice versa.
 *
 * Errors follow the library's one convention (as liburing's): a call that can fail for
 * more than one reason returns 0 or a negative errno value, and hands its result back
 * through an out pointer: -EBADF (not a live heap), -EINVAL (a pointer that is not a
 * live block of the heap, a bad argument), -ENOMEM (exhaustion; nothing changed),
 * -EPERM, -ENODATA, -ENOSPC as each call says. The allocator calls in the C shape
 * (nspa_heap_alloc, nspa_malloc & co.) return the block or NULL, as malloc does, and
 * nspa_heap_size / nspa_heap_usable_size return a size. Nothing here sets the Win32
 * last error: the Win32 twins (HeapCreate ...) map these codes to Windows' errors.
 * Allocation failures additionally raise STATUS_NO_MEMORY through the exception hook
 * when HEAP_GENERATE_EXCEPTIONS is in effect (see nspa_heap_set_exception_handler).
 *
 * Thread-safety: every function may be called from any thread, on any heap, concurrently;
 * a block may be freed or reallocated by a thread other than the one that allocated it.
 * HEAP_NO_SERIALIZE is accepted and changes nothing (the heap never needs the caller's
 * serialization). nspa_heap_lock() excludes every other thread from the heap until
 * nspa_heap_unlock().
 */
#ifndef NSPA_HEAP_H
#define NSPA_HEAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nspa_heap nspa_heap_t;

/* Flags (the Win32 values). */
#define NSPA_HEAP_NO_SERIALIZE          0x00000001u
#define NSPA_HEAP_GROWABLE              0x00000002u
#define NSPA_HEAP_GENERATE_EXCEPTIONS   0x00000004u
#define NSPA_HEAP_ZERO_MEMORY           0x00000008u
#define NSPA_HEAP_REALLOC_IN_PLACE_ONLY 0x00000010u
#define NSPA_HEAP_CREATE_ENABLE_EXECUTE 0x00040000u

/* Information classes for nspa_heap_set_information / nspa_heap_query_information. */
#define NSPA_HEAP_INFO_COMPATIBILITY        0  /* ULONG: 2 = low-fragmentation heap */
#define NSPA_HEAP_INFO_TERMINATE_ON_CORRUPTION 1 /* no data: abort on a detected bad free */
#define NSPA_HEAP_INFO_OPTIMIZE_RESOURCES   3  /* decommit everything idle now */

/* Number of small size classes (blocks up to 128 KiB); larger blocks are mapped alone. */
#define NSPA_HEAP_NCLASSES 88

/* A HeapWalk entry; the layout is PROCESS_HEAP_ENTRY's. */
struct nspa_heap_entry {
    void          *data;          /* lpData: block (or region base) */
    unsigned int   size;          /* cbData: requested size of a busy block, size of a free one */
    unsigned char  overhead;      /* cbOverhead: bytes the heap keeps beyond cbData (max 255) */
    unsigned char  region_index;  /* iRegionIndex: always 0 */
    unsigned short flags;         /* wFlags: PROCESS_HEAP_REGION / _ENTRY_BUSY / 0 = free */
    union {
        struct { void *mem; unsigned int reserved[3]; } block;
        struct { unsigned int committed, uncommitted; void *first_block, *last_block; } region;
    } u;
};

/* Statistics of one heap (nspa_heap_stats). */
struct nspa_heap_stats {
    size_t bytes_in_use;         /* sum of the block sizes of live blocks (size-class rounded) */
    size_t blocks_in_use;        /* live blocks */
    size_t bytes_committed;      /* mapped, not decommitted: metadata + pages + large blocks */
    size_t bytes_committed_peak; /* the highest bytes_committed seen */
    size_t bytes_reserved;       /* address space held */
    size_t segments;             /* 2 MiB arenas (including large-page ones) */
    size_t large_page_segments;  /* arenas backed by 2 MiB huge pages */
    size_t large_blocks;         /* blocks above 128 KiB, mapped alone */
    size_t bad_frees;            /* double frees and foreign pointers rejected so far */
    struct { size_t block_size, blocks_in_use, pages; } classes[NSPA_HEAP_NCLASSES];
};

/* nspa_heap_create - create a private heap (HeapCreate).
 * flags: NSPA_HEAP_NO_SERIALIZE, NSPA_HEAP_GENERATE_EXCEPTIONS (applies to every call on
 * the heap), NSPA_HEAP_CREATE_ENABLE_EXECUTE (blocks are executable); others are ignored.
 * initial: bytes to commit up front (a hint). maximum: 0 makes a growable heap that grows
 * without limit; non-zero makes a fixed heap: allocations fail once the live blocks' sizes
 * would exceed max(maximum, initial), and single allocations of 0x7FFF8 bytes or more fail.
 * Returns 0 and the heap in *out; -ENOMEM (no heap structure or address space left),
 * -EINVAL (out NULL). */
int nspa_heap_create(unsigned int flags, size_t initial, size_t maximum, nspa_heap_t **out);

/* nspa_heap_destroy - release a private heap and every block in it at once (HeapDestroy).
 * Returns 0; -EBADF for a handle that is not a live heap, -EINVAL for the process heap
 * (which cannot be destroyed).
 * Other threads must not use the heap concurrently or afterwards. */
int nspa_heap_destroy(nspa_heap_t *heap);

/* nspa_heap_process - the process heap (GetProcessHeap). NULL only if the heap cannot be
 * initialised at all (its 64 MiB address-space reservation failed); the next call tries
 * again. */
nspa_heap_t *nspa_heap_process(void);

/* The C allocator over the process heap, what libnspa-malloc.so exports as malloc,
 * free, calloc and realloc (C semantics: NULL with errno ENOMEM on failure; free(NULL)
 * and frees of pointers that are not live process-heap blocks do nothing). The same
 * fast paths as nspa_heap_alloc/nspa_heap_free, without a call in between. */
void *nspa_malloc(size_t size);
void nspa_free(void *mem);
void *nspa_calloc(size_t count, size_t size);
void *nspa_realloc(void *mem, size_t size);

/* nspa_heap_alloc - allocate size bytes, 16-byte aligned (HeapAlloc).
 * flags: NSPA_HEAP_ZERO_MEMORY zeroes the block; NSPA_HEAP_GENERATE_EXCEPTIONS raises
 * STATUS_NO_MEMORY on failure instead of returning NULL. size 0 returns a unique pointer.
 * Returns the block, or NULL (exhaustion, a fixed heap's limit, or not a live heap). */
void *nspa_heap_alloc(nspa_heap_t *heap, unsigned int flags, size_t size);

/* nspa_heap_alloc_aligned - like nspa_heap_alloc with a power-of-two alignment
 * (up to 1 MiB), in posix_memalign's shape. Returns 0 and the block in *out; -EINVAL
 * (a bad alignment, out NULL), -ENOMEM, -EBADF (not a live heap). */
int nspa_heap_alloc_aligned(nspa_heap_t *heap, unsigned int flags, size_t alignment, size_t size, void **out);

/* nspa_heap_free - free a block (HeapFree). NULL succeeds. A pointer that is not a live
 * block of this heap (foreign, interior, already freed) is rejected: returns -EINVAL and
 * the heap is left unchanged (or the process aborts if termination on corruption was
 * enabled: the caller asked for that); -EBADF for a handle that is not a live heap.
 * Returns 0 otherwise. Any thread may free any block. */
int nspa_heap_free(nspa_heap_t *heap, unsigned int flags, void *mem);

/* nspa_heap_realloc - resize the block *mem (HeapReAlloc). Keeps the contents up to the
 * smaller size; NSPA_HEAP_ZERO_MEMORY zeroes the grown part; NSPA_HEAP_REALLOC_IN_PLACE_ONLY
 * never moves the block and fails with -ENOMEM if it cannot resize it where it is.
 * Returns 0 with the block's (possibly new) address in *mem; -EINVAL (mem or *mem NULL,
 * or not a live block), -EBADF (not a live heap), -ENOMEM (the old block is intact and
 * *mem unchanged). */
int nspa_heap_realloc(nspa_heap_t *heap, unsigned int flags, void **mem, size_t size);

/* nspa_heap_size - the size requested for a live block (HeapSize), or (size_t)-1 for a
 * pointer that is not a live block of the heap. */
size_t nspa_heap_size(nspa_heap_t *heap, unsigned int flags, const void *mem);

/* nspa_heap_usable_size - bytes usable in a live block of any NSPA heap (>= the requested
 * size; what malloc_usable_size reports), or 0 for anything else. */
size_t nspa_heap_usable_size(const void *mem);

/* nspa_heap_validate - check a block or the whole heap (HeapValidate).
 * mem non-NULL: 0 only if mem is a live block of this heap (a freed, double-freed,
 * interior or foreign pointer gives -EINVAL). mem NULL: walks every page, free list and
 * bitmap of the heap and returns -EINVAL if any structure is inconsistent. -EBADF: not a
 * live heap. */
int nspa_heap_validate(nspa_heap_t *heap, unsigned int flags, const void *mem);

/* nspa_heap_walk - enumerate regions and blocks (HeapWalk). Start with entry->data NULL;
 * each call fills the next entry and returns 0; -ENODATA at the end, -EBADF (not a live
 * heap), -EINVAL (entry NULL, or an entry that does not come from this walk).
 * Each call is atomic; hold nspa_heap_lock() around the walk for a consistent picture. */
int nspa_heap_walk(nspa_heap_t *heap, struct nspa_heap_entry *entry);

/* nspa_heap_lock / nspa_heap_unlock - exclude every other thread from the heap
 * (HeapLock/HeapUnlock). Recursive. Other threads' calls on the heap block until the
 * matching unlock. Returns 0; -EBADF (not a live heap); unlock by a thread that does not
 * hold the lock: -EPERM. */
int nspa_heap_lock(nspa_heap_t *heap);
int nspa_heap_unlock(nspa_heap_t *heap);

/* nspa_heap_compact - decommit every idle page now (HeapCompact). Returns 0 and, if
 * largest is not NULL, the largest block the heap could hand out without asking the
 * system (0 if there is none); -EBADF (not a live heap). */
int nspa_heap_compact(nspa_heap_t *heap, unsigned int flags, size_t *largest);

/* nspa_heap_set_information - HeapSetInformation. NSPA_HEAP_INFO_COMPATIBILITY with a
 * ULONG 2 (LFH) succeeds (the front end is always on) except on a NO_SERIALIZE heap
 * (-EINVAL, as Windows refuses it); 0 succeeds; other values give -EINVAL.
 * NSPA_HEAP_INFO_TERMINATE_ON_CORRUPTION (heap may be NULL) makes every detected bad
 * free abort the process (the caller's explicit choice, as on Windows).
 * NSPA_HEAP_INFO_OPTIMIZE_RESOURCES decommits idle memory. A short buffer gives -ENOSPC,
 * a handle that is not a live heap -EBADF, an unknown class -EINVAL. Returns 0. */
int nspa_heap_set_information(nspa_heap_t *heap, int info_class, const void *info, size_t len);

/* nspa_heap_query_information - HeapQueryInformation for NSPA_HEAP_INFO_COMPATIBILITY
 * (stores ULONG 2, or 0 on a NO_SERIALIZE heap, and its size in *ret_len). Returns 0;
 * -ENOSPC (short buffer: *ret_len still says how much is needed), -EINVAL (another
 * class), -EBADF. */
int nspa_heap_query_information(nspa_heap_t *heap, int info_class, void *info, size_t len,
                                size_t *ret_len);

/* nspa_heap_stats - fill *st with the heap's statistics (takes the heap lock briefly).
 * Returns 0; -EBADF (not a live heap), -EINVAL (st NULL). */
int nspa_heap_stats(nspa_heap_t *heap, struct nspa_heap_stats *st);

/* nspa_heap_set_exception_handler - NSPA has no structured exceptions: with
 * HEAP_GENERATE_EXCEPTIONS a failing allocation calls this handler with the NTSTATUS
 * (STATUS_NO_MEMORY) and the heap; it may longjmp out. If it returns (or none is set),
 * the call returns NULL as without the flag (the library never aborts on exhaustion).
 * Returns the previous handler. */
typedef void (*nspa_heap_exception_fn)(unsigned int status, nspa_heap_t *heap);
nspa_heap_exception_fn nspa_heap_set_exception_handler(nspa_heap_exception_fn fn);

#ifdef __cplusplus
}
#endif
#endif
