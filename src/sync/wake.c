/*
 * Serving a queue: who gets an object that became signaled, in priority order; the
 * grant protocol (types.h, rule 4); abandonment of a dead owner's mutexes; the owned-
 * mutex lists.
 */
#include <errno.h>
#include <string.h>
#include "sync/internal.h"

/* ---- the kinds of this file: semaphore, mutex, event, thread ------------------------- */

static int sem_signaled(const struct sobj *o, uint64_t w, uint32_t owner) { return (uint32_t)w != 0; }
static int sem_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    *nw = w - 1;
    return 0;
}

static int evt_signaled(const struct sobj *o, uint64_t w, uint32_t owner) { return (w & EVT_SIGNALED) != 0; }
static int evt_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    *nw = (w & EVT_MANUAL) ? w : (w & ~EVT_SIGNALED);
    return 0;
}

/* ntsync's rule, owner 0 included: free (owner 0) or ours, and the count not at its
 * limit. A wait with owner 0 takes a mutex as owner 0 (count + 1, still "unowned"), as
 * the kernel does; the Win32 layer never passes 0. */
static int mtx_signaled(const struct sobj *o, uint64_t w, uint32_t owner)
{
    uint32_t ow = mtx_owner(w);
    return (!ow || ow == owner) && mtx_count(o, w) < UINT32_MAX;
}

/* The word for (owner, count, abandoned); a count that does not fit goes to *ext. */
NSPA_HIDDEN uint64_t mtx_make_word(struct sobj *o, uint32_t owner, uint32_t count, int abandoned, uint32_t *ext)
{
    uint64_t c = count;
    *ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    if (count >= MTX_CNT_BIG) {
        *ext = count;
        c = MTX_CNT_BIG;
    }
    return (c << MTX_CNT_SHIFT) | owner | (abandoned ? MTX_ABANDONED : 0);
}

static int mtx_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    uint32_t c = mtx_count(o, w);   /* 0 when free, except after owner-0 waits */
    *nw = mtx_make_word((struct sobj *)o, owner, c + 1, 0, ext) | (w & OBJ_CLAIMED);
    return (w & MTX_ABANDONED) != 0;
}

static const struct sync_kind k_sem = { sem_signaled, sem_consume };
static const struct sync_kind k_mutex = { mtx_signaled, mtx_consume };
static const struct sync_kind k_event = { evt_signaled, evt_consume };
static const struct sync_kind k_thread = { evt_signaled, evt_consume };   /* a manual event */
static const struct sync_kind k_process = { evt_signaled, evt_consume };  /* a manual event */

__attribute__((constructor)) static void kinds_init(void)
{
    sync_kind_register(NSPA_TYPE_SEM, &k_sem);
    sync_kind_register(NSPA_TYPE_MUTEX, &k_mutex);
    sync_kind_register(NSPA_TYPE_EVENT, &k_event);
    sync_kind_register(NSPA_TYPE_THREAD, &k_thread);
    sync_kind_register(NSPA_TYPE_PROCESS, &k_process);
}

NSPA_HIDDEN int obj_signaled_for(const struct sobj *o, uint64_t w, uint32_t owner)
{
    /* read without the object's lock by take_all's first look: the type may turn
     * OBJ_FORWARD under it (obj_promote), which has no kind and is never signaled */
    const struct sync_kind *k = sync_kind_of(__atomic_load_n(&o->type, __ATOMIC_RELAXED));
    return k && k->signaled(o, w, owner);
}

/* ---- owned mutexes ------------------------------------------------------------------ */

/* Record that @t acquired mutex @o: by @t itself, or by a granter while @t sleeps.
 * Added before the acquiring change and removed after the releasing one, so that a
 * death at any instant leaves every owned mutex listed; entries may be stale (checked
 * against the owner when used). */
