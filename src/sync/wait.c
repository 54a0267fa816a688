/*
 * Waits: wait-any and wait-all (ntsync's semantics), priority-ordered, with a fast path
 * of one compare-and-swap and no system call when the wait is satisfied at once.
 *
 * The slow path (types.h rules): queue one entry per object (each object's lock in
 * turn), then try to be served (wait-any: each object serves its queue in order;
 * wait-all: the waiter takes all its objects' locks in canonical order and grants
 * itself), then sleep on the thread's futex word until it is granted, times out, or is
 * poked (a wait-all object looks ready, a mutex owner changed or died). Then leave every
 * queue. Signals never end a wait.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sync/internal.h"
#include "rt/rt_internal.h"

#define FAST_MISS       1
#define WAIT_RESTART    2       /* wait_slow: resolve the handles again (an object grew) */
#define PI_DELAY_NS     20000ull     /* a real-time waiter boosts the owner after 20 us */

/* The calling thread's key: 100 + its real-time priority, or 0; read from the kernel at
 * most every 50 ms (the RT cache shared with the locks, nspa/rt.h). */
static __thread uint64_t prio_checked;

NSPA_HIDDEN uint32_t current_key(void)
{
    uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000ull;
    if (nspa_rt_thread_state < 0 || now - prio_checked > 50) {
        nspa_rt_thread_load();
        prio_checked = now;
    }
    int st = nspa_rt_thread_state;
    return st > 0 ? 100 + (uint32_t)st : 0;
}

/* NSPA_SPIN_US: how long a waiter for a mutex held by another thread spins before it
 * queues and sleeps (microseconds; 0 = never). The bound is the cost of what it saves:
 * a hand-off through the kernel is two context switches, 25-30 us across CPUs here, so
 * spinning up to about that long never costs more than twice the best choice (the
 * classic bound for spin-then-block), while a shorter spin sends every waiter of a
 * contended mutex to the queue and each acquisition through a wake-up (measured: the
 * suite's rapid kernel mutex with 8 threads in RT mode made 60K ops/s spinning 200
 * rounds, about 3 us, and 3.1-3.4M spinning 15-30 us, with the time-critical thread's
 * longest wait down from 534 us to 31-56 us). Time, not rounds: a pause costs 3-40 ns
 * depending on the CPU. Real-time threads spin too (the kernel's PI futex spins on a
 * running owner as well); nobody spins on one CPU, where the owner cannot run
 * meanwhile. Events and semaphores never spin, and nobody spins past queued waiters (a
 * claimed word sends everyone to the queue, in priority order). */
static int64_t spin_ns = -1;
#define SPIN_OUTRANK 2      /* a waiter above an owner that is off the CPU: owner_state() */
#define SPIN_CHECK   16     /* rounds between looks at the clock and the owner */

static uint64_t spin_budget(void)
{
    int64_t n = __atomic_load_n(&spin_ns, __ATOMIC_RELAXED);
    if (__builtin_expect(n < 0, 0)) {
        n = (int64_t)nspa_env_int("NSPA_SPIN_US", 25, 0, 100000) * 1000;
        if (nspa_ncpu_online() < 2) n = 0;   /* every first caller computes the same */
        __atomic_store_n(&spin_ns, n, __ATOMIC_RELAXED);
    }
    return (uint64_t)n;
}

/* NSPA_EVENT_SPIN_US: how long a wait-any of a SCHED_OTHER thread on events and
 * semaphores looks at its word before it sleeps (microseconds; 0 = never). The wait
 * is queued meanwhile, so whoever sets the object grants it as usual, and sees it on
 * its CPU and makes no wake-up call (wake.c, futex_wake_thr). Why: a hand-off between
 * two threads on different CPUs that sleep costs two wake-ups of a sleeping CPU, 25-30
 * us each on the reference VM (the host's cost of waking a halted vCPU), where a thread
 * that is still looking takes the hand-off in well under a microsecond. 50 us covers
 * one such wake-up of the partner and its answer. Adaptive, since most waits on an
 * event are long (a worker waiting for work): each spin that ends without the word
 * changing makes the thread skip its next 1, 3, 7 ... 255 spins (EV_BACKOFF_MAX), and
 * it takes 4 won spins (EV_WINS_PER_STEP) to undo one such step, so a thread keeps
 * spinning only while more than 4 in 5 of its spins win, and one whose waits are long
 * wastes at most one budget per 256 waits. Not for real-time threads (an event has no owner to boost, and a
 * spinning SCHED_FIFO waiter would hold off a setter of lower priority on its CPU),
 * not for wait-all, not with a mutex in the wait (its own spin, above), not in a
 * thread whose own I/O completes only while it sleeps in the kernel (a thread ring's
 * task work, the epoll engine's socket watch: io_needs_sleep), not with one
 * usable CPU, and not while the kernel has more runnable tasks than we have CPUs
 * (nspa_runnable_hint; NSPA_EVENT_SPIN_LOAD=0 spins whatever the load): then a sleep
 * costs only a switch on the same CPU and a spinner holds a CPU another thread needs
 * (measured: 4 threads bouncing events on 2 CPUs lost 10-15% spinning, even with the
 * backoff, since most of their spins won). */
