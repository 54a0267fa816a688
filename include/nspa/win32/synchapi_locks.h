/* NSPA Win32 layer: user-mode locks, the part of synchapi.h that synchapi.h includes.
 * CRITICAL_SECTION, SRW locks, condition variables, one-time initialisation and
 * WaitOnAddress (their RTL_* types: winnt.h). Implemented natively in libnspa
 * (src/locks/); see docs/locks.md. */
#ifndef NSPA_WIN32_SYNCHAPI_LOCKS_H
#define NSPA_WIN32_SYNCHAPI_LOCKS_H

#include "windef.h"
#include "winnt.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef INFINITE
#define INFINITE 0xFFFFFFFF
#endif

/* ---- CRITICAL_SECTION (RTL_CRITICAL_SECTION: winnt.h) ---- */
typedef RTL_CRITICAL_SECTION CRITICAL_SECTION, *PCRITICAL_SECTION, *LPCRITICAL_SECTION;

#define CRITICAL_SECTION_NO_DEBUG_INFO RTL_CRITICAL_SECTION_FLAG_NO_DEBUG_INFO

void  WINAPI InitializeCriticalSection(LPCRITICAL_SECTION cs);
BOOL  WINAPI InitializeCriticalSectionAndSpinCount(LPCRITICAL_SECTION cs, DWORD spin);
BOOL  WINAPI InitializeCriticalSectionEx(LPCRITICAL_SECTION cs, DWORD spin, DWORD flags);
void  WINAPI EnterCriticalSection(LPCRITICAL_SECTION cs);
BOOL  WINAPI TryEnterCriticalSection(LPCRITICAL_SECTION cs);
void  WINAPI LeaveCriticalSection(LPCRITICAL_SECTION cs);
void  WINAPI DeleteCriticalSection(LPCRITICAL_SECTION cs);
DWORD WINAPI SetCriticalSectionSpinCount(LPCRITICAL_SECTION cs, DWORD spin);

/* Inline fast paths of EnterCriticalSection and LeaveCriticalSection.
 *
 * An uncontended Enter+Leave is two atomic instructions; a call into the library around
 * each costs a further ~10% (docs/locks.md, "Inline fast paths"). So, as GNU extern
 * inline functions, the header carries the uncontended case of a plain (non-PI) section:
 * Enter takes a free section with one compare-and-swap, Leave drops the last level with
 * one exchange. Everything else (recursion on Enter, contention, PI sections, a thread's
 * first lock call) goes to the library's nspa_cs_enter / nspa_cs_leave. The functions'
 * addresses are still the library's exported symbols. This fixes the meaning of
 * LockCount -1/-2/-3 in a plain section and of bit 0 of LockSemaphore as ABI.
 * Define NSPA_NO_INLINE_LOCKS before including <windows.h> to always call the library. */
#if !defined(NSPA_NO_INLINE_LOCKS) && !defined(NSPA_BUILDING) && defined(__GNUC__)
struct nspa_cs;
void nspa_cs_enter(struct nspa_cs *cs);
void nspa_cs_leave(struct nspa_cs *cs);
void nspa_cs_wake_plain(struct nspa_cs *cs);
extern __thread unsigned int nspa_tls_tid __attribute__((tls_model("initial-exec")));

extern __inline__ __attribute__((gnu_inline, always_inline)) void WINAPI
EnterCriticalSection(LPCRITICAL_SECTION cs)
{
    unsigned int tid = nspa_tls_tid;
    LONG free_ = -1; /* a free plain section */
    /* a PI section goes to the library without a (failing, but still locked) CAS */
    if (__builtin_expect(tid != 0, 1) &&
        __builtin_expect(!((ULONG_PTR)__atomic_load_n(&cs->LockSemaphore, __ATOMIC_RELAXED) & 1), 1) &&
        __builtin_expect(__atomic_compare_exchange_n(&cs->LockCount, &free_, -2, 0,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED), 1)) {
        __atomic_store_n(&cs->OwningThread, (HANDLE)(ULONG_PTR)tid, __ATOMIC_RELAXED);
        cs->RecursionCount = 1;
        return;
    }
    nspa_cs_enter((struct nspa_cs *)cs);
}

