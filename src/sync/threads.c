/*
 * Thread records: one per thread that uses NSPA, made on its first call.
 *
 * The record lives in the namespace region (a slot: other processes can grant its
 * waits and watch its death), or, when the process has no region or the region has no
 * free slot, in the process arena (then it can wait only on unnamed objects).
 * Registration takes a slot from a free list under the registry lock: no malloc, no
 * mmap, so a thread's first wait allocates nothing (the per-thread part is static TLS).
 *
 * Liveness: the record's robust mutex `alive` is held by its thread for its whole life;
 * when the thread dies (its process killed), the kernel marks it OWNER_DIED and wakes a
 * waiter. A normal exit runs the TLS destructor: its mutexes are abandoned, its record
 * freed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sync/internal.h"

__thread struct nspa_tls nspa_self_tls __attribute__((tls_model("initial-exec")));

static pthread_key_t thr_key;
static pthread_once_t thr_key_once = PTHREAD_ONCE_INIT;

/* arena-mode records of this process (no region): found by tid for PI */
static pthread_mutex_t local_lock = PTHREAD_MUTEX_INITIALIZER;
struct local_rec { struct thr *t; };
#define LOCAL_MAX 65536
static struct thr *local_recs[LOCAL_MAX];
static uint32_t local_n;

static void thr_exit(void *arg);
static void key_init(void) { pthread_key_create(&thr_key, thr_exit); }

static uint32_t tid_hash(uint32_t tid) { return (tid * 2654435761u) % TID_BUCKETS; }

/* A robust, process-shared mutex (priority-inheriting with @pi): every lock of the sync
 * core is one (object locks, the registry, the arena, liveness, PI). */
NSPA_HIDDEN void sync_mutex_init(pthread_mutex_t *m, int pi)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (pi) pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

/* A region slot for @tid. Registry lock held. NULL: none free. */
static struct thr *slot_take(struct ns *ns)
{
    uint32_t i = REGION_TAKE(ns, thr_free, thr_hwm, MAX_THREADS, ns->threads, next_free);
    return i == UINT32_MAX ? NULL : &ns->threads[i];
}

static void rec_init(struct thr *t, uint32_t tid, uint32_t proc)
{
    sync_mutex_init(&t->alive, 0);
    sync_mutex_init(&t->pi_lock, 1);
    pthread_mutex_trylock(&t->alive);       /* free record: nobody holds it */
    __atomic_store_n(&t->proc, proc, __ATOMIC_RELAXED);   /* reaper_poke_owner reads it unlocked */
    t->family = arena_family();
    t->kind = WAIT_NONE;
    atomic_store(&t->futex, 0);
    t->boost = 0;
    atomic_store(&t->nowned, 0);
    atomic_store(&t->owned_overflow, 0);
    for (int i = 0; i < WAIT_SLOTS; i++) t->ent[i].idx = (uint16_t)i;
    (void)tid;
}

static struct thr *register_region(struct ns *ns, uint32_t tid)
{
    reg_lock(ns);
    /* a stale record with our tid (a dead thread whose tid was reused): reclaim it */
    for (uint32_t s = ns->tid_buckets[tid_hash(tid)]; s; s = ns->threads[s - 1].tid_next)
        if (ns->threads[s - 1].tid == tid) { thr_release(ns, &ns->threads[s - 1]); break; }
    struct thr *t = slot_take(ns);
    if (!t) {
        ns_sweep_dead(ns);
        t = slot_take(ns);
    }
    if (t) {
        rec_init(t, tid, ns->proc);
        jset32(ns, &t->tid_next, ns->tid_buckets[tid_hash(tid)]);
        jset32(ns, &ns->tid_buckets[tid_hash(tid)], (uint32_t)(t - ns->threads) + 1);
        jset32(ns, &ns->procs[ns->proc].nthreads, ns->procs[ns->proc].nthreads + 1);
        if (!ns->procs[ns->proc].any_thread)
            jset32(ns, &ns->procs[ns->proc].any_thread, (uint32_t)(t - ns->threads) + 1);
        jset32(ns, &ns->hdr->nthreads, ns->hdr->nthreads + 1);
        jset32(ns, &t->tid, tid);
    }
    reg_unlock(ns);
    return t;
}

static struct thr *register_local(uint32_t tid)
{
    struct thr *t = arena_thr_alloc();
    if (!t) return NULL;
    rec_init(t, tid, UINT32_MAX);
    t->tid = tid;
    pthread_mutex_lock(&local_lock);
    uint32_t i;
    for (i = 0; i < local_n && local_recs[i]; i++) ;
    if (i < LOCAL_MAX) {
        local_recs[i] = t;
        if (i == local_n) local_n++;
    }
    pthread_mutex_unlock(&local_lock);
    return t;
}


