/*
 * Object locks, wait queues, and the repair of an object whose lock holder died.
 *
 * The queue is doubly linked through the waiters' entries (struct went), ordered by
 * key (higher first), FIFO among equal keys (ticket). Every field touched here is under
 * the object's lock (types.h, rule 1). This is the only queue implementation: waits,
 * wakes, priority changes and recovery all go through it.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "sync/internal.h"


/* Sections under an object lock last a few hundred nanoseconds; a contender spins
 * that long (bounded: LOCK_SPIN pauses, about 2 us) before it goes to the kernel's PI
 * futex, which costs two context switches and a PI-state setup. Not on one CPU, where
 * the holder cannot run while we spin. */
#define LOCK_SPIN 128
static __thread int locks_held;      /* wakes are flushed when the last lock goes */

NSPA_HIDDEN void obj_lock(struct sobj *o)
{
    locks_held++;
    int r = pthread_mutex_trylock(&o->lock);
    if (__builtin_expect(r == 0, 1)) return;
    if (r == EBUSY) {
        int n = nspa_ncpu_online();
        _Atomic uint32_t *w = nspa_robust_word(&o->lock);
        for (int i = 0; i < LOCK_SPIN && n > 1; i++) {
            nspa_cpu_relax();
            if (!(atomic_load_explicit(w, memory_order_relaxed) & FUTEX_TID_MASK)) {
                r = pthread_mutex_trylock(&o->lock);
                if (r != EBUSY) break;
            }
        }
        if (r == EBUSY) r = pthread_mutex_lock(&o->lock);
    }
    if (__builtin_expect(r == EOWNERDEAD, 0)) {
        obj_recover(o);
        pthread_mutex_consistent(&o->lock);
    }
}

/* 0 with the lock held, or EBUSY. */
NSPA_HIDDEN int obj_trylock(struct sobj *o)
{
    int r = pthread_mutex_trylock(&o->lock);
    if (r == EOWNERDEAD) {
        locks_held++;
        obj_recover(o);
        pthread_mutex_consistent(&o->lock);
        return 0;
    }
    if (r == 0) locks_held++;
    return r ? EBUSY : 0;
}

NSPA_HIDDEN void obj_unlock(struct sobj *o)
{
    pthread_mutex_unlock(&o->lock);
    if (--locks_held == 0) wakes_flush();   /* the wakes of the grants made (wake.c) */
}

/* Claim the word for the lock holder (rule 2). Returns it, CLAIMED set. */
NSPA_HIDDEN uint64_t obj_claim(struct sobj *o)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED) &&
           !atomic_compare_exchange_weak_explicit(&o->word, &w, w | OBJ_CLAIMED, memory_order_acq_rel,
                                                  memory_order_acquire))
        ;
    return w | OBJ_CLAIMED;
}

/* Hand the word back to the fast path once nobody waits. A mutex whose count lives in
 * ext stays claimed (the fast path cannot hold such a count). */
NSPA_HIDDEN void obj_unclaim_if_idle(struct sobj *o)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
    if (!(w & OBJ_CLAIMED) || o->q_head || !o->type) return;
    if (o->type == NSPA_TYPE_MUTEX && ((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK) == MTX_CNT_BIG) return;
    atomic_store_explicit(&o->word, w & ~OBJ_CLAIMED, memory_order_release);
}

/* ---- the queue ----------------------------------------------------------------------- */

static inline int before(const struct went *a, uint32_t key, uint32_t ticket)
{
    /* does @a stay ahead of an entry (key, ticket)? */
    return a->key > key || (a->key == key && (int32_t)(a->ticket - ticket) < 0);
}

/* ThreadSanitizer sees one process. A queue entry is linked and unlinked by threads of
 * every process that shares the object, so a thread here that walks a queue (the
 * reaper) reads links whose last writer in this process reached it only through
 * another process's lock sections, an edge TSan cannot see. Every queue change here
 * releases this address and the walkers acquire it. TSan builds only. */
NSPA_HIDDEN char nspa__queue_sync;

static void link_sorted(struct sobj *o, struct went *e)
{
    uint64_t me = REF(e);
    uint64_t after = o->q_tail;
    while (after && !before(E(after), e->key, e->ticket)) after = E(after)->prev;
    uint64_t next = after ? E(after)->next : o->q_head;
    e->prev = after;
    e->next = next;
    if (after) E(after)->next = me;
    else o->q_head = me;
    if (next) E(next)->prev = me;
    else o->q_tail = me;
    NSPA_TSAN_RELEASE(&nspa__queue_sync);
}

static void unlink_entry(struct sobj *o, struct went *e)
{
    if (e->prev) E(e->prev)->next = e->next;
    else o->q_head = e->next;
    if (e->next) E(e->next)->prev = e->prev;
    else o->q_tail = e->prev;
    e->next = e->prev = 0;
    NSPA_TSAN_RELEASE(&nspa__queue_sync);
}

/* Queue entry @e (its wait already filled in) on @o with @key. Lock held; the word is
 * claimed so that every change of it from now on comes through the lock. */