extern __inline__ __attribute__((gnu_inline, always_inline)) void WINAPI
LeaveCriticalSection(LPCRITICAL_SECTION cs)
{
    if (cs->RecursionCount > 1) {
        cs->RecursionCount--;
        return;
    }
    if (__builtin_expect((ULONG_PTR)__atomic_load_n(&cs->LockSemaphore, __ATOMIC_RELAXED) & 1, 0)) {
        nspa_cs_leave((struct nspa_cs *)cs); /* PI section */
        return;
    }
    cs->RecursionCount = 0;
    __atomic_store_n(&cs->OwningThread, (HANDLE)0, __ATOMIC_RELAXED);
    if (__builtin_expect(__atomic_exchange_n(&cs->LockCount, -1, __ATOMIC_RELEASE) == -3, 0))
        nspa_cs_wake_plain((struct nspa_cs *)cs);
}
#endif

/* ---- SRW locks ---- */
typedef RTL_SRWLOCK SRWLOCK, *PSRWLOCK;
#define SRWLOCK_INIT RTL_SRWLOCK_INIT

void    WINAPI InitializeSRWLock(PSRWLOCK lock);
void    WINAPI AcquireSRWLockExclusive(PSRWLOCK lock);
void    WINAPI AcquireSRWLockShared(PSRWLOCK lock);
void    WINAPI ReleaseSRWLockExclusive(PSRWLOCK lock);
void    WINAPI ReleaseSRWLockShared(PSRWLOCK lock);
BOOLEAN WINAPI TryAcquireSRWLockExclusive(PSRWLOCK lock);
BOOLEAN WINAPI TryAcquireSRWLockShared(PSRWLOCK lock);

/* ---- Condition variables ---- */
typedef RTL_CONDITION_VARIABLE CONDITION_VARIABLE, *PCONDITION_VARIABLE;
#define CONDITION_VARIABLE_INIT RTL_CONDITION_VARIABLE_INIT
#define CONDITION_VARIABLE_LOCKMODE_SHARED RTL_CONDITION_VARIABLE_LOCKMODE_SHARED

void WINAPI InitializeConditionVariable(PCONDITION_VARIABLE cv);
BOOL WINAPI SleepConditionVariableCS(PCONDITION_VARIABLE cv, PCRITICAL_SECTION cs, DWORD ms);
BOOL WINAPI SleepConditionVariableSRW(PCONDITION_VARIABLE cv, PSRWLOCK lock, DWORD ms,
                                      ULONG flags);
void WINAPI WakeConditionVariable(PCONDITION_VARIABLE cv);
void WINAPI WakeAllConditionVariable(PCONDITION_VARIABLE cv);

/* ---- One-time initialisation ---- */
typedef RTL_RUN_ONCE INIT_ONCE, *PINIT_ONCE, *LPINIT_ONCE;
#define INIT_ONCE_STATIC_INIT RTL_RUN_ONCE_INIT
#define INIT_ONCE_CHECK_ONLY        RTL_RUN_ONCE_CHECK_ONLY
#define INIT_ONCE_ASYNC             RTL_RUN_ONCE_ASYNC
#define INIT_ONCE_INIT_FAILED       RTL_RUN_ONCE_INIT_FAILED
#define INIT_ONCE_CTX_RESERVED_BITS RTL_RUN_ONCE_CTX_RESERVED_BITS

typedef BOOL (CALLBACK *PINIT_ONCE_FN)(PINIT_ONCE once, PVOID param, PVOID *context);

void WINAPI InitOnceInitialize(PINIT_ONCE once);
BOOL WINAPI InitOnceExecuteOnce(PINIT_ONCE once, PINIT_ONCE_FN fn, PVOID param, LPVOID *context);
BOOL WINAPI InitOnceBeginInitialize(LPINIT_ONCE once, DWORD flags, PBOOL pending, LPVOID *context);
BOOL WINAPI InitOnceComplete(LPINIT_ONCE once, DWORD flags, LPVOID context);

/* ---- Address waits ---- */
BOOL WINAPI WaitOnAddress(volatile VOID *address, PVOID compare, SIZE_T size, DWORD ms);
void WINAPI WakeByAddressSingle(PVOID address);
void WINAPI WakeByAddressAll(PVOID address);

#ifdef __cplusplus
}
#endif
#endif