NSPA_HIDDEN struct nspa_tls *thr_register(void)
{
    struct nspa_tls *s = &nspa_self_tls;
    if (s->t) return s;
    if (procs_fork_pending()) procs_fork_fixup();
    pthread_once(&thr_key_once, key_init);
    uint32_t tid = (uint32_t)syscall(SYS_gettid);
    struct ns *ns = ns_get();
    struct thr *t = NULL;
    if (ns && ns->proc != UINT32_MAX) t = register_region(ns, tid);
    if (t) {
        s->slot = (uint32_t)(t - ns->threads);
    } else {
        t = register_local(tid);
        s->slot = UINT32_MAX;
    }
    if (!t) {
        /* no record anywhere (the arena's 64 GiB are used up): the caller gets an
         * error; nothing is registered */
        return NULL;
    }
    s->tid = tid;
    s->t = t;
    pthread_setspecific(thr_key, s);
    return s;
}

/* ---- lookup and death ------------------------------------------------------------- */

NSPA_HIDDEN struct thr *thr_by_tid(uint32_t tid)
{
    struct ns *ns = nspa_ns;
    if (ns) {
        /* racy walk of the hash chain (changed under the registry lock only): bounded,
         * and the result is verified */
        uint32_t s = __atomic_load_n(&ns->tid_buckets[tid_hash(tid)], __ATOMIC_ACQUIRE);
        for (int n = 0; s && s <= MAX_THREADS && n < 256; n++) {
            struct thr *t = &ns->threads[s - 1];
            if (__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) == tid) return t;
            s = __atomic_load_n(&t->tid_next, __ATOMIC_ACQUIRE);
        }
    }
    struct thr *found = NULL;
    pthread_mutex_lock(&local_lock);
    for (uint32_t i = 0; i < local_n && !found; i++)
        if (local_recs[i] && local_recs[i]->tid == tid) found = local_recs[i];
    pthread_mutex_unlock(&local_lock);
    return found;
}

NSPA_HIDDEN int thr_is_dead_word(uint32_t v) { return (v & FUTEX_OWNER_DIED) != 0; }

/* Free a record whose thread is gone (exited or died): withdraw its wait, abandon its
 * mutexes, unhash it. Registry lock held (region records). */
NSPA_HIDDEN void thr_release(struct ns *ns, struct thr *t)
{
    uint32_t tid = t->tid;
    if (!tid) return;
    if (t->kind != WAIT_NONE) wait_unqueue(t, 1);
    thr_abandon_owned(t, tid);
    pi_forget(t);
    uint32_t idx = (uint32_t)(t - ns->threads);
    for (uint32_t *pp = &ns->tid_buckets[tid_hash(tid)]; *pp; pp = &ns->threads[*pp - 1].tid_next) {
        if (*pp == idx + 1) { jset32(ns, pp, t->tid_next); break; }
    }
    if (t->proc < MAX_PROCS) {
        struct ns_proc *p = &ns->procs[t->proc];
        jset32(ns, &p->nthreads, p->nthreads - 1);
        if (p->any_thread == idx + 1) {
            /* another thread of the process stands for it, if it has one */
            uint32_t other = 0;
            for (uint32_t s2 = 0; s2 < ns->hdr->thr_hwm && p->nthreads && !other; s2++)
                if (s2 != idx && ns->threads[s2].tid && ns->threads[s2].proc == t->proc) other = s2 + 1;
            jset32(ns, &p->any_thread, other);
        }
    }
    jset32(ns, &ns->hdr->nthreads, ns->hdr->nthreads - 1);
    jset32(ns, &t->tid, 0);
    REGION_GIVE(ns, thr_free, ns->threads, next_free, idx);
}

/* Does the record @t hold refs into its fork family's arena (queued entries, owned
 * mutexes) that this process cannot follow? */
static int needs_family(const struct thr *t)
{
    if (thr_may_follow(t)) return 0;
    for (uint32_t i = 0; i < WAIT_SLOTS; i++) {
        uint64_t r = __atomic_load_n(&t->ent[i].obj, __ATOMIC_ACQUIRE);
        if (r && !(r & 1)) return 1;
    }
    uint32_t n = atomic_load(&t->nowned);
    for (uint32_t i = 0; i < n && i < OWNED_MAX; i++) {
        uint64_t r = atomic_load(&t->owned[i]);
        if (r && !(r & 1)) return 1;
    }
    return 0;
}

/* May this process reclaim dead record @t now? Not if the record reaches into the
 * arena of a fork family that is still alive (one of its processes will): its queues
 * would keep entries of a reused record. Registry lock held. */