NSPA_HIDDEN void owned_add(struct thr *t, struct sobj *o)
{
    uint64_t ref = REF(o);
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_relaxed);
    uint32_t free_i = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = atomic_load_explicit(&t->owned[i], memory_order_relaxed);
        if (v == ref) return;
        if (!v && free_i == UINT32_MAX) free_i = i;
    }
    if (free_i == UINT32_MAX) {
        if (n >= OWNED_MAX) {
            atomic_store_explicit(&t->owned_overflow, 1, memory_order_release);
            return;
        }
        free_i = n;
        atomic_store_explicit(&t->nowned, n + 1, memory_order_release);
    }
    atomic_store_explicit(&t->owned[free_i], ref, memory_order_release);
}

/* the entry of @t's owned-mutex list that names @o, or NULL */
NSPA_HIDDEN _Atomic uint64_t *owned_slot(struct thr *t, struct sobj *o)
{
    uint64_t ref = REF(o);
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < OWNED_MAX; i++)
        if (atomic_load_explicit(&t->owned[i], memory_order_relaxed) == ref) return &t->owned[i];
    return NULL;
}

NSPA_HIDDEN void owned_remove(struct thr *t, struct sobj *o)
{
    uint64_t ref = REF(o);
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_relaxed);
    for (uint32_t i = n; i-- > 0;) {
        if (atomic_load_explicit(&t->owned[i], memory_order_relaxed) != ref) continue;
        atomic_store_explicit(&t->owned[i], 0, memory_order_release);
        if (i + 1 == n) {
            while (i > 0 && !atomic_load_explicit(&t->owned[i - 1], memory_order_relaxed)) i--;
            atomic_store_explicit(&t->nowned, i, memory_order_release);
        }
        return;
    }
}

/* May this process follow the untagged refs of record @t (same fork family)? */
NSPA_HIDDEN int thr_may_follow(const struct thr *t)
{
    return t->family == arena_family();
}

/* ---- waking ------------------------------------------------------------------------- */

static inline int futex_shared_for(const struct thr *t)
{
    return __atomic_load_n(&t->shared_futex, __ATOMIC_RELAXED) || arena_has_forked();
}

/* Wake @t after a change of its word: FUTEX_WAKE, or, for a waiter asleep in the I/O
 * module's poll (its poll mark set), that module's wake. Dekker with the sleeper: it
 * sets its mark, then reads the word; we changed the word, then read the mark.
 * A waiter still on its CPU (spinning on its word, or not yet asleep) gets no wake at
 * all: the same Dekker with thr.spinning. It stores T_SLEEP, fences, and only then does
 * the kernel compare its word (sleep_marked); we changed the word, fence, and read its
 * state. Either it sees our change (its FUTEX_WAIT returns at once, or it never sleeps)
 * or we see it asleep. A hand-off to a spinner then makes no system call at all. */
static void futex_wake_thr(struct thr *t, int shared)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!thr_state_off_cpu(atomic_load_explicit(&t->spinning, memory_order_relaxed))) return;
    const struct nspa__sleep_hooks *h = __atomic_load_n(&nspa__sleep_hooks_cur, __ATOMIC_ACQUIRE);
    if (h && h->wake) {                      /* the fence above orders this load too */
        uint32_t mark = atomic_load_explicit(&t->poll_mark, memory_order_relaxed);
        if (mark && h->wake(mark)) return;
    }
    nspa_futex_wake_n(&t->futex, 1, shared);
}

NSPA_HIDDEN void waiter_wake(struct thr *t)
{
    futex_wake_thr(t, futex_shared_for(t));
}

/* Wakes of granted waiters wait until the granter lets go of the object lock: a woken
 * waiter that ran at once would find the lock still held, and a contended PI lock goes
 * through the kernel. The list is per thread and bounded; a full list wakes at once
 * (nothing is ever dropped). Only waiters of this process wait for it: a granter killed
 * in between takes them with it. Waking a record reused meanwhile only makes a waiter
 * look at its word again. */
