/* NSPA heap: the stop-the-world heap lock (HeapLock and everything that stops a heap's
 * world) and the real-time waits (docs/heap.md, "HeapLock" and "Waiting in real time").
 * The entry and exit of every operation (enter, leave_fast ...) are in heap_inline.h. */
#include "heap_inline.h"
#include <time.h>
#include <linux/membarrier.h>

/* stw_mtx is held from HeapLock to HeapUnlock, across the caller's code, so its holder
 * may exit with it. The heap then stays locked for good, as NT's does (and as it did
 * with a default mutex). It is a robust PI mutex: the kernel hands a dead holder's PI
 * mutex to a waiter, and glibc aborts on that unless the mutex is robust; the thread
 * that gets it (EOWNERDEAD) keeps it and sleeps for ever, so every other waiter sleeps
 * on too. Nobody spins. */
void stw_lock(heap_t *h)
{
    if (unlikely(pthread_mutex_lock(&h->stw_mtx) == EOWNERDEAD))
        for (;;)
            pause();
}

__attribute__((noinline, cold)) void enter_slow(tld_t *t, heap_t *h)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!(atomic_load(&h->stw) & 1))
        return;
    for (;;) {
        if (atomic_load(&h->lock_owner) == t)
            return;
        STR(t->busy, NULL);
        piw_check(t);                       /* the locker may wait for us */
        stw_lock(h);
        pthread_mutex_unlock(&h->stw_mtx);
        atomic_store(&t->busy, h);
        atomic_thread_fence(memory_order_seq_cst);
        if (!(atomic_load(&h->stw) & 1))
            return;
    }
}

/* World stopped (or being re-entered by its holder): push every theap's batched remote
 * frees of h, so that whatever the holder looks at (HeapWalk, HeapValidate, statistics)
 * sees invariant 4 exact. Only the holder itself can have batched since the world
 * stopped (others wait in enter), hence the push on re-entry too. */
static void heap_push_batches(heap_t *h)
{
    pthread_mutex_lock(&h->big);
    for (theap_t *th = h->theaps; th; th = th->hnext)
        theap_rb_flush_all(th);
    pthread_mutex_unlock(&h->big);
}

/* ---- waiting for another thread, in real time ----------------------------------
 * The locker must wait for every thread inside the heap to leave it. Such a thread may
 * be preempted by the locker itself (a lower priority on the same CPU), where spinning
 * or sched_yield() would never let it run. So after a short spin the locker sleeps on
 * that thread's PI futex word with the thread's tid written in as the owner: the kernel
 * then runs the thread at the locker's priority (and further up a chain) until it
 * leaves. Leaving while stw is set (leave_fast) looks at the word and hands it over. */

#define BUSY_SPIN 64                     /* cpu_relax rounds before sleeping */
static int no_pi_futex;                  /* FUTEX_LOCK_PI failed with ENOSYS: poll */


/* Busy cleared with stw set: if a locker has made us the owner of our PI word, give it
 * up (the locker takes it and goes on). The fence pairs with the locker's
 * compare-exchange of the word before it reads busy again: one of the two sees the
 * other's store. */
__attribute__((noinline)) void piw_check(tld_t *t)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (;;) {
        uint32_t v = atomic_load(&t->piw);
        if (likely(v == 0) || (v & FUTEX_TID_MASK) != t->tid)
            return;                      /* the locker's own tid: it is done with us */
        if (!(v & FUTEX_WAITERS)) {      /* the locker has not slept yet */
            if (atomic_compare_exchange_strong(&t->piw, &v, 0))
                return;
            continue;
        }
        NSPA_TSAN_RELEASE(&t->piw);
        nspa_futex(&t->piw, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
        return;
    }
}

/* Release a PI word the calling thread (tid me) owns. */
void piw_unlock(_Atomic uint32_t *w, uint32_t me)
{
    uint32_t exp = me;
    NSPA_TSAN_RELEASE(w);
    if (!atomic_compare_exchange_strong(w, &exp, 0))
        nspa_futex(w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0);
}

/* Sleep until r leaves h or for a while, lending r our priority. 0 if the kernel
 * cannot do that here (the caller then polls, sleeping). */
static int busy_wait_pi(tld_t *t, tld_t *r, heap_t *h)
{
    uint32_t owner = r->tid, exp = 0;
    if (no_pi_futex || !owner || !atomic_compare_exchange_strong(&r->piw, &exp, owner))
        return 0;
    if (atomic_load(&r->busy) != h) {    /* left meanwhile: take the word back */
        exp = owner;
        atomic_compare_exchange_strong(&r->piw, &exp, 0);   /* (unless r did) */
        return 1;
    }
    long e;
    while ((e = nspa_futex(&r->piw, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0)) == -EINTR)
        ;
    if (e == 0) {                         /* r handed it over (or had taken it back) */
        NSPA_TSAN_ACQUIRE(&r->piw);
        piw_unlock(&r->piw, t->tid ? t->tid : gettid_now());
        return 1;
    }
    if (e == -ENOSYS)
        no_pi_futex = 1;
    /* ENOSYS: the kernel left the word alone, and r at most clears it too; ESRCH: r is
     * gone */
    atomic_store(&r->piw, 0);
    return 0;
}

static void wait_not_busy(tld_t *t, tld_t *r, heap_t *h)
{
    for (int i = 0; i < BUSY_SPIN && atomic_load(&r->busy) == h; i++)
        nspa_cpu_relax();
    while (atomic_load(&r->busy) == h) {
        if (!busy_wait_pi(t, r, h)) {
            struct timespec ts = { 0, 100000 };   /* no boost: at least let r run */
            nanosleep(&ts, NULL);
        }
    }
}

void heap_lock_impl(tld_t *t, heap_t *h)
{
    if (atomic_load(&h->lock_owner) == t) {
        h->lock_depth++;
        heap_push_batches(h);
        return;
    }
    stw_lock(h);
    atomic_store(&h->lock_owner, t);
    h->lock_depth = 1;
    atomic_fetch_or(&h->stw, 1);
    if (!fence_mode && !NSPA_TSAN)
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    pthread_mutex_lock(&g_lock);
    for (tld_t *r = g_tlds; r; r = r->next) {
        if (r != t && atomic_load(&r->busy) == h)
            wait_not_busy(t, r, h);
    }
    pthread_mutex_unlock(&g_lock);
    heap_push_batches(h);
}

int heap_unlock_impl(tld_t *t, heap_t *h)
{
    if (atomic_load(&h->lock_owner) != t)
        return 0;
    if (--h->lock_depth == 0) {
        atomic_store(&h->lock_owner, NULL);
        atomic_fetch_and(&h->stw, ~1);
        pthread_mutex_unlock(&h->stw_mtx);
    }
    return 1;
}