static int64_t evspin_ns = -1;
static int evspin_load = -1;    /* NSPA_EVENT_SPIN_LOAD: 1 (default) no spin on a busy machine */
static int evspin_io;           /* NSPA_EVENT_SPIN_IO: 1 spins in threads with their own I/O too
                                 * (slower for them; the tests use it to reach the waker's
                                 * skipped wake-up in a thread ring) */
#define EV_BACKOFF_MAX 8
#define EV_WINS_PER_STEP 4
static __thread uint8_t ev_fails, ev_wins;
static __thread uint16_t ev_skip;

static uint64_t ev_spin_budget(void)
{
    int64_t n = __atomic_load_n(&evspin_ns, __ATOMIC_RELAXED);
    if (__builtin_expect(n < 0, 0)) {
        n = (int64_t)nspa_env_int("NSPA_EVENT_SPIN_US", 50, 0, 100000) * 1000;
        if (nspa_ncpu_usable() < 2) n = 0;
        __atomic_store_n(&evspin_load, nspa_env_int("NSPA_EVENT_SPIN_LOAD", 1, 0, 1), __ATOMIC_RELAXED);
        __atomic_store_n(&evspin_io, nspa_env_int("NSPA_EVENT_SPIN_IO", 0, 0, 1), __ATOMIC_RELAXED);
        __atomic_store_n(&evspin_ns, n, __ATOMIC_RELAXED);
    }
    return (uint64_t)n;
}

/* the spin's result teaches the next waits whether to spin */
static void ev_spin_learn(int won)
{
    if (won) {
        if (ev_fails && ++ev_wins % EV_WINS_PER_STEP == 0) ev_fails--;
        return;
    }
    if (ev_fails < EV_BACKOFF_MAX) ev_fails++;
    ev_skip = (uint16_t)((1u << ev_fails) - 1);
}

/* ---- the fast path -------------------------------------------------------------------- */

/* Take @o for @owner with one CAS while nobody waits on it. Returns 0 / -EOWNERDEAD /
 * -ETIMEDOUT when decided, FAST_MISS when the slow path must run. */
/* An event's or a semaphore's successful wait, inlined (the kinds every program uses
 * most); other kinds go through their sync_kind. 1: taken, 0: not signaled, -1: ask
 * the kind. */
static inline int take_fast_common(struct sobj *o, uint64_t *w)
{
    uint64_t v = *w, nw;
    switch (__atomic_load_n(&o->type, __ATOMIC_RELAXED)) {   /* may turn OBJ_FORWARD */
    case NSPA_TYPE_EVENT:
        if (!(v & EVT_SIGNALED)) return 0;
        if (v & EVT_MANUAL) return 1;
        nw = v & ~EVT_SIGNALED;
        break;
    case NSPA_TYPE_SEM:
        if (!(uint32_t)v) return 0;
        nw = v - 1;
        break;
    default:
        return -1;
    }
    return atomic_compare_exchange_weak_explicit(&o->word, w, nw, memory_order_acq_rel, memory_order_acquire)
               ? 1 : 2;
}

/* The owner of mutex word @w seen by a spinning waiter of key @key: 0 spin on, -1 stop
 * spinning, 1 spin longer. Only an owner asleep in the kernel (or handed the mutex
 * while asleep and not run yet: thr.spinning says T_SLEEP) changes anything; the
 * kernel's PI futex likewise spins only while the owner is on a CPU.
 *  - A SCHED_OTHER waiter (key 0) stops: the spin is wasted, and it may hold the CPU
 *    the owner needs (measured: the suite's rapid kernel mutex in the baseline went
 *    from a bimodal 0.16-8.4M ops/s to 4-7M).
 *  - A real-time waiter above the owner spins longer: it is the one served when the
 *    owner releases, and if it slept, that hand-off would go to a sleeper, whose
 *    wake-up (25-30 us across CPUs here) every waiter behind then queues up for (the
 *    convoy of a contended NT mutex between real-time threads).
 *  - A real-time waiter not above the owner spins its normal bound, as before: stopping
 *    at once kept the convoy going (every thread asleep by the time the owner
 *    released), and the bound keeps it from holding an equal-priority owner's CPU long. */
static int owner_state(uint64_t w, uint32_t key)
{
    uint32_t ow = mtx_owner(w);
    struct thr *ot = ow ? thr_by_tid(ow) : NULL;
    if (!ot || !thr_state_off_cpu(atomic_load_explicit(&ot->spinning, memory_order_relaxed))) return 0;
    uint32_t ok = __atomic_load_n(&ot->key, __ATOMIC_RELAXED);
    if (key > ok) return 1;
    return key ? 0 : -1;
}

static int owners_state(struct sobj *const *objs, uint32_t n, uint32_t key)
{
    int r = 0;
    for (uint32_t i = 0; i < n && r >= 0; i++)
        if (obj_type_now(objs[i]) == NSPA_TYPE_MUTEX) {
            int s = owner_state(atomic_load_explicit(&objs[i]->word, memory_order_acquire) & ~OBJ_CLAIMED, key);
            if (s) r = s;
        }
    return r;
}

/* take_fast's flags: a mutex waiter may spin for a running owner; the owner is the
 * calling thread, whose record is looked up only if a kind needs it (so a free event or
 * semaphore is taken without it) */
#define TF_SPIN 1
#define TF_SELF 2

