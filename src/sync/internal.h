/*
 * The sync core's private functions, declared once. Types and locking rules: types.h.
 */
#ifndef NSPA_SYNC_INTERNAL_H
#define NSPA_SYNC_INTERNAL_H
#include <stdint.h>
#include "sync/types.h"
#include "common/platform.h"
#include "sync/sync_api.h"

/* ---- refs (types.h, "REFERENCES") --------------------------------------------------- */

extern struct ns *nspa_ns;               /* attached region, or NULL */

static inline int in_region(const void *p)
{
    struct ns *ns = nspa_ns;
    return ns && (const char *)p >= ns->base && (const char *)p < ns->base + ns->size;
}

static inline uint64_t REF(const void *p)
{
    if (!p) return 0;
    if (in_region(p)) return (uint64_t)((const char *)p - nspa_ns->base) | 1u;
    return (uint64_t)(uintptr_t)p;
}

static inline void *R(uint64_t ref)
{
    if (!ref) return NULL;
    if (ref & 1u) return nspa_ns ? nspa_ns->base + (ref & ~(uint64_t)1) : NULL;
    return (void *)(uintptr_t)ref;
}

/* ---- per-thread ------------------------------------------------------------------ */

extern __thread struct nspa_tls nspa_self_tls __attribute__((tls_model("initial-exec")));
NSPA_HIDDEN struct nspa_tls *thr_register(void);

static inline struct nspa_tls *self(void)
{
    struct nspa_tls *s = &nspa_self_tls;
    if (__builtin_expect(s->t == NULL, 0)) return thr_register();
    return s;
}

/* ---- the process arena (arena.c) ---------------------------------------------------- */
NSPA_HIDDEN int arena_init(void);
NSPA_HIDDEN struct sobj *arena_obj_alloc(void);
NSPA_HIDDEN void arena_obj_free(struct sobj *o);
NSPA_HIDDEN struct thr *arena_thr_alloc(void);
NSPA_HIDDEN void arena_thr_free(struct thr *t);
NSPA_HIDDEN uint64_t arena_family(void);
NSPA_HIDDEN int arena_has_forked(void);
NSPA_HIDDEN void arena_mark_forked(void);
NSPA_HIDDEN void arena_after_fork_child(void);

/* ---- the namespace region (region.c, procs.c) -------------------------------------- */
NSPA_HIDDEN struct ns *ns_get(void);             /* attach if needed; NULL: none */
NSPA_HIDDEN int ns_error(void);                  /* why ns_get() gave NULL (-errno) */
NSPA_HIDDEN int region_open(struct ns *ns, const char *name);
NSPA_HIDDEN void reg_lock(struct ns *ns);
NSPA_HIDDEN void reg_unlock(struct ns *ns);
NSPA_HIDDEN int reg_trylock(struct ns *ns);   /* 1: taken; 0: busy (never waits) */
NSPA_HIDDEN void jset32(struct ns *ns, uint32_t *p, uint32_t v);
NSPA_HIDDEN void jset64(struct ns *ns, uint64_t *p, uint64_t v);
/* The region's tables of records (objects, names, threads, processes, ledger chunks):
 * take one off the table's free list (index + 1, linked through the uint32_t @link
 * bytes into each record of @stride bytes from @base), else the high-water mark below
 * @max; give one back. Journaled writes, registry lock held. UINT32_MAX: full. */
NSPA_HIDDEN uint32_t region_take(struct ns *ns, uint32_t *free_head, uint32_t *hwm, uint32_t max, void *base,
                                 size_t stride, size_t link);
NSPA_HIDDEN void region_give(struct ns *ns, uint32_t *free_head, void *base, size_t stride, size_t link, uint32_t i);
#define REGION_TAKE(ns, fr, hw, max, arr, fld) \
    region_take(ns, &(ns)->hdr->fr, &(ns)->hdr->hw, max, arr, sizeof((arr)[0]), offsetof(__typeof__((arr)[0]), fld))
#define REGION_GIVE(ns, fr, arr, fld, i) \
    region_give(ns, &(ns)->hdr->fr, arr, sizeof((arr)[0]), offsetof(__typeof__((arr)[0]), fld), i)
NSPA_HIDDEN int proc_attach(struct ns *ns);
NSPA_HIDDEN void ns_sweep_dead(struct ns *ns);
NSPA_HIDDEN void procs_fork_fixup(void);     /* a fork child's first call */
NSPA_HIDDEN int procs_fork_pending(void);
NSPA_HIDDEN uint32_t proc_take(struct ns *ns);
NSPA_HIDDEN void proc_release(struct ns *ns, uint32_t slot);
NSPA_HIDDEN uint32_t proc_slot_of_pid(struct ns *ns, uint32_t pid);
NSPA_HIDDEN uint32_t proc_handoff_of_pid(struct ns *ns, uint32_t pid);
NSPA_HIDDEN int proc_gone(struct ns *ns, uint32_t slot, uint32_t pid);

