/*
 * Handles that cross processes: inheritance by a child (CreateProcess with
 * bInheritHandles) and handles put into another process of the namespace
 * (DuplicateHandle with a target or source process). docs/process.md.
 *
 * Both go through the ledgers of the region (types.h, struct ns_proc): a ledger maps a
 * handle index of a process to a region object and holds one reference to it. A ledger
 * entry with no table entry behind it is a handle the process has been given and not
 * yet used; the process puts it in its table at its first use (handles.c,
 * h_lookup_remote) or, for inherited handles, when it attaches (h_adopt_ledger). A
 * process that dies gives back every reference of its ledger (procs.c), used or not:
 * nothing given to a process can leak past it.
 *
 * INHERITANCE. Before the spawn, the parent takes a process slot for the child (the
 * handoff slot: pid = the parent's pid, handoff = 1) and writes into its ledger, at the
 * same indices, every inheritable handle to a region object, taking a reference for
 * each. The child finds the slot through NSPA_INHERIT=<slot>:<parent pid> and makes it
 * its own when it attaches (before main); its handles have the parent's values. After
 * the spawn the parent writes the child's pid into the slot (so that a child that dies
 * before it attaches is swept like any dead process); when the child has ended, the
 * parent's process watcher gives back a slot the child never took. The slot is found
 * by the child only if its parent is the one that prepared it (getppid()).
 *
 * Only region objects cross: named objects, unnamed ones created inheritable (Win32:
 * SECURITY_ATTRIBUTES.bInheritHandle), which the Win32 layer creates in the region from
 * the start, and unnamed objects of the process arena grown into the region when a
 * handle to them crosses (obj_promote, docs/sync.md "Growing an unnamed object").
 *
 * All of it runs under the registry lock (types.h, rule 6): creation, never a wait.
 */
#include <errno.h>
#include <unistd.h>
#include "sync/internal.h"

/* ---- growing an arena object into the region ----------------------------------------- */

/* Move unnamed object @a of the process arena into the region (registry lock held): a
 * region object gets its type, word, max and ext; every handle of this process to @a is
 * switched to it (with its ledger entry); @a becomes a forwarder (OBJ_FORWARD, its word
 * claimed for ever so that every fast path misses, and whoever locks it follows it: see
 * obj_lock_live, h_lookup). Handles of fork children that still name @a keep it alive,
 * with one reference of the region object for all of them.
 * Waiters queued on @a stay queued on the forwarder and are poked: each sees an object
 * of its wait turned into a forwarder, leaves every queue and starts its wait again on
 * the region object (wait.c, WAIT_RESTART), with what remains of its timeout; a grant
 * that came first stands.
 * A mutex owned by any thread of this process with a region record moves with its
 * owner: the entry of the owner's owned-mutex list that names @a is switched to the
 * region object. Refused (-EBUSY) when the owner has no region record (or its list
 * overflowed and does not name @a).
 * *@out: the region object. */
NSPA_HIDDEN int obj_promote(struct ns *ns, struct sobj *a, struct sobj **out)
{
    struct nspa_tls *me = self();
    if (!me) return -ENOMEM;
    /* a mutex in the region may have waiters in other processes: our reaper watches them */
    if (__atomic_load_n(&a->type, __ATOMIC_ACQUIRE) == NSPA_TYPE_MUTEX) reaper_ensure();
    obj_lock(a);
    int type = a->type;
    if (type == OBJ_FORWARD) {
        *out = obj_forward_target(a);
        obj_unlock(a);
        return 0;
    }
    uint64_t w = atomic_load_explicit(&a->word, memory_order_acquire);
    uint32_t otid = type == NSPA_TYPE_MUTEX ? mtx_owner(w) : 0;
    /* an owned mutex: its owner's record must be in the region (other processes watch
     * its liveness to abandon the mutex) and list @a (its slot is switched below) */
    struct thr *owner = !otid ? NULL : otid == me->tid ? me->t : thr_by_tid(otid);
    _Atomic uint64_t *slot = owner && in_region(owner) &&
                                     __atomic_load_n(&owner->proc, __ATOMIC_RELAXED) == ns->proc
                                 ? owned_slot(owner, a) : NULL;
    if (!type || a->in_region || (otid && !slot)) {
        obj_unlock(a);
        return type ? -EBUSY : -EBADF;
    }
    w = obj_claim(a);                              /* no fast path changes it from here */
    struct sobj *r = obj_region_new(ns, type, w & ~OBJ_CLAIMED, a->max, __atomic_load_n(&a->ext, __ATOMIC_RELAXED));
    if (!r) {
        obj_unclaim_if_idle(a);
        obj_unlock(a);
        return -ENOSPC;
    }
    if (slot) {
        /* the owner's owned-mutex list names @r from now on: one store into the entry
         * that names @a. The owner cannot be changing that entry (releasing @a takes
         * @a's lock, which we hold; its death is handled under the registry lock, held
         * too); its other entries are untouched. Its waiters in other processes will
         * watch its liveness, and this process's reaper the waiters (named mutexes'
         * machinery, docs/sync.md "Crash safety"). */
        atomic_store_explicit(slot, REF(r), memory_order_release);
    }
    jset32(ns, (uint32_t *)&r->refs, 0);           /* the handles count from here */
    h_switch(a, r);
    if (atomic_load(&a->refs)) jset32(ns, (uint32_t *)&r->refs, r->refs + 1);   /* the forwarder's */
    __atomic_store_n(&a->name, (uint32_t)(r - ns->objs) + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&a->type, OBJ_FORWARD, __ATOMIC_RELEASE);
    int left = atomic_load(&a->refs) != 0;
    /* the waiters move themselves (their entries are theirs to unlink) */
    for (uint64_t e = a->q_head; e; e = E(e)->next) waiter_poke(went_thr(E(e)));
    obj_unlock(a);
    /* no handle of the fork family left on the record: the forwarder is only for stale
     * lookups now, and stays (a record is never unmapped; 128 bytes per grown object) */
    (void)left;
    if (!r->refs) obj_region_drop(r);              /* every handle was closed meanwhile */
    *out = r;
    return r->type ? 0 : -EBADF;
}

