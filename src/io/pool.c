/*
 * Operation records: chunks of 1024, mapped as needed and never unmapped, on one
 * lock-free free list whose head is (tag << 32 | index + 1): the tag makes the
 * compare-and-swap immune to ABA. Allocating and freeing take no lock and make no
 * system call (except mapping a new chunk), so the engine thread frees records on its
 * completion path without allocating or locking.
 *
 * Each thread that issues keeps a few freed records of its own (CACHE, thread-local):
 * a thread that issues, completes and frees an operation per message would otherwise
 * move the list head's cache line between CPUs at every allocation and free (two
 * threads in a ping-pong: measured on the loopback bench). A thread's records go back
 * to the shared list when it ends (a thread-specific-data destructor, registered on
 * the issue path, never on a completion or a wait).
 */
#include <errno.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "io/io_internal.h"
#include "common/slots.h"

#define CHUNK_SHIFT 10u                  /* 1024 records a chunk */
#define CHUNK (1u << CHUNK_SHIFT)
#define DIR   4096u                      /* 4M operations in flight at most */

/* the records' directory is a slot directory (common/slots.h; its chunks made under
 * grow_lock); the free list is this file's own, lock-free */
static void *chunks[DIR];
static void op_slot_init(void *slot, uint32_t i) { ((struct io_op *)slot)->idx = i; }
static struct nspa_slots ops = {
    .dir = chunks, .ndir = DIR, .shift = CHUNK_SHIFT, .size = sizeof(struct io_op), .init = op_slot_init,
};
static _Atomic uint64_t free_head;        /* tag << 32 | (index + 1) */
static uint32_t nchunks;
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static inline struct io_op *op_at(uint32_t i) { return nspa_slots_at(&ops, i); }

#define CACHE 8
struct op_cache {
    struct io_op *op[CACHE];
    uint32_t n;
    int on;                              /* the destructor is registered for this thread */
};
static __thread struct op_cache cache;
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_ok;

static void push(struct io_op *op)
{
    uint64_t h = atomic_load_explicit(&free_head, memory_order_relaxed), nh;
    do {
        atomic_store_explicit(&op->free_next, h & 0xffffffffu, memory_order_relaxed);
        nh = ((h >> 32) + 1) << 32 | (op->idx + 1);
    } while (!atomic_compare_exchange_weak_explicit(&free_head, &h, nh, memory_order_release,
                                                    memory_order_relaxed));
}

/* the thread ends: its records back to the shared list; later frees of this thread
 * (other destructors completing its operations) go there directly */
static void cache_drain(void *unused)
{
    (void)unused;
    cache.on = 0;
    while (cache.n) push(cache.op[--cache.n]);
}

static void cache_key_init(void) { cache_key_ok = pthread_key_create(&cache_key, cache_drain) == 0; }

/* issue path: the thread's cache may be used once its destructor is registered
 * (pthread_setspecific may allocate: never on a completion or wait path) */
static void cache_on(void)
{
    pthread_once(&cache_once, cache_key_init);
    if (cache_key_ok && pthread_setspecific(cache_key, &cache) == 0) cache.on = 1;
}

static inline void op_reset(struct io_op *op)
{
    uint32_t idx = op->idx;
    memset(op, 0, offsetof(struct io_op, free_next));
    /* the buffers' vector (256 bytes) is written before it is read (every issue path
     * fills msg_iovlen entries): not reset */
    memset(&op->idx, 0, offsetof(struct io_op, iov) - offsetof(struct io_op, idx));
    memset(&op->addr, 0, sizeof(*op) - offsetof(struct io_op, addr));
    op->idx = idx;
}

static int grow(void)
{
    pthread_mutex_lock(&grow_lock);
    int r = 0;
    if (nchunks >= DIR || nspa_slots_chunk(&ops, nchunks * CHUNK)) {
        r = -ENOMEM;
    } else {
        struct io_op *c = op_at(nchunks * CHUNK);
        nchunks++;
        for (uint32_t i = CHUNK; i-- > 0;) push(&c[i]);
    }
    pthread_mutex_unlock(&grow_lock);
    return r;
}

NSPA_HIDDEN struct io_op *io_op_alloc(void)
{
    if (__builtin_expect(cache.n != 0, 1)) {
        struct io_op *op = cache.op[--cache.n];
        op_reset(op);
        return op;
    }
    if (!cache.on) cache_on();
    for (;;) {
        uint64_t h = atomic_load_explicit(&free_head, memory_order_acquire);
        while (h & 0xffffffffu) {
            struct io_op *op = op_at((uint32_t)(h & 0xffffffffu) - 1);
            uint64_t next = atomic_load_explicit(&op->free_next, memory_order_relaxed);
            uint64_t nh = ((h >> 32) + 1) << 32 | next;
            if (atomic_compare_exchange_weak_explicit(&free_head, &h, nh, memory_order_acquire,
                                                      memory_order_acquire)) {
                /* free_next may still be read by a racing pop (its CAS then fails):
                 * op_reset leaves it alone */
                op_reset(op);
                return op;
            }
        }
        if (grow()) return NULL;
    }
}

NSPA_HIDDEN void io_op_free(struct io_op *op)
{
    if (op->iov_ext) {                   /* more than IO_MAX_IOV buffers (wsa.c fill): only
                                          * such an operation's free calls free() */
        free(op->iov_ext);
        op->iov_ext = NULL;
    }
    if (cache.on && cache.n < CACHE) {
        cache.op[cache.n++] = op;
        return;
    }
    push(op);
}
