/*
 * The process's handle table: one table for every kind of object, and the kinds.
 *
 * A handle is (index + 1) * 4, so a Win32 HANDLE is the nspa handle. The table is
 * two-level (a directory of 4096-entry chunks, mapped as needed, never unmapped), read
 * without a lock: a lookup is two loads. Allocation and release are under h_lock, a
 * process-local mutex (creation and closing, never a wait or wake path). The table is
 * private memory: a fork child gets a copy, and h_fork_refs() takes the references its
 * copy holds.
 *
 * A handle to a named object is also recorded in the process's ledger in the region
 * (same index), under the registry lock, so that the references of a process that dies
 * are given back (procs.c). Lock order: registry lock, then h_lock.
 *
 * KINDS. Every handle names a struct sobj; its type selects a struct sync_kind (how it
 * is signaled for a waiter, what a successful wait does to it). A new kind of waitable
 * object registers its sync_kind with sync_kind_register() and the wait code serves it
 * unchanged (docs/sync.md, "Adding a kind").
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "sync/internal.h"
#include "common/slots.h"

/* H_CHUNK, H_DIR, struct hent and the lookup are in internal.h (inlined). The table is a
 * slot directory (common/slots.h) over h_dir, under h_lock; an index above the mark
 * may be taken already: a handle another process inserted (h_install). The mark is
 * stored atomically (h_high_water() reads it without the lock: the inheritance walks). */
struct hent *h_dir[H_DIR];
static int hent_busy(const void *e) { return atomic_load_explicit(&((const struct hent *)e)->obj, memory_order_relaxed) != NULL; }
static struct nspa_slots hs = {
    .dir = (void **)h_dir, .ndir = H_DIR, .shift = __builtin_ctz(H_CHUNK), .size = sizeof(struct hent),
    .link = offsetof(struct hent, next_free), .busy = hent_busy,
};
_Static_assert((H_CHUNK & (H_CHUNK - 1)) == 0, "H_CHUNK is a power of two");
#define h_hwm (hs.hwm)
static uint32_t h_count;
static uint32_t h_top;                /* 1 + the highest index installed from the ledger */
static void h_revoke_scan(void);
static void h_revoke_run(int wait);
static pthread_mutex_t h_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct sync_kind *kinds[16];

NSPA_HIDDEN void sync_kind_register(int type, const struct sync_kind *k)
{
    if (type > 0 && type < 16) kinds[type] = k;
}

NSPA_HIDDEN const struct sync_kind *sync_kind_of(int type)
{
    return (unsigned)type < 16 ? kinds[type] : NULL;
}

/* The ledger entry of handle index @i of process slot @slot (registry lock held to
 * write; @make: a chunk is taken for it if needed). NULL: none. */
NSPA_HIDDEN uint32_t *ledger_slot_of(struct ns *ns, uint32_t slot, uint32_t i, int make)
{
    struct ns_proc *p = &ns->procs[slot];
    uint32_t c = i / LEDGER_CHUNK;
    if (c >= LEDGER_DIR) return NULL;
    if (!p->ledger[c]) {
        if (!make) return NULL;
        /* a chunk's first entry is its free-list link: cleared once taken (a no-op,
         * unjournaled, for a chunk never used) */
        uint32_t k = region_take(ns, &ns->hdr->chunk_free, &ns->hdr->chunk_hwm, LEDGER_CHUNKS, ns->chunks,
                                 LEDGER_CHUNK * sizeof(uint32_t), 0);
        if (k == UINT32_MAX) return NULL;
        jset32(ns, &ns->chunks[(size_t)k * LEDGER_CHUNK], 0);
        jset32(ns, &p->ledger[c], k + 1);
    }
    return ns->chunks + (size_t)(p->ledger[c] - 1) * LEDGER_CHUNK + i % LEDGER_CHUNK;
}

static uint32_t *ledger_slot(struct ns *ns, uint32_t i, int make) { return ledger_slot_of(ns, ns->proc, i, make); }

/* Record @o at index @i of the table (and of the ledger for a named object: the
 * registry lock is held then). h_lock held. */
