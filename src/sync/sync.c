/*
 * NT synchronization objects: creation, handles, operations and waits.
 *
 * Every operation first tries the fast path: one compare-and-swap on the object's
 * state word while it is unclaimed (no waiters, nobody inside the lock working on
 * it). Anything else takes the namespace lock (internal.h, rules 1-5).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include "sync/internal.h"
#include "rt/rt_internal.h"

#define HFREE 0x80000000u        /* handle table: free-list link marker */

/* ---- state word helpers ---------------------------------------------------------- */

static inline uint32_t mtx_owner(uint64_t w) { return (uint32_t)w; }

static inline uint32_t mtx_count(const struct ns_obj *o, uint64_t w)
{
    uint32_t c = (uint32_t)((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK);
    return c == MTX_CNT_BIG ? o->ext : c;
}

/* New mutex word for (owner, count, abandoned); a count that does not fit the word is
 * kept in o->ext (journaled) and the word says BIG. Lock held. */
static uint64_t mtx_word(struct ns *ns, struct ns_obj *o, uint32_t owner, uint32_t count, int abandoned)
{
    uint64_t c = count;
    if (count >= MTX_CNT_BIG) {
        jset32(ns, &o->ext, count);
        c = MTX_CNT_BIG;
    }
    return (c << MTX_CNT_SHIFT) | owner | (abandoned ? MTX_ABANDONED : 0);
}

/* Is @o signaled for a waiter with owner id @owner? (@w is its word) */
static inline int signaled_for(const struct ns_obj *o, uint64_t w, uint32_t owner)
{
    switch (o->type) {
    case NSPA_TYPE_SEM:
        return (uint32_t)w != 0;
    case NSPA_TYPE_EVENT:
    case NSPA_TYPE_THREAD:
        return (w & EVT_SIGNALED) != 0;
    case NSPA_TYPE_MUTEX: {
        uint32_t ow = mtx_owner(w);
        return !ow || (ow == owner && mtx_count(o, w) < UINT32_MAX);
    }
    }
    return 0;
}

/* ---- owned-mutex tracking (for abandonment when a thread dies) -------------------- */

/* Record that thread @t acquired mutex @idx. Written by the thread itself, or by a
 * lock holder while the thread is blocked in a wait. Duplicates are avoided; entries
 * may go stale (they are verified against the owner at cleanup). */
static void owned_add(struct ns_thread *t, uint32_t idx)
{
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_relaxed);
    uint32_t free_i = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = atomic_load_explicit(&t->owned[i], memory_order_relaxed);
        if (v == idx + 1) return;
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
    atomic_store_explicit(&t->owned[free_i], idx + 1, memory_order_release);
}

static void owned_remove(struct ns_thread *t, uint32_t idx)
{
    uint32_t n = atomic_load_explicit(&t->nowned, memory_order_relaxed);
    for (uint32_t i = n; i-- > 0;) {
        if (atomic_load_explicit(&t->owned[i], memory_order_relaxed) == idx + 1) {
            atomic_store_explicit(&t->owned[i], 0, memory_order_release);
            if (i + 1 == n) {
                while (i > 0 && !atomic_load_explicit(&t->owned[i - 1], memory_order_relaxed))
                    i--;
                atomic_store_explicit(&t->nowned, i, memory_order_release);
            }
            return;
        }
    }
}

/* ---- handles ------------------------------------------------------------------- */

static inline struct ns *ns_get(void)
{
    struct ns *ns = __atomic_load_n(&nspa_ns, __ATOMIC_ACQUIRE);
    return __builtin_expect(ns != NULL, 1) ? ns : ns_attach();
}

/* handle value = (table index + 1) * 4 */
NSPA_HIDDEN int ns_handle_lookup(struct ns *ns, nspa_obj_t h, uint32_t *idx)
{
    if (__builtin_expect((h & 3) || h == 0, 0)) return -EBADF;
    uint32_t i = (h >> 2) - 1;
    if (__builtin_expect(i >= MAX_HANDLES, 0)) return -EBADF;
    uint32_t v = __atomic_load_n(&ns->handles[i], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!v || (v & HFREE), 0)) return -EBADF;
    *idx = v - 1;
    return 0;
}

static inline int lookup_typed(struct ns *ns, nspa_obj_t h, int type, uint32_t *idx)
{
    int r = ns_handle_lookup(ns, h, idx);
    if (r) return r;
    if (__builtin_expect(ns->objs[*idx].type != type, 0)) return -EINVAL;
    return 0;
}

/* Allocate a handle for object @idx (which gains a reference). Lock held. */
static int handle_alloc(struct ns *ns, uint32_t idx, nspa_obj_t *out)
{
    struct ns_proc *p = &ns->procs[ns->proc];
    uint32_t i;
    if (p->free_handle) {
        i = p->free_handle - 1;
        jset32(ns, &p->free_handle, ns->handles[i] & ~HFREE);
    } else {
        if (p->handles_hwm >= MAX_HANDLES) return -ENOMEM;
        i = p->handles_hwm;
        jset32(ns, &p->handles_hwm, i + 1);
    }
    jset32(ns, &ns->handles[i], idx + 1);
    jset32(ns, &p->nhandles, p->nhandles + 1);
    jset32(ns, &ns->objs[idx].refs, ns->objs[idx].refs + 1);
    *out = (i + 1) << 2;
    return 0;
}

/* ---- objects and names ------------------------------------------------------------ */

static uint32_t name_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static int valid_obj_name(const char *name, size_t *len)
{
    size_t n = strnlen(name, NSPA_MAX_NAME + 1);
    if (n == 0 || n > NSPA_MAX_NAME) return 0;
    *len = n;
    return 1;
}

static uint32_t name_find(struct ns *ns, const char *name, size_t len, uint32_t hash)
{
    uint32_t s = ns->hdr->name_buckets[hash % NAME_BUCKETS];
    while (s) {
        struct ns_name *n = &ns->names[s - 1];
        if (n->hash == hash && n->len == len && !memcmp(n->str, name, len)) return s - 1;
        s = n->next;
    }
    return UINT32_MAX;
}

static void name_remove(struct ns *ns, uint32_t nslot)
{
    struct ns_name *n = &ns->names[nslot];
    uint32_t *pp = &ns->hdr->name_buckets[n->hash % NAME_BUCKETS];
    while (*pp) {
        if (*pp == nslot + 1) {
            jset32(ns, pp, n->next);
            break;
        }
        pp = &ns->names[*pp - 1].next;
    }
    jset32(ns, &n->len, 0);
    jset32(ns, &n->next, ns->hdr->name_free);
    jset32(ns, &ns->hdr->name_free, nslot + 1);
}

static int obj_alloc(struct ns *ns, uint32_t *out)
{
    struct ns_header *h = ns->hdr;
    uint32_t idx;
    if (h->obj_free) {
        idx = h->obj_free - 1;
        jset32(ns, &h->obj_free, ns->objs[idx].next_free);
    } else {
        if (h->obj_hwm >= MAX_OBJECTS) return -ENOMEM;
        idx = h->obj_hwm;
        jset32(ns, &h->obj_hwm, idx + 1);
    }
    jset32(ns, &h->nobjs, h->nobjs + 1);
    *out = idx;
    return 0;
}

