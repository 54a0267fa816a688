/* NSPA Win32 layer: the Interlocked family, MemoryBarrier, YieldProcessor.
 * Every operation is a full barrier, as on Windows. Inline: no call, no system call. */
#ifndef NSPA_WIN32_WINNT_INTERLOCKED_H
#define NSPA_WIN32_WINNT_INTERLOCKED_H

#include "windef.h"

#define NSPA_ILK static inline __attribute__((always_inline))
#define NSPA_SC __ATOMIC_SEQ_CST

NSPA_ILK LONG InterlockedIncrement(LONG volatile *p) { return __atomic_add_fetch(p, 1, NSPA_SC); }
NSPA_ILK LONG InterlockedDecrement(LONG volatile *p) { return __atomic_sub_fetch(p, 1, NSPA_SC); }
NSPA_ILK LONG InterlockedExchange(LONG volatile *p, LONG v) { return __atomic_exchange_n(p, v, NSPA_SC); }
NSPA_ILK LONG InterlockedExchangeAdd(LONG volatile *p, LONG v) { return __atomic_fetch_add(p, v, NSPA_SC); }
NSPA_ILK LONG InterlockedAdd(LONG volatile *p, LONG v) { return __atomic_add_fetch(p, v, NSPA_SC); }
NSPA_ILK LONG InterlockedCompareExchange(LONG volatile *p, LONG xchg, LONG cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, NSPA_SC, NSPA_SC);
    return cmp;
}
NSPA_ILK LONG InterlockedAnd(LONG volatile *p, LONG v) { return __atomic_fetch_and(p, v, NSPA_SC); }
NSPA_ILK LONG InterlockedOr(LONG volatile *p, LONG v) { return __atomic_fetch_or(p, v, NSPA_SC); }
NSPA_ILK LONG InterlockedXor(LONG volatile *p, LONG v) { return __atomic_fetch_xor(p, v, NSPA_SC); }

NSPA_ILK SHORT InterlockedIncrement16(SHORT volatile *p) { return __atomic_add_fetch(p, 1, NSPA_SC); }
NSPA_ILK SHORT InterlockedDecrement16(SHORT volatile *p) { return __atomic_sub_fetch(p, 1, NSPA_SC); }
NSPA_ILK SHORT InterlockedCompareExchange16(SHORT volatile *p, SHORT xchg, SHORT cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, NSPA_SC, NSPA_SC);
    return cmp;
}

NSPA_ILK LONG64 InterlockedIncrement64(LONG64 volatile *p) { return __atomic_add_fetch(p, 1, NSPA_SC); }
NSPA_ILK LONG64 InterlockedDecrement64(LONG64 volatile *p) { return __atomic_sub_fetch(p, 1, NSPA_SC); }
NSPA_ILK LONG64 InterlockedExchange64(LONG64 volatile *p, LONG64 v) { return __atomic_exchange_n(p, v, NSPA_SC); }
NSPA_ILK LONG64 InterlockedExchangeAdd64(LONG64 volatile *p, LONG64 v) { return __atomic_fetch_add(p, v, NSPA_SC); }
NSPA_ILK LONG64 InterlockedAdd64(LONG64 volatile *p, LONG64 v) { return __atomic_add_fetch(p, v, NSPA_SC); }
NSPA_ILK LONG64 InterlockedCompareExchange64(LONG64 volatile *p, LONG64 xchg, LONG64 cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, NSPA_SC, NSPA_SC);
    return cmp;
}
NSPA_ILK LONG64 InterlockedAnd64(LONG64 volatile *p, LONG64 v) { return __atomic_fetch_and(p, v, NSPA_SC); }
NSPA_ILK LONG64 InterlockedOr64(LONG64 volatile *p, LONG64 v) { return __atomic_fetch_or(p, v, NSPA_SC); }
NSPA_ILK LONG64 InterlockedXor64(LONG64 volatile *p, LONG64 v) { return __atomic_fetch_xor(p, v, NSPA_SC); }

NSPA_ILK PVOID InterlockedExchangePointer(PVOID volatile *p, PVOID v) { return __atomic_exchange_n(p, v, NSPA_SC); }
NSPA_ILK PVOID InterlockedCompareExchangePointer(PVOID volatile *p, PVOID xchg, PVOID cmp)
{
    __atomic_compare_exchange_n(p, &cmp, xchg, 0, NSPA_SC, NSPA_SC);
    return cmp;
}

NSPA_ILK void MemoryBarrier(void) { __atomic_thread_fence(NSPA_SC); }
#if defined(__x86_64__) || defined(__i386__)
NSPA_ILK void YieldProcessor(void) { __builtin_ia32_pause(); }
#elif defined(__aarch64__)
NSPA_ILK void YieldProcessor(void) { __asm__ __volatile__("yield"); }
#else
NSPA_ILK void YieldProcessor(void) { }
#endif

#define InterlockedIncrementAcquire InterlockedIncrement
#define InterlockedIncrementRelease InterlockedIncrement
#define InterlockedDecrementAcquire InterlockedDecrement
#define InterlockedDecrementRelease InterlockedDecrement
#define InterlockedCompareExchangeAcquire InterlockedCompareExchange
#define InterlockedCompareExchangeRelease InterlockedCompareExchange

#undef NSPA_ILK
#undef NSPA_SC
#endif