static int h_set(uint32_t i, struct sobj *o)
{
    if (o->in_region) {
        struct ns *ns = nspa_ns;
        uint32_t *l = ns ? ledger_slot(ns, i, 1) : NULL;
        if (!l) return -EMFILE;
        ledger_set_access(ns, l, H_ACCESS_ALL);
        jset32(ns, l, (uint32_t)(o - ns->objs) + 1);
    }
    struct hent *e = hent_of(i);
    e->flags = 0;
    __atomic_store_n(&e->access, H_ACCESS_ALL, __ATOMIC_RELAXED);
    atomic_store_explicit(&e->obj, o, memory_order_release);
    if (o->type == NSPA_TYPE_FILE) fdmap_put(i, o);
    return 0;
}

/* Make the chunk of index @i. h_lock held. */
static int h_chunk(uint32_t i) { return nspa_slots_chunk(&hs, i) ? -ENOMEM : 0; }

/* Entry @e (index @i) is free now. Below REMOTE_BASE it goes on the free list; an index
 * another process gave us does not: only another process's gift may take it again
 * (through the ledger); on the free list our own next handle could take it while the
 * ledger says it is free. h_lock held. (The link shares its word with the access mask,
 * which a racing lookup may read: slots.c stores it atomically.) */
static void h_give(struct hent *e, uint32_t i)
{
    if (i < REMOTE_BASE) nspa_slots_give(&hs, i);
    else __atomic_store_n(&e->next_free, 0, __ATOMIC_RELAXED);
}

/* A handle for @o, whose reference the caller already took. -EMFILE: table full. */
NSPA_HIDDEN int h_alloc(struct sobj *o, nspa_obj_t *out)
{
    pthread_mutex_lock(&h_lock);
    uint32_t i;
    int r = nspa_slots_take(&hs, &i);
    if (r == -ENOSPC) r = -EMFILE;
    if (!r) {
        r = h_set(i, o);
        if (r) {                       /* ledger full: give the index back */
            nspa_slots_give(&hs, i);
        } else {
            h_count++;
            *out = (i + 1) << 2;
        }
    }
    pthread_mutex_unlock(&h_lock);
    return r;
}

/* Does handle index @i of @o have a ledger entry: a region object's, or a local object
 * given by another process (GIFT_HELD, gift.c)? Closing it then takes the registry lock. */
static int h_in_ledger(const struct sobj *o, uint32_t i)
{
    return nspa_ns && (o->in_region || i >= REMOTE_BASE);
}

/* Take handle @h out of the table; *@o gets its object (the caller drops the ref).
 * -EBADF: not open; -EPERM: protected from close; -EAGAIN: it names a region object
 * and the caller does not hold the registry lock (the object grew into the region since
 * the caller looked it up: look again). */
static int h_free(nspa_obj_t h, struct sobj **o, int reg_held)
{
    if ((h & 3) || !h || ((h >> 2) - 1) >= H_DIR * H_CHUNK) return -EBADF;
    uint32_t i = (h >> 2) - 1;
    pthread_mutex_lock(&h_lock);
    struct hent *e = hent_of(i);
    struct sobj *x = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
    int r = 0;
    if (!x) r = -EBADF;
    else if (e->flags & NSPA_HANDLE_PROTECT) r = -EPERM;
    else if (h_in_ledger(x, i) && !reg_held) r = -EAGAIN;
    else {
        if (x->type == NSPA_TYPE_FILE) fdmap_put(i, NULL);
        if (h_in_ledger(x, i)) {
            uint32_t *l = ledger_slot(nspa_ns, i, 0);
            /* closed by another process meanwhile: the reference went with its copy */
            if (l && *l == LEDGER_REVOKED) x = NULL;
            if (l) jset32(nspa_ns, l, 0);
        }
        atomic_store_explicit(&e->obj, NULL, memory_order_release);
        h_give(e, i);
        h_count--;
        *o = x;
    }
    pthread_mutex_unlock(&h_lock);
    return r;
}