/* Drop one reference; free the object (and its name) at zero. Lock held. */
NSPA_HIDDEN void ns_obj_unref(struct ns *ns, uint32_t idx)
{
    struct ns_obj *o = &ns->objs[idx];
    if (!o->refs) return;
    jset32(ns, &o->refs, o->refs - 1);
    if (o->refs) return;
    if (o->name) {
        name_remove(ns, o->name - 1);
        jset32(ns, &o->name, 0);
    }
    obj_claim(ns, idx);
    uint8_t *typ = &o->type;
    /* type is a byte; journal the 32-bit word containing it */
    uint32_t *tw = (uint32_t *)(void *)typ;
    jset32(ns, tw, 0);
    jset64(ns, (uint64_t *)&o->word, 0);
    jset32(ns, &o->next_free, ns->hdr->obj_free);
    jset32(ns, &ns->hdr->obj_free, idx + 1);
    jset32(ns, &ns->hdr->nobjs, ns->hdr->nobjs - 1);
}

static int create_obj(int type, uint64_t word, uint32_t max, uint32_t ext, const char *name,
                      nspa_obj_t *out)
{
    struct nspa_tls *me = self();      /* registers the thread: before the lock */
    struct ns *ns = nspa_ns;
    size_t len = 0;
    if (name && !valid_obj_name(name, &len)) return -EINVAL;
    ns_lock(ns);
    int ret = 0;
    uint32_t nslot = UINT32_MAX, hash = 0;
    if (name) {
        hash = name_hash(name, len);
        nslot = name_find(ns, name, len, hash);
        if (nslot != UINT32_MAX && ns->objs[ns->names[nslot].obj].refs == 0)
            nslot = UINT32_MAX;
        if (nslot == UINT32_MAX) {
            /* a dead process may still hold the name: reclaim, then look again */
            ns_sweep_dead(ns);
            nslot = name_find(ns, name, len, hash);
        }
        if (nslot != UINT32_MAX) {
            uint32_t idx = ns->names[nslot].obj;
            if (ns->objs[idx].type != type) ret = -EEXIST;
            else if ((ret = handle_alloc(ns, idx, out)) == 0) ret = NSPA_EXISTED;
            ns_unlock(ns);
            return ret;
        }
    }
    uint32_t idx;
    if ((ret = obj_alloc(ns, &idx)) < 0) goto out;
    struct ns_obj *o = &ns->objs[idx];
    /* a fresh object: nobody else can see it until its handle or name exists */
    jset32(ns, (uint32_t *)(void *)&o->type, (uint32_t)type);
    jset32(ns, &o->refs, 0);
    jset32(ns, &o->max, max);
    jset32(ns, &o->ext, ext);
    jset32(ns, &o->q_head, 0);
    jset32(ns, &o->q_tail, 0);
    jset32(ns, &o->name, 0);
    jset32(ns, &o->owner_hint, 0);
    jset64(ns, (uint64_t *)&o->word, word);
    if (name) {
        struct ns_header *h = ns->hdr;
        if (h->name_free) {
            nslot = h->name_free - 1;
            jset32(ns, &h->name_free, ns->names[nslot].next);
        } else if (h->name_hwm < MAX_NAMES) {
            nslot = h->name_hwm;
            jset32(ns, &h->name_hwm, nslot + 1);
        } else {
            ret = -ENOMEM;
        }
        if (ret == 0) {
            struct ns_name *n = &ns->names[nslot];
            /* the string is written before it is reachable; rollback unhooks it */
            memcpy(n->str, name, len);
            jset32(ns, &n->obj, idx);
            jset32(ns, &n->hash, hash);
            jset32(ns, &n->len, (uint32_t)len);
            jset32(ns, &n->next, h->name_buckets[hash % NAME_BUCKETS]);
            jset32(ns, &h->name_buckets[hash % NAME_BUCKETS], nslot + 1);
            jset32(ns, &o->name, nslot + 1);
        }
    }
    if (ret == 0) ret = handle_alloc(ns, idx, out);
    if (ret == 0 && type == NSPA_TYPE_MUTEX && (uint32_t)word && (uint32_t)word == me->tid)
        owned_add(me->t, idx);   /* created owned by the caller: abandon at its exit */
    if (ret < 0) {
        /* undo: the object was never visible */
        jset32(ns, &o->refs, 1);
        ns_obj_unref(ns, idx);
    }
out:
    ns_unlock(ns);
    return ret;
}

NSPA_EXPORT int nspa_create_sem(const struct nspa_sem_args *args, const char *name, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    if (args->count > args->max) return -EINVAL;
    return create_obj(NSPA_TYPE_SEM, args->count, args->max, 0, name, out);
}

NSPA_EXPORT int nspa_create_mutex(const struct nspa_mutex_args *args, const char *name, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    if (name) reaper_ensure(ns_get());   /* waiters may come from other processes */
    if (!args->owner != !args->count) return -EINVAL;
    uint64_t c = args->count;
    uint32_t ext = 0;
    if (args->count >= MTX_CNT_BIG) { ext = args->count; c = MTX_CNT_BIG; }
    uint64_t w = (c << MTX_CNT_SHIFT) | args->owner;
    if (c == MTX_CNT_BIG) w |= OBJ_CLAIMED;     /* BIG counts live under the lock */
    return create_obj(NSPA_TYPE_MUTEX, w, 0, ext, name, out);
}

NSPA_EXPORT int nspa_create_event(const struct nspa_event_args *args, const char *name, nspa_obj_t *out)
{
    if (!args || !out) return -EFAULT;
    if (args->manual > 1 || args->signaled > 1) return -EINVAL;
    return create_obj(NSPA_TYPE_EVENT, (args->manual ? EVT_MANUAL : 0) | (args->signaled ? EVT_SIGNALED : 0),
                      0, 0, name, out);
}

/* internal: a Win32 thread object (manual event, unsignaled) */
NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out);
NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out)
{
    return create_obj(NSPA_TYPE_THREAD, EVT_MANUAL, 0, 0, NULL, out);
}

NSPA_EXPORT int nspa_open(int type, const char *name, nspa_obj_t *out)
{
    if (!name || !out) return -EFAULT;
    size_t len;
    if (!valid_obj_name(name, &len)) return -EINVAL;
    struct ns *ns = ns_get();
    if (type == NSPA_TYPE_MUTEX || type == NSPA_TYPE_NONE) reaper_ensure(ns);
    uint32_t hash = name_hash(name, len);
    ns_lock(ns);
    ns_sweep_dead(ns);
    int ret;
    uint32_t nslot = name_find(ns, name, len, hash);
    if (nslot == UINT32_MAX || !ns->objs[ns->names[nslot].obj].refs) ret = -ENOENT;
    else {
        uint32_t idx = ns->names[nslot].obj;
        if (type != NSPA_TYPE_NONE && ns->objs[idx].type != type) ret = -EEXIST;
        else ret = handle_alloc(ns, idx, out);
    }
    ns_unlock(ns);
    return ret;
}

