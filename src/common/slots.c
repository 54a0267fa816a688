/* Slot directories (slots.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "common/slots.h"

static inline uint32_t *link_of(const struct nspa_slots *s, uint32_t i)
{
    return (uint32_t *)((char *)nspa_slots_at(s, i) + s->link);
}

/* The link is read and written with relaxed atomics: a user may share its word with a
 * field that readers without the lock look at (the handle table's access mask). */
static inline uint32_t link_get(const struct nspa_slots *s, uint32_t i) { return __atomic_load_n(link_of(s, i), __ATOMIC_RELAXED); }
static inline void link_set(const struct nspa_slots *s, uint32_t i, uint32_t v) { __atomic_store_n(link_of(s, i), v, __ATOMIC_RELAXED); }

NSPA_HIDDEN int nspa_slots_chunk(struct nspa_slots *s, uint32_t i)
{
    uint32_t c = i >> s->shift;
    if (c >= s->ndir) return -ENOSPC;
    if (s->dir[c]) return 0;
    size_t len = (size_t)s->size << s->shift;
    char *p;
    if (s->heap) {
        p = calloc(1, len);
        if (!p) return -ENOMEM;
    } else {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return -ENOMEM;
    }
    if (s->init)
        for (uint32_t k = 0; k < (1u << s->shift); k++) s->init(p + (size_t)k * s->size, (c << s->shift) + k);
    __atomic_store_n(&s->dir[c], p, __ATOMIC_RELEASE);
    return 0;
}

NSPA_HIDDEN int nspa_slots_take(struct nspa_slots *s, uint32_t *i)
{
    if (s->free_head) {
        *i = s->free_head - 1;
        s->free_head = link_get(s, *i);
        link_set(s, *i, 0);
        return 0;
    }
    for (;;) {
        uint32_t k = s->hwm;
        if (k >= nspa_slots_cap(s)) return -ENOSPC;
        int r = nspa_slots_chunk(s, k);
        if (r) return r;
        __atomic_store_n(&s->hwm, k + 1, __ATOMIC_RELEASE);
        if (!s->busy || !s->busy(nspa_slots_at(s, k))) {
            *i = k;
            return 0;
        }
    }
}

NSPA_HIDDEN void nspa_slots_give(struct nspa_slots *s, uint32_t i)
{
    link_set(s, i, s->free_head);
    s->free_head = i + 1;
}

NSPA_HIDDEN void nspa_slots_claim(struct nspa_slots *s, uint32_t i)
{
    if (i < s->hwm) {
        for (uint32_t *pp = &s->free_head; *pp; pp = link_of(s, *pp - 1))   /* under the user's lock */
            if (*pp == i + 1) {
                __atomic_store_n(pp, link_get(s, i), __ATOMIC_RELAXED);
                link_set(s, i, 0);
                break;
            }
    } else {
        for (uint32_t k = s->hwm; k < i && !nspa_slots_chunk(s, k); k++)
            if (!s->busy || !s->busy(nspa_slots_at(s, k))) nspa_slots_give(s, k);
        __atomic_store_n(&s->hwm, i + 1, __ATOMIC_RELEASE);
    }
    /* the link of a slot that was not on the list is left alone: a user may keep
     * something else in that word while the slot is in use (the handle table's access
     * mask, set before an inherited handle's index is claimed) */
}