/* ---- thread records (threads.c) ---------------------------------------------------- */
NSPA_HIDDEN void sync_mutex_init(pthread_mutex_t *m, int pi);
NSPA_HIDDEN struct thr *thr_by_tid(uint32_t tid);        /* racy lookup; NULL: unknown */
NSPA_HIDDEN int thr_dead_check(struct thr *t, uint32_t tid);   /* 1 dead, 0 alive, -1 dead: not ours to reclaim */
NSPA_HIDDEN int thr_reclaimable(struct ns *ns, const struct thr *t);
NSPA_HIDDEN void thr_release(struct ns *ns, struct thr *t);   /* registry lock held */
NSPA_HIDDEN void thr_after_fork_child(void);
NSPA_HIDDEN void thr_rearm_sleepers(void);
NSPA_HIDDEN int thr_is_dead_word(uint32_t v);

/* ---- handles and kinds (handles.c) -------------------------------------------------- */
NSPA_HIDDEN const struct sync_kind *sync_kind_of(int type);
/* the table (handles.c): a directory of chunks, read without a lock */
#define H_CHUNK   4096u
#define H_DIR     1024u                  /* 4M handles per process */
struct hent {
    _Atomic(struct sobj *) obj;
    uint32_t flags;                      /* NSPA_HANDLE_* */
    union {
        uint32_t next_free;              /* free: the free list (index + 1) */
        uint32_t access;                 /* open: the NT access mask granted (h_lookup_need) */
    };
};
/* Access bits the core checks (NT's values; a handle made by the core has them all) */
#define H_ACCESS_ALL        0xFFFFFFFFu
#define H_NEED_SYNCHRONIZE  0x00100000u  /* SYNCHRONIZE: waits */
#define H_NEED_MODIFY       0x00000002u  /* EVENT_ / SEMAPHORE_MODIFY_STATE: set, reset,
                                          * pulse, release (TIMER_MODIFY_STATE too) */
extern struct hent *h_dir[H_DIR] NSPA_HIDDEN;
extern int nspa_fork_pending NSPA_HIDDEN;

static inline struct hent *hent_of(uint32_t i)
{
    struct hent *c = __atomic_load_n(&h_dir[i / H_CHUNK], __ATOMIC_ACQUIRE);
    return c ? &c[i % H_CHUNK] : NULL;
}

NSPA_HIDDEN struct sobj *h_lookup_remote(uint32_t i);
NSPA_HIDDEN struct sobj *h_lookup_locked(struct ns *ns, nspa_obj_t h);
/* Revocations: another process closed handles of ours (DUPLICATE_CLOSE_SOURCE, inherit.c)
 * and bumped this process's count in the region (@word; a zero of our own while not
 * attached); @seen is the count the table has caught up with. The lookup compares the
 * two: two loads of words nobody writes in the common case. */
struct h_revoke {
    const uint32_t *word;
    uint32_t seen;
};
extern struct h_revoke h_rv NSPA_HIDDEN;
NSPA_HIDDEN int h_revoked_slow(uint32_t i);
NSPA_HIDDEN void h_revoke_attach(struct ns *ns);

/* A forwarder: an unnamed object of the process arena grown into the region (inherit.c,
 * docs/process.md). Its word stays claimed (every fast path misses), its type is
 * OBJ_FORWARD and o->name holds the region object's index + 1. Whoever meets one follows
 * it. */
#define OBJ_FORWARD 15
static inline struct sobj *obj_forward_target(const struct sobj *o)
{
    return &nspa_ns->objs[__atomic_load_n(&o->name, __ATOMIC_ACQUIRE) - 1];
}
/* The object behind a handle, or NULL: two loads on the hot paths; *@acc (if not NULL)
 * gets the handle's access mask, a load from the same entry. */