#define PENDING_WAKES 16
static __thread struct { struct thr *t; int shared; } pending[PENDING_WAKES];
static __thread uint32_t npending;

static void waiter_wake_later(struct thr *t)
{
    if (t == nspa_self_tls.t) return;          /* granted itself: it is awake */
    if (npending == PENDING_WAKES) {
        waiter_wake(t);
        return;
    }
    /* the kind of futex is read now: once granted, the waiter may start its next
     * wait, with another kind, before the wake goes out */
    pending[npending].t = t;
    pending[npending++].shared = futex_shared_for(t);
}

/* Is waiter @t in this process (then it dies with us: its wake may wait until our
 * last lock goes)? */
static int waiter_is_local(const struct thr *t)
{
    struct ns *ns = nspa_ns;
    if (!in_region(t)) return 1;                       /* an arena record: ours */
    return ns && __atomic_load_n(&t->proc, __ATOMIC_RELAXED) == ns->proc;
}

/* Wake the waiter just granted on @o, whose intent still names it (lock held). A waiter
 * of another process is woken now, under the lock: if we die before the wake, the next
 * locker finds the landed intent and wakes it (obj_recover), so no waiter ever depends
 * on a timer to learn of its grant. A waiter of ours is woken after our last lock. */
static void wake_granted(struct sobj *o, struct thr *t)
{
    if (waiter_is_local(t)) waiter_wake_later(t);
    else waiter_wake(t);
}

NSPA_HIDDEN void wakes_flush(void)
{
    uint32_t n = npending;
    npending = 0;
    for (uint32_t i = 0; i < n; i++) futex_wake_thr(pending[i].t, pending[i].shared);
}

/* Make a waiter look again (an object of its wait-all may be ready, an owner changed,
 * the process forked): bump the poke counter of its futex word and wake it. */
/* Bump the poke counter of @t's futex word unless its wait ended. 1 if bumped. */
static int poke_bump(struct thr *t)
{
    uint32_t v = atomic_load_explicit(&t->futex, memory_order_relaxed);
    while (!(v & W_ENDED)) {
        uint32_t nv = (v & ~W_POKE_MASK) | ((v + 1) & W_POKE_MASK);
        if (atomic_compare_exchange_weak_explicit(&t->futex, &v, nv, memory_order_acq_rel, memory_order_relaxed))
            return 1;
    }
    return 0;
}

NSPA_HIDDEN void waiter_poke(struct thr *t)
{
    if (poke_bump(t)) waiter_wake(t);
}

/* Could wait-all waiter @t have all its objects now? Read without their locks (a
 * guess: the waiter decides under the locks). Objects this process cannot reach say
 * yes, so the waiter looks. */
static int all_ready_guess(struct thr *t)
{
    int follow = thr_may_follow(t);
    atomic_thread_fence(memory_order_seq_cst);      /* our store, then their words */
    for (uint32_t i = 0; i < t->count; i++) {
        uint64_t ref = t->objs[i];
        if (!(ref & 1) && !follow) continue;
        struct sobj *x = R(ref);
        if (!x) continue;
        if (!obj_signaled_for(x, atomic_load_explicit(&x->word, memory_order_acquire), t->owner)) return 0;
    }
    return 1;
}

/* Grant entry @i of waiter @t on object @o (wait-any, or the alert of any wait): the
 * waiter's CAS first, then the object's change, with the intent around it. Returns 1
 * if granted. Lock held, word claimed. */
