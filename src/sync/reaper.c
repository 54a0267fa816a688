/*
 * The reaper: one sleeping thread per process that owns named mutexes. It watches,
 * with futex_waitv, the liveness words of the threads of OTHER processes that wait on
 * mutexes owned by this process's threads. When such a waiter's process dies, the
 * kernel wakes the reaper (robust futex), which reclaims the dead thread (its wait is
 * withdrawn) and gives the owners it boosted their own priority back at once.
 *
 * Waiters in the same process need no watch: they cannot die without the owner. The
 * reaper starts on the first named mutex this process creates or opens. It holds no
 * thread record; it takes object locks one at a time to read queues.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "sync/internal.h"

#define REAPER_WATCH 120

static pthread_mutex_t reaper_lock = PTHREAD_MUTEX_INITIALIZER;
static int reaper_started;

/* Collect the watch list. Returns how many words; *dead: one was dead already. */
static uint32_t collect(struct ns *ns, struct nspa_futex_waitv *wv, struct thr **who, uint32_t *tids, int *dead)
{
    uint32_t n = 0;
    uint32_t hwm = __atomic_load_n(&ns->hdr->thr_hwm, __ATOMIC_ACQUIRE);
    for (uint32_t s = 0; s < hwm && n < REAPER_WATCH; s++) {
        struct thr *t = &ns->threads[s];
        if (!__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) || __atomic_load_n(&t->proc, __ATOMIC_RELAXED) != ns->proc) continue;
        uint32_t no = atomic_load(&t->nowned);
        if (no > OWNED_MAX) no = OWNED_MAX;
        for (uint32_t i = 0; i < no && n < REAPER_WATCH; i++) {
            uint64_t ref = atomic_load(&t->owned[i]);
            if (!(ref & 1)) continue;                 /* named mutexes only */
            struct sobj *o = R(ref);
            /* the type is read before the lock: atomic (a record may be freed or reused meanwhile) */
            if (!o || __atomic_load_n(&o->type, __ATOMIC_RELAXED) != NSPA_TYPE_MUTEX) continue;
            NSPA_TSAN_ACQUIRE(&o->next_free);   /* the record's making (obj_region_new) */
            obj_lock(o);
            NSPA_TSAN_ACQUIRE(&nspa__queue_sync);   /* links written through other processes */
            for (uint64_t r = o->q_head; r && n < REAPER_WATCH; r = E(r)->next) {
                struct thr *w = went_thr(E(r));
                if (!in_region(w) || __atomic_load_n(&w->proc, __ATOMIC_RELAXED) == ns->proc) continue;
                int dup = 0;
                for (uint32_t k = 0; k < n; k++) dup |= who[k] == w;
                if (dup) continue;
                _Atomic uint32_t *lw = nspa_robust_word(&w->alive);
                uint32_t v = atomic_fetch_or(lw, FUTEX_WAITERS) | FUTEX_WAITERS;
                if (thr_is_dead_word(v)) *dead = 1;
                who[n] = w;
                tids[n] = __atomic_load_n(&w->tid, __ATOMIC_RELAXED);
                nspa_waitv_set(&wv[n + 1], lw, v, 1);
                n++;
            }
            obj_unlock(o);
        }
    }
    return n;
}

static int reclaim(struct ns *ns, struct thr **who, const uint32_t *tids, uint32_t n)
{
    int any = 0;
    for (uint32_t k = 0; k < n; k++) any |= thr_dead_check(who[k], tids[k]) > 0;
    if (!any) return 0;
    /* the owners here may have lost a boosting waiter */
    uint32_t hwm = __atomic_load_n(&ns->hdr->thr_hwm, __ATOMIC_ACQUIRE);
    for (uint32_t s = 0; s < hwm; s++) {
        struct thr *t = &ns->threads[s];
        if (__atomic_load_n(&t->tid, __ATOMIC_RELAXED) && __atomic_load_n(&t->proc, __ATOMIC_RELAXED) == ns->proc &&
            __atomic_load_n(&t->boost, __ATOMIC_RELAXED))
            pi_update_thread(t, 0);
    }
    return 1;
}

static void *reaper_main(void *arg)
{
    struct ns *ns = arg;
    struct ns_proc *me = &ns->procs[ns->proc];
    struct nspa_futex_waitv wv[REAPER_WATCH + 1];
    struct thr *who[REAPER_WATCH];
    uint32_t tids[REAPER_WATCH];
    for (;;) {
        int dead = 0;
        uint32_t seq = atomic_load(&me->reaper_poke);
        uint32_t n = collect(ns, wv, who, tids, &dead);
        if (dead) {
            if (!reclaim(ns, who, tids, n)) {
                /* dead, but its fork family reclaims it: look again later */
                struct timespec ts = { 0, 100000000 };
                nanosleep(&ts, NULL);
            }
            continue;
        }
        nspa_waitv_set(&wv[0], &me->reaper_poke, seq, 1);
        if (nspa_futex_waitv(wv, n + 1, NULL, CLOCK_MONOTONIC) == -ENOSYS) {
            struct timespec ts = { 0, 100000000 };    /* old kernels: look every 100 ms */
            nanosleep(&ts, NULL);
        }
        if (n) reclaim(ns, who, tids, n);
    }
    return NULL;
}

NSPA_HIDDEN void reaper_ensure(void)
{
    if (__atomic_load_n(&reaper_started, __ATOMIC_ACQUIRE)) return;
    struct ns *ns = ns_get();
    if (!ns || ns->proc == UINT32_MAX) return;
    pthread_mutex_lock(&reaper_lock);
    if (!reaper_started) {
        int r = nspa_service_thread(reaper_main, ns, "nspa-reaper");
        if (r == 0) {
            __atomic_store_n(&reaper_started, 1, __ATOMIC_RELEASE);
        } else {
            fprintf(stderr, "nspa: cannot start the reaper thread (%s): a boost by a waiter "
                    "killed in another process lasts until the next update\n", strerror(r));
        }
    }
    pthread_mutex_unlock(&reaper_lock);
}

/* A thread of another process now waits on a mutex that @owner owns: have that
 * process's reaper watch it. */
NSPA_HIDDEN void reaper_poke_owner(struct thr *owner)
{
    struct ns *ns = nspa_ns;
    if (!ns || !in_region(owner)) return;
    uint32_t p = __atomic_load_n(&owner->proc, __ATOMIC_RELAXED); /* may be a recycled record: a stray poke only makes a reaper rescan */
    if (p == ns->proc || p >= MAX_PROCS || !ns->procs[p].pid) return;
    atomic_fetch_add(&ns->procs[p].reaper_poke, 1);
    nspa_futex_wake_n(&ns->procs[p].reaper_poke, 1, 1);
}

NSPA_HIDDEN void reaper_after_fork(void)
{
    pthread_mutex_init(&reaper_lock, NULL);
    reaper_started = 0;
}
