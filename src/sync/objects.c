/*
 * Object lifetime: creation (unnamed in the process arena, named in the region),
 * names, references, and freeing.
 *
 * An object lives while a handle refers to it, and while a waiter is queued on it (a
 * wait holds it: closing the last handle does not wake or break the wait). The last
 * reference of an object with waiters makes it a zombie; the last waiter to leave a
 * zombie frees it (obj_reap_zombie). Freeing happens under the object's lock, so it
 * cannot race a waiter; records are never unmapped and their locks are initialised
 * once, so a stale handle finds a free (type 0) or another object, never a fault.
 *
 * Named objects' references, names and the object free list are under the registry
 * lock (types.h, rule 6); unnamed objects' references are atomic.
 */
#include <errno.h>
#include <string.h>
#include "sync/internal.h"

/* ---- names (registry lock held) ------------------------------------------------------ */

NSPA_HIDDEN uint32_t name_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static const char *name_str(struct ns *ns, const struct ns_name *n)
{
    return n->blocks ? ns->blocks + (size_t)(n->blocks - 1) * NAME_BLOCK : n->str;
}

NSPA_HIDDEN uint32_t name_find(struct ns *ns, const char *name, size_t len, uint32_t hash)
{
    for (uint32_t s = ns->name_buckets[hash % NAME_BUCKETS]; s; s = ns->names[s - 1].next) {
        struct ns_name *n = &ns->names[s - 1];
        if (n->hash == hash && n->len == len && !memcmp(name_str(ns, n), name, len)) return s - 1;
    }
    return UINT32_MAX;
}

/* A run of @nb blocks for a long name: a free run of that length, or new ones. */
static uint32_t blocks_take(struct ns *ns, uint32_t nb)
{
    struct ns_header *h = ns->hdr;
    if (nb < 16 && h->block_free[nb]) {
        uint32_t b = h->block_free[nb] - 1;
        jset32(ns, &h->block_free[nb], *(uint32_t *)(ns->blocks + (size_t)b * NAME_BLOCK));
        return b + 1;
    }
    if (h->block_hwm + nb > MAX_NAME_BLOCKS) return 0;
    jset32(ns, &h->block_hwm, h->block_hwm + nb);
    return h->block_hwm - nb + 1;
}

NSPA_HIDDEN int name_insert(struct ns *ns, const char *name, size_t len, uint32_t hash, uint32_t obj,
                            uint32_t *slot)
{
    uint32_t s = REGION_TAKE(ns, name_free, name_hwm, MAX_NAMES, ns->names, next);
    if (s == UINT32_MAX) return -ENOSPC;
    struct ns_name *n = &ns->names[s];
    uint32_t blocks = 0, nb = 0;
    if (len > NAME_INLINE) {
        nb = (uint32_t)((len + NAME_BLOCK - 1) / NAME_BLOCK);
        if (!(blocks = blocks_take(ns, nb))) {
            REGION_GIVE(ns, name_free, ns->names, next, s);
            return -ENOSPC;
        }
    }
    /* the string is written before the name is reachable; a rollback unhooks it */
    memcpy(blocks ? ns->blocks + (size_t)(blocks - 1) * NAME_BLOCK : n->str, name, len);
    jset32(ns, &n->blocks, blocks);
    jset32(ns, &n->nblocks, nb);
    jset32(ns, &n->obj, obj);
    jset32(ns, &n->hash, hash);
    jset32(ns, &n->len, (uint32_t)len);
    jset32(ns, &n->next, ns->name_buckets[hash % NAME_BUCKETS]);
    jset32(ns, &ns->name_buckets[hash % NAME_BUCKETS], s + 1);
    *slot = s;
    return 0;
}

