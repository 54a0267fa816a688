/* CRITICAL_SECTION: a PI futex in RT mode, a three-state futex lock otherwise.
 * See cs_impl.h for the word encoding and docs/locks.md for the design. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/sysinfo.h>
#include "nspa/win32/windows.h"
#include "locks/cs_impl.h"
#include "locks/locks_internal.h"

_Static_assert(sizeof(nspa_cs_t) == sizeof(RTL_CRITICAL_SECTION), "cs size");
_Static_assert(offsetof(nspa_cs_t, lock_count) == offsetof(RTL_CRITICAL_SECTION, LockCount), "cs");
_Static_assert(offsetof(nspa_cs_t, recursion) == offsetof(RTL_CRITICAL_SECTION, RecursionCount), "cs");
_Static_assert(offsetof(nspa_cs_t, owner) == offsetof(RTL_CRITICAL_SECTION, OwningThread), "cs");
_Static_assert(offsetof(nspa_cs_t, mode) == offsetof(RTL_CRITICAL_SECTION, LockSemaphore), "cs");
_Static_assert(offsetof(nspa_cs_t, spin_count) == offsetof(RTL_CRITICAL_SECTION, SpinCount), "cs");

#define SPIN_MASK 0x00ffffffu
#define CS_SPIN_CAP 128u
#define KEPT_FLAGS (NSPA_CS_DYNAMIC_SPIN | NSPA_CS_RESOURCE_TYPE)

/* ---- the requeue-PI registry: id -> PI futex word, so that a condition variable
 * (one pointer wide) can name the lock its waiters are requeued to ---- */
#define REG_SIZE 65536
static _Atomic(int32_t *) reg_words[REG_SIZE];
static uint16_t reg_free[REG_SIZE];
static unsigned reg_nfree, reg_next = 1;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned reg_add(int32_t *word)
{
    unsigned id = 0;
    pthread_mutex_lock(&reg_lock);
    if (reg_nfree)
        id = reg_free[--reg_nfree];
    else if (reg_next < REG_SIZE)
        id = reg_next++;
    if (id)
        atomic_store_explicit(&reg_words[id], word, memory_order_release);
    pthread_mutex_unlock(&reg_lock);
    return id;
}

static void reg_del(unsigned id)
{
    if (!id || id >= REG_SIZE)
        return;
    pthread_mutex_lock(&reg_lock);
    if (atomic_load_explicit(&reg_words[id], memory_order_relaxed)) {
        atomic_store_explicit(&reg_words[id], NULL, memory_order_release);
        reg_free[reg_nfree++] = (uint16_t)id;
    }
    pthread_mutex_unlock(&reg_lock);
}

NSPA_HIDDEN int32_t *nspa_cs_registry_word(unsigned id)
{
    return id && id < REG_SIZE ? atomic_load_explicit(&reg_words[id], memory_order_acquire) : NULL;
}

/* ---- slow paths ---- */
NSPA_HIDDEN void nspa_cs_enter_slow(nspa_cs_t *cs, uint32_t tid, int spin_ok)
{
    _Atomic int32_t *w = cs_word(cs);
    unsigned spin = (!spin_ok || nspa_rt_self_is_rt()) ? 0 : (unsigned)(cs->spin_count & SPIN_MASK);
    /* SpinCount keeps the caller's value (Windows programs read it back), but we spin at
     * most CS_SPIN_CAP times: on an overcommitted machine a longer spin burns the time
     * slice the owner needs (docs/locks.md) */
    if (spin > CS_SPIN_CAP)
        spin = CS_SPIN_CAP;
    if (cs->mode & CS_MODE_PI) {
        for (unsigned i = 0; i < spin; i++) {
            int32_t exp = atomic_load_explicit(w, memory_order_relaxed);
            if (exp == 0 && atomic_compare_exchange_weak_explicit(w, &exp, (int32_t)tid,
                                                                  memory_order_acquire,
                                                                  memory_order_relaxed))
                goto owned;
            nspa_cpu_relax();
        }
        for (;;) {
            long r = nspa_futex(w, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
            if (r == 0)
                break;
            if (r == -EINTR || r == -EAGAIN)
                continue;
            /* the owner is gone (ESRCH/EINVAL: a dead thread's tid): like Windows, an
             * orphaned section stays locked; sleep until the word changes */
            int32_t cur = atomic_load_explicit(w, memory_order_relaxed);
            if (cur != 0)
                nspa_futex_wait(w, (uint32_t)cur, NULL);
        }
        NSPA_TSAN_ACQUIRE(w);
    } else {
        for (unsigned i = 0; i < spin; i++) {
            int32_t exp = atomic_load_explicit(w, memory_order_relaxed);
            if (exp == CS_FREE_PLAIN &&
                atomic_compare_exchange_weak_explicit(w, &exp, CS_HELD_PLAIN, memory_order_acquire,
                                                      memory_order_relaxed))
                goto owned;
            nspa_cpu_relax();
        }
        while (atomic_exchange_explicit(w, CS_WAITED_PLAIN, memory_order_acquire) != CS_FREE_PLAIN)
            nspa_futex_wait(w, (uint32_t)CS_WAITED_PLAIN, NULL);
    }
owned:
    cs_set_owned(cs, tid);
}

static uintptr_t default_spin(void)
{
    static int nprocs;
    if (!nprocs)
        nprocs = get_nprocs();
    return nprocs > 1 ? (NSPA_CS_DYNAMIC_SPIN | NSPA_CS_DEFAULT_SPIN) : 0;
}

NSPA_HIDDEN int nspa_cs_do_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags, int ex)
{
    if (ex) {
        if (spin & ~SPIN_MASK)
            return -EINVAL;
        if (flags & ~0x1fffffffu)
            return -EINVAL;
    }
    spin &= SPIN_MASK;
    cs->debug_info = (void *)(intptr_t)-1;
    cs->recursion = 0;
    cs->owner = 0;
    cs->mode = 0;
    cs->spin_count = (spin ? spin : default_spin()) | (flags & KEPT_FLAGS);
    if (nspa_pi_enabled()) {
        unsigned id = reg_add(&cs->lock_count);
        cs->mode = CS_MODE_PI | ((uintptr_t)id << 32);
        cs->lock_count = 0;
    } else {
        cs->lock_count = CS_FREE_PLAIN;
    }
    return 0;
}