NSPA_EXPORT int nspa_close(nspa_obj_t h)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    if (ns_handle_lookup(ns, h, &idx)) return -EBADF;
    ns_lock(ns);
    int ret = -EBADF;
    uint32_t i = (h >> 2) - 1;
    uint32_t v = ns->handles[i];
    if (v && !(v & HFREE)) {           /* re-check under the lock (racing closes) */
        struct ns_proc *p = &ns->procs[ns->proc];
        jset32(ns, &ns->handles[i], HFREE | p->free_handle);
        jset32(ns, &p->free_handle, i + 1);
        jset32(ns, &p->nhandles, p->nhandles - 1);
        ns_obj_unref(ns, v - 1);
        ret = 0;
    }
    ns_unlock(ns);
    return ret;
}

NSPA_EXPORT int nspa_dup(nspa_obj_t h, nspa_obj_t *out)
{
    if (!out) return -EFAULT;
    struct ns *ns = ns_get();
    uint32_t idx;
    if (ns_handle_lookup(ns, h, &idx)) return -EBADF;
    ns_lock(ns);
    int ret = ns_handle_lookup(ns, h, &idx);
    if (!ret) ret = handle_alloc(ns, idx, out);
    ns_unlock(ns);
    return ret;
}

NSPA_EXPORT int nspa_obj_type(nspa_obj_t h)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = ns_handle_lookup(ns, h, &idx);
    return r ? r : ns->objs[idx].type;
}

NSPA_EXPORT int nspa_obj_waiters(nspa_obj_t h)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = ns_handle_lookup(ns, h, &idx);
    if (r) return r;
    ns_lock(ns);
    int n = 0;
    for (uint32_t e = ns->objs[idx].q_head; e; e = ns->threads[(e - 1) / WAIT_SLOTS].entries[(e - 1) % WAIT_SLOTS].next)
        n++;
    ns_unlock(ns);
    return n;
}

/* ---- waking ------------------------------------------------------------------- */

static inline struct ns_thread *entry_thread(struct ns *ns, uint32_t e, uint32_t *slot, uint32_t *i)
{
    *slot = (e - 1) / WAIT_SLOTS;
    *i = (e - 1) % WAIT_SLOTS;
    return &ns->threads[*slot];
}

static inline struct ns_wait_entry *entry_ptr(struct ns *ns, uint32_t e)
{
    return &ns->threads[(e - 1) / WAIT_SLOTS].entries[(e - 1) % WAIT_SLOTS];
}

/* Insert entry @e of a waiter with priority @prio into @o's queue: after every entry
 * of priority >= prio (FIFO among equals). Lock held. */
static void queue_insert(struct ns *ns, struct ns_obj *o, uint32_t e, uint32_t prio)
{
    struct ns_wait_entry *ent = entry_ptr(ns, e);
    uint32_t after = o->q_tail;
    while (after && pi_eff_key(&ns->threads[(after - 1) / WAIT_SLOTS]) < prio)
        after = entry_ptr(ns, after)->prev;
    uint32_t before = after ? entry_ptr(ns, after)->next : o->q_head;
    jset32(ns, &ent->prev, after);
    jset32(ns, &ent->next, before);
    if (after) jset32(ns, &entry_ptr(ns, after)->next, e);
    else jset32(ns, &o->q_head, e);
    if (before) jset32(ns, &entry_ptr(ns, before)->prev, e);
    else jset32(ns, &o->q_tail, e);
}

static void queue_remove(struct ns *ns, struct ns_obj *o, uint32_t e)
{
    struct ns_wait_entry *ent = entry_ptr(ns, e);
    if (ent->prev) jset32(ns, &entry_ptr(ns, ent->prev)->next, ent->next);
    else jset32(ns, &o->q_head, ent->next);
    if (ent->next) jset32(ns, &entry_ptr(ns, ent->next)->prev, ent->prev);
    else jset32(ns, &o->q_tail, ent->prev);
    jset32(ns, &ent->next, 0);
    jset32(ns, &ent->prev, 0);
}

/* Withdraw thread @slot's registered wait (entries and references). Lock held. */
static void unregister_wait(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    uint32_t n = t->count + (t->has_alert ? 1 : 0);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = t->objs[i];
        queue_remove(ns, &ns->objs[idx], entry_id(slot, i));
    }
    jset32(ns, &t->kind, WAIT_NONE);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = t->objs[i];
        pi_update_owner_of(ns, idx);     /* its owner may have lost a boosting waiter */
        obj_unclaim_if_idle(ns, idx);
        ns_obj_unref(ns, idx);
    }
}

NSPA_HIDDEN void sync_cancel_wait(struct ns *ns, uint32_t slot)
{
    if (ns->threads[slot].kind != WAIT_NONE) unregister_wait(ns, slot);
}

/* Consume @o for a waiter with @owner acquired by thread @t (@t may be NULL). Returns
 * 1 if it was an abandoned mutex. Lock held, object claimed. */
static int acquire(struct ns *ns, uint32_t idx, uint32_t owner, struct ns_thread *t)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
    switch (o->type) {
    case NSPA_TYPE_SEM:
        obj_store(ns, idx, w - 1);
        return 0;
    case NSPA_TYPE_EVENT:
        if (!(w & EVT_MANUAL)) obj_store(ns, idx, w & ~EVT_SIGNALED);
        return 0;
    case NSPA_TYPE_MUTEX: {
        int ab = (w & MTX_ABANDONED) != 0;
        uint32_t c = mtx_owner(w) ? mtx_count(o, w) : 0;
        obj_store(ns, idx, mtx_word(ns, o, owner, c + 1, 0));
        if (t) owned_add(t, idx);
        return ab;
    }
    }
    return 0;
}

/* Can waiter @t (kind ALL) have all its objects now? Lock held. */
static int all_ready(struct ns *ns, struct ns_thread *t)
{
    for (uint32_t i = 0; i < t->count; i++) {
        struct ns_obj *o = &ns->objs[t->objs[i]];
        if (!signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), t->owner)) return 0;
    }
    return 1;
}

static void poke_mutex_waiters(struct ns *ns, struct ns_obj *o, uint32_t except_slot);

/* Grant waiter @slot: take its objects, record the result, withdraw its wait and
 * queue its wake (done after the commit). Lock held. */
static void grant(struct ns *ns, uint32_t slot, uint32_t index, int all)
{
    struct ns_thread *t = &ns->threads[slot];
    uint32_t res = RES_DONE | index;
    if (all) {
        uint32_t ab_index = UINT32_MAX;
        for (uint32_t i = 0; i < t->count; i++) {
            if (acquire(ns, t->objs[i], t->owner, t) && ab_index == UINT32_MAX) ab_index = i;
            if (ns->objs[t->objs[i]].type == NSPA_TYPE_MUTEX)
                poke_mutex_waiters(ns, &ns->objs[t->objs[i]], slot);
        }
        if (ab_index != UINT32_MAX) res = RES_DONE | RES_ABANDONED | ab_index;
    } else {
        uint32_t idx = t->objs[index];
        if (acquire(ns, idx, t->owner, t)) res |= RES_ABANDONED;
        if (ns->objs[idx].type == NSPA_TYPE_MUTEX)
            poke_mutex_waiters(ns, &ns->objs[idx], slot);
    }
    jset32(ns, &t->result, res);
    unregister_wait(ns, slot);
    ns_queue_wake(ns, slot);
}