NSPA_HIDDEN void name_remove(struct ns *ns, uint32_t s)
{
    struct ns_name *n = &ns->names[s];
    for (uint32_t *pp = &ns->name_buckets[n->hash % NAME_BUCKETS]; *pp; pp = &ns->names[*pp - 1].next) {
        if (*pp == s + 1) { jset32(ns, pp, n->next); break; }
    }
    if (n->blocks) {
        uint32_t b = n->blocks - 1, nb = n->nblocks;
        if (nb < 16) {
            uint32_t *link = (uint32_t *)(ns->blocks + (size_t)b * NAME_BLOCK);
            jset32(ns, link, ns->hdr->block_free[nb]);
            jset32(ns, &ns->hdr->block_free[nb], b + 1);
        }
        jset32(ns, &n->blocks, 0);
    }
    jset32(ns, &n->len, 0);
    REGION_GIVE(ns, name_free, ns->names, next, s);
}

/* ---- references --------------------------------------------------------------------- */

/* type, in_region, zombie and a pad byte as one word, for the journal */
static uint32_t *type_word(struct sobj *o) { return (uint32_t *)(void *)&o->type; }

NSPA_HIDDEN void obj_ref(struct sobj *o)
{
    if (o->in_region) jset32(nspa_ns, (uint32_t *)&o->refs, o->refs + 1);
    else atomic_fetch_add(&o->refs, 1);
}

/* Free @o if nobody refers to it and nobody waits on it. Object lock held (and the
 * registry lock for a named object). Returns 1 when the record must go back to the
 * arena (after the unlock). */
static void (*on_free[16])(uint64_t word, uint32_t max, uint32_t ext);

NSPA_HIDDEN void nspa__obj_on_free(int type, void (*fn)(uint64_t word, uint32_t max, uint32_t ext))
{
    if (type > 0 && type < 16) on_free[type] = fn;
}

static int obj_free_locked(struct sobj *o)
{
    if (atomic_load(&o->refs) || o->q_head || !o->type) return 0;
    if (o->type < 16 && on_free[o->type])     /* a kind's own resources (a mapping's file) */
        on_free[o->type](atomic_load(&o->word), o->max, o->ext);
    if (o->in_region) {
        struct ns *ns = nspa_ns;
        if (o->name) {
            name_remove(ns, o->name - 1);
            jset32(ns, &o->name, 0);
        }
        jset32(ns, type_word(o), 1u << 8);                /* type 0, still in the region */
        jset64(ns, (uint64_t *)&o->word, 0);
        REGION_GIVE(ns, obj_free, ns->objs, next_free, (uint32_t)(o - ns->objs));
        jset32(ns, &ns->hdr->nobjs, ns->hdr->nobjs - 1);
        return 0;
    }
    __atomic_store_n(&o->type, 0, __ATOMIC_RELEASE);
    return 1;
}

static void obj_release_record(struct sobj *o)
{
    /* the lock stays initialised: a stale locker may still be in line for it */
    atomic_store(&o->word, 0);
    o->q_head = o->q_tail = 0;
    o->zombie = 0;
    o->nall = 0;
    memset(&o->intent, 0, sizeof(o->intent));
    o->max = o->name = o->seq = 0;
    __atomic_store_n(&o->ext, 0, __ATOMIC_RELAXED);
    arena_obj_free(o);
}

/* Drop one reference (registry lock held for a named object). */
NSPA_HIDDEN int obj_unref(struct sobj *o)
{
    uint32_t left;
    if (o->in_region) {
        if (!o->refs) return 0;
        left = o->refs - 1;
        jset32(nspa_ns, (uint32_t *)&o->refs, left);
    } else {
        left = atomic_fetch_sub(&o->refs, 1) - 1;
    }
    if (left) return 0;
    if (__atomic_load_n(&o->type, __ATOMIC_ACQUIRE) == OBJ_FORWARD) {
        /* the last handle of the fork family to a grown object: the forwarder's
         * reference to the region object goes (registry lock held: the handle looked
         * up the region object), then the record */
        obj_unref(obj_forward_target(o));
        obj_lock(o);
        __atomic_store_n(&o->type, 0, __ATOMIC_RELEASE);
        obj_unlock(o);
        obj_release_record(o);
        return 1;
    }
    const struct sync_kind *k = sync_kind_of(o->type);
    if (k && k->closed) k->closed(o);
    obj_lock(o);
    int give = obj_free_locked(o);
    if (!give && o->type) {
        if (o->in_region) jset32(nspa_ns, type_word(o), o->type | (1u << 8) | (1u << 16));
        else o->zombie = 1;
    }
    obj_unlock(o);
    if (give) obj_release_record(o);
    return 1;
}