NSPA_HIDDEN int h_flags(nspa_obj_t h, uint32_t mask, uint32_t set, uint32_t *old)
{
    if ((h & 3) || !h || ((h >> 2) - 1) >= H_DIR * H_CHUNK) return -EBADF;
    uint32_t i = (h >> 2) - 1;
    pthread_mutex_lock(&h_lock);
    struct hent *e = hent_of(i);
    int r = -EBADF;
    if (e && atomic_load_explicit(&e->obj, memory_order_relaxed)) {
        if (old) *old = e->flags;
        e->flags = (e->flags & ~mask) | (set & mask);
        r = 0;
    }
    pthread_mutex_unlock(&h_lock);
    return r;
}

/* Index @i (free, below the high-water mark) leaves the free list. h_lock held. */
static void h_unfree(uint32_t i) { nspa_slots_claim(&hs, i); }

/* Handle index @i names a region object in our ledger that is not in the table: one
 * inherited or inserted by another process (inherit.c). Put it in the table, with the
 * reference the ledger entry already holds. Registry lock held. Returns the object or
 * NULL. */
static struct sobj *h_install_locked(struct ns *ns, uint32_t i, uint32_t flags)
{
    uint32_t *l = ledger_slot(ns, i, 0);
    uint32_t v = l ? *l : 0;
    if (!v || v > MAX_OBJECTS) return NULL;
    struct sobj *o = &ns->objs[v - 1];
    if (h_chunk(i)) return NULL;
    struct hent *e = hent_of(i);
    struct sobj *cur = atomic_load_explicit(&e->obj, memory_order_relaxed);
    if (cur) return cur == o ? o : NULL;         /* our own handle holds the index */
    if (i < h_hwm) h_unfree(i);
    /* the access its giver granted (inherited: the parent handle's), and whether it
     * asked for an inheritable handle (DuplicateHandle's bInheritHandle) */
    uint32_t acc = __atomic_load_n(ledger_access(ns, l), __ATOMIC_RELAXED);
    e->flags = flags | (acc & NSPA__ACCESS_INHERIT ? NSPA_HANDLE_INHERIT : 0);
    __atomic_store_n(&e->access, acc & ~NSPA__ACCESS_INHERIT, __ATOMIC_RELAXED);
    atomic_store_explicit(&e->obj, o, memory_order_release);
    h_count++;
    if (i + 1 > h_top) h_top = i + 1;
    return o;
}

/* h_lookup's miss: a handle value another process gave us (DuplicateHandle into this
 * process), installed on first use. */
NSPA_HIDDEN struct sobj *h_lookup_remote(uint32_t i)
{
    struct ns *ns = nspa_ns;
    if (!ns || ns->proc == UINT32_MAX || i >= LEDGER_DIR * LEDGER_CHUNK) return NULL;
    h_revoke_run(0);             /* never waits: a caller may hold the registry lock */
    /* a look without the registry lock first (most misses are bad handles): the ledger
     * words are written atomically under the lock */
    uint32_t c = __atomic_load_n(&ns->procs[ns->proc].ledger[i / LEDGER_CHUNK], __ATOMIC_ACQUIRE);
    if (!c || c > LEDGER_CHUNKS) return NULL;
    uint32_t v = __atomic_load_n(&ns->chunks[(size_t)(c - 1) * LEDGER_CHUNK + i % LEDGER_CHUNK], __ATOMIC_ACQUIRE);
    if (!v) return NULL;
    if (v > MAX_OBJECTS) {
        /* a file, socket or pipe another process gave us (gift.c): in our mailbox until
         * now, or placed by another thread's drain meanwhile */
        if (v == GIFT_MARK) gift_drain(ns);
        else if (v == GIFT_PARKED) gift_fetch_parked(ns);
        struct sobj *o = h_at(i, NULL);
        return o && __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) ? o : NULL;
    }
    reg_lock(ns);
    pthread_mutex_lock(&h_lock);
    struct sobj *o = h_install_locked(ns, i, 0);
    pthread_mutex_unlock(&h_lock);
    reg_unlock(ns);
    return o && o->type ? o : NULL;
}