NSPA_HIDDEN void ns_queue_poke(struct ns *ns, uint32_t slot);

/* A mutex changed owner while others wait on it: they watch the old owner's death,
 * so wake them to re-arm their watch on the new owner. */
static void poke_mutex_waiters(struct ns *ns, struct ns_obj *o, uint32_t except_slot)
{
    for (uint32_t e = o->q_head; e; e = entry_ptr(ns, e)->next) {
        uint32_t s = (e - 1) / WAIT_SLOTS;
        if (s != except_slot) ns_queue_poke(ns, s);
    }
}

/* Serve the waiters of object @idx in queue order (priority, then FIFO) while it can
 * satisfy them. Lock held, object claimed. */
NSPA_HIDDEN void sync_try_wake(struct ns *ns, uint32_t idx)
{
    struct ns_obj *o = &ns->objs[idx];
restart:
    for (uint32_t e = o->q_head; e;) {
        uint32_t slot, i;
        struct ns_thread *t = entry_thread(ns, e, &slot, &i);
        uint32_t next = entry_ptr(ns, e)->next;
        uint64_t w = atomic_load_explicit(&o->word, memory_order_relaxed);
        if (t->kind == WAIT_ALL && i < t->count) {
            if (all_ready(ns, t)) {
                grant(ns, slot, 0, 1);
                goto restart;
            }
        } else if (t->kind == WAIT_ALL) {
            /* the alert of a wait-all: objects win if they are all ready */
            if (all_ready(ns, t)) { grant(ns, slot, 0, 1); goto restart; }
            if (signaled_for(o, w, t->owner)) { grant(ns, slot, i, 0); goto restart; }
        } else if (signaled_for(o, w, t->owner)) {
            grant(ns, slot, i, 0);
            goto restart;
        }
        if (o->type != NSPA_TYPE_MUTEX && !signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), 0))
            break;
        e = next;
    }
}

/* ---- abandonment -------------------------------------------------------------- */

static void abandon(struct ns *ns, uint32_t idx)
{
    struct ns_obj *o = &ns->objs[idx];
    obj_claim(ns, idx);
    obj_store(ns, idx, mtx_word(ns, o, 0, 0, 1));
    sync_try_wake(ns, idx);
    obj_unclaim_if_idle(ns, idx);
}

/* Thread @slot is gone: abandon every mutex whose owner is its id. Lock held. */
NSPA_HIDDEN void sync_abandon_thread(struct ns *ns, uint32_t slot)
{
    struct ns_thread *t = &ns->threads[slot];
    uint32_t tid = t->tid;
    uint32_t n = atomic_load(&t->nowned);
    if (n > OWNED_MAX) n = OWNED_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = atomic_load(&t->owned[i]);
        if (!v || v - 1 >= ns->hdr->obj_hwm) continue;
        struct ns_obj *o = &ns->objs[v - 1];
        if (o->type == NSPA_TYPE_MUTEX && mtx_owner(atomic_load(&o->word)) == tid)
            abandon(ns, v - 1);
    }
    if (atomic_load(&t->owned_overflow)) {
        for (uint32_t i = 0; i < ns->hdr->obj_hwm; i++) {
            struct ns_obj *o = &ns->objs[i];
            if (o->type == NSPA_TYPE_MUTEX && mtx_owner(atomic_load(&o->word)) == tid)
                abandon(ns, i);
        }
    }
    /* owned[] is left as it is: this section may still be rolled back (if we die
     * before the commit), and then the next cleaner needs it. The slot's next user
     * resets it. */
}

/* ---- operations ---------------------------------------------------------------- */

NSPA_EXPORT int nspa_sem_release(nspa_obj_t h, uint32_t *count)
{
    if (!count) return -EFAULT;
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_SEM, &idx);
    if (r) return r;
    struct ns_obj *o = &ns->objs[idx];
    uint32_t n = *count;
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        uint32_t c = (uint32_t)w;
        if ((uint64_t)c + n > o->max) return -EOVERFLOW;
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, w + n, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *count = c;
            return 0;
        }
    }
    ns_lock(ns);
    w = obj_claim(ns, idx);
    uint32_t c = (uint32_t)w;
    if ((uint64_t)c + n > o->max) r = -EOVERFLOW;
    else {
        obj_store(ns, idx, w + n);
        *count = c;
        if (n) sync_try_wake(ns, idx);
    }
    obj_unclaim_if_idle(ns, idx);
    ns_unlock(ns);
    return r;
}

NSPA_EXPORT int nspa_mutex_unlock(nspa_obj_t h, struct nspa_mutex_args *args)
{
    if (!args) return -EFAULT;
    if (!args->owner) return -EINVAL;
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_MUTEX, &idx);
    if (r) return r;
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        if (mtx_owner(w) != args->owner) return -EPERM;
        uint32_t c = (uint32_t)(w >> MTX_CNT_SHIFT) & MTX_CNT_MASK;
        uint64_t nw = c > 1 ? w - (1ull << MTX_CNT_SHIFT) : 0;
        if (atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            if (c == 1 && nspa_self) owned_remove(nspa_self->t, idx);
            args->count = c;
            return 0;
        }
    }
    int released = 0;
    ns_lock(ns);
    w = obj_claim(ns, idx);
    if (mtx_owner(w) != args->owner) r = -EPERM;
    else {
        uint32_t c = mtx_count(o, w);
        args->count = c;
        if (c > 1) obj_store(ns, idx, mtx_word(ns, o, args->owner, c - 1, 0));
        else {
            obj_store(ns, idx, 0);
            released = 1;
            sync_try_wake(ns, idx);
            /* we may have been boosted by this mutex's waiters */
            if (pi_enabled() && nspa_self) pi_update_thread(ns, nspa_self->slot, 0);
        }
    }
    obj_unclaim_if_idle(ns, idx);
    ns_unlock(ns);
    /* only after the commit: if we died before it, the rollback gives the mutex back
     * to us, and our owned[] entry must still be there for its abandonment */
    if (released && nspa_self) owned_remove(nspa_self->t, idx);
    return r;
}

NSPA_EXPORT int nspa_mutex_kill(nspa_obj_t h, uint32_t owner)
{
    if (!owner) return -EINVAL;
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_MUTEX, &idx);
    if (r) return r;
    ns_lock(ns);
    uint64_t w = obj_claim(ns, idx);
    if (mtx_owner(w) != owner) r = -EPERM;
    else {
        abandon(ns, idx);
        if (pi_enabled()) pi_update_thread(ns, ns_tid_slot(ns, owner), 0);
    }
    obj_unclaim_if_idle(ns, idx);
    ns_unlock(ns);
    return r;
}

enum { EV_SET, EV_RESET, EV_PULSE };