/* Files, sockets, pipes and completion ports name records of this process (src/io):
 * they never grow into the region. Inheritance passes files, sockets and pipes with
 * their descriptors (src/io/inherit.c); ports are not inherited (as on NT). */
static int local_only(const struct sobj *o)
{
    return o->type == NSPA_TYPE_FILE || o->type == NSPA_TYPE_IOCP;
}

/* the attached namespace, or NULL */
static struct ns *attached(void)
{
    struct ns *ns = ns_get();
    return ns && ns->proc != UINT32_MAX ? ns : NULL;
}

NSPA_HIDDEN int nspa__handoff_prepare(uint32_t *slot_out, int inherit)
{
    struct ns *ns = attached();
    if (!ns) return ns_error();
    reg_lock(ns);
    uint32_t s = proc_take(ns);
    if (s == UINT32_MAX) {
        ns_sweep_dead(ns);
        s = proc_take(ns);
    }
    if (s == UINT32_MAX) {
        reg_unlock(ns);
        return -EMFILE;
    }
    struct ns_proc *p = &ns->procs[s];
    jset32(ns, &p->pid, (uint32_t)getpid());
    jset64(ns, &p->start_time, ns->procs[ns->proc].start_time);
    jset64(ns, &p->family, 0);
    jset32(ns, &p->next_free, 0);
    jset32(ns, &p->nthreads, 0);
    jset32(ns, &p->any_thread, 0);
    jset32(ns, &p->handoff, 1);
    for (uint32_t c = 0; c < LEDGER_DIR; c++) jset32(ns, &p->ledger[c], 0);
    uint32_t top = inherit ? h_high_water() : 0;
    int r = 0;
    for (uint32_t i = 0; i < top && i < LEDGER_DIR * LEDGER_CHUNK; i++) {
        uint32_t flags = 0;
        struct sobj *o = h_at(i, &flags);
        if (!o || !(flags & NSPA_HANDLE_INHERIT)) continue;
        if (o->type == OBJ_FORWARD) o = obj_forward_target(o);
        else if (local_only(o)) continue;                 /* files: src/io passes them */
        else if (!o->in_region && obj_promote(ns, o, &o)) continue;   /* owned by another thread: not inherited */
        if (!o->type) continue;
        uint32_t *l = ledger_slot_of(ns, s, i, 1);
        if (!l) {
            r = -ENOSPC;
            break;
        }
        /* the child's handle has the parent's access (as NT's inheritance) */
        ledger_set_access(ns, l, __atomic_load_n(&hent_of(i)->access, __ATOMIC_RELAXED));
        jset32(ns, l, (uint32_t)(o - ns->objs) + 1);
        obj_ref(o);
        if ((i & 1023) == 1023) { reg_unlock(ns); reg_lock(ns); }
    }
    if (r) proc_release(ns, s);
    reg_unlock(ns);
    if (!r) *slot_out = s;
    return r;
}

NSPA_HIDDEN void nspa__handoff_commit(uint32_t slot, int32_t child)
{
    struct ns *ns = nspa_ns;
    if (!ns || slot >= MAX_PROCS) return;
    uint64_t st = nspa_task_start_time(child, 0);
    reg_lock(ns);
    struct ns_proc *p = &ns->procs[slot];
    if (p->handoff && p->pid == (uint32_t)getpid()) {
        jset32(ns, &p->pid, (uint32_t)child);
        jset64(ns, &p->start_time, st);
    }
    reg_unlock(ns);
}

NSPA_HIDDEN void nspa__handoff_cancel(uint32_t slot)
{
    struct ns *ns = nspa_ns;
    if (!ns || slot >= MAX_PROCS) return;
    reg_lock(ns);
    if (ns->procs[slot].handoff && ns->procs[slot].pid == (uint32_t)getpid()) proc_release(ns, slot);
    reg_unlock(ns);
}

