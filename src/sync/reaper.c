/*
 * The reaper: one sleeping thread per process that owns shared mutexes. It watches,
 * with futex_waitv, the liveness words of the threads of OTHER processes that wait on
 * mutexes owned by this process's threads. When such a waiter's process dies, the
 * kernel wakes the reaper (robust futex), which reclaims the dead thread's slot: its
 * wait is withdrawn, and the owner it boosted gets its own priority back at once
 * (instead of at the next event that happens to look at the dead thread).
 *
 * Waiters in the same process need no watch: they cannot die without the owner.
 * The reaper starts on the first named mutex this process creates or opens (only named
 * or inherited mutexes can have waiters elsewhere) and after fork in a child that
 * inherited one. It holds no NSPA thread slot and takes the namespace lock only to
 * rebuild its watch list and to reclaim.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/futex.h>
#include "sync/internal.h"

#define REAPER_WATCH 120

struct fwv { uint64_t val, uaddr; uint32_t flags, reserved; };

static pthread_mutex_t reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static int reaper_started;

static void *reaper_main(void *arg)
{
    struct ns *ns = arg;
    struct ns_proc *me = &ns->procs[ns->proc];
    struct fwv wv[REAPER_WATCH + 1];
    uint32_t tids[REAPER_WATCH];
    for (;;) {
        uint32_t n = 0;
        int dead_seen = 0;
        ns_lock(ns);
        uint32_t seq = atomic_load(&me->reaper_poke);
        for (uint32_t s = 0; s < MAX_THREADS && n < REAPER_WATCH; s++) {
            struct ns_thread *t = &ns->threads[s];
            if (!t->tid || t->proc != ns->proc) continue;
            uint32_t no = atomic_load(&t->nowned);
            if (no > OWNED_MAX) no = OWNED_MAX;
            for (uint32_t i = 0; i < no && n < REAPER_WATCH; i++) {
                uint32_t v = atomic_load(&t->owned[i]);
                if (!v || v - 1 >= ns->hdr->obj_hwm) continue;
                struct ns_obj *o = &ns->objs[v - 1];
                if (o->type != NSPA_TYPE_MUTEX || (uint32_t)atomic_load(&o->word) != t->tid) continue;
                for (uint32_t e = o->q_head; e && n < REAPER_WATCH;
                     e = ns->threads[(e - 1) / WAIT_SLOTS].entries[(e - 1) % WAIT_SLOTS].next) {
                    struct ns_thread *w = &ns->threads[(e - 1) / WAIT_SLOTS];
                    if (w->proc == ns->proc) continue;
                    int dup = 0;
                    for (uint32_t k = 0; k < n; k++) dup |= tids[k] == w->tid;
                    if (dup) continue;
                    _Atomic uint32_t *lw = (_Atomic uint32_t *)&w->alive.__data.__lock;
                    tids[n] = w->tid;
                    wv[n + 1].val = atomic_fetch_or(lw, FUTEX_WAITERS) | FUTEX_WAITERS;
                    /* already dead (the kernel woke nobody: no waiter bit then):
                     * sleeping on it would never end; reclaim after this pass */
                    if (wv[n + 1].val & FUTEX_OWNER_DIED) dead_seen = 1;
                    wv[n + 1].uaddr = (uint64_t)(uintptr_t)lw;
                    wv[n + 1].flags = 2;   /* FUTEX2_SIZE_U32, shared */
                    wv[n + 1].reserved = 0;
                    n++;
                }
            }
        }
        if (dead_seen) {
            for (uint32_t k = 0; k < n; k++) ns_thread_dead_check(ns, tids[k]);
            ns_unlock(ns);
            continue;
        }
        ns_unlock(ns);
        wv[0].val = seq;
        wv[0].uaddr = (uint64_t)(uintptr_t)&me->reaper_poke;
        wv[0].flags = 2;
        wv[0].reserved = 0;
        long r = syscall(449 /* futex_waitv */, wv, n + 1, 0, NULL, CLOCK_MONOTONIC);
        if (r < 0 && errno == ENOSYS) {
            struct timespec ts = { 0, 100000000 };   /* old kernels: look every 100 ms */
            nanosleep(&ts, NULL);
        }
        if (n) {
            ns_lock(ns);
            for (uint32_t k = 0; k < n; k++) ns_thread_dead_check(ns, tids[k]);
            ns_unlock(ns);
        }
    }
    return NULL;
}

NSPA_HIDDEN void reaper_ensure(struct ns *ns)
{
    if (__atomic_load_n(&reaper_started, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&reaper_lock);
    if (!reaper_started) {
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&a, 512 * 1024);   /* sanitizer runtimes need more than a few pages */
        /* the reaper must not take signals meant for the program's threads */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_t t;
        int r = pthread_create(&t, &a, reaper_main, ns);
        if (r == 0) {
            pthread_setname_np(t, "nspa-reaper");
            __atomic_store_n(&reaper_started, 1, __ATOMIC_RELEASE);
        } else {
            fprintf(stderr, "nspa: cannot start the reaper thread (%s): a boost by a waiter "
                    "killed in another process lasts until the next update\n", strerror(r));
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&a);
    }
    pthread_mutex_unlock(&reaper_lock);
}

/* A thread of another process now waits on a mutex that thread @owner_tid owns:
 * have that process's reaper watch it. Lock held. */
NSPA_HIDDEN void reaper_poke_owner(struct ns *ns, uint32_t owner_tid)
{
    uint32_t slot = ns_tid_slot(ns, owner_tid);
    if (slot >= MAX_THREADS) return;
    uint32_t p = ns->threads[slot].proc;
    if (p == ns->proc || p >= MAX_PROCS || !ns->procs[p].pid) return;
    atomic_fetch_add(&ns->procs[p].reaper_poke, 1);
    syscall(SYS_futex, &ns->procs[p].reaper_poke, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* fork child: the parent's reaper did not come along */
NSPA_HIDDEN void reaper_after_fork(void)
{
    pthread_mutex_init(&reaper_lock, NULL);
    reaper_started = 0;
}