NSPA_HIDDEN void q_insert(struct sobj *o, struct went *e, uint32_t key)
{
    obj_claim(o);
    e->key = (uint16_t)key;
    /* FIFO among equals; LIFO for a kind that asks (completion ports): newer entries
     * get smaller tickets */
    const struct sync_kind *k = sync_kind_of(o->type);
    uint32_t s = o->seq++;
    e->ticket = k && k->lifo ? 0u - s : s;
    __atomic_store_n(&e->obj, REF(o), __ATOMIC_RELEASE);    /* rule 5: before linking */
    link_sorted(o, e);
    struct thr *t = went_thr(e);
    if (t->kind == WAIT_ALL && e->idx < t->count) o->nall++;
}

NSPA_HIDDEN void q_remove(struct sobj *o, struct went *e)
{
    if (!e->obj) return;
    unlink_entry(o, e);
    struct thr *t = went_thr(e);
    if (t->kind == WAIT_ALL && e->idx < t->count && o->nall) o->nall--;
    __atomic_store_n(&e->obj, 0, __ATOMIC_RELEASE);          /* rule 5: after unlinking */
    NSPA_TSAN_RELEASE(&nspa__queue_sync);                    /* the entry's last write here */
}

/* A queued waiter's key changed (priority inheritance): move its entry. */
NSPA_HIDDEN void q_requeue(struct sobj *o, struct went *e, uint32_t key)
{
    if (!e->obj || e->key == key) return;
    unlink_entry(o, e);
    e->key = (uint16_t)key;
    link_sorted(o, e);
}

/* The highest key among the waiters still waiting. */
NSPA_HIDDEN uint32_t q_top_key(const struct sobj *o)
{
    for (uint64_t r = o->q_head; r; r = E(r)->next) {
        struct went *e = E(r);
        if (!(atomic_load_explicit(&went_thr(e)->futex, memory_order_acquire) & W_ENDED)) return e->key;
    }
    return 0;
}

/* ---- recovery ------------------------------------------------------------------------ */

/* Did the grant recorded in @o's intent reach its waiter? */
static int intent_landed(struct sobj *o)
{
    struct thr *t = R(o->intent.waiter);
    if (!t) return 0;
    uint32_t v = atomic_load(&t->futex);
    if (!(v & W_DONE)) return 0;
    uint32_t idx = (v >> W_IDX_SHIFT) & W_IDX_MASK;
    /* kind is read atomically: a waiter whose grant left no entry in our queue (an
     * in-line wait-all grant's wake-only intent) may be leaving its wait meanwhile */
    if (__atomic_load_n(&t->kind, __ATOMIC_ACQUIRE) == WAIT_ALL && idx < t->count) return 1;   /* all its objects */
    return idx < WAIT_SLOTS && t->objs[idx] == REF(o);
}

/* The holder of @o's lock died. Finish or undo its grant (rule 4), relink the queue
 * from the entries that name @o (rule 5), and serve the waiters again. Only threads of
 * processes that share @o get here; every thread record they can see is scanned. */
NSPA_HIDDEN void obj_recover(struct sobj *o)
{
    if (o->in_region && nspa_ns) atomic_fetch_add(&nspa_ns->hdr->obj_recoveries, 1);
    if (o->intent.waiter) {
        int landed = intent_landed(o);
        /* An intent that changes nothing (grant_all_inline's, left while it wakes a
         * waiter it granted) owes only the wake: the word is left as it is. Writing
         * a copy back is right only while the copy is current; once a word is back
         * with the fast path it is not, and a mutex released since would be owned
         * again, by a thread that no longer knows it and never lists it. */
        int change = o->intent.old_word != o->intent.new_word || o->intent.old_ext != o->intent.new_ext;
        if (landed && change && o->type == NSPA_TYPE_MUTEX) owned_add(R(o->intent.waiter), o);
        if (landed) waiter_wake(R(o->intent.waiter));   /* the dead holder may owe it */
        if (change) {
            atomic_store(&o->word, (landed ? o->intent.new_word : o->intent.old_word) | OBJ_CLAIMED);
            __atomic_store_n(&o->ext, landed ? o->intent.new_ext : o->intent.old_ext, __ATOMIC_RELAXED);
        }
        memset(&o->intent, 0, sizeof(o->intent));
    }
    uint64_t me = REF(o);
    o->q_head = o->q_tail = 0;
    o->nall = 0;
    struct ns *ns = nspa_ns;
    uint32_t hwm = ns ? __atomic_load_n(&ns->hdr->thr_hwm, __ATOMIC_ACQUIRE) : 0;
    for (uint32_t s = 0; s < hwm; s++) {
        struct thr *t = &ns->threads[s];
        for (uint32_t i = 0; i < WAIT_SLOTS; i++) {
            struct went *e = &t->ent[i];
            if (__atomic_load_n(&e->obj, __ATOMIC_ACQUIRE) != me) continue;
            link_sorted(o, e);
            if (t->kind == WAIT_ALL && i < t->count) o->nall++;
        }
    }
    obj_claim(o);
    /* wakes the dead holder may have owed */
    for (uint64_t r = o->q_head; r; r = E(r)->next)
        if (atomic_load(&went_thr(E(r))->futex) & W_ENDED) waiter_wake(went_thr(E(r)));
    sync_serve(o);
}