static int take_fast_kind(struct sobj *o, uint64_t w, uint32_t owner, uint64_t timeout, int flags);

/* Inline, and a leaf for events and semaphores: the uncontended wait costs no call and
 * no saved registers (the triple of nspa-bench sync measures this). Mutexes and the
 * other kinds go through take_fast_kind, out of line. */
static inline int take_fast(struct sobj *o, uint32_t owner, uint64_t timeout, int flags)
{
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    for (;;) {
        if (w & OBJ_CLAIMED) return FAST_MISS;
        int c = take_fast_common(o, &w);
        if (__builtin_expect(c == 1, 1)) return 0;
        if (c == 2) continue;                      /* lost a race: look again */
        if (c == 0) return timeout == 0 ? -ETIMEDOUT : FAST_MISS;
        return take_fast_kind(o, w, owner, timeout, flags);
    }
}

static __attribute__((noinline)) int take_fast_kind(struct sobj *o, uint64_t w, uint32_t owner, uint64_t timeout,
                                                    int flags)
{
    if (flags & TF_SELF) {
        struct nspa_tls *me = self();
        if (!me) return -ENOMEM;
        owner = me->tid;
    }
    uint8_t ty = __atomic_load_n(&o->type, __ATOMIC_RELAXED);
    const struct sync_kind *k = sync_kind_of(ty);
    if (!k) return ty == OBJ_FORWARD ? FAST_MISS : -EBADF;   /* grown meanwhile: slow path */
    uint32_t spins = 0;
    uint64_t spin_end = 0;
    while (!(w & OBJ_CLAIMED)) {
        if (k->signaled(o, w, owner)) {
            uint64_t nw;
            uint32_t ext = __atomic_load_n(&o->ext, __ATOMIC_RELAXED);
            int ab = k->consume(o, w, owner, &nw, &ext);
            if (ty == NSPA_TYPE_MUTEX) {
                if (((nw >> MTX_CNT_SHIFT) & MTX_CNT_MASK) == MTX_CNT_BIG) return FAST_MISS;
                if (!mtx_owner(w)) {
                    struct nspa_tls *me = self();
                    if (!me) return -ENOMEM;
                    if (o->in_region && !in_region(me->t)) return -ENOSPC;   /* no slot */
                    owned_add(me->t, o);             /* before the CAS: see owned_add */
                }
            }
            if (nw == w || atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel,
                                                                 memory_order_acquire))
                return ab ? -EOWNERDEAD : 0;
            continue;
        }
        if (timeout == 0) return -ETIMEDOUT;
        if (!(flags & TF_SPIN) || ty != NSPA_TYPE_MUTEX) return FAST_MISS;
        if (spins++ % SPIN_CHECK == 0) {
            uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC);
            if (!spin_end) spin_end = now + spin_budget();
            if (now >= spin_end || owner_state(w, current_key()) < 0) return FAST_MISS;
        }
        nspa_cpu_relax();
        w = atomic_load_explicit(&o->word, memory_order_acquire);
    }
    return FAST_MISS;
}

/* ---- wait-all: the waiter grants itself ---------------------------------------------- */

static uint64_t order_key(const struct sobj *o)
{
    /* process-arena objects first, by address; region objects by offset (the same in
     * every process) */
    return o->in_region ? (1ull << 63) | (uint64_t)((const char *)o - nspa_ns->base) : (uint64_t)(uintptr_t)o;
}

/* Lock @n objects in canonical order (types.h, rule 3); @ord receives the order. */
static void lock_all(struct sobj *const *objs, uint32_t n, uint8_t *ord)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && order_key(objs[ord[j - 1]]) > order_key(objs[i])) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = (uint8_t)i;
    }
    for (uint32_t i = 0; i < n; i++) obj_lock(objs[ord[i]]);
}

static void unlock_all(struct sobj *const *objs, uint32_t n, const uint8_t *ord)
{
    for (uint32_t i = n; i-- > 0;) obj_unlock(objs[ord[i]]);
}

/* Take every object of a wait-all at once, or none. Returns 1 when taken (the futex
 * word of @t says DONE then), 0 when not all are ready, or when @t was granted its
 * alert meanwhile (its futex word says so). */
static int take_all(struct thr *t, struct sobj *const *objs, uint32_t n, uint32_t owner)
{
    uint8_t ord[NSPA_MAX_WAIT_OBJECTS];
    /* a look without the locks first: most calls find an object not ready */
    atomic_thread_fence(memory_order_seq_cst);
    for (uint32_t i = 0; i < n; i++)
        if (!obj_signaled_for(objs[i], atomic_load_explicit(&objs[i]->word, memory_order_acquire), owner))
            return 0;
    lock_all(objs, n, ord);
    int ok = 1;
    for (uint32_t i = 0; i < n && ok; i++) {
        /* claimed before it is read: a fast-path CAS could change it after the check */
        if (!objs[i]->type) ok = 0;
        else ok = obj_signaled_for(objs[i], obj_claim(objs[i]), owner);
    }
    int won = ok ? grant_all_locked(t, objs, n, 1, NULL) : 0;
    if (!won)
        for (uint32_t i = 0; i < n; i++) obj_unclaim_if_idle(objs[i]);
    unlock_all(objs, n, ord);
    return won;
}