static int grant_one(struct sobj *o, struct thr *t, uint32_t i)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
    uint64_t nw;
    uint32_t ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    int ab = sync_kind_of(o->type)->consume(o, w, t->owner, &nw, &ext);
    o->intent.old_word = w;
    o->intent.new_word = nw | OBJ_CLAIMED;
    o->intent.old_ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
    o->intent.new_ext = ext;
    __atomic_store_n(&o->intent.waiter, REF(t), __ATOMIC_RELEASE);
    uint32_t v = atomic_load_explicit(&t->futex, memory_order_acquire);
    int won = 0;
    while (!(v & W_ENDED)) {
        uint32_t nv = W_DONE | (ab ? W_ABANDONED : 0) | (i << W_IDX_SHIFT) | (v & W_POKE_MASK);
        if (atomic_compare_exchange_weak_explicit(&t->futex, &v, nv, memory_order_acq_rel, memory_order_acquire)) {
            won = 1;
            break;
        }
    }
    if (won) {
        /* listed before it owns (the word below); after the CAS, so that only the
         * granter that won writes the sleeping waiter's list (recovery lists it too) */
        if (o->type == NSPA_TYPE_MUTEX) owned_add(t, o);
        __atomic_store_n(&o->ext, ext, __ATOMIC_RELAXED);
        atomic_store_explicit(&o->word, nw | OBJ_CLAIMED, memory_order_release);
    }
    if (won) {
        q_remove(o, &t->ent[i]);     /* the waiter need not take this lock again */
        wake_granted(o, t);
    }
    __atomic_store_n(&o->intent.waiter, 0, __ATOMIC_RELEASE);
    return won;
}

/* Grant wait-all waiter @t all of @objs (every lock held, every object signaled for
 * it): intents, the waiter's CAS, then the words (rule 4). With @serve, each object
 * then serves its other waiters (a manual event, a semaphore's remaining count).
 * Returns 1 if granted (0: @t was granted its alert or timed out meanwhile). */
NSPA_HIDDEN int grant_all_locked(struct thr *t, struct sobj *const *objs, uint32_t n, int serve,
                                 const struct sobj *keep)
{
    uint32_t ab = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        struct sobj *o = objs[i];
        uint64_t w = obj_claim(o), nw;
        uint32_t ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
        if (sync_kind_of(o->type)->consume(o, w, t->owner, &nw, &ext) && ab == UINT32_MAX) ab = i;
        if (o->type == NSPA_TYPE_MUTEX) owned_add(t, o);
        o->intent.old_word = w;
        o->intent.new_word = nw | OBJ_CLAIMED;
        o->intent.old_ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
        o->intent.new_ext = ext;
        __atomic_store_n(&o->intent.waiter, REF(t), __ATOMIC_RELEASE);
    }
    int won = 0;
    uint32_t v = atomic_load_explicit(&t->futex, memory_order_acquire);
    while (!(v & W_ENDED)) {
        uint32_t nv = W_DONE | (ab != UINT32_MAX ? W_ABANDONED | (ab << W_IDX_SHIFT) : 0) | (v & W_POKE_MASK);
        if (atomic_compare_exchange_weak_explicit(&t->futex, &v, nv, memory_order_acq_rel, memory_order_acquire)) {
            won = 1;
            break;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        struct sobj *o = objs[i];
        if (won) {
            __atomic_store_n(&o->ext, o->intent.new_ext, __ATOMIC_RELAXED);
            atomic_store_explicit(&o->word, o->intent.new_word, memory_order_release);
        }
        __atomic_store_n(&o->intent.waiter, 0, __ATOMIC_RELEASE);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (won) q_remove(objs[i], &t->ent[i]);     /* every lock is held: leave now */
        if (won && serve) sync_try_wake(objs[i]);
        if (objs[i] != keep) obj_unclaim_if_idle(objs[i]);
    }
    return won;
}

/* A wait-all waiter @t queued on @o (locked) looks satisfiable: grant it here, taking
 * its other objects' locks by trylock (we hold @o, so waiting for them could cycle).
 * Returns 1 granted, 0 not all ready, -1 could not tell (a lock busy, an object out of
 * reach): the waiter is poked to decide under its own locks. */
static __thread int inline_depth;