/* A waiter left @o's queue and found it a zombie with no waiters: free it. */
NSPA_HIDDEN void obj_reap_zombie(struct sobj *o, int reg_held)
{
    struct ns *ns = o->in_region && !reg_held ? nspa_ns : NULL;
    if (ns) reg_lock(ns);
    obj_lock(o);
    int give = o->zombie ? obj_free_locked(o) : 0;
    obj_unlock(o);
    if (ns) reg_unlock(ns);
    if (give) obj_release_record(o);
}

/* ---- creation ----------------------------------------------------------------------- */

static int valid_obj_name(const char *name, size_t *len)
{
    size_t n = strnlen(name, NSPA_MAX_NAME + 1);
    if (n == 0 || n > NSPA_MAX_NAME) return 0;
    *len = n;
    return 1;
}

static void obj_setup(struct sobj *o, int type, uint64_t word, uint32_t max, uint32_t ext)
{
    atomic_store(&o->word, word);
    o->q_head = o->q_tail = 0;
    o->nall = 0;
    o->zombie = 0;
    memset(&o->intent, 0, sizeof(o->intent));
    o->max = max;
    __atomic_store_n(&o->ext, ext, __ATOMIC_RELAXED);
    o->name = 0;
    o->seq = 0;
    atomic_store(&o->refs, 1);
    __atomic_store_n(&o->type, (uint8_t)type, __ATOMIC_RELEASE);
}

static int create_unnamed(int type, uint64_t word, uint32_t max, uint32_t ext, nspa_obj_t *out)
{
    struct sobj *o = arena_obj_alloc();
    if (!o) return -ENOMEM;
    o->in_region = 0;
    obj_setup(o, type, word, max, ext);
    int r = h_alloc(o, out);
    if (r) {
        __atomic_store_n(&o->type, 0, __ATOMIC_RELEASE);
        obj_release_record(o);
    } else {
        ask_want();
    }
    return r;
}

/* A new object in the region (registry lock held): named, or with @name NULL an
 * anonymous shared one (an unnamed object whose handles may cross processes:
 * inheritance, DuplicateHandle to another process). */
/* A new region object with one reference, not reachable yet (registry lock held).
 * NULL: the table is full. */
NSPA_HIDDEN struct sobj *obj_region_new(struct ns *ns, int type, uint64_t word, uint32_t max, uint32_t ext)
{
    struct ns_header *h = ns->hdr;
    uint32_t top = h->obj_hwm;
    uint32_t idx = REGION_TAKE(ns, obj_free, obj_hwm, MAX_OBJECTS, ns->objs, next_free);
    if (idx == UINT32_MAX) return NULL;
    struct sobj *o = &ns->objs[idx];
    if (idx == top) {
        sync_mutex_init(&o->lock, 1);       /* once per record, ever */
        /* another process may hand a reference to this record to one of our threads
         * (an owned-mutex list in a shared thread record, written by a fork child): an
         * edge ThreadSanitizer cannot see; the reaper acquires what this releases */
        NSPA_TSAN_RELEASE(&o->next_free);
    }
    /* not reachable until its name or a handle exists: plain stores, journaled type */
    atomic_store(&o->word, word);
    o->q_head = o->q_tail = 0;
    o->nall = 0;
    memset(&o->intent, 0, sizeof(o->intent));
    o->seq = 0;
    jset32(ns, &o->max, max);
    jset32(ns, &o->ext, ext);
    jset32(ns, (uint32_t *)&o->refs, 1);
    jset32(ns, &o->name, 0);
    jset32(ns, &h->nobjs, h->nobjs + 1);
    jset32(ns, type_word(o), (uint32_t)type | (1u << 8));
    return o;
}

