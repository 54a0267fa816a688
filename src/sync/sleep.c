/*
 * Sleeping in a wait: on the thread's futex word, with the liveness words of the
 * mutex owners of other processes (the kernel wakes us at their death), or in the I/O
 * module's poll when the thread has overlapped I/O on a ring of its own.
 */
#include <errno.h>
#include "sync/internal.h"

/* The owners of the mutexes of the wait that live in other processes: their liveness
 * words go into @wv (the kernel wakes us at their death). A dead one is reclaimed now.
 * Returns how many words. */
NSPA_HIDDEN uint32_t watch_owners(struct sobj *const *objs, uint32_t n, struct nspa_futex_waitv *wv)
{
    struct ns *ns = nspa_ns;
    uint32_t nw = 0;
    if (!ns) return 0;
    for (uint32_t i = 0; i < n; i++) {
        struct sobj *o = objs[i];
        if (obj_type_now(o) != NSPA_TYPE_MUTEX) continue;
        uint32_t owner = mtx_owner(atomic_load_explicit(&o->word, memory_order_acquire));
        if (!owner) continue;
        struct thr *ot = thr_by_tid(owner);
        if (!ot || !in_region(ot) || __atomic_load_n(&ot->proc, __ATOMIC_RELAXED) == ns->proc) continue;
        _Atomic uint32_t *lw = nspa_robust_word(&ot->alive);
        /* FUTEX_WAITERS makes the kernel wake a waiter when it marks the holder dead */
        uint32_t v = atomic_fetch_or(lw, FUTEX_WAITERS) | FUTEX_WAITERS;
        if (thr_is_dead_word(v) || !(v & FUTEX_TID_MASK)) {
            /* it died: its mutexes are abandoned now (or, when its fork family must
             * reclaim it, at the family's next look, which serves us) */
            thr_dead_check(ot, owner);
            continue;
        }
        nspa_waitv_set(&wv[nw++], lw, v, 1);
    }
    return nw;
}

/* the I/O module's (engine_tring.c, engine_epoll.c); wake.c reads it too */
NSPA_HIDDEN const struct nspa__sleep_hooks *nspa__sleep_hooks_cur;
#define sleep_hooks nspa__sleep_hooks_cur

NSPA_HIDDEN void nspa__set_sleep_hooks(const struct nspa__sleep_hooks *h)
{
    __atomic_store_n(&sleep_hooks, h, __ATOMIC_RELEASE);
}

NSPA_HIDDEN void sleep_hooks_thread_end(void)
{
    const struct nspa__sleep_hooks *h = __atomic_load_n(&sleep_hooks, __ATOMIC_ACQUIRE);
    if (h && h->thread_end) h->thread_end();
}

/* The I/O module's sleep hook slept on @word (a thread's futex word, sleep_once) without
 * a timer of its own, counting on a ring alarm that another thread's reap has taken
 * (engine_tring.c, "alarm"): make that thread look at its wait again. A poke grants
 * nothing; a record reused meanwhile only looks again. */
NSPA_HIDDEN void nspa__sleep_poke(_Atomic uint32_t *word)
{
    waiter_poke((struct thr *)(void *)((char *)word - offsetof(struct thr, futex)));
}

/* Sleep until @t's futex word changes from @v, a watched owner dies, @deadline (ns on
 * @clk; UINT64_MAX: none). No timer otherwise: a grant always comes with its wake
 * (wake.c, wake_granted). A thread with overlapped I/O on a ring of its own sleeps in
 * that ring (the I/O module's hook): a completion of its I/O wakes it as its word does. */
static void sleep_once(struct thr *t, uint32_t v, struct nspa_futex_waitv *wv, uint32_t nwatch,
                       uint64_t deadline, clockid_t clk)
{
    int shared = __atomic_load_n(&t->shared_futex, __ATOMIC_RELAXED) || arena_has_forked();
    const struct nspa__sleep_hooks *h = __atomic_load_n(&sleep_hooks, __ATOMIC_ACQUIRE);
    if (h && h->sleep(&t->futex, v, shared, deadline, clk, nwatch != 0, &t->poll_mark)) return;
    struct timespec ts, *tsp = NULL;
    if (deadline != UINT64_MAX) {
        ts = nspa_ts_from_ns(deadline);
        tsp = &ts;
    }
    if (nwatch) {
        nspa_waitv_set(&wv[0], &t->futex, v, shared);
        if (nspa_futex_waitv(wv, 1 + nwatch, tsp, clk) != -ENOSYS) return;
        /* before Linux 5.16: our own word, and owners re-checked every 50 ms */
        uint64_t step = nspa_clock_ns(clk) + 50000000ull;
        if (deadline > step) ts = nspa_ts_from_ns(step), tsp = &ts;
    }
    nspa_futex_wait_abs(&t->futex, v, tsp, clk, shared);
}

/* Sleep in the kernel, saying so: a thread handed a mutex while it sleeps is not on a
 * CPU until the scheduler runs it, and its contenders do not spin for it meanwhile. */
NSPA_HIDDEN void sleep_marked(struct thr *t, uint32_t v, struct nspa_futex_waitv *wv, uint32_t nwatch,
                         uint64_t deadline, clockid_t clk)
{
    atomic_store_explicit(&t->spinning, T_SLEEP, memory_order_relaxed);
    /* before the kernel reads the word: a waker that saw us still running skipped its
     * wake (wake.c, futex_wake_thr), so we must see its change */
    atomic_thread_fence(memory_order_seq_cst);
    sleep_once(t, v, wv, nwatch, deadline, clk);
    /* woken to take a free mutex (wake.c, head_wake_to_take): a test holds us here, still
     * off the CPU as the others see it */
    if (atomic_load_explicit(&t->spinning, memory_order_relaxed) == T_WOKEN) nspa__test_point("wait_woken");
    atomic_store_explicit(&t->spinning, T_RUN, memory_order_relaxed);
}