NSPA_HIDDEN void nspa__handoff_reap(uint32_t slot, int32_t child)
{
    struct ns *ns = nspa_ns;
    if (!ns || slot >= MAX_PROCS) return;
    reg_lock(ns);
    struct ns_proc *p = &ns->procs[slot];
    if (p->handoff && p->pid == (uint32_t)child) proc_release(ns, slot);   /* it never attached */
    reg_unlock(ns);
    gift_unpark_all((uint32_t)child);      /* files parked for it that it never fetched */
}

/* ---- DuplicateHandle across processes --------------------------------------------- */

/* Put a handle to @h's object into process @pid, with NT access mask @access (the
 * caller's choice: the one asked for, or @h's for DUPLICATE_SAME_ACCESS): *@remote gets
 * its value there; the mask is enforced there as for a handle made there. */
NSPA_HIDDEN int nspa__dup_to_process(nspa_obj_t h, int32_t pid, uint32_t access, nspa_obj_t *remote)
{
    struct ns *ns = attached();
    if (!ns) return ns_error();
    /* a first look without the lock installs a handle given to us and not used yet */
    struct sobj *o = h_lookup(h);
    if (!o) return -EBADF;
    nspa__test_point("dup_to_process_looked");
    reg_lock(ns);
    int r = -ESRCH;
    uint32_t s = proc_slot_of_pid(ns, (uint32_t)pid);
    /* a child that has not attached yet (CREATE_SUSPENDED): its parent's slot for it,
     * which it adopts when it attaches, from REMOTE_BASE on as for a running process */
    if (s == UINT32_MAX) s = proc_handoff_of_pid(ns, (uint32_t)pid);
    /* the object again, under the lock (closed meanwhile: -EBADF; grown into the
     * region meanwhile: the region object) */
    o = h_lookup_locked(ns, h);
    if (!o || !o->type) {
        r = -EBADF;
    } else if (local_only(o)) {
        r = -EOPNOTSUPP;                         /* a file descriptor cannot go this way */
    } else if (s != UINT32_MAX && !o->in_region && (r = obj_promote(ns, o, &o)) != 0) {
        r = r == -EBUSY ? -EOPNOTSUPP : r;       /* a mutex another thread owns (docs/process.md) */
    } else if (s != UINT32_MAX) {
        uint32_t i = 0, *l = remote_free_index(ns, s, &i);
        r = -EMFILE;
        if (l) {
            ledger_set_access(ns, l, access);
            jset32(ns, l, (uint32_t)(o - ns->objs) + 1);
            obj_ref(o);
            *remote = (i + 1) << 2;
            r = 0;
        }
    }
    reg_unlock(ns);
    return r;
}

/* A handle here to the object that handle @remote of process @pid names. @close: the
 * handle there is closed (DUPLICATE_CLOSE_SOURCE): its reference moves to our copy, its
 * ledger entry says LEDGER_REVOKED and its revocation count moves: its next lookup of
 * that value fails (h_revoked_slow), and its table drops the entry then or at its next
 * close or miss (handles.c). *@access (if not NULL) gets the access mask of the handle
 * there (DUPLICATE_SAME_ACCESS); our copy has every right until the caller sets one. */
NSPA_HIDDEN int nspa__dup_from_process(int32_t pid, nspa_obj_t remote, nspa_obj_t *out, int close, uint32_t *access)
{
    struct ns *ns = attached();
    if (!ns) return ns_error();
    if ((remote & 3) || !remote) return -EBADF;
    uint32_t i = (remote >> 2) - 1;
    reg_lock(ns);
    int r = -ESRCH;
    uint32_t s = proc_slot_of_pid(ns, (uint32_t)pid);
    /* a process that has ended has no handles, though no sweep took its slot yet */
    if (s != UINT32_MAX && proc_gone(ns, s, (uint32_t)pid)) s = UINT32_MAX;
    if (s != UINT32_MAX) {
        uint32_t *l = i < LEDGER_DIR * LEDGER_CHUNK ? ledger_slot_of(ns, s, i, 0) : NULL;
        uint32_t v = l ? *l : 0;
        /* not in its ledger: no handle, or one to an object of its own arena; a file,
         * socket or pipe it was given (gift.c): a descriptor of its own, out of reach */
        r = v == GIFT_HELD || v == GIFT_MARK || v == GIFT_PARKED ? -EOPNOTSUPP : -EBADF;
        if (v && v <= MAX_OBJECTS && ns->objs[v - 1].type) {
            struct sobj *o = &ns->objs[v - 1];
            if (access) *access = __atomic_load_n(ledger_access(ns, l), __ATOMIC_RELAXED) & ~NSPA__ACCESS_INHERIT;
            if (!close) obj_ref(o);
            r = h_alloc(o, out);
            if (r && !close) obj_unref(o);
            if (!r && close) {
                jset32(ns, l, LEDGER_REVOKED);
                jset32(ns, &ns->procs[s].revoked, ns->procs[s].revoked + 1);
            }
        }
    }
    reg_unlock(ns);
    return r;
}