/* ---- leaving ---------------------------------------------------------------------- */

/* Take @t's entries out of every queue (by @t itself, or by whoever reclaims a dead
 * thread: @reg_held then). */
NSPA_HIDDEN void wait_unqueue(struct thr *t, int reg_held)
{
    uint32_t n = t->count + (t->has_alert ? 1 : 0);
    int follow = thr_may_follow(t);
    for (uint32_t i = 0; i < n && i < WAIT_SLOTS; i++) {
        uint64_t ref = t->objs[i];
        if (!__atomic_load_n(&t->ent[i].obj, __ATOMIC_ACQUIRE) || (!(ref & 1) && !follow)) continue;
        struct sobj *o = R(ref);
        if (!o) continue;
        obj_lock(o);
        q_remove(o, &t->ent[i]);
        int reap = o->zombie && !o->q_head;
        if (o->type == NSPA_TYPE_MUTEX && o->q_head) sync_try_wake(o);   /* owner changed meanwhile */
        obj_unclaim_if_idle(o);
        obj_unlock(o);
        if (reap) obj_reap_zombie(o, reg_held);
    }
    __atomic_store_n(&t->kind, WAIT_NONE, __ATOMIC_RELEASE);
}

static void boost_owners(struct sobj *const *objs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (obj_type_now(objs[i]) == NSPA_TYPE_MUTEX) pi_update_owner_of(objs[i], 0);
}

static int ended_result(struct nspa_wait_args *args, uint32_t v)
{
    if (!(v & W_DONE)) return -ETIMEDOUT;
    args->index = (v >> W_IDX_SHIFT) & W_IDX_MASK;
    return (v & W_ABANDONED) ? -EOWNERDEAD : 0;
}

static int any_forwarder(struct sobj *const *objs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&objs[i]->type, __ATOMIC_ACQUIRE) == OBJ_FORWARD) return 1;
    return 0;
}

/* Lock, serve and unlock each of @objs[0..n) (only its mutexes with @mutexes_only). */
static void serve_each(struct sobj *const *objs, uint32_t n, int mutexes_only)
{
    for (uint32_t i = 0; i < n; i++) {
        if (mutexes_only && obj_type_now(objs[i]) != NSPA_TYPE_MUTEX) continue;
        obj_lock(objs[i]);
        sync_serve(objs[i]);
        obj_unlock(objs[i]);
    }
}

/* A slow wait in progress: what its steps share. */
struct wslow {
    struct thr *t;
    struct nspa_wait_args *args;
    struct sobj **objs;
    uint32_t count, n;               /* objects; objects and the alert */
    int all, has_mutex, spin, boosted;  /* spin: 1 a mutex waiter's, 2 an event waiter's */
    uint32_t key, seen, nwatch;
    clockid_t clk;
    uint64_t pi_at;                  /* when to boost the owners (UINT64_MAX: never) */
    struct nspa_futex_waitv wv[WAIT_SLOTS + 1];
};