static int grant_all_inline(struct sobj *o, struct thr *t)
{
    uint32_t n = t->count;
    struct sobj *objs[NSPA_MAX_WAIT_OBJECTS];
    uint64_t held = 0;
    int follow = thr_may_follow(t), r = -1;
    if (inline_depth > 1 || n > NSPA_MAX_WAIT_OBJECTS) return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ref = t->objs[i];
        if (!(ref & 1) && !follow) return -1;
        objs[i] = R(ref);
        if (!objs[i]) return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (objs[i] == o) continue;
        int e = obj_trylock(objs[i]);
        if (e) goto out;
        held |= 1ull << i;
    }
    r = 0;
    /* each word claimed before it is read, as take_all does: @t may not be queued on
     * every object yet (it queues one by one), so a word may still be the fast path's,
     * and a fast-path take between this check and the grant's consume would be
     * consumed twice (a semaphore's count below zero, a mutex owned by two) */
    for (uint32_t i = 0; i < n; i++)
        if (!objs[i]->type || !obj_signaled_for(objs[i], obj_claim(objs[i]), t->owner)) goto out;
    nspa__test_point("grant_all_inline_checked");
    inline_depth++;
    r = grant_all_locked(t, objs, n, 1, o);   /* @o stays claimed: its caller serves on */
    inline_depth--;
    if (r) {
        /* the intent of @o names the granted waiter until it is woken (see wake_granted).
         * @o is still claimed (the grant kept it so), so the intent's word stays valid
         * (rule 4) and a holder killed before the wake leaves @o to the next locker
         * (rule 7), whom every later operation on @o is then. The words are final: the
         * intent records no change (old == new), and recovery only wakes the waiter.
         * The caller unclaims @o. */
        uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
        o->intent.old_word = o->intent.new_word = w;
        o->intent.old_ext = o->intent.new_ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
        __atomic_store_n(&o->intent.waiter, REF(t), __ATOMIC_RELEASE);
        nspa__test_point("grant_all_inline");
        wake_granted(o, t);
        __atomic_store_n(&o->intent.waiter, 0, __ATOMIC_RELEASE);
    }
out:
    for (uint32_t i = 0; i < n; i++) {
        if (!(held & (1ull << i))) continue;
        obj_unclaim_if_idle(objs[i]);       /* claimed above (the caller unclaims @o) */
        obj_unlock(objs[i]);
    }
    return r;
}

/* Serve @o's waiters in queue order (priority, then FIFO) while it can satisfy them.
 * A wait-all waiter whose other objects look ready is poked to take them itself, and
 * nobody behind it is served meanwhile (it comes first). Lock held. */
/* A free mutex goes to the first waiter in the queue, except that among waiters of
 * its key (equal priority) one that is still running (spinning on its futex word
 * before it sleeps, or still on its way there from the queue: any state but T_SLEEP)
 * is served before sleeping ones. A queued waiter is often still on its way when the
 * owner, whose section is short, releases; counting only spinners handed the mutex to
 * the sleeping head there (measured: in RT mode, the rapid kernel mutex's grants to
 * sleepers fell from 133-225K to 55-65K of 400K when T_RUN counted). Handing a mutex
 * to a waiter that is not running makes every thread wait for it to be scheduled, while
 * a running one takes it within a microsecond. Once one sleeper has been handed the mutex, the threads
 * behind it fall asleep too and every later hand-off goes to a sleeper: the convoy of a
 * contended NT mutex with more threads than CPUs, which under SCHED_FIFO never breaks
 * up by itself (measured: 75% of the grants of the suite's rapid kernel mutex in RT
 * mode went to sleepers, at one grant per cross-CPU wake-up, about 30 us here). So the
 * sleeping head is passed over while it has waited less than BYPASS_NS, and at least
 * BYPASS_MAX times in a row; past both it is served. Priority order is never bypassed:
 * only the head's equals overtake it, and its wait grows by at most BYPASS_NS plus one
 * short section. (Win32 promises no order among equal waiters at all.)
 *
 * With no running waiter of its key either, a sleeping head of this process is not
 * handed the mutex: it is woken to take it itself (T_WOKEN, once until it runs), and
 * the mutex stays free meanwhile, so that a thread of its key that asks first (most
 * often the releaser, back for its next section) takes it at once instead of waiting
 * for the sleeper to be scheduled. Handing it over there is what kept the convoy going
 * where nobody spins (SCHED_OTHER waiters stop spinning for an owner off the CPU):
 * every acquisition was a wake-up, and 8 threads on 2 CPUs made 4x fewer than 4
 * (measured: the suite's rapid kernel mutex in the baseline, 8 threads 73-129K ops/s,
 * 4 threads 285-536K). Only while every waiter is a thread of this process (an
 * unnamed mutex of a process that has not forked; a shared one whose queue holds only
 * ours): a head killed before it takes the mutex would leave waiters of other
 * processes asleep on a free mutex, where a mutex handed to a dead owner is abandoned
 * and its waiters, who watch the owner, are served. One of another process that queues
 * after the head was woken is served by its own look at the queue (the head is not
 * its process's: it is handed the mutex there, or a running equal takes it). Returns 1
 * when it granted the mutex or left it to the woken head. */
