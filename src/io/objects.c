/*
 * File, socket and port records, and their two sync-core kinds.
 *
 * A handle (NSPA_TYPE_FILE or NSPA_TYPE_IOCP) is a sync-core object whose max is the
 * index of its record here and whose ext is the record's generation. Records are
 * type-stable (chunks never unmapped, reused through a free list), so a stale handle
 * reads a record that is free or reused, never unmapped memory: a reference is taken
 * by incrementing a nonzero count and then checking the generation.
 *
 * Lifetime: the handle's object holds one reference, dropped when its last handle
 * closes (the kind's `closed` hook: pending operations are cancelled, the fd closed);
 * every operation in flight holds one, so the record outlives its completions.
 *
 * The file kind is a manual event (set when an operation issued without an event
 * completes, reset when one is issued), so that a wait on the file handle works as on
 * NT. The port kind is in iocp.c.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "common/slots.h"

#define FCHUNK_SHIFT 8u                  /* 256 records a chunk */
#define FDIR   16384u                    /* 4M records */

/* a slot directory (common/slots.h) under flock; each record's lock is made with its chunk */
static void *fchunks[FDIR];
static void file_slot_init(void *slot, uint32_t i)
{
    struct io_file *f = slot;
    f->slot = i;
    nspa_pi_mutex_init(&f->lock);
}
static struct nspa_slots fs = {
    .dir = fchunks, .ndir = FDIR, .shift = FCHUNK_SHIFT, .size = sizeof(struct io_file),
    .link = offsetof(struct io_file, free_next), .init = file_slot_init,
};
static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;

static inline struct io_file *slot_at(uint32_t i) { return nspa_slots_at(&fs, i); }

#define FILE_SIGNALED 1ull

static int file_signaled(const struct sobj *o, uint64_t w, uint32_t owner) { return (w & FILE_SIGNALED) != 0; }
static int file_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    *nw = w;
    return 0;
}

NSPA_HIDDEN void io_file_closed_hook(struct sobj *o)
{
    uint32_t slot, gen;
    nspa__obj_priv(o, &slot, &gen);
    struct io_file *f = slot_at(slot);
    if (!f || f->gen != gen) return;
    if (f->is_port) io_port_closed(f);
    if (!f->is_port && !f->is_socket) io_share_release(f);   /* NT's cleanup: with the last handle */
    pthread_mutex_lock(&f->lock);
    f->closing = 1;
    f->obj = NULL;
    pthread_mutex_unlock(&f->lock);
    if (!f->is_port) io_cancel(f, NULL, 0);   /* every pending op ends, aborted */
    io_file_put(f);
}

static const struct sync_kind k_file = { file_signaled, file_consume, io_file_closed_hook, 0 };

/* The fd map's entry of a file object (src/sync/fdmap.c): its fd + 1 and its packed
 * description; 0 for what other processes cannot take (a standard handle's stream is
 * not ours: the fd is shared with the process's own stdio). */