/* The object behind handle @h for a caller that holds the registry lock (the second
 * look of nspa_dup and nspa__dup_to_process): the table only. A miss is a handle closed
 * meanwhile, even when the ledger has an entry at that index now (a handle another
 * process gave since, not yet used): installing it would take the registry lock again
 * (h_lookup_remote), a self-deadlock. A forwarder is followed; a revoked handle misses
 * (its ledger entry is stable under the lock). */
NSPA_HIDDEN struct sobj *h_lookup_locked(struct ns *ns, nspa_obj_t h)
{
    if ((h & 3) || !h || ((h >> 2) - 1) >= H_DIR * H_CHUNK) return NULL;
    uint32_t i = (h >> 2) - 1;
    struct sobj *o = h_at(i, NULL);
    uint8_t type = o ? __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) : 0;
    if (!type) return NULL;
    if (type == OBJ_FORWARD) o = obj_forward_target(o);
    if (o->in_region && ns->proc != UINT32_MAX) {
        uint32_t *l = ledger_slot(ns, i, 0);
        if (l && *l == LEDGER_REVOKED) return NULL;
    }
    return o;
}

/* A child's attach with inherited handles (procs.c; registry lock held): every entry
 * of its (adopted) ledger goes into the table at the same index, inheritable again.
 * An index the table already uses (a handle made before the attach) loses the
 * inherited one. */
NSPA_HIDDEN void h_adopt_ledger(struct ns *ns)
{
    struct ns_proc *p = &ns->procs[ns->proc];
    pthread_mutex_lock(&h_lock);
    for (uint32_t c = 0; c < LEDGER_DIR; c++) {
        if (!p->ledger[c]) continue;
        uint32_t *chunk = ns->chunks + (size_t)(p->ledger[c] - 1) * LEDGER_CHUNK;
        for (uint32_t k = 0; k < LEDGER_CHUNK; k++) {
            if (!chunk[k]) continue;
            if (chunk[k] > MAX_OBJECTS) {             /* not an object (gift.c) */
                if (chunk[k] != GIFT_PARKED) jset32(ns, &chunk[k], 0);   /* fetched after the attach */
                continue;
            }
            uint32_t i = c * LEDGER_CHUNK + k;
            /* below REMOTE_BASE: inherited (inheritable again); from it on: given by
             * DuplicateHandle before we ran (bInheritHandle FALSE: not inheritable) */
            if (!h_install_locked(ns, i, i < REMOTE_BASE ? NSPA_HANDLE_INHERIT : 0)) {
                struct sobj *o = &ns->objs[chunk[k] - 1];
                jset32(ns, &chunk[k], 0);
                obj_unref(o);
                continue;
            }
            /* the indices below become free ones */
            if (i >= h_hwm && i < REMOTE_BASE) nspa_slots_claim(&hs, i);
        }
    }
    pthread_mutex_unlock(&h_lock);
}

/* Entry @e (index @ei, object @o) moves to the free entry @d, flags and access with
 * it; @e goes on the free list. h_lock held. */
static void h_move_entry(struct hent *e, uint32_t ei, struct hent *d, uint32_t di, struct sobj *o)
{
    d->flags = e->flags;
    __atomic_store_n(&d->access, e->access, __ATOMIC_RELAXED);
    atomic_store_explicit(&d->obj, o, memory_order_release);
    atomic_store_explicit(&e->obj, NULL, memory_order_release);
    e->flags = 0;
    h_give(e, ei);
    if (o->type == NSPA_TYPE_FILE) {
        fdmap_put(ei, NULL);
        fdmap_put(di, o);
    }
}

/* Index @i's fd map entry again (its record's description changed: fdmap.c). */
NSPA_HIDDEN void h_fdmap_refresh(uint32_t i)
{
    pthread_mutex_lock(&h_lock);
    struct hent *e = i < H_DIR * H_CHUNK ? hent_of(i) : NULL;
    struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
    if (o && o->type == NSPA_TYPE_FILE) fdmap_put(i, o);
    pthread_mutex_unlock(&h_lock);
}

/* Move handle @from (to an object of this process's arena) to the exact value @to, which
 * must be free: an inherited file keeps its parent's handle value in the child (src/io,
 * docs/process.md). The flags go with it. -EBADF: @from is not open or names a region
 * object; -EEXIST: @to is taken; -EINVAL: @to is not a handle value this table can hold
 * (REMOTE_BASE and above are other processes' gifts). */