#define BYPASS_MAX 32
#define BYPASS_NS  1000000ull           /* 1 ms */

/* Is every waiter queued on @o a thread of this process? */
static int queue_all_local(struct sobj *o)
{
    for (uint64_t r = o->q_head; r; r = E(r)->next)
        if (!waiter_is_local(went_thr(E(r)))) return 0;
    return 1;
}

static int head_wake_to_take(struct sobj *o, struct thr *t)
{
    uint32_t s = T_SLEEP;
    if (o->in_region ? !queue_all_local(o) : arena_has_forked()) return 0;   /* waiters elsewhere */
    if (!atomic_compare_exchange_strong_explicit(&t->spinning, &s, T_WOKEN, memory_order_relaxed,
                                                 memory_order_relaxed))
        return s == T_WOKEN;               /* woken already; or it runs: hand it over */
    if (!poke_bump(t)) return 0;           /* it timed out meanwhile: serve on */
    waiter_wake_later(t);                  /* after our last lock, as a grant's wake */
    return 1;
}

static int mutex_to_runner(struct sobj *o)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
    if (mtx_owner(w)) return 0;
    struct went *head = NULL;
    for (uint64_t r = o->q_head; r; r = E(r)->next) {
        struct went *e = E(r);
        struct thr *t = went_thr(e);
        if (atomic_load_explicit(&t->futex, memory_order_acquire) & W_ENDED) continue;
        if (t->kind == WAIT_ALL) return 0;         /* a wait-all decides for itself */
        if (!head) {
            head = e;
            if (!thr_state_off_cpu(atomic_load_explicit(&t->spinning, memory_order_relaxed))) return 0;   /* it runs */
            if (o->bypass >= BYPASS_MAX &&
                nspa_clock_ns(CLOCK_MONOTONIC) - __atomic_load_n(&t->since, __ATOMIC_RELAXED) >= BYPASS_NS)
                return 0;                          /* its turn */
            continue;
        }
        if (e->key != head->key) break;
        if (!thr_state_off_cpu(atomic_load_explicit(&t->spinning, memory_order_relaxed)) &&
            obj_signaled_for(o, w, t->owner) && grant_one(o, t, e->idx)) {
            if (o->bypass < UINT8_MAX) o->bypass++;
            return 1;
        }
    }
    return head && head_wake_to_take(o, went_thr(head));
}

