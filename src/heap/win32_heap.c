/* NSPA heap: the Win32 names, over the nspa_heap_* calls (0 / -errno) and one mapping
 * of their errors to Win32's. HeapAlloc and HeapFree run the inline fast paths of
 * heap_inline.h themselves (as nspa_heap_alloc/nspa_heap_free do): a call to their twin
 * would cost a call per block, and identical-code folding would make it a jump (hence
 * -fno-ipa-icf on the heap's files). */
#include <errno.h>
#include "heap_inline.h"
#include "win32/win32_error.h"

/* The heap's errors as Windows reports them (win32_error.h, context HEAP): a handle that
 * is not a live heap (ERROR_INVALID_HANDLE), a pointer or argument that is not valid for
 * it, the process heap given to HeapDestroy included (ERROR_INVALID_PARAMETER),
 * exhaustion, HeapUnlock by a thread that does not hold the lock (ERROR_NOT_LOCKED), the
 * end of a walk (ERROR_NO_MORE_ITEMS), a short information buffer. */
static DWORD heap_error(int err) { return win32_error_from_errno(err, WIN32_ERR_HEAP); }

static BOOL result(int r)
{
    if (!r)
        return TRUE;
    SetLastError(heap_error(r));
    return FALSE;
}

NSPA_EXPORT HANDLE WINAPI GetProcessHeap(void) { return nspa_heap_process(); }

NSPA_EXPORT HANDLE WINAPI HeapCreate(DWORD f, SIZE_T init, SIZE_T max)
{
    nspa_heap_t *h;
    int r = nspa_heap_create(f, init, max, &h);
    return result(r) ? h : NULL;
}

NSPA_EXPORT BOOL WINAPI HeapDestroy(HANDLE h) { return result(nspa_heap_destroy(h)); }

/* NULL without a last error on failure, as on Windows */
NSPA_EXPORT LPVOID WINAPI HeapAlloc(HANDLE h, DWORD f, SIZE_T n) { return heap_alloc_impl(H(h), f, n); }

NSPA_EXPORT BOOL WINAPI HeapFree(HANDLE h, DWORD f, LPVOID p)
{
    /* checks the handle off its fast path; NULL: TRUE */
    return heap_free_fast(H(h), p) ? TRUE : result(heap_free_error(H(h)));
}

NSPA_EXPORT LPVOID WINAPI HeapReAlloc(HANDLE h, DWORD f, LPVOID p, SIZE_T n)
{
    int err;
    void *q = heap_realloc_err(H(h), f, p, n, &err);
    if (!q)
        SetLastError(heap_error(err));
    return q;
}

NSPA_EXPORT SIZE_T WINAPI HeapSize(HANDLE h, DWORD f, LPCVOID p) { return nspa_heap_size(h, f, p); }

/* TRUE or FALSE only: HeapValidate does not set a last error */
NSPA_EXPORT BOOL WINAPI HeapValidate(HANDLE h, DWORD f, LPCVOID p) { return nspa_heap_validate(h, f, p) == 0; }

NSPA_EXPORT BOOL WINAPI HeapWalk(HANDLE h, LPPROCESS_HEAP_ENTRY e)
{
    return result(nspa_heap_walk(h, (struct nspa_heap_entry *)e));
}

NSPA_EXPORT BOOL WINAPI HeapLock(HANDLE h) { return result(nspa_heap_lock(h)); }
NSPA_EXPORT BOOL WINAPI HeapUnlock(HANDLE h) { return result(nspa_heap_unlock(h)); }

/* the largest block free, or 0: with NO_ERROR when there is none */
NSPA_EXPORT SIZE_T WINAPI HeapCompact(HANDLE h, DWORD f)
{
    size_t largest = 0;
    int r = nspa_heap_compact(h, f, &largest);
    if (r || !largest)
        SetLastError(r ? heap_error(r) : NO_ERROR);
    return largest;
}

NSPA_EXPORT BOOL WINAPI HeapSetInformation(HANDLE h, HEAP_INFORMATION_CLASS c, PVOID info, SIZE_T len)
{
    return result(nspa_heap_set_information(h, (int)c, info, len));
}

NSPA_EXPORT BOOL WINAPI HeapQueryInformation(HANDLE h, HEAP_INFORMATION_CLASS c, PVOID info, SIZE_T len,
                                             PSIZE_T ret)
{
    return result(nspa_heap_query_information(h, (int)c, info, len, ret));
}

_Static_assert(sizeof(struct nspa_heap_entry) == sizeof(PROCESS_HEAP_ENTRY), "entry layout");