static inline __attribute__((always_inline)) struct sobj *h_lookup_acc(nspa_obj_t h, uint32_t *acc)
{
    if (__builtin_expect((h & 3) || h == 0, 0)) return NULL;
    /* a fork child's first call: its copy of the table takes its references first */
    if (__builtin_expect(__atomic_load_n(&nspa_fork_pending, __ATOMIC_RELAXED), 0)) procs_fork_fixup();
    uint32_t i = (h >> 2) - 1;
    if (__builtin_expect(i >= H_DIR * H_CHUNK, 0)) return NULL;
    struct hent *e = hent_of(i);
    struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_acquire) : NULL;
    if (__builtin_expect(!o, 0)) {
        o = h_lookup_remote(i);
        e = hent_of(i);
        if (!o || !e) return NULL;
    }
    if (acc) *acc = __atomic_load_n(&e->access, __ATOMIC_RELAXED);
    uint8_t type = __atomic_load_n(&o->type, __ATOMIC_ACQUIRE);
    /* 0: freed; OBJ_FORWARD: an arena object grown into the region (inherit.c) */
    if (__builtin_expect((uint8_t)(type - 1) >= OBJ_FORWARD - 1, 0)) return type ? obj_forward_target(o) : NULL;
    /* a handle to a region object may have been closed by another process just now
     * (only those have ledger entries to revoke): the byte next to the type, then
     * two loads of words nobody writes while nothing is revoked */
    if (__builtin_expect(o->in_region, 0) &&
        __builtin_expect(__atomic_load_n(__atomic_load_n(&h_rv.word, __ATOMIC_RELAXED), __ATOMIC_ACQUIRE) != __atomic_load_n(&h_rv.seen, __ATOMIC_RELAXED), 0) &&
        h_revoked_slow(i))
        return NULL;
    return o;
}
static inline struct sobj *h_lookup(nspa_obj_t h) { return h_lookup_acc(h, NULL); }
/* h_lookup for an operation that needs access @need: NULL with *@denied set when the
 * handle was opened without it. The mask sits in the entry next to the object pointer:
 * one more load from the same line, one AND. */
static inline struct sobj *h_lookup_need(nspa_obj_t h, uint32_t need, int *denied)
{
    uint32_t acc = 0;
    struct sobj *o = h_lookup_acc(h, &acc);
    if (__builtin_expect(o && !(acc & need), 0)) {
        *denied = 1;
        return NULL;
    }
    return o;
}
NSPA_HIDDEN int h_alloc(struct sobj *o, nspa_obj_t *out); /* the caller took the ref */
NSPA_HIDDEN int h_flags(nspa_obj_t h, uint32_t mask, uint32_t set, uint32_t *old);
NSPA_HIDDEN void h_after_fork_child(void);
NSPA_HIDDEN uint32_t *ledger_slot_of(struct ns *ns, uint32_t slot, uint32_t i, int make);
/* The access mask of ledger entry @l (the parallel array of the region: only pages of
 * chunks in use are real). Written before the entry by whoever writes the entry (a
 * handle given to a process has the mask its giver granted; the process's own handles
 * keep theirs there too, for a DUPLICATE_SAME_ACCESS from another process); read when
 * the entry is installed in a table. A plain word: a store not journaled (a rolled-back
 * entry makes it meaningless). */
static inline uint32_t *ledger_access(struct ns *ns, const uint32_t *l) { return ns->access + (l - ns->chunks); }
static inline void ledger_set_access(struct ns *ns, const uint32_t *l, uint32_t access)
{
    __atomic_store_n(ledger_access(ns, l), access, __ATOMIC_RELAXED);
}
NSPA_HIDDEN void h_adopt_ledger(struct ns *ns);
NSPA_HIDDEN struct sobj *h_at(uint32_t i, uint32_t *flags);
NSPA_HIDDEN uint32_t h_high_water(void);
NSPA_HIDDEN uint32_t h_switch(struct sobj *from, struct sobj *to);
NSPA_HIDDEN int obj_promote(struct ns *ns, struct sobj *a, struct sobj **out);
NSPA_HIDDEN int h_fork_refs(void);
NSPA_HIDDEN void h_place_gift(struct ns *ns, nspa_obj_t tmp, uint32_t index);
/* descriptors given to other processes (gift.c) */
NSPA_HIDDEN void gift_open(struct ns *ns);
NSPA_HIDDEN void gift_close(void);
NSPA_HIDDEN void gift_after_fork_child(void);
NSPA_HIDDEN void gift_forget(struct ns *ns, const struct ns_proc *p);
NSPA_HIDDEN void gift_drain(struct ns *ns);
NSPA_HIDDEN int gift_adopt(int fd, const char *meta, nspa_obj_t *tmp);
NSPA_HIDDEN int sock_send_fd(int c, const void *msg, size_t len, int fd);
NSPA_HIDDEN ssize_t sock_recv_fd(int c, void *msg, size_t len, int *fd);
NSPA_HIDDEN int sock_peer_is(int c, uint32_t pid);
/* descriptors parked for children that have not attached yet (gift.c) */
NSPA_HIDDEN void gift_fetch_parked(struct ns *ns);
NSPA_HIDDEN int gift_unpark(uint32_t child, uint32_t index, int *fd, char *meta, size_t cap);
NSPA_HIDDEN void gift_unpark_all(uint32_t child);
NSPA_HIDDEN int ask_parked(int32_t parent, uint32_t index, nspa_obj_t *tmp);
struct sockaddr_un;
NSPA_HIDDEN int proc_sock_addr(const struct ns *ns, const char *what, uint32_t pid, uint64_t start,
                               struct sockaddr_un *a);