static __attribute__((noinline)) int event_op_slow(struct ns *ns, uint32_t idx, uint32_t *prev, int op);

/* The fast path is kept small (the slow path, with its locals, is out of line). */
static inline int event_op(nspa_obj_t h, uint32_t *prev, int op)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_EVENT, &idx);
    if (__builtin_expect(r != 0, 0)) return r;
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    while (!(w & OBJ_CLAIMED)) {
        /* no waiters: set and reset are plain stores of the bit; pulse is a reset */
        uint64_t nw = op == EV_SET ? (w | EVT_SIGNALED) : (w & ~EVT_SIGNALED);
        if (nw == w || atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel,
                                                             memory_order_acquire)) {
            if (prev) *prev = (uint32_t)(w & EVT_SIGNALED);
            return 0;
        }
    }
    return event_op_slow(ns, idx, prev, op);
}

static __attribute__((noinline)) int event_op_slow(struct ns *ns, uint32_t idx, uint32_t *prev, int op)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w;
    ns_lock(ns);
    w = obj_claim(ns, idx);
    if (prev) *prev = (uint32_t)(w & EVT_SIGNALED);
    if (op == EV_RESET) {
        obj_store(ns, idx, w & ~EVT_SIGNALED);
    } else {
        obj_store(ns, idx, w | EVT_SIGNALED);
        sync_try_wake(ns, idx);
        if (op == EV_PULSE)
            obj_store(ns, idx, atomic_load_explicit(&o->word, memory_order_relaxed) & ~EVT_SIGNALED);
    }
    obj_unclaim_if_idle(ns, idx);
    ns_unlock(ns);
    return 0;
}

NSPA_EXPORT int nspa_event_set(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_SET); }
NSPA_EXPORT int nspa_event_reset(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_RESET); }
NSPA_EXPORT int nspa_event_pulse(nspa_obj_t h, uint32_t *prev) { return event_op(h, prev, EV_PULSE); }

/* internal: Win32 thread objects keep the thread id in max and the exit code in ext */
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code);
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_THREAD, &idx);
    if (r) return r;
    ns_lock(ns);
    uint64_t w = obj_claim(ns, idx);
    jset32(ns, &ns->objs[idx].ext, exit_code);
    obj_store(ns, idx, w | EVT_SIGNALED);
    sync_try_wake(ns, idx);
    obj_unclaim_if_idle(ns, idx);
    ns_unlock(ns);
    return 0;
}

NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid);
NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_THREAD, &idx);
    if (r) return r;
    ns_lock(ns);
    jset32(ns, &ns->objs[idx].max, tid);
    ns_unlock(ns);
    return 0;
}

NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled);
NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled)
{
    struct ns *ns = ns_get();
    uint32_t idx;
    int r = lookup_typed(ns, h, NSPA_TYPE_THREAD, &idx);
    if (r) return r;
    ns_lock(ns);
    struct ns_obj *o = &ns->objs[idx];
    *tid = o->max;
    *exit_code = o->ext;
    *signaled = (atomic_load(&o->word) & EVT_SIGNALED) != 0;
    ns_unlock(ns);
    return 0;
}

/* Read a word consistently: unclaimed words are stable snapshots; a claimed one is
 * read under the lock. */
static uint64_t read_word(struct ns *ns, uint32_t idx, uint32_t *ext)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    if (!(w & OBJ_CLAIMED)) { *ext = 0; return w; }
    ns_lock(ns);
    w = atomic_load_explicit(&o->word, memory_order_acquire);
    *ext = o->ext;
    ns_unlock(ns);
    return w;
}

NSPA_EXPORT int nspa_sem_read(nspa_obj_t h, struct nspa_sem_args *args)
{
    if (!args) return -EFAULT;
    struct ns *ns = ns_get();
    uint32_t idx, ext;
    int r = lookup_typed(ns, h, NSPA_TYPE_SEM, &idx);
    if (r) return r;
    uint64_t w = read_word(ns, idx, &ext);
    args->count = (uint32_t)w;
    args->max = ns->objs[idx].max;
    return 0;
}

NSPA_EXPORT int nspa_mutex_read(nspa_obj_t h, struct nspa_mutex_args *args)
{
    if (!args) return -EFAULT;
    struct ns *ns = ns_get();
    uint32_t idx, ext;
    int r = lookup_typed(ns, h, NSPA_TYPE_MUTEX, &idx);
    if (r) return r;
    uint64_t w = read_word(ns, idx, &ext);
    uint32_t c = (uint32_t)(w >> MTX_CNT_SHIFT) & MTX_CNT_MASK;
    args->owner = mtx_owner(w);
    args->count = c == MTX_CNT_BIG ? ext : c;
    return (w & MTX_ABANDONED) ? -EOWNERDEAD : 0;
}

NSPA_EXPORT int nspa_event_read(nspa_obj_t h, struct nspa_event_args *args)
{
    if (!args) return -EFAULT;
    struct ns *ns = ns_get();
    uint32_t idx, ext;
    int r = lookup_typed(ns, h, NSPA_TYPE_EVENT, &idx);
    if (r) return r;
    uint64_t w = read_word(ns, idx, &ext);
    args->manual = (w & EVT_MANUAL) ? 1 : 0;
    args->signaled = (w & EVT_SIGNALED) ? 1 : 0;
    return 0;
}

/* ---- waits ------------------------------------------------------------------- */

struct futex_waitv_ {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};
#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define FUTEX2_SIZE_U32_ 0x02
#define FUTEX2_PRIVATE_ 128

/* The calling thread's key: 100 + its real-time priority, or 0. It is read from the
 * kernel at most every 50 ms (one thread-local cache shared with the locks, nspa/rt.h);
 * NSPA's own priority calls and nspa_thread_rt_refresh() update it at once, a change
 * made behind NSPA's back (pthread_setschedparam) is seen within 50 ms. */
static __thread uint64_t prio_checked;

static uint32_t current_prio(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if (nspa_rt_thread_state < 0 || now - prio_checked > 50) {
        nspa_rt_thread_load();
        prio_checked = now;
    }
    int st = nspa_rt_thread_state;
    return st > 0 ? 100 + (uint32_t)st : 0;
}

static int wait_result(struct nspa_wait_args *args, uint32_t res)
{
    args->index = res & RES_INDEX_MASK;
    return (res & RES_ABANDONED) ? -EOWNERDEAD : 0;
}

/* Try to satisfy the wait now. Lock held, objects claimed. Returns 1 if done. */
static int try_now(struct ns *ns, struct ns_thread *t, const uint32_t *objs, uint32_t count,
                   int has_alert, int all, uint32_t owner, uint32_t *res)
{
    if (all) {
        int ok = 1;
        for (uint32_t i = 0; i < count && ok; i++) {
            struct ns_obj *o = &ns->objs[objs[i]];
            ok = signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), owner);
        }
        if (ok) {
            uint32_t ab = UINT32_MAX;
            for (uint32_t i = 0; i < count; i++)
                if (acquire(ns, objs[i], owner, t) && ab == UINT32_MAX) ab = i;
            *res = RES_DONE | (ab != UINT32_MAX ? RES_ABANDONED | ab : 0);
            return 1;
        }
    } else {
        for (uint32_t i = 0; i < count; i++) {
            struct ns_obj *o = &ns->objs[objs[i]];
            if (signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), owner)) {
                *res = RES_DONE | i | (acquire(ns, objs[i], owner, t) ? RES_ABANDONED : 0);
                return 1;
            }
        }
    }
    if (has_alert) {
        struct ns_obj *o = &ns->objs[objs[count]];
        if (signaled_for(o, atomic_load_explicit(&o->word, memory_order_relaxed), owner)) {
            acquire(ns, objs[count], owner, t);
            *res = RES_DONE | count;
            return 1;
        }
    }
    return 0;
}

