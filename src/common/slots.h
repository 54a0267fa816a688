/*
 * Slot directories: a table of fixed-size records indexed by a small integer, for the
 * handle table (src/sync/handles.c), the file/socket/port records (src/io/objects.c)
 * and the windows (src/msg/window.c).
 *
 * The table is a directory of chunks of 2^shift slots, each chunk made on first use
 * (mmap, or calloc where leak checkers must see the pointers a slot keeps) and never
 * given back: records are type-stable, so a reader without a lock reads a record that
 * is free or reused, never unmapped memory (the users check a generation or the
 * object). Readers index with nspa_slots_at, a lock-free acquire load of the chunk
 * pointer. Free slots form a list linked through a uint32_t in the slot (index + 1,
 * 0 ends it), below the high-water mark of slots ever handed out.
 *
 * Writers (take, give, claim, chunk) run under the user's own lock, which is never on
 * a wait or wake path; they never abort: a full table is -ENOSPC, a chunk that cannot
 * be made -ENOMEM, and the table is unchanged then.
 */
#ifndef NSPA_COMMON_SLOTS_H
#define NSPA_COMMON_SLOTS_H
#include <stddef.h>
#include <stdint.h>
#include "common/export.h"

struct nspa_slots {
    void **dir;                  /* ndir chunk pointers (the user's static array) */
    uint32_t ndir, shift;        /* 1 << shift slots a chunk */
    uint32_t size, link;         /* bytes a slot; offset of its uint32_t free-list link */
    int heap;                    /* chunks from calloc: leak checkers scan them */
    void (*init)(void *slot, uint32_t i);   /* once a slot, when its chunk is made (or NULL) */
    int (*busy)(const void *slot);          /* a slot above the mark already in use (or NULL) */
    uint32_t hwm, free_head;     /* slots ever handed out; the free list (index + 1) */
};

/* The slot of index @i, or NULL when its chunk is not made (or @i is out of range). */
static inline void *nspa_slots_at(const struct nspa_slots *s, uint32_t i)
{
    if (__builtin_expect((i >> s->shift) >= s->ndir, 0)) return NULL;
    char *c = __atomic_load_n(&s->dir[i >> s->shift], __ATOMIC_ACQUIRE);
    return c ? c + (size_t)(i & ((1u << s->shift) - 1)) * s->size : NULL;
}

static inline uint32_t nspa_slots_cap(const struct nspa_slots *s) { return s->ndir << s->shift; }

/* The high-water mark (a lock-free read: slots at or above it were never handed out). */
static inline uint32_t nspa_slots_hwm(const struct nspa_slots *s) { return __atomic_load_n(&s->hwm, __ATOMIC_ACQUIRE); }

/* Make the chunk that holds index @i: 0, -ENOMEM, -ENOSPC (out of range). */
NSPA_HIDDEN int nspa_slots_chunk(struct nspa_slots *s, uint32_t i);
/* A free slot: from the free list, else the mark's (skipping those @busy says are in
 * use). 0 and *@i, or -ENOSPC (full) / -ENOMEM. */
NSPA_HIDDEN int nspa_slots_take(struct nspa_slots *s, uint32_t *i);
/* Put slot @i on the free list. */
NSPA_HIDDEN void nspa_slots_give(struct nspa_slots *s, uint32_t i);
/* Claim the exact index @i, whose chunk is made: off the free list below the mark (its
 * link then cleared); above it, the mark moves past @i and the slots skipped go on the
 * free list (those @busy says are in use excepted; the walk stops at a chunk that
 * cannot be made). The link of a slot that was not on the list is not touched. */
NSPA_HIDDEN void nspa_slots_claim(struct nspa_slots *s, uint32_t i);
#endif