/* ---- nspa_* API ---- */
NSPA_EXPORT int nspa_cs_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags)
{
    return nspa_cs_do_init(cs, spin, flags, 1);
}
NSPA_EXPORT void nspa_cs_enter(nspa_cs_t *cs) { cs_enter_inline(cs); }
NSPA_EXPORT int nspa_cs_try_enter(nspa_cs_t *cs) { return cs_try_enter_inline(cs); }
NSPA_EXPORT void nspa_cs_leave(nspa_cs_t *cs) { cs_leave_inline(cs); }
NSPA_EXPORT uint32_t nspa_cs_owner(const nspa_cs_t *cs) { return cs_owner_relaxed(cs); }

NSPA_EXPORT void nspa_cs_delete(nspa_cs_t *cs)
{
    if (cs->mode & CS_MODE_PI)
        reg_del((unsigned)((cs->mode >> 32) & 0xffff));
    cs->mode = 0;
    cs->lock_count = CS_FREE_PLAIN;
    cs->recursion = 0;
    cs->owner = 0;
    cs->spin_count = 0;
    cs->debug_info = NULL;
}

NSPA_EXPORT uint32_t nspa_cs_set_spin(nspa_cs_t *cs, uint32_t spin)
{
    uint32_t old = (uint32_t)cs->spin_count;
    if (default_spin())
        __atomic_store_n(&cs->spin_count, (uintptr_t)spin, __ATOMIC_RELAXED);
    return old;
}

/* ---- Win32 ---- */
NSPA_EXPORT void WINAPI InitializeCriticalSection(LPCRITICAL_SECTION cs)
{
    nspa_cs_do_init((nspa_cs_t *)cs, 0, 0, 0);
}

NSPA_EXPORT BOOL WINAPI InitializeCriticalSectionAndSpinCount(LPCRITICAL_SECTION cs, DWORD spin)
{
    nspa_cs_do_init((nspa_cs_t *)cs, spin, 0, 0);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI InitializeCriticalSectionEx(LPCRITICAL_SECTION cs, DWORD spin, DWORD flags)
{
    if (nspa_cs_do_init((nspa_cs_t *)cs, spin, flags, 1) < 0) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT void WINAPI EnterCriticalSection(LPCRITICAL_SECTION cs) { cs_enter_inline((nspa_cs_t *)cs); }
NSPA_EXPORT BOOL WINAPI TryEnterCriticalSection(LPCRITICAL_SECTION cs)
{
    return cs_try_enter_inline((nspa_cs_t *)cs);
}
NSPA_EXPORT void WINAPI LeaveCriticalSection(LPCRITICAL_SECTION cs) { cs_leave_inline((nspa_cs_t *)cs); }
NSPA_EXPORT void WINAPI DeleteCriticalSection(LPCRITICAL_SECTION cs) { nspa_cs_delete((nspa_cs_t *)cs); }
NSPA_EXPORT DWORD WINAPI SetCriticalSectionSpinCount(LPCRITICAL_SECTION cs, DWORD spin)
{
    return nspa_cs_set_spin((nspa_cs_t *)cs, spin);
}