/* Check the owners of the mutexes in the wait for death (abandoning theirs), and
 * collect the futex words that announce their deaths. Lock held. */
static uint32_t check_owners(struct ns *ns, const uint32_t *objs, uint32_t n, struct futex_waitv_ *wv,
                             uint32_t max)
{
    uint32_t nw = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct ns_obj *o = &ns->objs[objs[i]];
        if (o->type != NSPA_TYPE_MUTEX) continue;
        uint32_t owner = mtx_owner(atomic_load_explicit(&o->word, memory_order_relaxed));
        if (!owner) continue;
        if (ns_thread_dead_check(ns, owner)) continue;
        /* find its slot's alive word */
        for (uint32_t s = ns->hdr->tid_buckets[(owner * 2654435761u) % TID_BUCKETS]; s;
             s = ns->threads[s - 1].tid_next) {
            struct ns_thread *ot = &ns->threads[s - 1];
            if (ot->tid != owner) continue;
            if (nw < max) {
                _Atomic uint32_t *lw = (_Atomic uint32_t *)&ot->alive.__data.__lock;
                /* FUTEX_WAITERS makes the kernel wake a waiter when it marks the
                 * holder dead */
                uint32_t v = atomic_fetch_or(lw, FUTEX_WAITERS) | FUTEX_WAITERS;
                if (v & FUTEX_OWNER_DIED) {
                    /* it died since the check above: reclaim now (a sleep on its word
                     * would never be woken) */
                    ns_thread_dead_check(ns, owner);
                    break;
                }
                wv[nw].val = v;
                wv[nw].uaddr = (uint64_t)(uintptr_t)lw;
                wv[nw].flags = FUTEX2_SIZE_U32_;
                wv[nw].reserved = 0;
                nw++;
            }
            break;
        }
    }
    return nw;
}

#define FAST_MISS 1
#define PI_DELAY_NS 20000ull   /* see do_wait: a real-time waiter boosts after 20 us */
/* A wait for a mutex held by another thread first spins a little (NSPA_SPIN rounds
 * of a CPU pause, 200 by default; NSPA_SPIN=0 turns it off): the holder usually lets
 * go within a microsecond, and a hand-off through the kernel costs two context
 * switches. Events and semaphores do not spin (measured: on a loaded 2-core machine a
 * spinning waiter only steals the CPU its signaller needs). Real-time threads never
 * spin (they sleep at once, like SRW locks), and nobody spins past queued waiters: a
 * claimed object sends everyone to the queue, so priority order is never bypassed. */
static int spin_rounds = -1;

static int spin_limit(void)
{
    int n = __atomic_load_n(&spin_rounds, __ATOMIC_RELAXED);
    if (__builtin_expect(n < 0, 0)) {
        const char *e = getenv("NSPA_SPIN");
        n = e && *e ? atoi(e) : 200;
        if (n < 0) n = 0;
        if (n > 100000) n = 100000;
        __atomic_store_n(&spin_rounds, n, __ATOMIC_RELAXED);
    }
    return n;
}

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* The fast path of a one-object wait: one compare-and-swap on an unclaimed object.
 * Returns 0 / -EOWNERDEAD / -ETIMEDOUT when it decided, FAST_MISS when the slow path
 * must run (claimed object, must block, or a count that lives under the lock). */
static int wait_one_fast(struct ns *ns, uint32_t idx, uint32_t owner, uint64_t timeout)
{
    struct ns_obj *o = &ns->objs[idx];
    uint64_t w = atomic_load_explicit(&o->word, memory_order_acquire);
    int spins = 0;
    while (!(w & OBJ_CLAIMED)) {
        uint64_t nw;
        int ab = 0;
        switch (o->type) {
        case NSPA_TYPE_SEM:
            if (!(uint32_t)w) goto unsignaled;
            nw = w - 1;
            break;
        case NSPA_TYPE_EVENT:
            if (!(w & EVT_SIGNALED)) goto unsignaled;
            nw = (w & EVT_MANUAL) ? w : (w & ~EVT_SIGNALED);
            break;
        case NSPA_TYPE_MUTEX: {
            uint32_t ow = mtx_owner(w);
            uint32_t c = ow ? (uint32_t)(w >> MTX_CNT_SHIFT) & MTX_CNT_MASK : 0;
            if (ow && ow != owner) goto unsignaled;
            if (c + 1 >= MTX_CNT_BIG) return FAST_MISS;
            ab = (w & MTX_ABANDONED) != 0;
            nw = ((uint64_t)(c + 1) << MTX_CNT_SHIFT) | owner;
            if (!c) owned_add(self()->t, idx);   /* before the CAS: see owned_add */
            break;
        }
        case NSPA_TYPE_THREAD:
            if (!(w & EVT_SIGNALED)) goto unsignaled;
            nw = w;
            break;
        default:
            return -EBADF;
        }
        if (nw == w || atomic_compare_exchange_weak_explicit(&o->word, &w, nw, memory_order_acq_rel,
                                                             memory_order_acquire))
            return ab ? -EOWNERDEAD : 0;
        continue;
    unsignaled:
        if (timeout == 0) return -ETIMEDOUT;
        if (o->type != NSPA_TYPE_MUTEX || spins++ >= spin_limit() || nspa_rt_self_is_rt())
            return FAST_MISS;
        spin_pause();
        w = atomic_load_explicit(&o->word, memory_order_acquire);
    }
    return FAST_MISS;
}

static __attribute__((noinline)) int do_wait(struct nspa_wait_args *args, int all);

/* One object, no alert: the common WaitForSingleObject. */
static inline int do_wait_one(struct nspa_wait_args *args, int all)
{
    struct ns *ns = nspa_ns;
    uint32_t idx;
    if (__builtin_expect(ns != NULL, 1) && args->owner && !args->flags && !args->pad &&
        ns_handle_lookup(ns, args->objs[0], &idx) == 0) {
        int r = wait_one_fast(ns, idx, args->owner, args->timeout);
        if (r != FAST_MISS) {
            args->index = 0;
            return r;
        }
    }
    return do_wait(args, all);
}

/* The end of one sleep: now + @step on @clk, or the wait's own @timeout if that comes
 * first (then returns 1: a timeout there is the wait's). */