static uint64_t fdmap_entry(const struct sobj *o)
{
    uint32_t slot, gen;
    nspa__obj_priv(o, &slot, &gen);
    struct io_file *f = slot_at(slot);
    if (!f || f->gen != gen || f->is_port || f->is_std || f->fd < 0) return 0;
    return (uint64_t)io_pack_desc(f) << 32 | (uint32_t)(f->fd + 1);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init(void)
{
    nspa__set_fdmap_hook(fdmap_entry);
    sync_kind_register(NSPA_TYPE_FILE, &k_file);
    sync_kind_register(NSPA_TYPE_IOCP, io_port_kind());
}
NSPA_HIDDEN void io_init_once(void) { pthread_once(&once, init); }

static struct io_file *slot_alloc(void)
{
    pthread_mutex_lock(&flock);
    uint32_t i;
    struct io_file *f = nspa_slots_take(&fs, &i) ? NULL : slot_at(i);
    pthread_mutex_unlock(&flock);
    return f;
}

static void slot_release(struct io_file *f)
{
    pthread_mutex_lock(&flock);
    nspa_slots_give(&fs, f->slot);
    pthread_mutex_unlock(&flock);
}

NSPA_HIDDEN int io_file_new(int is_port, int fd, struct io_file **out, nspa_obj_t *h)
{
    io_init_once();
    struct io_file *f = slot_alloc();
    if (!f) {
        if (fd >= 0) close(fd);
        return -ENOMEM;
    }
    /* reset everything but the lock, the count, the slot and the generation; under
     * the lock, because the epoll engine may still look at the record for an event of
     * the socket it held before */
    pthread_mutex_lock(&f->lock);
    uint32_t gen = f->gen + 1, slot = f->slot;
    memset(&f->gen, 0, sizeof(*f) - offsetof(struct io_file, gen));
    f->gen = gen;
    f->slot = slot;
    f->fd = fd;
    f->is_port = (uint8_t)is_port;
    atomic_store_explicit(&f->watch, 0, memory_order_relaxed);
    pthread_mutex_unlock(&f->lock);
    atomic_store_explicit(&f->refs, 1, memory_order_release);
    int r = nspa__obj_create(is_port ? NSPA_TYPE_IOCP : NSPA_TYPE_FILE, 0, slot, gen, h);
    if (r) {
        atomic_store(&f->refs, 0);
        pthread_mutex_lock(&f->lock);
        f->fd = -1;
        pthread_mutex_unlock(&f->lock);
        if (fd >= 0) close(fd);
        slot_release(f);
        return r;
    }
    f->obj = nspa__obj_lookup(*h, is_port ? NSPA_TYPE_IOCP : NSPA_TYPE_FILE);
    *out = f;
    return 0;
}

static struct io_file *get_typed(nspa_obj_t h, int type)
{
    struct sobj *o = nspa__obj_lookup(h, type);
    if (!o) return NULL;
    uint32_t slot, gen;
    nspa__obj_priv(o, &slot, &gen);
    struct io_file *f = slot_at(slot);
    return f && io_file_tryref(f, gen) ? f : NULL;
}

/* A reference to record @f if it is still generation @gen and not closing: the count
 * is incremented only while nonzero (a free record stays free). */
NSPA_HIDDEN int io_file_tryref(struct io_file *f, uint32_t gen)
{
    uint32_t r = atomic_load_explicit(&f->refs, memory_order_acquire);
    do {
        if (!r) return 0;
    } while (!atomic_compare_exchange_weak_explicit(&f->refs, &r, r + 1, memory_order_acq_rel,
                                                    memory_order_acquire));
    if (f->gen != gen || f->closing) {
        io_file_put(f);
        return 0;
    }
    return 1;
}

NSPA_HIDDEN struct io_file *io_file_get(nspa_obj_t h, int *err)
{
    struct io_file *f = get_typed(h, NSPA_TYPE_FILE);
    if (!f) *err = -EBADF;
    return f;
}

NSPA_HIDDEN struct io_file *io_port_get(nspa_obj_t h) { return get_typed(h, NSPA_TYPE_IOCP); }

NSPA_HIDDEN void io_file_ref(struct io_file *f) { atomic_fetch_add(&f->refs, 1); }

NSPA_HIDDEN void io_file_put(struct io_file *f)
{
    if (atomic_fetch_sub_explicit(&f->refs, 1, memory_order_acq_rel) != 1) return;
    /* the last reference: no handle, no operation in flight */
    if (f->fd >= 0 && f->is_socket) {
        const struct io_engine *e = io_engine();
        if (e) e->file_gone(f);
    }
    if (!f->is_port && !f->is_socket) io_share_release(f);
    pthread_mutex_lock(&f->lock);            /* a stale engine event may look (above) */
    if (f->fd >= 0 && !f->is_std) close(f->fd);
    f->fd = -1;
    struct io_file *port = f->port;
    f->port = NULL;
    struct io_op *pk = f->pk_head;
    f->pk_head = f->pk_tail = NULL;
    nspa_obj_t es = f->es_event;
    f->es_event = 0;
    f->es_mask = 0;
    pthread_mutex_unlock(&f->lock);
    if (port) io_file_put(port);
    for (struct io_op *n; pk; pk = n) {     /* packets never taken */
        n = pk->next;
        io_op_free(pk);
    }
    if (es) nspa_close(es);
    slot_release(f);
}

static uint64_t fsig_set(uint64_t w, void *a) { return w | FILE_SIGNALED; }
static uint64_t fsig_reset(uint64_t w, void *a) { return w & ~FILE_SIGNALED; }

/* the same with the file's lock held (io_issue: the reset in the issue's own section) */
NSPA_HIDDEN void io_file_signal_locked(struct io_file *f, int set)
{
    if (f->obj) nspa__obj_update(f->obj, set ? fsig_set : fsig_reset, NULL);
}

NSPA_HIDDEN void io_file_signal(struct io_file *f, int set)
{
    /* under the file's lock: the object is not freed while its handle is open, and
     * closing clears f->obj under the same lock (lock order: file, then object) */
    pthread_mutex_lock(&f->lock);
    if (f->obj) nspa__obj_update(f->obj, set ? fsig_set : fsig_reset, NULL);
    pthread_mutex_unlock(&f->lock);
}