/* another process asks this one to grow an arena object it names (ask.c) */
extern int ask_wanted NSPA_HIDDEN;
NSPA_HIDDEN void ask_start(struct ns *ns);
NSPA_HIDDEN void ask_close(void);
NSPA_HIDDEN void ask_after_fork_child(void);
static inline void ask_want(void)
{
    /* the first arena object: an attached process starts its request service */
    if (__builtin_expect(!__atomic_load_n(&ask_wanted, __ATOMIC_RELAXED), 0)) {
        __atomic_store_n(&ask_wanted, 1, __ATOMIC_RELAXED);
        struct ns *ns = nspa_ns;
        if (ns && ns->proc != UINT32_MAX) ask_start(ns);
    }
}
NSPA_HIDDEN uint32_t *remote_free_index(struct ns *ns, uint32_t slot, uint32_t *index);
NSPA_HIDDEN void h_close_all(void);
/* the fd map: descriptors of this process's file handles, for other processes'
 * DuplicateHandle (fdmap.c) */
NSPA_HIDDEN void fdmap_put(uint32_t i, const struct sobj *o);
NSPA_HIDDEN void fdmap_fill(void);
NSPA_HIDDEN void fdmap_close(void);
NSPA_HIDDEN void fdmap_after_fork_child(void);
NSPA_HIDDEN void fdmap_forget(struct ns *ns, const struct ns_proc *p);
NSPA_HIDDEN void h_fdmap_refresh(uint32_t i);

/* ---- objects (objects.c, names.c) ---------------------------------------------------- */
NSPA_HIDDEN void obj_ref(struct sobj *o);
NSPA_HIDDEN int obj_unref(struct sobj *o);
NSPA_HIDDEN void obj_free_if_unused(struct sobj *o);    /* object lock held */
NSPA_HIDDEN void obj_reap_zombie(struct sobj *o, int reg_held);
/* @shared: an unnamed object made in the region (its handles may cross processes) */
NSPA_HIDDEN int obj_create(int type, uint64_t word, uint32_t max, uint32_t ext, const char *name, int shared,
                           nspa_obj_t *out);
NSPA_HIDDEN struct sobj *obj_region_new(struct ns *ns, int type, uint64_t word, uint32_t max, uint32_t ext);
NSPA_HIDDEN void obj_region_drop(struct sobj *o);
NSPA_HIDDEN uint32_t name_find(struct ns *ns, const char *name, size_t len, uint32_t hash);
NSPA_HIDDEN int name_insert(struct ns *ns, const char *name, size_t len, uint32_t hash, uint32_t obj,
                            uint32_t *slot);
NSPA_HIDDEN void name_remove(struct ns *ns, uint32_t slot);
NSPA_HIDDEN uint32_t name_hash(const char *s, size_t len);

/* ---- object locks, queues, recovery (queue.c) --------------------------------------- */
NSPA_HIDDEN void obj_lock(struct sobj *o);
NSPA_HIDDEN void obj_unlock(struct sobj *o);
NSPA_HIDDEN int obj_trylock(struct sobj *o);
NSPA_HIDDEN uint64_t obj_claim(struct sobj *o);
NSPA_HIDDEN void obj_unclaim_if_idle(struct sobj *o);
NSPA_HIDDEN void q_insert(struct sobj *o, struct went *e, uint32_t key);
NSPA_HIDDEN void q_remove(struct sobj *o, struct went *e);
extern NSPA_HIDDEN char nspa__queue_sync;   /* TSan: queue.c */
NSPA_HIDDEN void q_requeue(struct sobj *o, struct went *e, uint32_t key);
NSPA_HIDDEN uint32_t q_top_key(const struct sobj *o);

/* obj_lock, following forwarders: returns the live object, locked */
static inline struct sobj *obj_lock_live(struct sobj *o)
{
    obj_lock(o);
    while (__builtin_expect(__atomic_load_n(&o->type, __ATOMIC_ACQUIRE) == OBJ_FORWARD, 0)) {
        struct sobj *t = obj_forward_target(o);
        obj_unlock(o);
        o = t;
        obj_lock(o);
    }
    return o;
}