static int sleep_until(clockid_t clk, uint64_t step, uint64_t timeout, struct timespec *ts)
{
    struct timespec now;
    clock_gettime(clk, &now);
    uint64_t until = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec + step;
    int real = 0;
    if (timeout != NSPA_TIMEOUT_INFINITE && timeout <= until) {
        until = timeout;
        real = 1;
    }
    ts->tv_sec = (time_t)(until / 1000000000ull);
    ts->tv_nsec = (long)(until % 1000000000ull);
    return real;
}

static int do_wait(struct nspa_wait_args *args, int all)
{
    if (!args) return -EFAULT;
    if (args->count > NSPA_MAX_WAIT_OBJECTS || !args->owner || (args->flags & ~NSPA_WAIT_REALTIME) || args->pad)
        return -EINVAL;
    if (args->count && !args->objs) return -EFAULT;
    struct nspa_tls *me = self();
    struct ns *ns = nspa_ns;
    uint32_t objs[WAIT_SLOTS];
    uint32_t count = args->count;
    int has_alert = args->alert != 0;
    for (uint32_t i = 0; i < count; i++) {
        int r = ns_handle_lookup(ns, args->objs[i], &objs[i]);
        if (r) return r;
        if (ns->objs[objs[i]].type == NSPA_TYPE_NONE) return -EBADF;
    }
    if (has_alert) {
        int r = lookup_typed(ns, args->alert, NSPA_TYPE_EVENT, &objs[count]);
        if (r) return r;
    }
    if (all) {
        for (uint32_t i = 0; i < count + has_alert; i++)
            for (uint32_t j = i + 1; j < count + has_alert; j++)
                if (objs[i] == objs[j]) return -EINVAL;
    }
    uint32_t owner = args->owner;

    /* the single-object fast path ran in do_wait_one() already */
    struct ns_thread *t = me->t;
    uint32_t n = count + has_alert;
    uint32_t res = 0;
    int registered = 0;
    struct futex_waitv_ wv[WAIT_SLOTS + 1];
    int ret;

    /* A wait that may block needs its scheduling priority to queue itself (a system
     * call): learn it before taking the lock rather than inside it. A zero-time poll
     * never queues. */
    uint32_t prio = args->timeout ? current_prio() : 0;
    ns_lock(ns);
    for (uint32_t i = 0; i < n; i++) {
        if (ns->objs[objs[i]].type == NSPA_TYPE_NONE) {   /* closed and freed meanwhile */
            for (uint32_t j = 0; j < i; j++) obj_unclaim_if_idle(ns, objs[j]);
            ns_unlock(ns);
            return -EBADF;
        }
        obj_claim(ns, objs[i]);
    }
    uint32_t nwatch = check_owners(ns, objs, count, wv + 1, WAIT_SLOTS);
    if (try_now(ns, t, objs, count, has_alert, all, owner, &res)) {
        for (uint32_t i = 0; i < n; i++) obj_unclaim_if_idle(ns, objs[i]);
        ns_unlock(ns);
        return wait_result(args, res);
    }
    uint64_t timeout = args->timeout;
    clockid_t clk = (args->flags & NSPA_WAIT_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    if (timeout != NSPA_TIMEOUT_INFINITE) {
        struct timespec now;
        clock_gettime(clk, &now);
        if ((uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec >= timeout) {
            for (uint32_t i = 0; i < n; i++) obj_unclaim_if_idle(ns, objs[i]);
            ns_unlock(ns);
            return -ETIMEDOUT;
        }
    }
    /* register */
    jset32(ns, &t->kind, all ? WAIT_ALL : WAIT_ANY);
    jset32(ns, &t->count, count);
    jset32(ns, &t->has_alert, (uint32_t)has_alert);
    jset32(ns, &t->owner, owner);
    prio = pi_own_key(ns, t, prio);
    jset32(ns, &t->prio, prio);
    prio = pi_eff_key(t);
    jset32(ns, &t->result, 0);
    /* Sleep on a private futex (cheaper for the kernel: no shared-mapping lookup) when
     * nobody outside this process can wake us: every object is unnamed (reachable only
     * through this process's handles) and the process never forked (its handles would
     * be in the child too; see atfork_prepare in ns.c). */
    uint32_t priv = !ns_has_forked();
    for (uint32_t i = 0; i < n && priv; i++)
        if (ns->objs[objs[i]].name) priv = 0;
    jset32(ns, &t->wake_private, priv);
    atomic_store_explicit(&t->wake, WAKE_WAITING, memory_order_relaxed);
    for (uint32_t i = 0; i < n; i++) {
        jset32(ns, &t->objs[i], objs[i]);
        jset32(ns, &ns->objs[objs[i]].refs, ns->objs[objs[i]].refs + 1);
        queue_insert(ns, &ns->objs[objs[i]], entry_id(me->slot, i), prio);
    }
    /* Boosting the owners of the mutexes we wait for costs a sched_setattr now and
     * another when we leave: a real-time waiter first gives the hand-off PI_DELAY_NS to
     * happen on its own (most contended hand-offs take a few microseconds) and boosts
     * only if it is still waiting then. An owner that is starved is boosted 20 us late,
     * which is nothing against the milliseconds an inversion lasts. */
    int pi_pending = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct ns_obj *o = &ns->objs[objs[i]];
        uint32_t ow;
        if (o->type != NSPA_TYPE_MUTEX || !(ow = mtx_owner(atomic_load_explicit(&o->word, memory_order_relaxed))))
            continue;
        if (prio && pi_enabled()) pi_pending = 1;
        reaper_poke_owner(ns, ow);     /* its process watches us from now on */
    }
    registered = 1;
    ns_unlock(ns);

    struct timespec ts;
    for (;;) {
        /* sleep until the timeout, but never more than WAKE_BACKSTOP_NS at a time: a
         * waker that died between its unlock and its FUTEX_WAKE (ns_unlock) has left
         * our wake word set; we find it on return */
        int priv = __atomic_load_n(&t->wake_private, __ATOMIC_ACQUIRE);
        struct timespec *tsp = &ts;
        int real_deadline = 0;
        if (!pi_pending && priv && timeout == NSPA_TIMEOUT_INFINITE) {
            /* a private sleeper's wakers are in its own process: if one dies between
             * unlock and wake, so do we; no backstop timer (arming one costs the
             * kernel a fifth of a microsecond per sleep) */
            tsp = NULL;
        } else {
            /* the short first sleep before the PI boost (see above), or the backstop */
            real_deadline = sleep_until(clk, pi_pending ? PI_DELAY_NS : WAKE_BACKSTOP_NS, timeout, &ts);
        }
        wv[0].val = WAKE_WAITING;
        wv[0].uaddr = (uint64_t)(uintptr_t)&t->wake;
        wv[0].flags = FUTEX2_SIZE_U32_ | (priv ? FUTEX2_PRIVATE_ : 0);
        wv[0].reserved = 0;
        /* nothing to watch but our own word: plain FUTEX_WAIT (futex_waitv's setup
         * costs about a fifth of a hand-off, measured) */
        long r = nwatch ? syscall(SYS_futex_waitv, wv, 1 + nwatch, 0, tsp, clk)
                        : syscall(SYS_futex, &t->wake,
                                  FUTEX_WAIT_BITSET | (priv ? FUTEX_PRIVATE_FLAG : 0) |
                                      (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0),
                                  WAKE_WAITING, tsp, NULL, FUTEX_BITSET_MATCH_ANY);
        int err = r < 0 ? errno : 0;
        uint32_t wk = atomic_load_explicit(&t->wake, memory_order_acquire);
        if (wk == WAKE_GRANTED) {
            res = t->result;
            break;
        }
        if (wk == WAKE_REARM) {
            /* re-arm: back to WAITING (a grant meanwhile wins), re-read mode and owners */
            uint32_t two = WAKE_REARM;
            atomic_compare_exchange_strong(&t->wake, &two, WAKE_WAITING);
            if (atomic_load_explicit(&t->wake, memory_order_acquire) == WAKE_GRANTED) {
                res = t->result;
                break;
            }
            err = EAGAIN;
        }
        if (err == ETIMEDOUT && !real_deadline) {
            if (pi_pending) {
                /* still waiting after PI_DELAY_NS: boost the owners now */
                pi_pending = 0;
                ns_lock(ns);
                if (!t->result)
                    for (uint32_t i = 0; i < count; i++) pi_update_owner_of(ns, objs[i]);
                ns_unlock(ns);
            }
            continue;   /* the backstop, not our timeout: sleep on */
        }
        if (r < 0 && err == ENOSYS) {
            /* kernels before 5.16: own word only, and re-check owners every 50 ms */
            struct timespec step;
            int last = sleep_until(clk, 50000000ull, timeout, &step);
            r = syscall(SYS_futex, &t->wake, FUTEX_WAIT_BITSET | (priv ? FUTEX_PRIVATE_FLAG : 0) |
                            (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0),
                        WAKE_WAITING, &step, NULL, FUTEX_BITSET_MATCH_ANY);
            err = r < 0 ? errno : 0;
            if (atomic_load_explicit(&t->wake, memory_order_acquire) == WAKE_GRANTED) { res = t->result; break; }
            if (err == ETIMEDOUT && !last) err = EAGAIN;
        }
        /* timed out, poked, an owner died, or a spurious/EINTR return: re-evaluate
         * under the lock, where the result is authoritative */
        ns_lock(ns);
        if (t->result) {
            res = t->result;
            ns_unlock(ns);
            break;
        }
        if (err == ETIMEDOUT) {
            unregister_wait(ns, me->slot);
            ns_unlock(ns);
            registered = 0;
            break;
        }
        nwatch = check_owners(ns, objs, count, wv + 1, WAIT_SLOTS);
        if (t->result) {   /* an owner's death granted us */
            res = t->result;
            ns_unlock(ns);
            break;
        }
        ns_unlock(ns);
    }
    (void)registered;
    if (!res) return -ETIMEDOUT;
    ret = wait_result(args, res);
    return ret;
}

/* internal: WaitForSingleObject's path — the fast path without building a request */
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout);
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout)
{
    struct ns *ns = nspa_ns;
    struct nspa_tls *me = nspa_self;
    uint32_t idx;
    if (__builtin_expect(ns && me, 1) && ns_handle_lookup(ns, h, &idx) == 0) {
        int r = wait_one_fast(ns, idx, me->tid, timeout);
        if (r != FAST_MISS) return r;
    }
    struct nspa_wait_args a = { .timeout = timeout, .objs = &h, .count = 1, .owner = self()->tid };
    return do_wait(&a, 0);
}

