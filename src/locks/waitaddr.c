/* WaitOnAddress / WakeByAddress*: a fixed table of hashed buckets; each bucket has a
 * small PI lock and a list of waiter nodes that live on the waiters' stacks (no
 * allocation). The list is kept in priority order (real-time priority first, FIFO among
 * equals), so a single wake goes to the highest-priority, oldest waiter of the address.
 * The value comparison happens under the bucket lock, after the node is queued, so a
 * wake that follows a store to the address cannot be missed. */
#include <string.h>
#include "nspa/win32/windows.h"
#include "locks/futex.h"
#include "locks/locks_internal.h"
#include "rt/rt_internal.h"

struct wa_node {
    const volatile void *addr;
    struct wa_node *next, *prev;
    int prio;
    _Atomic uint32_t woken;
};

struct wa_bucket {
    _Atomic uint32_t lock;
    struct wa_node *head, *tail;
} __attribute__((aligned(NSPA_CACHELINE)));

#define WA_BUCKETS 256
static struct wa_bucket wa_table[WA_BUCKETS];

static struct wa_bucket *wa_bucket(const volatile void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    a = (a >> 3) * 0x9E3779B97F4A7C15ull;
    return &wa_table[a >> 56];
}

static void wa_unlink(struct wa_bucket *b, struct wa_node *n)
{
    if (n->prev) n->prev->next = n->next; else __atomic_store_n(&b->head, n->next, __ATOMIC_RELAXED);
    if (n->next) n->next->prev = n->prev; else b->tail = n->prev;
    n->next = n->prev = NULL;
}

static void wa_insert(struct wa_bucket *b, struct wa_node *n)
{
    struct wa_node *at = b->tail;
    while (at && at->prio < n->prio)   /* behind everyone of equal or higher priority */
        at = at->prev;
    n->prev = at;
    n->next = at ? at->next : b->head;
    if (n->next) n->next->prev = n; else b->tail = n;
    if (at) at->next = n; else __atomic_store_n(&b->head, n, __ATOMIC_RELAXED);
}

static int wa_equal(const volatile void *addr, const void *cmp, size_t size)
{
    switch (size) {
    case 1: return __atomic_load_n((const volatile uint8_t *)addr, __ATOMIC_SEQ_CST) == *(const uint8_t *)cmp;
    case 2: return __atomic_load_n((const volatile uint16_t *)addr, __ATOMIC_SEQ_CST) == *(const uint16_t *)cmp;
    case 4: return __atomic_load_n((const volatile uint32_t *)addr, __ATOMIC_SEQ_CST) == *(const uint32_t *)cmp;
    default: return __atomic_load_n((const volatile uint64_t *)addr, __ATOMIC_SEQ_CST) == *(const uint64_t *)cmp;
    }
}

NSPA_EXPORT int nspa_wait_on_address(volatile void *addr, const void *compare, size_t size,
                                     const struct timespec *abs)
{
    struct wa_bucket *b;
    struct wa_node n;
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return -EINVAL;
    b = wa_bucket(addr);
    n.addr = addr;
    n.prio = nspa_thread_rt_priority();
    atomic_init(&n.woken, 0);
    nspa_pilock_lock(&b->lock);
    if (!wa_equal(addr, compare, size)) {
        nspa_pilock_unlock(&b->lock);
        return 0;
    }
    wa_insert(b, &n);
    nspa_pilock_unlock(&b->lock);
    /* the caller's wake path reads the bucket head without the lock: order our insertion
     * before the value check below (and the waker's store before its head check) */
    atomic_thread_fence(memory_order_seq_cst);
    if (!wa_equal(addr, compare, size)) {
        nspa_pilock_lock(&b->lock);
        int woken = atomic_load_explicit(&n.woken, memory_order_acquire);
        if (!woken)
            wa_unlink(b, &n);
        nspa_pilock_unlock(&b->lock);
        return 0;
    }
    for (;;) {
        if (atomic_load_explicit(&n.woken, memory_order_acquire))
            return 0;
        long r = nspa_futex_wait_abs(&n.woken, 0, abs, CLOCK_MONOTONIC, 0);
        if (r == -ETIMEDOUT) {
            nspa_pilock_lock(&b->lock);
            int woken = atomic_load_explicit(&n.woken, memory_order_acquire);
            if (!woken)
                wa_unlink(b, &n);
            nspa_pilock_unlock(&b->lock);
            return woken ? 0 : -ETIMEDOUT;
        }
    }
}

static void wa_wake(const volatile void *addr, int all)
{
    struct wa_bucket *b = wa_bucket(addr);
    struct wa_node *n, *next;
    atomic_thread_fence(memory_order_seq_cst);
    if (!__atomic_load_n(&b->head, __ATOMIC_SEQ_CST)) {
        /* nobody waits in this bucket: no lock, no system call. A waiter that queues
         * after this load compares the value after the caller's store, so it is not lost. */
        return;
    }
    nspa_pilock_lock(&b->lock);
    for (n = b->head; n; n = next) {
        next = n->next;
        if (n->addr != addr)
            continue;
        wa_unlink(b, n);
        /* the node may vanish as soon as woken is set (the waiter returns); the wake
         * below then hits a dead stack word, which is harmless */
        atomic_store_explicit(&n->woken, 1, memory_order_release);
        nspa_futex_wake_n((void *)&n->woken, 1, 0);
        if (!all)
            break;
    }
    nspa_pilock_unlock(&b->lock);
}

NSPA_EXPORT void nspa_wake_address_single(const volatile void *addr) { wa_wake(addr, 0); }
NSPA_EXPORT void nspa_wake_address_all(const volatile void *addr) { wa_wake(addr, 1); }