NSPA_HIDDEN int nspa__handle_move(nspa_obj_t from, nspa_obj_t to)
{
    if ((from & 3) || !from || ((from >> 2) - 1) >= H_DIR * H_CHUNK) return -EBADF;
    if ((to & 3) || !to || ((to >> 2) - 1) >= REMOTE_BASE) return -EINVAL;
    uint32_t i = (from >> 2) - 1, j = (to >> 2) - 1;
    if (i == j) return 0;
    pthread_mutex_lock(&h_lock);
    struct hent *e = hent_of(i);
    struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
    int r = !o || o->in_region ? -EBADF : h_chunk(j);
    struct hent *d = r ? NULL : hent_of(j);
    if (!r && atomic_load_explicit(&d->obj, memory_order_relaxed)) r = -EEXIST;
    if (!r) {
        nspa_slots_claim(&hs, j);                /* off the free list, or the indices below
                                                  * it become free ones */
        h_move_entry(e, i, d, j, o);
    }
    pthread_mutex_unlock(&h_lock);
    return r;
}

/* The next open handle at index *@i or above whose object has @type (its flags in
 * *@flags); *@i moves past it. 0 when there is none. Reads the table without the lock:
 * for the inheritance list of a spawn, a walk that another thread's closes may race. */
NSPA_HIDDEN nspa_obj_t nspa__handle_next(uint32_t *i, int type, uint32_t *flags)
{
    uint32_t top = h_high_water();
    for (; *i < top; (*i)++) {
        uint32_t fl = 0;
        struct sobj *o = h_at(*i, &fl);
        if (!o || __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) != type) continue;
        if (__atomic_load_n(__atomic_load_n(&h_rv.word, __ATOMIC_RELAXED), __ATOMIC_ACQUIRE) != __atomic_load_n(&h_rv.seen, __ATOMIC_RELAXED) &&
            h_revoked_slow(*i))
            continue;                          /* another process closed it */
        if (flags) *flags = fl;
        return (nspa_obj_t)((*i)++ + 1) << 2;
    }
    return 0;
}

/* The object at handle index @i of the table, or NULL (for the inheritance list). */
NSPA_HIDDEN struct sobj *h_at(uint32_t i, uint32_t *flags)
{
    struct hent *e = i < H_DIR * H_CHUNK ? hent_of(i) : NULL;
    struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_acquire) : NULL;
    if (o && flags) *flags = e->flags;
    return o;
}

/* The gift of ledger index @i (GIFT_MARK or GIFT_PARKED) came as handle @tmp to a local object (0: it
 * could not be taken): the object moves to index @i, whose ledger entry says GIFT_HELD
 * from now on, inheritable if its giver asked (NSPA__ACCESS_INHERIT in the entry's
 * access word); or the mark goes. No lock held (gift.c). */
NSPA_HIDDEN void h_place_gift(struct ns *ns, nspa_obj_t tmp, uint32_t i)
{
    uint32_t j = tmp ? (tmp >> 2) - 1 : UINT32_MAX;
    int ok = 0;
    reg_lock(ns);
    uint32_t *l = i >= REMOTE_BASE && i < LEDGER_DIR * LEDGER_CHUNK ? ledger_slot(ns, i, 0) : NULL;
    if (l && (*l == GIFT_MARK || *l == GIFT_PARKED)) {
        pthread_mutex_lock(&h_lock);
        struct hent *e = tmp ? hent_of(j) : NULL, *d = NULL;
        struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
        if (o && !o->in_region && !h_chunk(i)) d = hent_of(i);
        if (d && !atomic_load_explicit(&d->obj, memory_order_relaxed)) {
            if (i < h_hwm) h_unfree(i);
            h_move_entry(e, j, d, i, o);
            if (__atomic_load_n(ledger_access(ns, l), __ATOMIC_RELAXED) & NSPA__ACCESS_INHERIT)
                d->flags |= NSPA_HANDLE_INHERIT;
            if (i + 1 > h_top) h_top = i + 1;
            ok = 1;
        }
        pthread_mutex_unlock(&h_lock);
        jset32(ns, l, ok ? GIFT_HELD : 0);
    }
    reg_unlock(ns);
    if (tmp && !ok) nspa_close(tmp);
}

