/*
 * Interlocked singly linked lists (SList) with the Windows x64 header layout.
 *
 * The header is two 64-bit words changed together by one cmpxchg16b: the low word is
 * Depth (16 bits) | Sequence (48 bits) << 16, the high word the first entry's address
 * (Windows' NextEntry:60 << 4; its 4 low "Reserved" bits are the address's own, so an
 * entry that is not 16-byte aligned still works here). Every push and pop bumps the
 * sequence: a pop that read first = A, next = B, and lost the CPU while A was popped,
 * B popped and A pushed again finds the sequence changed and retries (ABA). A pop reads
 * first->Next before its compare-and-swap, so, as on Windows, memory of entries popped
 * by others must stay mapped (heap memory does); the value read is never used if the
 * swap fails.
 *
 * Depth is what the pushes said (a chain pushed with a count adds that count, whatever
 * its length); a pop of an empty list leaves it alone; a flush sets it to 0, also on an
 * empty list (Windows 8 and later; Wine's test_slist accepts both).
 *
 * Lock-free: no system call, no lock, bounded work per successful operation.
 */
#include <stdint.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"

struct hw { uint64_t lo, hi; };

static inline int cas16(PSLIST_HEADER h, struct hw *old, struct hw nw)
{
    _Bool ok;
    __asm__ __volatile__("lock cmpxchg16b %1"
                         : "=@ccz"(ok), "+m"(*(volatile unsigned __int128 *)(void *)h), "+a"(old->lo), "+d"(old->hi)
                         : "b"(nw.lo), "c"(nw.hi)
                         : "memory");
    return ok;
}

static inline struct hw load(PSLIST_HEADER h)
{
    /* two loads may tear; the cmpxchg16b that follows checks both halves at once */
    struct hw v;
    v.lo = __atomic_load_n(&h->Alignment, __ATOMIC_ACQUIRE);
    v.hi = __atomic_load_n(&h->Region, __ATOMIC_ACQUIRE);
    NSPA_TSAN_ACQUIRE(h);
    return v;
}

#define DEPTH(lo)  ((lo) & 0xffffu)
#define SEQ1       (1ull << 16)

static inline uint64_t next_lo(uint64_t lo, int ddepth)
{
    uint64_t seq = (lo & ~0xffffull) + SEQ1;              /* 48-bit sequence, wraps */
    return seq | ((lo + (uint64_t)(int64_t)ddepth) & 0xffffu);
}

NSPA_EXPORT void WINAPI InitializeSListHead(PSLIST_HEADER h)
{
    __atomic_store_n(&h->Alignment, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&h->Region, 0, __ATOMIC_RELEASE);
}

NSPA_EXPORT PSLIST_ENTRY WINAPI InterlockedPushListSListEx(PSLIST_HEADER h, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                                           ULONG count)
{
    struct hw old = load(h);
    for (;;) {
        __atomic_store_n(&last->Next, (PSLIST_ENTRY)(uintptr_t)old.hi, __ATOMIC_RELAXED);
        struct hw nw = { next_lo(old.lo, (int)count), (uint64_t)(uintptr_t)first };
        NSPA_TSAN_RELEASE(h);
        if (cas16(h, &old, nw)) return (PSLIST_ENTRY)(uintptr_t)old.hi;
    }
}

NSPA_EXPORT PSLIST_ENTRY WINAPI InterlockedPushEntrySList(PSLIST_HEADER h, PSLIST_ENTRY e)
{
    return InterlockedPushListSListEx(h, e, e, 1);
}

NSPA_EXPORT PSLIST_ENTRY WINAPI InterlockedPopEntrySList(PSLIST_HEADER h)
{
    struct hw old = load(h);
    for (;;) {
        PSLIST_ENTRY e = (PSLIST_ENTRY)(uintptr_t)old.hi;
        if (!e) return NULL;
        PSLIST_ENTRY next = __atomic_load_n(&e->Next, __ATOMIC_RELAXED);
        struct hw nw = { next_lo(old.lo, -1), (uint64_t)(uintptr_t)next };
        if (cas16(h, &old, nw)) {
            NSPA_TSAN_ACQUIRE(h);
            return e;
        }
    }
}

NSPA_EXPORT PSLIST_ENTRY WINAPI InterlockedFlushSList(PSLIST_HEADER h)
{
    struct hw old = load(h);
    for (;;) {
        if (!old.hi && !DEPTH(old.lo)) return NULL;
        struct hw nw = { next_lo(old.lo, -(int)DEPTH(old.lo)), 0 };
        if (cas16(h, &old, nw)) {
            NSPA_TSAN_ACQUIRE(h);
            return (PSLIST_ENTRY)(uintptr_t)old.hi;
        }
    }
}

NSPA_EXPORT USHORT WINAPI QueryDepthSList(PSLIST_HEADER h)
{
    return (USHORT)DEPTH(__atomic_load_n(&h->Alignment, __ATOMIC_ACQUIRE));
}

NSPA_EXPORT PSLIST_ENTRY WINAPI RtlFirstEntrySList(const SLIST_HEADER *h)
{
    return (PSLIST_ENTRY)(uintptr_t)__atomic_load_n(&h->Region, __ATOMIC_ACQUIRE);
}

/* ---- ntdll's names ------------------------------------------------------------------ */

NSPA_EXPORT void WINAPI RtlInitializeSListHead(PSLIST_HEADER h) { InitializeSListHead(h); }
NSPA_EXPORT PSLIST_ENTRY WINAPI RtlInterlockedPushEntrySList(PSLIST_HEADER h, PSLIST_ENTRY e)
{
    return InterlockedPushListSListEx(h, e, e, 1);
}
NSPA_EXPORT PSLIST_ENTRY WINAPI RtlInterlockedPopEntrySList(PSLIST_HEADER h) { return InterlockedPopEntrySList(h); }
NSPA_EXPORT PSLIST_ENTRY WINAPI RtlInterlockedFlushSList(PSLIST_HEADER h) { return InterlockedFlushSList(h); }
NSPA_EXPORT PSLIST_ENTRY WINAPI RtlInterlockedPushListSListEx(PSLIST_HEADER h, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                                              ULONG count)
{
    return InterlockedPushListSListEx(h, first, last, count);
}
NSPA_EXPORT PSLIST_ENTRY WINAPI RtlInterlockedPushListSList(PSLIST_HEADER h, PSLIST_ENTRY first, PSLIST_ENTRY last,
                                                            ULONG count)
{
    return InterlockedPushListSListEx(h, first, last, count);
}
NSPA_EXPORT WORD WINAPI RtlQueryDepthSList(PSLIST_HEADER h) { return QueryDepthSList(h); }
