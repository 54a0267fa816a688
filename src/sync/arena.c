/*
 * The process arena: where unnamed objects (and, without a namespace region, thread
 * records) live.
 *
 * One anonymous MAP_SHARED|MAP_NORESERVE mapping per process, reserved at first use and
 * touched as it fills. Anonymous and shared means: no file, no name, nothing another
 * process can open — but a fork() child inherits it at the same address, so a child's
 * handles still reach its parent's unnamed objects, as they always did (docs/sync.md,
 * "Fork"). After exec the mapping is gone: handles do not survive exec.
 *
 * Memory is type-stable: a freed object's record goes back to a free list of records of
 * its kind and is never unmapped, so a stale handle can at worst name another object,
 * never fault. The free lists are under one robust lock in the arena header: creation
 * and destruction only, never a wait or wake path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include "sync/internal.h"

#define ARENA_SIZE      (64ull << 30)     /* address space reserved, not memory */
#define ARENA_MAGIC     0x4e53504141524e31ull

struct arena_hdr {
    uint64_t magic;
    uint64_t family;                 /* random id of the fork family */
    pthread_mutex_t lock;            /* robust, process-shared: fork children share it */
    uint64_t bump;                   /* offset of the first never-used byte */
    uint64_t obj_free, thr_free;     /* free lists (addresses) */
    uint64_t nobjs, nthrs;
};

static char *arena_base;
static uint64_t arena_size;          /* what could be reserved: ARENA_SIZE or less */
static struct arena_hdr *arena;
static pthread_mutex_t arena_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int forked;

NSPA_HIDDEN int arena_init(void)
{
    if (__atomic_load_n(&arena, __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&arena_init_lock);
    int r = 0;
    if (!arena) {
        /* less address space where less is to be had (RLIMIT_AS, valgrind) */
        void *p = MAP_FAILED;
        for (arena_size = ARENA_SIZE; p == MAP_FAILED && arena_size >= (64ull << 20); arena_size /= 4)
            p = mmap(NULL, arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) arena_size *= 4;     /* undo the loop's last step */
        if (p == MAP_FAILED) {
            r = -ENOMEM;
        } else {
            struct arena_hdr *h = p;
            h->magic = ARENA_MAGIC;
            if (getrandom(&h->family, sizeof(h->family), GRND_NONBLOCK) != sizeof(h->family))
                h->family = ((uint64_t)getpid() << 32) ^ nspa_clock_ns(CLOCK_MONOTONIC);
            h->family |= 1;          /* never 0 */
            sync_mutex_init(&h->lock, 1);
            h->bump = 4096;
            arena_base = p;
            __atomic_store_n(&arena, h, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&arena_init_lock);
    return r;
}

static void alock(void)
{
    int r = pthread_mutex_lock(&arena->lock);
    /* a fork child died inside: the free lists are only ever changed by single
     * stores of a fully linked record, so they are consistent */
    if (r == EOWNERDEAD) pthread_mutex_consistent(&arena->lock);
}

static void aunlock(void) { pthread_mutex_unlock(&arena->lock); }

enum { A_OBJ, A_THR };

/* Pop a record of kind @k from its free list, or carve a new one. NULL: exhausted. */
static void *arena_take(int k, size_t size)
{
    if (arena_init()) return NULL;
    uint64_t *head = k == A_OBJ ? &arena->obj_free : &arena->thr_free;
    uint64_t *count = k == A_OBJ ? &arena->nobjs : &arena->nthrs;
    alock();
    void *p = NULL;
    if (*head) {
        p = (void *)(uintptr_t)*head;
        *head = *(uint64_t *)p;
    } else if (arena->bump + size <= arena_size) {
        p = arena_base + arena->bump;
        arena->bump += size;
    }
    if (p) (*count)++;
    aunlock();
    return p;
}

static void arena_give(int k, void *p, size_t size)
{
    uint64_t *head = k == A_OBJ ? &arena->obj_free : &arena->thr_free;
    uint64_t *count = k == A_OBJ ? &arena->nobjs : &arena->nthrs;
    alock();
    memset(p, 0, size);
    *(uint64_t *)p = *head;
    *head = (uint64_t)(uintptr_t)p;
    (*count)--;
    aunlock();
}

/* Object records keep their lock initialised for life (a stale locker may be queued on
 * it when the object is freed): the free list links through q_tail, and only a record
 * carved anew gets its lock initialised. */
NSPA_HIDDEN struct sobj *arena_obj_alloc(void)
{
    if (arena_init()) return NULL;
    alock();
    struct sobj *o = NULL;
    if (arena->obj_free) {
        o = (struct sobj *)(uintptr_t)arena->obj_free;
        arena->obj_free = o->q_tail;
        o->q_tail = 0;
    } else if (arena->bump + sizeof(struct sobj) <= arena_size) {
        o = (struct sobj *)(void *)(arena_base + arena->bump);
        arena->bump += sizeof(struct sobj);
        sync_mutex_init(&o->lock, 1);
    }
    if (o) arena->nobjs++;
    aunlock();
    return o;
}

NSPA_HIDDEN void arena_obj_free(struct sobj *o)
{
    __atomic_store_n(&o->type, 0, __ATOMIC_RELEASE);
    alock();
    o->q_tail = arena->obj_free;
    arena->obj_free = (uint64_t)(uintptr_t)o;
    arena->nobjs--;
    aunlock();
}

NSPA_HIDDEN struct thr *arena_thr_alloc(void)
{
    struct thr *t = arena_take(A_THR, sizeof(struct thr));
    if (t) memset(t, 0, sizeof(*t));
    return t;
}

NSPA_HIDDEN void arena_thr_free(struct thr *t)
{
    arena_give(A_THR, t, sizeof(*t));
}

NSPA_HIDDEN uint64_t arena_family(void)
{
    return arena_init() ? 0 : arena->family;
}

NSPA_HIDDEN int arena_has_forked(void) { return __atomic_load_n(&forked, __ATOMIC_ACQUIRE); }

/* before fork (procs.c): from now on this family's waits sleep on shared futexes */
NSPA_HIDDEN void arena_mark_forked(void) { __atomic_store_n(&forked, 1, __ATOMIC_RELEASE); }

/* the child: same family (it shares the arena), same objects */
NSPA_HIDDEN void arena_after_fork_child(void)
{
    pthread_mutex_init(&arena_init_lock, NULL);
}