/* Every handle of this process to @from now names @to (an object grown into the region,
 * inherit.c): ledger entries written, @to's references taken, @from's given back.
 * Registry lock and @from's lock held. Returns how many. */
NSPA_HIDDEN uint32_t h_switch(struct sobj *from, struct sobj *to)
{
    struct ns *ns = nspa_ns;
    uint32_t n = 0;
    pthread_mutex_lock(&h_lock);
    uint32_t top = h_hwm > h_top ? h_hwm : h_top;
    for (uint32_t i = 0; i < top; i++) {
        struct hent *e = hent_of(i);
        if (!e || atomic_load_explicit(&e->obj, memory_order_relaxed) != from) continue;
        uint32_t *l = ledger_slot(ns, i, 1);
        if (!l) continue;                      /* no ledger room: it keeps the forwarder */
        ledger_set_access(ns, l, __atomic_load_n(&e->access, __ATOMIC_RELAXED));
        jset32(ns, l, (uint32_t)(to - ns->objs) + 1);
        jset32(ns, (uint32_t *)&to->refs, to->refs + 1);
        atomic_store_explicit(&e->obj, to, memory_order_release);
        atomic_fetch_sub(&from->refs, 1);
        n++;
    }
    pthread_mutex_unlock(&h_lock);
    return n;
}

NSPA_HIDDEN uint32_t h_high_water(void) { return __atomic_load_n(&h_hwm, __ATOMIC_ACQUIRE); }

NSPA_HIDDEN void h_after_fork_child(void)
{
    pthread_mutex_init(&h_lock, NULL);
}

/* A fork child's first call: its copy of the table holds references now. Named
 * objects go in its ledger (committed every 1024 handles: each prefix is consistent),
 * unnamed ones count a reference more in the shared arena. */
NSPA_HIDDEN int h_fork_refs(void)
{
    struct ns *ns = nspa_ns;
    pthread_mutex_lock(&h_lock);
    if (ns) reg_lock(ns);
    uint32_t top = h_hwm > h_top ? h_hwm : h_top;
    for (uint32_t i = 0; i < top; i++) {
        struct hent *e = hent_of(i);
        struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
        if (!o) continue;
        if (!o->in_region) {
            atomic_fetch_add(&o->refs, 1);
            uint32_t *l = ns && i >= REMOTE_BASE ? ledger_slot(ns, i, 1) : NULL;
            if (l) jset32(ns, l, GIFT_HELD);     /* a gift's index stays taken (gift.c) */
            continue;
        }
        uint32_t *l = ns ? ledger_slot(ns, i, 1) : NULL;
        if (!l || !o->type) {          /* no region or no room: the handle is closed */
            atomic_store_explicit(&e->obj, NULL, memory_order_relaxed);
            h_give(e, i);
            h_count--;
            continue;
        }
        ledger_set_access(ns, l, __atomic_load_n(&e->access, __ATOMIC_RELAXED));
        jset32(ns, l, (uint32_t)(o - ns->objs) + 1);
        jset32(ns, (uint32_t *)&o->refs, o->refs + 1);
        if ((i & 1023) == 1023) { reg_unlock(ns); reg_lock(ns); }
    }
    if (ns) reg_unlock(ns);
    pthread_mutex_unlock(&h_lock);
    return 0;
}

/* Process exit: close every handle. */
NSPA_HIDDEN void h_close_all(void)
{
    uint32_t top = h_hwm > h_top ? h_hwm : h_top;
    for (uint32_t i = 0; i < top; i++) {
        struct hent *e = hent_of(i);
        if (e && atomic_load_explicit(&e->obj, memory_order_relaxed)) {
            e->flags = 0;
            nspa_close((i + 1) << 2);
        }
    }
}

/* ---- the public calls on handles --------------------------------------------------- */