static inline struct went *E(uint64_t ref) { return (struct went *)R(ref); }

/* the thread record an entry belongs to (entries are the array thr.ent) */
static inline struct thr *went_thr(struct went *e)
{
    return (struct thr *)(void *)((char *)(e - e->idx) - offsetof(struct thr, ent));
}

/* ---- wakes and grants (wake.c) ---------------------------------------------------- */
NSPA_HIDDEN void sync_try_wake(struct sobj *o);
NSPA_HIDDEN void sync_serve(struct sobj *o);       /* sync_try_wake, then unclaim if idle */
/* @keep (or NULL): an object left claimed for the caller, who serves it on */
NSPA_HIDDEN int grant_all_locked(struct thr *t, struct sobj *const *objs, uint32_t n, int serve,
                                 const struct sobj *keep);
NSPA_HIDDEN void obj_recover(struct sobj *o);
NSPA_HIDDEN int obj_signaled_for(const struct sobj *o, uint64_t w, uint32_t owner);
NSPA_HIDDEN void waiter_poke(struct thr *t);
NSPA_HIDDEN void waiter_wake(struct thr *t);
NSPA_HIDDEN void wakes_flush(void);
NSPA_HIDDEN void mtx_abandon(struct sobj *o);
NSPA_HIDDEN void owned_add(struct thr *t, struct sobj *o);
NSPA_HIDDEN void owned_remove(struct thr *t, struct sobj *o);
NSPA_HIDDEN _Atomic uint64_t *owned_slot(struct thr *t, struct sobj *o);
NSPA_HIDDEN void thr_abandon_owned(struct thr *t, uint32_t tid);
NSPA_HIDDEN int thr_may_follow(const struct thr *t);
NSPA_HIDDEN uint64_t mtx_make_word(struct sobj *o, uint32_t owner, uint32_t count, int abandoned,
                                   uint32_t *ext);

static inline uint32_t mtx_owner(uint64_t w) { return (uint32_t)w; }
static inline uint32_t mtx_count(const struct sobj *o, uint64_t w)
{
    uint32_t c = (uint32_t)((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK);
    return c == MTX_CNT_BIG ? __atomic_load_n(&o->ext, __ATOMIC_RELAXED) : c;
}

/* ---- waits (wait.c) ----------------------------------------------------------------- */
NSPA_HIDDEN void wait_unqueue(struct thr *t, int reg_held);
NSPA_HIDDEN void sleep_hooks_thread_end(void);   /* sleep.c: the I/O module's thread_end */
extern const struct nspa__sleep_hooks *nspa__sleep_hooks_cur NSPA_HIDDEN;   /* sleep.c */
/* sleep.c: the liveness words of the wait's mutex owners in other processes, into @wv */
NSPA_HIDDEN uint32_t watch_owners(struct sobj *const *objs, uint32_t n, struct nspa_futex_waitv *wv);
/* sleep.c: sleep until @t's word changes from @v, a watched owner dies, or @deadline */
NSPA_HIDDEN void sleep_marked(struct thr *t, uint32_t v, struct nspa_futex_waitv *wv, uint32_t nwatch,
                              uint64_t deadline, clockid_t clk);
/* An object's type, read atomically: a granted wait no longer holds its objects, and
 * one may be freed meanwhile by a CloseHandle on another thread (the record stays,
 * with type 0: type-stable memory). */
static inline int obj_type_now(const struct sobj *o) { return __atomic_load_n(&o->type, __ATOMIC_RELAXED); }
NSPA_HIDDEN uint32_t current_key(void);

/* ---- priority inheritance (pi.c) ----------------------------------------------------- */
NSPA_HIDDEN int pi_enabled(void);
NSPA_HIDDEN void pi_update_thread(struct thr *t, int depth);
NSPA_HIDDEN void pi_update_owner_of(struct sobj *o, int depth);
NSPA_HIDDEN uint32_t pi_eff_key(const struct thr *t);
NSPA_HIDDEN uint32_t pi_own_key(struct thr *t, uint32_t current_key);
NSPA_HIDDEN void pi_forget(struct thr *t);

/* ---- the reaper (reaper.c) ---------------------------------------------------------- */
NSPA_HIDDEN void reaper_ensure(void);
NSPA_HIDDEN void reaper_poke_owner(struct thr *owner);
NSPA_HIDDEN void reaper_after_fork(void);

#endif