NSPA_EXPORT int nspa_wait_any(struct nspa_wait_args *args)
{
    if (args && args->count == 1 && !args->alert && args->objs) return do_wait_one(args, 0);
    return do_wait(args, 0);
}

NSPA_EXPORT int nspa_wait_all(struct nspa_wait_args *args)
{
    if (args && args->count == 1 && !args->alert && args->objs) return do_wait_one(args, 1);
    return do_wait(args, 1);
}

/* ---- diagnostics ------------------------------------------------------------- */

#define CHECKV(cond, ...) do { if (!(cond)) { if (bad++ < 10) { fprintf(stderr, "nspa check: " __VA_ARGS__); fputc('\n', stderr); } } } while (0)

NSPA_EXPORT int nspa_check_namespace(void)
{
    struct ns *ns = ns_get();
    int bad = 0;
    ns_lock(ns);
    struct ns_header *h = ns->hdr;
    CHECKV(h->nwake == 0, "wake list not empty (%u)", h->nwake);
    static uint32_t *refs_seen;
    refs_seen = calloc(h->obj_hwm + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < h->obj_hwm; i++) {
        struct ns_obj *o = &ns->objs[i];
        if (o->type == NSPA_TYPE_NONE) continue;
        uint64_t w = atomic_load(&o->word);
        uint32_t prev = 0, n = 0;
        for (uint32_t e = o->q_head; e && n < MAX_THREADS * WAIT_SLOTS; e = entry_ptr(ns, e)->next, n++) {
            uint32_t slot, k;
            struct ns_thread *t = entry_thread(ns, e, &slot, &k);
            CHECKV(entry_ptr(ns, e)->prev == prev, "object %u: queue back link broken", i);
            CHECKV(t->tid && t->kind != WAIT_NONE, "object %u: queued entry of a thread not waiting (slot %u)", i, slot);
            CHECKV(k < t->count + t->has_alert && t->objs[k] == i, "object %u: entry %u of slot %u names another object", i, k, slot);
            refs_seen[i]++;
            prev = e;
        }
        CHECKV(o->q_tail == prev, "object %u: queue tail wrong", i);
        if (!o->q_head && o->type == NSPA_TYPE_MUTEX && ((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK) == MTX_CNT_BIG) {
        } else {
            CHECKV(!(w & OBJ_CLAIMED) || o->q_head, "object %u: claimed with no waiters", i);
        }
        if (o->type == NSPA_TYPE_SEM) CHECKV((uint32_t)w <= o->max, "semaphore %u: count %u > max %u", i, (uint32_t)w, o->max);
    }
    for (uint32_t p = 0; p < MAX_PROCS; p++) {
        struct ns_proc *pr = &ns->procs[p];
        if (!pr->pid) continue;
        uint32_t *tab = (uint32_t *)(ns->base + h->off_handles) + (size_t)p * MAX_HANDLES;
        for (uint32_t k = 0; k < pr->handles_hwm; k++) {
            uint32_t v = tab[k];
            if (!v || (v & HFREE)) continue;
            CHECKV(v - 1 < h->obj_hwm && ns->objs[v - 1].type != NSPA_TYPE_NONE, "process slot %u: handle %u names a free object", p, k);
            if (v - 1 < h->obj_hwm) refs_seen[v - 1]++;
        }
    }
    for (uint32_t i = 0; i < h->obj_hwm; i++) {
        struct ns_obj *o = &ns->objs[i];
        if (o->type == NSPA_TYPE_NONE) continue;
        CHECKV(o->refs == refs_seen[i], "object %u: refs %u, found %u handles and waits", i, o->refs, refs_seen[i]);
    }
    free(refs_seen);
    ns_unlock(ns);
    return bad ? -EUCLEAN : 0;
}