NSPA_HIDDEN int thr_reclaimable(struct ns *ns, const struct thr *t)
{
    if (!needs_family(t)) return 1;
    for (uint32_t i = 0; i < ns->hdr->proc_hwm; i++) {
        struct ns_proc *p = &ns->procs[i];
        if (p->pid && p->family == t->family && i != t->proc && !(kill((pid_t)p->pid, 0) < 0 && errno == ESRCH))
            return 0;
    }
    return 1;
}

/* Is the thread of record @t (id @tid) dead? If so reclaim it (its mutexes are
 * abandoned, its wait withdrawn). Returns 1 if it was dead. */
NSPA_HIDDEN int thr_dead_check(struct thr *t, uint32_t tid)
{
    struct ns *ns = nspa_ns;
    if (!ns || !in_region(t)) return 0;        /* arena records end by their TLS destructor */
    uint32_t v = atomic_load(nspa_robust_word(&t->alive));
    if (!thr_is_dead_word(v) && (v & FUTEX_TID_MASK)) return 0;
    reg_lock(ns);
    int dead = 0;
    if (t->tid == tid && !thr_reclaimable(ns, t)) {
        dead = -1;                               /* dead, but its family reclaims it */
    } else if (t->tid == tid) {
        int r = pthread_mutex_trylock(&t->alive);
        if (r != EBUSY) {
            dead = 1;
            thr_release(ns, t);
            if (r == EOWNERDEAD) pthread_mutex_consistent(&t->alive);
            pthread_mutex_unlock(&t->alive);
        }
    } else {
        dead = 1;                                /* already reclaimed */
    }
    reg_unlock(ns);
    if (dead > 0) nspa_futex_wake_n(nspa_robust_word(&t->alive), INT32_MAX, 1);
    return dead;
}

/* Normal thread exit: abandon what it owns, free its record. */
static void thr_exit(void *arg)
{
    struct nspa_tls *s = arg;
    struct thr *t = s ? s->t : NULL;
    if (!t) return;
    sleep_hooks_thread_end();            /* nothing of ours sleeps on t->futex any more */
    struct ns *ns = nspa_ns;
    if (s->slot != UINT32_MAX && ns) {
        reg_lock(ns);
        if (t->tid == s->tid) {
            thr_release(ns, t);
            pthread_mutex_unlock(&t->alive);
        }
        reg_unlock(ns);
    } else {
        if (t->kind != WAIT_NONE) wait_unqueue(t, 0);
        thr_abandon_owned(t, s->tid);
        pi_forget(t);
        pthread_mutex_lock(&local_lock);
        for (uint32_t i = 0; i < local_n; i++)
            if (local_recs[i] == t) local_recs[i] = NULL;
        pthread_mutex_unlock(&local_lock);
        pthread_mutex_unlock(&t->alive);
        arena_thr_free(t);
    }
    s->t = NULL;
}

/* The calling thread is leaving (ExitThread): its mutexes are abandoned now. */
NSPA_HIDDEN void nspa__thread_unregister(void)
{
    struct nspa_tls *s = &nspa_self_tls;
    if (!s->t) return;
    pthread_setspecific(thr_key, NULL);
    thr_exit(s);
}

NSPA_HIDDEN void thr_after_fork_child(void)
{
    nspa_self_tls.t = NULL;
    pthread_mutex_init(&local_lock, NULL);
    local_n = 0;
    memset(local_recs, 0, sizeof(local_recs));
}

/* fork_prepare: wake this process's sleepers on private futexes so that they sleep
 * again on shared ones (arena_has_forked() is now set). */
NSPA_HIDDEN void thr_rearm_sleepers(void)
{
    struct ns *ns = nspa_ns;
    if (ns && ns->proc != UINT32_MAX) {
        uint32_t hwm = __atomic_load_n(&ns->hdr->thr_hwm, __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; i < hwm; i++) {
            struct thr *t = &ns->threads[i];
            if (__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE) && __atomic_load_n(&t->proc, __ATOMIC_RELAXED) == ns->proc &&
                __atomic_load_n(&t->kind, __ATOMIC_ACQUIRE) != WAIT_NONE)
                waiter_poke(t);
        }
    }
    pthread_mutex_lock(&local_lock);
    for (uint32_t i = 0; i < local_n; i++)
        if (local_recs[i] && __atomic_load_n(&local_recs[i]->kind, __ATOMIC_ACQUIRE) != WAIT_NONE)
            waiter_poke(local_recs[i]);
    pthread_mutex_unlock(&local_lock);
}

NSPA_EXPORT uint32_t nspa_thread_id(void)
{
    struct nspa_tls *s = self();
    return s ? s->tid : (uint32_t)syscall(SYS_gettid);
}

NSPA_EXPORT uint64_t nspa_time_ns(void) { return nspa_clock_ns(CLOCK_MONOTONIC); }
