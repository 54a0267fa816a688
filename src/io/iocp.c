/*
 * Completion ports: a sync-core kind (NSPA_TYPE_IOCP) whose word counts the queued
 * packets and the active threads, with the packets themselves on a list under the
 * port record's lock.
 *
 * WORD: bits 0..31 packets queued, 32..47 threads active, 48..61 the concurrency
 * limit, 62 closed. A GetQueuedCompletionStatus waits on the port with the owner id
 * PORT_OWNER: for it the port is signaled while packets are queued and fewer threads
 * than the limit are active, and its successful wait takes one packet and makes the
 * thread active — in one step, under the sync core's rules (so the wait is alertable,
 * has a timeout, and a waiter is served by whoever posts). Waiters of equal priority
 * are served last in, first out (the kind asks the core for LIFO), as NT does to keep
 * the most recently run thread's cache warm. A plain wait on the port (another owner)
 * sees "packets queued" and takes nothing.
 *
 * A thread stays active until it calls GetQueuedCompletionStatus again (or ends); calling
 * again on the same port takes a queued packet at once when the count allows (NT's
 * KeRemoveQueue: no other thread is activated for it); NT
 * also stops counting a thread while it blocks elsewhere, which NSPA cannot see.
 * Closing the port's last handle sets the closed bit: every waiter wakes with
 * -EOWNERDEAD (ERROR_ABANDONED_WAIT_0).
 */
#include <errno.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"
#include "common/platform.h"

#define P_COUNT(w)   ((uint32_t)(w))
#define P_ACTIVE(w)  ((uint32_t)((w) >> 32) & 0xffffu)
#define P_LIMIT(w)   ((uint32_t)((w) >> 48) & 0x3fffu)
#define P_CLOSED     (1ull << 62)
#define P_ONE_ACTIVE (1ull << 32)
#define PORT_OWNER   0xfffffffeu

static int port_signaled(const struct sobj *o, uint64_t w, uint32_t owner)
{
    if (w & P_CLOSED) return 1;
    if (owner == PORT_OWNER) return P_COUNT(w) && P_ACTIVE(w) < P_LIMIT(w);
    return P_COUNT(w) != 0;
}

static int port_consume(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext)
{
    *nw = w;
    if (w & P_CLOSED) return 1;
    if (owner == PORT_OWNER) *nw = w - 1 + P_ONE_ACTIVE;
    return 0;
}

/* LIFO; closing goes through the records' common hook (objects.c) */
static const struct sync_kind k_port = { port_signaled, port_consume, io_file_closed_hook, 1 };
NSPA_HIDDEN const struct sync_kind *io_port_kind(void) { return &k_port; }

static uint64_t set_closed(uint64_t w, void *a) { return w | P_CLOSED; }

NSPA_HIDDEN void io_port_closed(struct io_file *f)
{
    pthread_mutex_lock(&f->lock);
    if (f->obj) nspa__obj_update(f->obj, set_closed, NULL);
    pthread_mutex_unlock(&f->lock);
}

static uint64_t set_limit(uint64_t w, void *a) { return w | (uint64_t)*(uint32_t *)a << 48; }

NSPA_HIDDEN int io_port_create(uint32_t concurrency, nspa_obj_t *out)
{
    struct io_file *f;
    if (!concurrency) concurrency = (uint32_t)nspa_ncpu_online();
    if (concurrency > 0x3fff) concurrency = 0x3fff;
    int r = io_file_new(1, -1, &f, out);
    if (r) return r;
    pthread_mutex_lock(&f->lock);
    if (f->obj) nspa__obj_update(f->obj, set_limit, &concurrency);
    pthread_mutex_unlock(&f->lock);
    return 0;
}

static uint64_t add_packet(uint64_t w, void *a) { return w + 1; }

NSPA_HIDDEN int io_port_post(struct io_file *port, struct io_op *op)
{
    pthread_mutex_lock(&port->lock);
    op->next = NULL;
    if (port->pk_tail) port->pk_tail->next = op;
    else port->pk_head = op;
    port->pk_tail = op;
    /* the packet is on the list before the count says so: whoever takes a count finds
     * a packet */
    if (port->obj) nspa__obj_update(port->obj, add_packet, NULL);
    /* under the lock: io_port_set_notify(NULL) returning means no call runs any more */
    if (port->notify) port->notify(port->notify_ctx);
    pthread_mutex_unlock(&port->lock);
    return 0;
}

NSPA_HIDDEN int io_port_set_notify(uint32_t h, void (*fn)(void *ctx), void *ctx)
{
    struct io_file *port = io_port_get(h);
    if (!port) return -EBADF;
    pthread_mutex_lock(&port->lock);
    port->notify = fn;
    port->notify_ctx = ctx;
    pthread_mutex_unlock(&port->lock);
    io_file_put(port);
    return 0;
}

/* ---- the calling thread's port (the one it is active on) ---------------------------- */

static __thread struct io_file *cur_port;
static pthread_key_t cur_key;
static pthread_once_t cur_once = PTHREAD_ONCE_INIT;

static uint64_t drop_active(uint64_t w, void *a) { return P_ACTIVE(w) ? w - P_ONE_ACTIVE : w; }