NSPA_HIDDEN void sync_try_wake(struct sobj *o)
{
    if (!o->q_head) return;
    obj_claim(o);
    if (o->type == NSPA_TYPE_MUTEX) {
        if (mutex_to_runner(o)) return;
        o->bypass = 0;
    }
    /* a region object's entries were linked by other processes too: the edge from our
     * own earlier writes of a waiter's entry (in another wait of that waiter) runs
     * through them, out of TSan's sight (queue.c, nspa__queue_sync). TSan builds only. */
    if (o->in_region) NSPA_TSAN_ACQUIRE(&nspa__queue_sync);
    for (uint64_t r = o->q_head; r;) {
        struct went *e = E(r);
        uint64_t next = e->next;
        struct thr *t = went_thr(e);
        uint32_t i = e->idx;
        uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
        if (atomic_load_explicit(&t->futex, memory_order_acquire) & W_ENDED) {
            r = next;
            continue;
        }
        if (t->kind == WAIT_ALL) {
            if (all_ready_guess(t)) {
                int g = grant_all_inline(o, t);
                if (g < 0) {
                    waiter_poke(t);        /* it decides under its own locks; it comes first */
                    return;
                }
                if (g > 0) {
                    if (!o->q_head) return;
                    r = o->q_head;         /* the queue may have changed under the grant */
                    continue;
                }
            }
            if (i < t->count) {            /* an object of it: it cannot take it alone */
                r = next;
                continue;
            }
            /* its alert: granted when the objects are not all ready */
        }
        if (obj_signaled_for(o, w, t->owner)) {
            grant_one(o, t, i);
            if (o->type != NSPA_TYPE_MUTEX &&
                !obj_signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), 0))
                return;
        } else if (o->type != NSPA_TYPE_MUTEX) {
            return;                        /* nobody else can take it either */
        }
        r = next;
    }
}

/* Serve @o's queue (lock held) and hand the word back to the fast path if that emptied
 * it (rule 2): what every caller does that changes nothing after the service (a pulse,
 * which resets the word after it, calls the two apart). Without the second step a
 * waiter granted here (often the caller itself) left its object claimed with nobody
 * queued: every later fast path missed until some slow path ran. */
NSPA_HIDDEN void sync_serve(struct sobj *o)
{
    sync_try_wake(o);
    obj_unclaim_if_idle(o);
}

/* ---- abandonment -------------------------------------------------------------------- */

/* Abandon mutex @o (its owner is gone): unowned, abandoned, waiters served. Lock held. */
NSPA_HIDDEN void mtx_abandon(struct sobj *o)
{
    obj_claim(o);
    uint32_t ext;
    uint64_t nw = mtx_make_word(o, 0, 0, 1, &ext);
    __atomic_store_n(&o->ext, ext, __ATOMIC_RELAXED);
    atomic_store_explicit(&o->word, nw | OBJ_CLAIMED, memory_order_release);
    sync_serve(o);
}

/* Thread @t (id @tid) is gone: abandon every mutex it owns. Objects this process
 * cannot reach are left to their own family. */
NSPA_HIDDEN void thr_abandon_owned(struct thr *t, uint32_t tid)
{
    int follow = thr_may_follow(t);
    uint32_t n = atomic_load(&t->nowned);
    if (n > OWNED_MAX) n = OWNED_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ref = atomic_load(&t->owned[i]);
        if (!ref || (!(ref & 1) && !follow)) continue;
        struct sobj *o = R(ref);
        if (!o) continue;
        obj_lock(o);
        if (o->type == NSPA_TYPE_MUTEX && mtx_owner(atomic_load(&o->word)) == tid) mtx_abandon(o);
        obj_unlock(o);
    }
    if (atomic_load(&t->owned_overflow) && nspa_ns) {
        /* the list overflowed once: look at every named mutex */
        struct ns *ns = nspa_ns;
        for (uint32_t k = 0; k < ns->hdr->obj_hwm; k++) {
            struct sobj *o = &ns->objs[k];
            if (o->type != NSPA_TYPE_MUTEX || mtx_owner(atomic_load(&o->word)) != tid) continue;
            obj_lock(o);
            if (o->type == NSPA_TYPE_MUTEX && mtx_owner(atomic_load(&o->word)) == tid) mtx_abandon(o);
            obj_unlock(o);
        }
    }
    /* the list stays: a release rolled back (its registry section died) runs again */
}