/* Handles another process closed (DUPLICATE_CLOSE_SOURCE with this process as the
 * source, inherit.c): their ledger entries say LEDGER_REVOKED and their references went
 * with the other process's copy; the table entries go now, without a reference given
 * back. A lookup that sees the revocation count move checks its own index's ledger
 * entry (h_revoked_slow): a revoked handle fails from the source's next use on. The
 * table catches up (h_revoke_run) at that lookup when the locks are free, else at the
 * next close or miss. */
static const uint32_t h_rv_none;
struct h_revoke h_rv = { &h_rv_none, 0 };

/* This process's slot is ns->proc now (UINT32_MAX: none, e.g. a fork child before its
 * first call, or after its exit work released the slot). */
NSPA_HIDDEN void h_revoke_attach(struct ns *ns)
{
    const uint32_t *w = ns && ns->proc != UINT32_MAX ? &ns->procs[ns->proc].revoked : &h_rv_none;
    __atomic_store_n(&h_rv.word, w, __ATOMIC_RELEASE);
}

/* Drop the revoked entries (both locks held). */
static void h_revoke_locked(struct ns *ns, struct ns_proc *p, uint32_t now)
{
    for (uint32_t c = 0; c < LEDGER_DIR; c++) {
        if (!p->ledger[c]) continue;
        uint32_t *chunk = ns->chunks + (size_t)(p->ledger[c] - 1) * LEDGER_CHUNK;
        for (uint32_t k = 0; k < LEDGER_CHUNK; k++) {
            if (chunk[k] != LEDGER_REVOKED) continue;
            uint32_t i = c * LEDGER_CHUNK + k;
            struct hent *e = i < H_DIR * H_CHUNK ? hent_of(i) : NULL;
            if (e && atomic_load_explicit(&e->obj, memory_order_relaxed)) {
                atomic_store_explicit(&e->obj, NULL, memory_order_release);
                e->flags = 0;
                h_give(e, i);
                h_count--;
            }
            jset32(ns, &chunk[k], 0);
        }
    }
    __atomic_store_n(&h_rv.seen, now, __ATOMIC_RELAXED);
}

/* The count moved: catch up. @wait = 0: only if both locks are free right now (the
 * lookup's path: its caller may hold either, or an object's lock; never waits). */
static void h_revoke_run(int wait)
{
    struct ns *ns = nspa_ns;
    const uint32_t *w = __atomic_load_n(&h_rv.word, __ATOMIC_ACQUIRE);
    if (!ns || w == &h_rv_none) return;
    uint32_t now = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if (now == __atomic_load_n(&h_rv.seen, __ATOMIC_RELAXED)) return;
    struct ns_proc *p = &ns->procs[ns->proc];
    if (wait) {
        reg_lock(ns);
        pthread_mutex_lock(&h_lock);
    } else {
        if (!reg_trylock(ns)) return;
        if (pthread_mutex_trylock(&h_lock)) {
            reg_unlock(ns);
            return;
        }
    }
    h_revoke_locked(ns, p, __atomic_load_n(w, __ATOMIC_ACQUIRE));
    pthread_mutex_unlock(&h_lock);
    reg_unlock(ns);
}

static void h_revoke_scan(void) { h_revoke_run(1); }

/* The lookup saw the count move: is index @i one of the handles revoked? Its ledger
 * entry says so (read without a lock, as h_lookup_remote does): the handle is gone from
 * this moment, whatever the table still says. Then the table catches up if it can
 * without waiting (otherwise the next close, miss or exit does). */
NSPA_HIDDEN int h_revoked_slow(uint32_t i)
{
    struct ns *ns = nspa_ns;
    if (!ns || __atomic_load_n(&h_rv.word, __ATOMIC_ACQUIRE) == &h_rv_none || i >= LEDGER_DIR * LEDGER_CHUNK)
        return 0;
    uint32_t c = __atomic_load_n(&ns->procs[ns->proc].ledger[i / LEDGER_CHUNK], __ATOMIC_ACQUIRE);
    int gone = c && c <= LEDGER_CHUNKS &&
               __atomic_load_n(&ns->chunks[(size_t)(c - 1) * LEDGER_CHUNK + i % LEDGER_CHUNK], __ATOMIC_ACQUIRE) ==
                   LEDGER_REVOKED;
    h_revoke_run(0);
    return gone;
}