/* Free region object @o that nobody refers to (registry lock held). */
NSPA_HIDDEN void obj_region_drop(struct sobj *o)
{
    jset32(nspa_ns, (uint32_t *)&o->refs, 0);
    obj_lock(o);
    obj_free_locked(o);
    obj_unlock(o);
}

static int create_named_new(struct ns *ns, int type, uint64_t word, uint32_t max, uint32_t ext,
                            const char *name, size_t len, uint32_t hash, nspa_obj_t *out)
{
    struct sobj *o = obj_region_new(ns, type, word, max, ext);
    if (!o) return -ENOSPC;
    uint32_t slot;
    int r = name ? name_insert(ns, name, len, hash, (uint32_t)(o - ns->objs), &slot) : 0;
    if (!r) {
        if (name) jset32(ns, &o->name, slot + 1);
        r = h_alloc(o, out);
    }
    if (r) obj_region_drop(o);
    return r;
}

NSPA_HIDDEN int obj_create(int type, uint64_t word, uint32_t max, uint32_t ext, const char *name, int shared,
                           nspa_obj_t *out)
{
    struct nspa_tls *me = self();
    if (!me) return -ENOMEM;
    int r;
    if (!name && shared) {
        struct ns *ns = ns_get();
        if (!ns || ns->proc == UINT32_MAX) return ns ? -EMFILE : ns_error();
        reg_lock(ns);
        r = create_named_new(ns, type, word, max, ext, NULL, 0, 0, out);
        reg_unlock(ns);
    } else if (!name) {
        r = create_unnamed(type, word, max, ext, out);
    } else {
        size_t len;
        if (!valid_obj_name(name, &len)) return -EINVAL;
        struct ns *ns = ns_get();
        if (!ns || ns->proc == UINT32_MAX) return ns ? -EMFILE : ns_error();
        uint32_t hash = name_hash(name, len);
        reg_lock(ns);
        uint32_t s = name_find(ns, name, len, hash);
        if (s != UINT32_MAX) {
            /* a dead process may be what still holds the name: reclaim, look again */
            ns_sweep_dead(ns);
            s = name_find(ns, name, len, hash);
        }
        if (s != UINT32_MAX) {
            struct sobj *o = &ns->objs[ns->names[s].obj];
            if (o->type != type) r = -EEXIST;
            else {
                obj_ref(o);
                r = h_alloc(o, out);
                if (r) obj_unref(o);
                else r = NSPA_EXISTED;
            }
            reg_unlock(ns);
            return r;
        }
        r = create_named_new(ns, type, word, max, ext, name, len, hash, out);
        reg_unlock(ns);
    }
    if (r == 0 && type == NSPA_TYPE_MUTEX && (uint32_t)word && (uint32_t)word == me->tid) {
        struct sobj *o = h_lookup(*out);
        if (o) owned_add(me->t, o);        /* created owned by the caller */
    }
    return r;
}

NSPA_EXPORT int nspa_open(int type, const char *name, nspa_obj_t *out)
{
    if (!name || !out) return -EFAULT;
    size_t len;
    if (!valid_obj_name(name, &len)) return -EINVAL;
    struct ns *ns = ns_get();
    if (!ns || ns->proc == UINT32_MAX) return ns ? -EMFILE : ns_error();
    if (type == NSPA_TYPE_MUTEX || type == NSPA_TYPE_NONE) reaper_ensure();
    uint32_t hash = name_hash(name, len);
    reg_lock(ns);
    int r;
    uint32_t s = name_find(ns, name, len, hash);
    if (s != UINT32_MAX) {
        ns_sweep_dead(ns);                 /* its holders may be dead processes */
        s = name_find(ns, name, len, hash);
    }
    if (s == UINT32_MAX || !ns->objs[ns->names[s].obj].refs) {
        r = -ENOENT;
    } else {
        struct sobj *o = &ns->objs[ns->names[s].obj];
        if (type != NSPA_TYPE_NONE && o->type != type) r = -EEXIST;
        else {
            obj_ref(o);
            r = h_alloc(o, out);
            if (r) obj_unref(o);
        }
    }
    reg_unlock(ns);
    return r;
}