/* The wait block: written by this thread alone while it is not queued. */
static void wait_block_fill(struct wslow *ws, int has_alert)
{
    struct thr *t = ws->t;
    int shared = arena_has_forked();
    for (uint32_t i = 0; i < ws->n; i++) shared |= ws->objs[i]->in_region;
    t->count = ws->count;
    t->has_alert = (uint32_t)has_alert;
    t->owner = ws->args->owner;
    __atomic_store_n(&t->key, ws->key, __ATOMIC_RELAXED);
    __atomic_store_n(&t->shared_futex, (uint32_t)shared, __ATOMIC_RELAXED);
    int mutex = 0;
    for (uint32_t i = 0; i < ws->n; i++) {
        t->objs[i] = REF(ws->objs[i]);
        mutex |= obj_type_now(ws->objs[i]) == NSPA_TYPE_MUTEX;
    }
    /* only a mutex's waker reads it (wake.c, mutex_to_runner): a clock read (about
     * 40 ns in a VM) saved for every other wait */
    if (mutex) __atomic_store_n(&t->since, nspa_clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
    atomic_store_explicit(&t->futex, 0, memory_order_relaxed);
    __atomic_store_n(&t->kind, ws->all ? WAIT_ALL : WAIT_ANY, __ATOMIC_RELEASE);
}

/* Queue on every object (each object's lock in turn). Returns 1 with *res set when the
 * wait ended on the way (an object closed and freed since the lookup). */
static int wait_enqueue(struct wslow *ws, int *res)
{
    struct thr *t = ws->t;
    uint32_t qkey = pi_eff_key(t) > ws->key ? pi_eff_key(t) : ws->key;
    for (uint32_t i = 0; i < ws->n; i++) {
        struct sobj *o = obj_lock_live(ws->objs[i]);
        if (o != ws->objs[i]) {              /* grown into the region since the lookup */
            ws->objs[i] = o;
            t->objs[i] = REF(o);
            __atomic_store_n(&t->shared_futex, 1, __ATOMIC_RELAXED);
        }
        if (!o->type) {                      /* closed and freed since the lookup */
            obj_unlock(o);
            uint32_t v = 0;
            int cut = atomic_compare_exchange_strong(&t->futex, &v, W_TIMEDOUT);
            wait_unqueue(t, 0);
            *res = cut ? -EBADF : ended_result(ws->args, v);   /* granted meanwhile: that stands */
            return 1;
        }
        q_insert(o, &t->ent[i], qkey);
        if (ws->n == 1 && !ws->all) sync_serve(o);   /* one object: served in the same section */
        obj_unlock(o);
        if (ws->all && i == 0) nspa__test_point("wait_all_queued_first");
    }
    nspa__test_point("wait_queued");         /* queued everywhere, not yet spinning */
    return 0;
}

/* The first service once queued everywhere: a wait-all takes all it can, each object
 * of a wait-any (or a wait-all's alert) serves its queue. */
static void wait_first_service(struct wslow *ws)
{
    struct thr *t = ws->t;
    if (ws->all) take_all(t, ws->objs, ws->count, ws->args->owner);
    for (uint32_t i = 0; i < ws->n && (ws->n > 1 || ws->all); i++) {
        if (atomic_load_explicit(&t->futex, memory_order_acquire) & W_ENDED) break;
        if (ws->all && i < ws->count) continue;
        serve_each(&ws->objs[i], 1, 0);
    }
}

/* The owners of the wait's mutexes: their processes watch us from now on, and a
 * real-time waiter boosts them after PI_DELAY_NS. */
static void wait_owners_arm(struct wslow *ws)
{
    int pi_pending = 0;
    ws->has_mutex = 0;
    for (uint32_t i = 0; i < ws->count; i++) {
        if (obj_type_now(ws->objs[i]) != NSPA_TYPE_MUTEX) continue;
        ws->has_mutex = 1;
        uint32_t ow = mtx_owner(atomic_load(&ws->objs[i]->word));
        if (!ow) continue;
        if (ws->key && pi_enabled()) pi_pending = 1;
        struct thr *ot = thr_by_tid(ow);
        if (ot) reaper_poke_owner(ot);
    }
    ws->pi_at = pi_pending ? nspa_clock_ns(ws->clk) + PI_DELAY_NS : UINT64_MAX;
    ws->spin = ws->has_mutex;
    const struct nspa__sleep_hooks *h = __atomic_load_n(&nspa__sleep_hooks_cur, __ATOMIC_ACQUIRE);
    if (!ws->has_mutex && !ws->all && !ws->key && ev_spin_budget() &&   /* NSPA_EVENT_SPIN_US */
        !(h && h->io_needs_sleep && !__atomic_load_n(&evspin_io, __ATOMIC_RELAXED) && h->io_needs_sleep())) {
        if (ev_skip) ev_skip--;
        else if (!__atomic_load_n(&evspin_load, __ATOMIC_RELAXED) || nspa_runnable_hint() <= nspa_ncpu_usable())
            ws->spin = 2;                    /* (a hint of -1, unknown: spin) */
    }
    ws->boosted = 0;
    ws->nwatch = watch_owners(ws->objs, ws->count, ws->wv + 1);
    ws->seen = atomic_load(&ws->t->futex) & W_POKE_MASK;
}

/* Poked: an object may be ready for a wait-all, an owner changed, the process forked,
 * or a free mutex waits for us to take it (wake.c, mutex_to_runner: a sleeping head is
 * woken, not handed it; we run now, so its service hands it to us, and if another took
 * it first we look again for a while before we sleep). */
static void wait_on_poke(struct wslow *ws, uint32_t v)
{
    ws->seen = v & W_POKE_MASK;
    if (ws->all) {
        if (!take_all(ws->t, ws->objs, ws->count, ws->args->owner)) serve_each(ws->objs, ws->count, 0);
    } else if (ws->has_mutex) {
        serve_each(ws->objs, ws->count, 1);
        ws->spin = 1;
    }
    ws->nwatch = watch_owners(ws->objs, ws->count, ws->wv + 1);
}

/* A waiter for a mutex looks at its word for a while before it sleeps: a running
 * waiter is served first among equals (wake.c, mutex_to_runner). Returns 1 when the
 * word changed from @v. */
static int wait_spin(struct wslow *ws, uint32_t v)
{
    struct thr *t = ws->t;
    uint32_t v2 = v;
    atomic_store_explicit(&t->spinning, T_SPIN, memory_order_relaxed);
    uint64_t t0 = nspa_clock_ns(CLOCK_MONOTONIC), budget = ws->spin == 2 ? ev_spin_budget() : spin_budget();
    uint64_t timeout = ws->args->timeout;
    if (timeout != NSPA_TIMEOUT_INFINITE) {  /* never past the wait's own timeout */
        uint64_t now = ws->clk == CLOCK_MONOTONIC ? t0 : nspa_clock_ns(ws->clk);
        uint64_t left = timeout > now ? timeout - now : 0;
        if (left < budget) budget = left;
    }
    for (uint32_t k = 0; v2 == v; k++) {
        if (k % SPIN_CHECK == 0) {
            int os = owners_state(ws->objs, ws->count, ws->key);
            if (os < 0) break;
            if (os > 0) budget = SPIN_OUTRANK * spin_budget();
            if (nspa_clock_ns(CLOCK_MONOTONIC) - t0 >= budget) break;
        }
        nspa_cpu_relax();
        v2 = atomic_load_explicit(&t->futex, memory_order_acquire);
    }
    atomic_store_explicit(&t->spinning, T_RUN, memory_order_relaxed);
    return v2 != v;
}

/* Leave every queue; the owners boosted get their own priority back. */
static void wait_leave(struct wslow *ws)
{
    wait_unqueue(ws->t, 0);
    if (ws->boosted || (ws->key && pi_enabled())) boost_owners(ws->objs, ws->count);
}

/* Queue, be served, sleep, leave. WAIT_RESTART: an object of the wait grew into the
 * region meanwhile (inherit.c, obj_promote); the caller resolves the handles again. */
static int wait_slow(struct nspa_tls *me, struct nspa_wait_args *args, struct sobj **objs, uint32_t count,
                     int has_alert, int all)
{
    struct wslow ws = { .t = me->t, .args = args, .objs = objs, .count = count, .n = count + has_alert,
                        .all = all };
    struct thr *t = ws.t;
    uint64_t timeout = args->timeout;
    ws.clk = (args->flags & NSPA_WAIT_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    ws.key = timeout ? pi_own_key(t, current_key()) : 0;
    wait_block_fill(&ws, has_alert);
    int res;
    if (wait_enqueue(&ws, &res)) return res;
    wait_first_service(&ws);
    wait_owners_arm(&ws);

    uint32_t v;
    for (;;) {
        v = atomic_load_explicit(&t->futex, memory_order_acquire);
        if (v & W_ENDED) break;
        if (any_forwarder(objs, ws.n)) {
            /* an object grew into the region (obj_promote poked us; looked at on every
             * round, so a poke before `seen` was read is not lost): leave every queue,
             * as a timeout does, and start again on the new object */
            if (atomic_compare_exchange_strong(&t->futex, &v, v | W_TIMEDOUT)) {
                wait_leave(&ws);
                return WAIT_RESTART;
            }
            continue;                        /* granted meanwhile: that stands */
        }
        if ((v & W_POKE_MASK) != ws.seen) {
            wait_on_poke(&ws, v);
            continue;
        }
        /* the clock only when something is due (an infinite wait reads none) */
        uint64_t now = timeout != NSPA_TIMEOUT_INFINITE || ws.pi_at != UINT64_MAX ? nspa_clock_ns(ws.clk) : 0;
        if (timeout != NSPA_TIMEOUT_INFINITE && now >= timeout) {
            atomic_compare_exchange_strong(&t->futex, &v, v | W_TIMEDOUT);
            continue;
        }
        if (ws.pi_at != UINT64_MAX && now >= ws.pi_at) {
            ws.pi_at = UINT64_MAX;
            ws.boosted = 1;
            boost_owners(objs, count);
            continue;
        }
        if (ws.spin) {
            int won = wait_spin(&ws, v), ev = ws.spin == 2;
            ws.spin = 0;
            if (ev) ev_spin_learn(won);
            if (won) continue;
        }
        uint64_t until = timeout == NSPA_TIMEOUT_INFINITE ? UINT64_MAX : timeout;
        if (ws.pi_at < until) until = ws.pi_at;
        sleep_marked(t, v, ws.wv, ws.nwatch, until, ws.clk);
        if (ws.nwatch) ws.nwatch = watch_owners(objs, count, ws.wv + 1);
    }
    wait_leave(&ws);
    return ended_result(args, v);
}

static const struct nspa__timer_hooks *timer_hooks;   /* the time module's (timer.c) */

/* ---- the calls ---------------------------------------------------------------------- */

static int resolve(const struct nspa_wait_args *args, struct sobj **objs, int all)
{
    uint32_t count = args->count;
    for (uint32_t i = 0; i < count; i++) {
        int denied = 0;
        objs[i] = h_lookup_need(args->objs[i], H_NEED_SYNCHRONIZE, &denied);
        if (!objs[i]) return denied ? -EACCES : -EBADF;   /* a handle without SYNCHRONIZE */
        /* read without the lock: the type may turn OBJ_FORWARD under us (obj_promote) */
        if (obj_type_now(objs[i]) == OBJ_FORWARD) objs[i] = obj_forward_target(objs[i]);
        if (!sync_kind_of(obj_type_now(objs[i]))) return -EINVAL;
    }
    uint32_t n = count;
    if (args->alert) {
        objs[count] = h_lookup(args->alert);
        if (!objs[count]) return -EBADF;
        /* ntsync takes any of its objects as the alert (and acquires it as such) */
        if (!sync_kind_of(obj_type_now(objs[count]))) return -EINVAL;
        n++;
    }
    if (all)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (objs[i] == objs[j]) return -EINVAL;
    return 0;
}

/* A wait-any that every object lets decide without a lock: the first signaled object
 * (lowest index, the alert last) is taken by CAS. FAST_MISS: some object has waiters,
 * or nothing is signaled and the wait may sleep. */
static int any_unqueued(struct sobj **objs, uint32_t n, uint32_t owner, uint64_t timeout, uint32_t *index)
{
    for (uint32_t i = 0; i < n; i++)
        if (atomic_load_explicit(&objs[i]->word, memory_order_acquire) & OBJ_CLAIMED) return FAST_MISS;
    for (uint32_t i = 0; i < n; i++) {
        int r = take_fast(objs[i], owner, 0, 0);
        if (r != -ETIMEDOUT) {
            *index = i;
            return r;
        }
    }
    return timeout == 0 ? -ETIMEDOUT : FAST_MISS;
}

/* ---- timers armed by this process: the direct path (docs/time.md) ---------------------
 * A waiter whose objects include a timer this process armed sleeps until the earliest
 * of those due times (its own hrtimer, as a clock_nanosleep would) and then runs that
 * expiry itself, which signals the timer for it and for every other waiter; the wait
 * goes on with the caller's timeout. The timer service wakes at the same due time and
 * finds the expiry done. Without this, every expiry was a hand-off from the service
 * thread to the waiter: a second wake-up on another CPU. */
NSPA_HIDDEN void nspa__set_timer_hooks(const struct nspa__timer_hooks *h)
{
    __atomic_store_n(&timer_hooks, h, __ATOMIC_RELEASE);
}

/* A poll (timeout 0) missed: a timer of the region among @objs may have an expiry due
 * that nobody serves (the process that armed it is gone): take it over and run it.
 * 1: one ran, look again. */
static int timers_poll(struct sobj **objs, uint32_t n)
{
    const struct nspa__timer_hooks *h = __atomic_load_n(&timer_hooks, __ATOMIC_ACQUIRE);
    int ran = 0;
    for (uint32_t i = 0; h && i < n; i++)
        if (objs[i]->in_region && obj_type_now(objs[i]) == NSPA_TYPE_TIMER) ran |= h->poll((uintptr_t)objs[i]);
    return ran;
}

/* NSPA_TIMER_SPIN_US: a real-time thread that waits on one timer alone, armed by this
 * process, wakes this long before the due time (100 us; 0 = never) and spins to it on
 * the clock, taking the timer meanwhile if someone else signals it (so does the timer
 * service in RT mode: src/time/service.c). The kernel's wake-up is late by up to tens
 * of microseconds at p99 on a VM (the hrtimer interrupt, the switch, the host),
 * whatever the sleeper does; what a pacing loop of an audio thread
 * wants is the due time, and it pays with up to that much CPU per expiry (a 1 ms period
 * spins about 5-10% of a CPU). Not for SCHED_OTHER threads, whose wake-ups are not the
 * limit, nor for waits on several objects, which would see the others late. */
static int64_t tspin_ns = -1;

NSPA_HIDDEN uint64_t nspa__timer_spin_ns(void)
{
    int64_t n = __atomic_load_n(&tspin_ns, __ATOMIC_RELAXED);
    if (__builtin_expect(n < 0, 0)) {
        n = (int64_t)nspa_env_int("NSPA_TIMER_SPIN_US", 100, 0, 10000) * 1000;
        __atomic_store_n(&tspin_ns, n, __ATOMIC_RELAXED);
    }
    return (uint64_t)n;
}

/* Spin until @due (CLOCK_MONOTONIC ns), taking @o by CAS if it is signaled meanwhile:
 * 0 taken, -ETIMEDOUT the due time came. */
static int spin_to_due(struct sobj *o, uint32_t owner, uint64_t due)
{
    for (uint32_t k = 0;; k++) {
        int r = take_fast(o, owner, 0, 0);
        if (r != -ETIMEDOUT && r != FAST_MISS) return r;
        if (k % SPIN_CHECK == 0 && nspa_clock_ns(CLOCK_MONOTONIC) >= due) return -ETIMEDOUT;
        nspa_cpu_relax();
    }
}

static int wait_timers(struct nspa_tls *me, struct nspa_wait_args *args, struct sobj **objs, uint32_t count,
                       int all)
{
    const struct nspa__timer_hooks *h = timer_hooks;
    for (;;) {
        uint64_t due = UINT64_MAX, d;
        for (uint32_t i = 0; i < count; i++)
            if (obj_type_now(objs[i]) == NSPA_TYPE_TIMER && h->due((uintptr_t)objs[i], &d) && d < due) due = d;
        int r = -ETIMEDOUT;
        struct nspa_wait_args a = *args;
        if (due < args->timeout) {
            uint64_t early = count == 1 && !args->alert && current_key() ? nspa__timer_spin_ns() : 0;
            a.timeout = due > early + 1 ? due - early : 1;   /* absolute; 0 would be a poll */
            r = wait_slow(me, &a, objs, count, args->alert != 0, all);
            if (r == -ETIMEDOUT && early) {
                r = spin_to_due(objs[0], args->owner, due);
                if (r != -ETIMEDOUT) a.index = 0;
            }
        }
        if (due >= args->timeout || r != -ETIMEDOUT) {
            /* not running the expiries after all: the service serves them */
            for (uint32_t i = 0; i < count; i++)
                if (obj_type_now(objs[i]) == NSPA_TYPE_TIMER) h->uncommit((uintptr_t)objs[i]);
            if (due >= args->timeout) break;
            args->index = a.index;
            return r;
        }
        for (uint32_t i = 0; i < count; i++)
            if (obj_type_now(objs[i]) == NSPA_TYPE_TIMER) h->expire((uintptr_t)objs[i]);
    }
    return wait_slow(me, args, objs, count, args->alert != 0, all);
}

static int do_wait_once(struct nspa_wait_args *args, int all);

static int do_wait(struct nspa_wait_args *args, int all)
{
    int r;
    while ((r = do_wait_once(args, all)) == WAIT_RESTART)
        ;                                    /* the deadline is absolute: it carries over */
    return r;
}

static int do_wait_once(struct nspa_wait_args *args, int all)
{
    if (!args) return -EFAULT;
    /* owner 0 is a valid owner for a wait, as in ntsync (only unlock and kill refuse it) */
    if (args->count > NSPA_MAX_WAIT_OBJECTS || (args->flags & ~NSPA_WAIT_REALTIME) || args->pad)
        return -EINVAL;
    if (args->count && !args->objs) return -EFAULT;
    struct nspa_tls *me = self();
    if (!me) return -ENOMEM;
    struct sobj *objs[WAIT_SLOTS];
    int r = resolve(args, objs, all);
    if (r) return r;
    uint32_t count = args->count, n = count + (args->alert ? 1 : 0);
    for (uint32_t i = 0; i < n; i++)
        if (objs[i]->in_region && !in_region(me->t)) return -ENOSPC;   /* no region slot */
    if (!all) {
        uint32_t index = 0;
        r = any_unqueued(objs, n, args->owner, args->timeout, &index);
        if (r == -ETIMEDOUT && timers_poll(objs, count)) r = any_unqueued(objs, n, args->owner, 0, &index);
        if (r != FAST_MISS) {
            args->index = index;
            return r;
        }
    } else if (count && !args->alert) {
        /* all at once, before queueing */
        struct thr *t = me->t;
        t->count = count;
        t->has_alert = 0;
        t->owner = args->owner;
        for (uint32_t i = 0; i < count; i++) t->objs[i] = REF(objs[i]);
        atomic_store(&t->futex, 0);
        __atomic_store_n(&t->kind, WAIT_ALL, __ATOMIC_RELEASE);
        int won = take_all(t, objs, count, args->owner);
        if (!won && args->timeout == 0 && timers_poll(objs, count)) won = take_all(t, objs, count, args->owner);
        __atomic_store_n(&t->kind, WAIT_NONE, __ATOMIC_RELEASE);
        if (won) return ended_result(args, atomic_load(&t->futex));
        if (args->timeout == 0) return -ETIMEDOUT;
    }
    if (__atomic_load_n(&timer_hooks, __ATOMIC_ACQUIRE) && !(args->flags & NSPA_WAIT_REALTIME))
        return wait_timers(me, args, objs, count, all);
    return wait_slow(me, args, objs, count, args->alert != 0, all);
}

/* One object, no alert: the common WaitForSingleObject. */
static inline int wait_one(struct nspa_wait_args *args, int all)
{
    if (!args->flags && !args->pad) {
        int denied = 0;
        struct sobj *o = h_lookup_need(args->objs[0], H_NEED_SYNCHRONIZE, &denied);
        if (o) {
            int r = take_fast(o, args->owner, args->timeout, TF_SPIN);
            if (r == -ETIMEDOUT && o->in_region && timers_poll(&o, 1)) r = take_fast(o, args->owner, 0, TF_SPIN);
            if (r != FAST_MISS) {
                args->index = 0;
                return r;
            }
        }
    }
    return do_wait(args, all);
}

NSPA_EXPORT int nspa_wait_any(struct nspa_wait_args *args)
{
    if (args && args->count == 1 && !args->alert && args->objs) return wait_one(args, 0);
    return do_wait(args, 0);
}

NSPA_EXPORT int nspa_wait_all(struct nspa_wait_args *args)
{
    if (args && args->count == 1 && !args->alert && args->objs) return wait_one(args, 1);
    return do_wait(args, 1);
}

/* A wait on one process object that is not signaled: the Win32 layer's process code
 * may wait for it itself (on the process's pidfd, one wake-up fewer than through its
 * watcher thread). Returns 1 when it did not. */
static int (*proc_wait_hook)(nspa_obj_t h, uint64_t timeout);

NSPA_HIDDEN void nspa__set_proc_wait_hook(int (*fn)(nspa_obj_t h, uint64_t timeout))
{
    __atomic_store_n(&proc_wait_hook, fn, __ATOMIC_RELEASE);
}

/* internal: WaitForSingleObject's path, without building a request */
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout)
{
    /* an event or a semaphore that is free needs neither the thread's record nor a
     * call (TF_SELF): the common uncontended wait is this much */
    int denied = 0;
    struct sobj *o = h_lookup_need(h, H_NEED_SYNCHRONIZE, &denied);
    if (__builtin_expect(denied, 0)) return -EACCES;
    if (__builtin_expect(o != NULL, 1)) {
        int r = take_fast(o, 0, timeout, TF_SPIN | TF_SELF);
        if (r == -ETIMEDOUT && o->in_region && timers_poll(&o, 1)) r = take_fast(o, 0, 0, TF_SPIN | TF_SELF);
        if (r != FAST_MISS) return r;
        int (*hook)(nspa_obj_t, uint64_t) = __atomic_load_n(&proc_wait_hook, __ATOMIC_ACQUIRE);
        if (obj_type_now(o) == NSPA_TYPE_PROCESS && hook && (r = hook(h, timeout)) != 1) return r;
    }
    struct nspa_tls *me = self();
    if (!me) return -ENOMEM;
    struct nspa_wait_args a = { .timeout = timeout, .objs = &h, .count = 1, .owner = me->tid };
    return do_wait(&a, 0);
}