NSPA_EXPORT int nspa_close(nspa_obj_t h)
{
    h_revoke_scan();
    for (;;) {
        struct sobj *o = h_lookup(h);
        if (!o) return -EBADF;
        struct ns *ns = h_in_ledger(o, (h >> 2) - 1) ? nspa_ns : NULL;
        if (ns) reg_lock(ns);
        int r = h_free(h, &o, ns != NULL);
        if (!r && o) obj_unref(o);
        if (ns) reg_unlock(ns);
        if (r != -EAGAIN) return r;
    }
}

NSPA_EXPORT int nspa_dup(nspa_obj_t h, nspa_obj_t *out)
{
    if (!out) return -EFAULT;
    for (;;) {
        struct sobj *o = h_lookup(h);
        if (!o) return -EBADF;
        nspa__test_point("dup_looked");
        struct ns *ns = o->in_region ? nspa_ns : NULL;
        if (ns) reg_lock(ns);
        struct sobj *now = ns ? h_lookup_locked(ns, h) : h_lookup(h);
        int r = -EBADF;
        if (now == o) {                /* still open: take a reference, then a handle */
            obj_ref(o);
            r = h_alloc(o, out);
            if (r) obj_unref(o);
        }
        if (ns) reg_unlock(ns);
        if (!now || now == o) return r;
        /* it grew into the region meanwhile: again, with the registry lock */
    }
}

NSPA_EXPORT int nspa_obj_type(nspa_obj_t h)
{
    struct sobj *o = h_lookup(h);
    if (o && __atomic_load_n(&o->type, __ATOMIC_ACQUIRE) == OBJ_FORWARD) o = obj_forward_target(o);
    return o ? o->type : -EBADF;
}

/* The NT access mask of handle @h (H_ACCESS_ALL unless the Win32/NT layer set one). */
NSPA_HIDDEN int nspa__handle_access(nspa_obj_t h, uint32_t *access)
{
    if ((h & 3) || !h || ((h >> 2) - 1) >= H_DIR * H_CHUNK || !h_lookup(h)) return -EBADF;
    *access = __atomic_load_n(&hent_of((h >> 2) - 1)->access, __ATOMIC_RELAXED);
    return 0;
}

NSPA_HIDDEN int nspa__handle_set_access(nspa_obj_t h, uint32_t access)
{
    if ((h & 3) || !h || ((h >> 2) - 1) >= H_DIR * H_CHUNK) return -EBADF;
    pthread_mutex_lock(&h_lock);
    uint32_t i = (h >> 2) - 1;
    struct hent *e = hent_of(i);
    struct sobj *o = e ? atomic_load_explicit(&e->obj, memory_order_relaxed) : NULL;
    int r = o ? 0 : -EBADF;
    if (!r) __atomic_store_n(&e->access, access, __ATOMIC_RELAXED);
    /* a handle with a ledger entry: the entry's copy too (another process's
     * DuplicateHandle with DUPLICATE_SAME_ACCESS reads it there) */
    struct ns *ns = nspa_ns;
    if (!r && ns && ns->proc != UINT32_MAX && __atomic_load_n(&o->in_region, __ATOMIC_RELAXED)) {
        uint32_t *l = ledger_slot(ns, i, 0);
        if (l) ledger_set_access(ns, l, access);
    }
    pthread_mutex_unlock(&h_lock);
    return r;
}

NSPA_EXPORT int nspa_handle_get_flags(nspa_obj_t h, uint32_t *flags)
{
    if (!flags) return -EFAULT;
    return h_flags(h, 0, 0, flags);
}

NSPA_EXPORT int nspa_handle_set_flags(nspa_obj_t h, uint32_t mask, uint32_t flags)
{
    if ((mask | flags) & ~(uint32_t)(NSPA_HANDLE_INHERIT | NSPA_HANDLE_PROTECT)) return -EINVAL;
    return h_flags(h, mask, flags, NULL);
}
