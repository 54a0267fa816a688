/* NSPA heap: the Win32 names, over the nspa_heap_* calls. HeapAlloc and HeapFree run the
 * inline fast paths of heap_inline.h themselves (as nspa_heap_alloc/nspa_heap_free do):
 * a call to their twin would cost a call per block, and identical-code folding would
 * make it a jump through the PLT (hence -fno-ipa-icf on the heap's files). */
#include "heap_inline.h"

NSPA_EXPORT HANDLE WINAPI GetProcessHeap(void) { return nspa_heap_process(); }
NSPA_EXPORT HANDLE WINAPI HeapCreate(DWORD f, SIZE_T init, SIZE_T max)
{ return nspa_heap_create(f, init, max); }
NSPA_EXPORT BOOL WINAPI HeapDestroy(HANDLE h) { return nspa_heap_destroy(h); }
NSPA_EXPORT LPVOID WINAPI HeapAlloc(HANDLE h, DWORD f, SIZE_T n) { return heap_alloc_impl(H(h), f, n); }
NSPA_EXPORT BOOL WINAPI HeapFree(HANDLE h, DWORD f, LPVOID p)
{
    return heap_free_fast(H(h), p);   /* checks the handle off its fast path; NULL: TRUE */
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