NSPA_HIDDEN void io_port_leave(void)
{
    struct io_file *p = cur_port;
    if (!p) return;
    cur_port = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->obj) nspa__obj_update(p->obj, drop_active, NULL);   /* may release a waiter */
    pthread_mutex_unlock(&p->lock);
    io_file_put(p);
}

static void cur_destructor(void *v) { io_port_leave(); }
static void cur_key_init(void) { pthread_key_create(&cur_key, cur_destructor); }

struct take { uint32_t want, got; };
static uint64_t take_more(uint64_t w, void *a)
{
    struct take *t = a;
    uint32_t c = P_COUNT(w);
    t->got = c < t->want ? c : t->want;
    return w - t->got;
}

static struct io_op *pop(struct io_file *port)
{
    struct io_op *op = port->pk_head;
    if (op) {
        port->pk_head = op->next;
        if (!port->pk_head) port->pk_tail = NULL;
        op->next = NULL;
    }
    return op;
}

static uint64_t take_one(uint64_t w, void *a)
{
    *(uint32_t *)a = P_COUNT(w) != 0;
    return P_COUNT(w) ? w - 1 : w;
}

NSPA_HIDDEN struct io_op *io_port_take(nspa_obj_t h)
{
    struct io_file *port = io_port_get(h);
    if (!port) return NULL;
    uint32_t got = 0;
    struct io_op *op = NULL;
    pthread_mutex_lock(&port->lock);
    if (port->obj) nspa__obj_update(port->obj, take_one, &got);
    if (got) op = pop(port);
    pthread_mutex_unlock(&port->lock);
    io_file_put(port);
    return op;
}

/* NT's KeRemoveQueue for a thread calling again on the port it is active on: it stops
 * counting, and if a packet is queued and the count then allows one more, it takes it
 * itself at once (no other thread is activated for it: the running thread's cache is
 * warm): one update of the word (active - 1 + 1, packets - got) */
static uint64_t leave_take(uint64_t w, void *a)
{
    struct take *t = a;
    uint64_t nw = P_ACTIVE(w) ? w - P_ONE_ACTIVE : w;
    uint32_t c = P_COUNT(nw);
    t->got = 0;
    if ((w & P_CLOSED) || !c || P_ACTIVE(nw) >= P_LIMIT(nw)) return nw;
    t->got = c < t->want ? c : t->want;
    return nw - t->got + P_ONE_ACTIVE;
}

NSPA_HIDDEN int io_port_get_packets(nspa_obj_t h, struct io_op **ops, uint32_t n, uint64_t deadline,
                                    int alertable)
{
    struct io_file *port = io_port_get(h);
    if (!port) return -EBADF;
    pthread_once(&cur_once, cur_key_init);
    /* a second thread waiting on the port makes it a pool's (io_op_ring_ok); one load a
     * call once it is */
    if (!__atomic_load_n(&port->pool, __ATOMIC_RELAXED)) {
        uint32_t me = nspa_thread_id(), first = 0;
        if (!atomic_compare_exchange_strong(&port->first_waiter, &first, me) && first != me)
            __atomic_store_n(&port->pool, 1, __ATOMIC_RELAXED);
    }
    if (cur_port == port) {
        /* the leave, the take and the pop in one section of the port's lock */
        struct take t = { n, 0 };
        uint32_t got = 0;
        pthread_mutex_lock(&port->lock);
        if (port->obj) nspa__obj_update(port->obj, leave_take, &t);
        else t.got = 0;
        for (uint32_t i = 0; i < t.got; i++) {
            struct io_op *op = pop(port);
            if (op) ops[got++] = op;
        }
        pthread_mutex_unlock(&port->lock);
        if (t.got) {                     /* still active here: cur_port keeps its reference */
            io_file_put(port);
            return (int)got;
        }
        cur_port = NULL;                 /* left: the wait below makes it active again */
        io_file_put(port);               /* cur_port's reference; ours stays */
    } else {
        io_port_leave();                 /* active on another port (NT activates a waiter there) */
    }
    struct nspa_wait_args a = {
        .timeout = deadline, .objs = &h, .count = 1, .owner = PORT_OWNER,
        .alert = alertable ? nspa__win32_apc_event() : 0,
    };
    int r;
    for (;;) {
        r = nspa_wait_any(&a);
        if (r == 0 && a.index == 1) {    /* the alert: run the APCs */
            if (nspa__win32_run_apcs()) { r = -EINTR; break; }
            continue;
        }
        break;
    }
    if (r) {
        io_file_put(port);
        return r == -EINVAL ? -EBADF : r;
    }
    struct take t = { n - 1, 0 };
    pthread_mutex_lock(&port->lock);
    if (n > 1 && port->obj) nspa__obj_update(port->obj, take_more, &t);
    uint32_t got = 0;
    for (uint32_t i = 0; i < 1 + t.got; i++) {
        struct io_op *op = pop(port);
        if (op) ops[got++] = op;
    }
    pthread_mutex_unlock(&port->lock);
    /* active on this port until the next call (the reference stays with the thread) */
    cur_port = port;
    pthread_setspecific(cur_key, port);
    return (int)got;
}
