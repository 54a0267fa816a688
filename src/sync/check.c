/* nspa_check_namespace: the invariants of the region, checked (diagnostics; allocates). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "sync/internal.h"

#define CHECKV(cond, ...) do { if (!(cond)) { if (bad++ < 10) { \
    fprintf(stderr, "nspa check: " __VA_ARGS__); fputc('\n', stderr); } } } while (0)

/* One object's queue: linked both ways, every entry names it and belongs to a wait. */
static int check_queue(struct sobj *o, uint32_t i)
{
    int bad = 0;
    uint64_t me = REF(o), prev = 0;
    uint32_t n = 0, nall = 0;
    for (uint64_t r = o->q_head; r && n < MAX_THREADS * WAIT_SLOTS; r = E(r)->next, n++) {
        struct went *e = E(r);
        struct thr *t = went_thr(e);
        CHECKV(e->prev == prev, "object %u: queue back link broken", i);
        CHECKV(e->obj == me, "object %u: an entry names another object", i);
        CHECKV(t->tid && t->kind != WAIT_NONE, "object %u: entry of a thread not waiting", i);
        if (t->kind == WAIT_ALL && e->idx < t->count) nall++;
        prev = r;
    }
    CHECKV(o->q_tail == prev, "object %u: queue tail wrong", i);
    CHECKV(o->nall == nall, "object %u: %u wait-all entries counted, %u queued", i, o->nall, nall);
    uint64_t w = atomic_load(&o->word);
    int big = o->type == NSPA_TYPE_MUTEX && ((w >> MTX_CNT_SHIFT) & MTX_CNT_MASK) == MTX_CNT_BIG;
    CHECKV(!(w & OBJ_CLAIMED) || o->q_head || big, "object %u (type %u, word %#llx): claimed with no waiters", i,
           o->type, (unsigned long long)w);
    CHECKV(!o->intent.waiter, "object %u: a grant left half done", i);
    if (o->type == NSPA_TYPE_SEM)
        CHECKV((uint32_t)w <= o->max, "semaphore %u: count %u > max %u", i, (uint32_t)w, o->max);
    return bad;
}

NSPA_EXPORT int nspa_check_namespace(void)
{
    struct ns *ns = ns_get();
    if (!ns) return 0;                 /* no region: nothing shared to check */
    int bad = 0;
    reg_lock(ns);
    struct ns_header *h = ns->hdr;
    uint32_t *seen = calloc((size_t)h->obj_hwm + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < h->obj_hwm; i++) {
        struct sobj *o = &ns->objs[i];
        if (!o->type) continue;
        obj_lock(o);
        bad += check_queue(o, i);
        obj_unlock(o);
    }
    for (uint32_t p = 0; p < h->proc_hwm && seen; p++) {
        struct ns_proc *pr = &ns->procs[p];
        if (!pr->pid) continue;
        for (uint32_t c = 0; c < LEDGER_DIR; c++) {
            if (!pr->ledger[c]) continue;
            uint32_t *chunk = ns->chunks + (size_t)(pr->ledger[c] - 1) * LEDGER_CHUNK;
            for (uint32_t k = 0; k < LEDGER_CHUNK; k++) {
                uint32_t v = chunk[k];
                if (!v || v > MAX_OBJECTS) continue;   /* not objects (gift.c, LEDGER_REVOKED) */
                CHECKV(v - 1 < h->obj_hwm && ns->objs[v - 1].type, "process %u: handle names a free object", p);
                if (v - 1 < h->obj_hwm) seen[v - 1]++;
            }
        }
    }
    for (uint32_t i = 0; i < h->obj_hwm && seen; i++) {
        struct sobj *o = &ns->objs[i];
        if (!o->type) continue;
        CHECKV(o->refs == seen[i], "object %u: %u references, %u handles", i, o->refs, seen[i]);
    }
    free(seen);
    reg_unlock(ns);
    return bad ? -EUCLEAN : 0;
}

NSPA_EXPORT int nspa_namespace_stats(struct nspa_ns_stats *st)
{
    if (!st) return -EFAULT;
    struct ns *ns = ns_get();
    if (!ns) return ns_error();
    struct ns_header *h = ns->hdr;
    st->lock_recoveries = atomic_load(&h->obj_recoveries);
    st->registry_recoveries = atomic_load(&h->reg_recoveries);
    reg_lock(ns);
    uint32_t procs = 0;
    for (uint32_t i = 0; i < h->proc_hwm; i++) procs += ns->procs[i].pid != 0;
    st->processes = procs;
    st->threads = h->nthreads;
    st->objects = h->nobjs;
    reg_unlock(ns);
    return 0;
}
