/* One-time initialisation (INIT_ONCE / RtlRunOnce*), one pointer:
 *   low 2 bits 0: not started; 1: in progress (synchronous); 3: in progress (async);
 *              2: done, the upper bits hold the context.
 *   While in progress (1), bit 2 says that somebody sleeps on the low 32-bit half. */
#include "nspa/win32/windows.h"
#include "locks/futex.h"
#include "locks/locks_internal.h"

_Static_assert(sizeof(nspa_once_t) == sizeof(INIT_ONCE), "once size");

#define ONCE_STATE   3u
#define ONCE_SYNC    1u
#define ONCE_DONE    2u
#define ONCE_ASYNCP  3u
#define ONCE_SLEEPER 4u

static inline _Atomic uintptr_t *once_word(nspa_once_t *o) { return (_Atomic uintptr_t *)&o->ptr; }

NSPA_EXPORT int nspa_once_begin(nspa_once_t *o, uint32_t flags, void **context)
{
    _Atomic uintptr_t *w = once_word(o);
    if (flags & NSPA_ONCE_CHECK_ONLY) {
        uintptr_t v = atomic_load_explicit(w, memory_order_acquire);
        if (flags & NSPA_ONCE_ASYNC)
            return -EINVAL;
        if ((v & ONCE_STATE) != ONCE_DONE)
            return -EAGAIN;
        if (context)
            *context = (void *)(v & ~(uintptr_t)ONCE_STATE);
        return 0;
    }
    for (;;) {
        uintptr_t v = atomic_load_explicit(w, memory_order_acquire);
        switch (v & ONCE_STATE) {
        case 0:
            if (atomic_compare_exchange_strong_explicit(w, &v,
                    (flags & NSPA_ONCE_ASYNC) ? ONCE_ASYNCP : ONCE_SYNC,
                    memory_order_acquire, memory_order_relaxed))
                return 1;
            break;
        case ONCE_SYNC:
            if (flags & NSPA_ONCE_ASYNC)
                return -EINVAL;
            if (!(v & ONCE_SLEEPER) &&
                !atomic_compare_exchange_strong_explicit(w, &v, v | ONCE_SLEEPER,
                                                         memory_order_relaxed, memory_order_relaxed))
                break;
            nspa_futex_wait_abs(w, (uint32_t)(v | ONCE_SLEEPER), NULL, CLOCK_MONOTONIC, 0);
            break;
        case ONCE_DONE:
            if (context)
                *context = (void *)(v & ~(uintptr_t)ONCE_STATE);
            return 0;
        case ONCE_ASYNCP:
            if (!(flags & NSPA_ONCE_ASYNC))
                return -EINVAL;
            return 1;
        }
    }
}

NSPA_EXPORT int nspa_once_complete(nspa_once_t *o, uint32_t flags, void *context)
{
    _Atomic uintptr_t *w = once_word(o);
    uintptr_t nv;
    if ((uintptr_t)context & ONCE_STATE)
        return -EINVAL;
    if (flags & NSPA_ONCE_INIT_FAILED) {
        if (context || (flags & NSPA_ONCE_ASYNC))
            return -EINVAL;
        nv = 0;
    } else {
        nv = (uintptr_t)context | ONCE_DONE;
    }
    for (;;) {
        uintptr_t v = atomic_load_explicit(w, memory_order_relaxed);
        switch (v & ONCE_STATE) {
        case ONCE_SYNC:
            if (!atomic_compare_exchange_strong_explicit(w, &v, nv, memory_order_release,
                                                         memory_order_relaxed))
                continue;
            if (v & ONCE_SLEEPER)
                nspa_futex_wake_n(w, INT_MAX, 0);
            return 0;
        case ONCE_ASYNCP:
            if (!(flags & NSPA_ONCE_ASYNC))
                return -EINVAL;
            if (!atomic_compare_exchange_strong_explicit(w, &v, nv, memory_order_release,
                                                         memory_order_relaxed))
                continue;
            return 0;
        default:
            return -EAGAIN;
        }
    }
}

NSPA_EXPORT int nspa_once_execute(nspa_once_t *o, int (*fn)(nspa_once_t *, void *, void **),
                                  void *param, void **context)
{
    int r = nspa_once_begin(o, 0, context);
    if (r != 1)
        return r;
    if (!fn(o, param, context)) {
        nspa_once_complete(o, NSPA_ONCE_INIT_FAILED, NULL);
        return -EAGAIN;
    }
    return nspa_once_complete(o, 0, context ? *context : NULL);
}
