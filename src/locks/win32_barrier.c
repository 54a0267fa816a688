/*
 * Synchronization barriers (InitializeSynchronizationBarrier and friends) on a futex.
 *
 * Fields of the 32-byte RTL_BARRIER (the layout is Windows'; the use is NSPA's):
 *   Reserved1  threads still to arrive in this phase
 *   Reserved2  the phase number: the futex word the others sleep on
 *   Reserved3  [0] total threads, [1] spin count
 *   Reserved4  threads inside Enter that have not left yet (for Delete), and bit 31
 *              (DELETING) while a Delete waits for them
 *   Reserved5  0 (unused)
 * A leaving thread's last access to the barrier is its decrement of Reserved4 (then at
 * most a futex wake, which only uses the address as a key): once Delete saw the count
 * at 0, the barrier may be initialized again or freed (Wine's test_barrier does the
 * first at once).
 * The last thread to arrive resets the count, bumps the phase and wakes the sleepers:
 * it is the one that gets TRUE. The count is reset before the phase moves, and a thread
 * can only arrive for the next phase after it saw the phase move, so phases never mix.
 * Spinning (Windows' default unless BLOCK_ONLY) is bounded by the spin count and
 * skipped on one CPU; SPIN_ONLY never sleeps. An unknown flag raises
 * STATUS_INVALID_PARAMETER, as on Windows.
 */
#include <limits.h>
#include <stdint.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"

#define DEFAULT_SPIN 2000

static int one_cpu(void) { return nspa_ncpu_online() <= 1; }

NSPA_EXPORT BOOL WINAPI InitializeSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER b, LONG total, LONG spin)
{
    if (!b || total < 1 || spin < -1) {      /* RtlInitBarrier: STATUS_INVALID_PARAMETER */
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    b->Reserved1 = (DWORD)total;
    b->Reserved2 = 0;
    b->Reserved3[0] = (ULONG_PTR)total;
    b->Reserved3[1] = spin == -1 ? DEFAULT_SPIN : (ULONG_PTR)spin;
    b->Reserved4 = 0;
    b->Reserved5 = 0;
    __atomic_thread_fence(__ATOMIC_RELEASE);
    return TRUE;
}

#define DELETING 0x80000000u

static void leave(LPSYNCHRONIZATION_BARRIER b)
{
    /* the flag and the count are one word: the value this decrement leaves says
     * whether a Delete waits, with no read of the barrier after it */
    if (__atomic_sub_fetch(&b->Reserved4, 1, __ATOMIC_ACQ_REL) == DELETING)
        nspa_futex_wake_n(&b->Reserved4, INT_MAX, 0);
}

#define VALID_FLAGS (SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY | SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY | \
                     SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE)

NSPA_EXPORT BOOL WINAPI EnterSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER b, DWORD flags)
{
    /* Windows raises STATUS_INVALID_PARAMETER (noncontinuable) for an unknown flag,
     * before anything is touched; a vectored handler can catch it (Wine's test_barrier
     * does), else the process ends with that code as on Windows */
    if (unlikely(flags & ~(DWORD)VALID_FLAGS))
        RaiseException((DWORD)STATUS_INVALID_PARAMETER, EXCEPTION_NONCONTINUABLE, 0, NULL);
    int track = !(flags & SYNCHRONIZATION_BARRIER_FLAGS_NO_DELETE);
    if (track) __atomic_add_fetch(&b->Reserved4, 1, __ATOMIC_ACQ_REL);
    DWORD phase = __atomic_load_n(&b->Reserved2, __ATOMIC_ACQUIRE);
    if (__atomic_sub_fetch(&b->Reserved1, 1, __ATOMIC_ACQ_REL) == 0) {
        __atomic_store_n(&b->Reserved1, (DWORD)b->Reserved3[0], __ATOMIC_RELAXED);
        __atomic_store_n(&b->Reserved2, phase + 1, __ATOMIC_RELEASE);
        if (b->Reserved3[0] > 1) nspa_futex_wake_n(&b->Reserved2, INT_MAX, 0);
        if (track) leave(b);
        return TRUE;
    }
    int spin_only = (flags & SYNCHRONIZATION_BARRIER_FLAGS_SPIN_ONLY) != 0;
    if (!(flags & SYNCHRONIZATION_BARRIER_FLAGS_BLOCK_ONLY) && (!one_cpu() || spin_only)) {
        for (ULONG_PTR i = 0; spin_only || i < b->Reserved3[1]; i++) {
            if (__atomic_load_n(&b->Reserved2, __ATOMIC_ACQUIRE) != phase) goto out;
            nspa_cpu_relax();
        }
    }
    while (__atomic_load_n(&b->Reserved2, __ATOMIC_ACQUIRE) == phase)
        nspa_futex_wait_abs(&b->Reserved2, phase, NULL, CLOCK_MONOTONIC, 0);
out:
    if (track) leave(b);
    return FALSE;
}

/* Waits until every thread that entered without NO_DELETE has left Enter. */
NSPA_EXPORT BOOL WINAPI DeleteSynchronizationBarrier(LPSYNCHRONIZATION_BARRIER b)
{
    DWORD in = __atomic_or_fetch(&b->Reserved4, DELETING, __ATOMIC_ACQ_REL);
    while (in != DELETING) {
        nspa_futex_wait_abs(&b->Reserved4, in, NULL, CLOCK_MONOTONIC, 0);
        in = __atomic_load_n(&b->Reserved4, __ATOMIC_ACQUIRE);
    }
    return TRUE;
}
