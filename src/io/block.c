/*
 * Synchronous I/O that blocks, and CancelSynchronousIo (docs/io.md, "Synchronous I/O
 * and its cancel").
 *
 * A synchronous call that has to wait (a blocking socket, a pipe, a terminal) waits in
 * io_block(): poll() on its descriptor and on the calling thread's wake descriptor (an
 * eventfd). CancelSynchronousIo finds the thread's record by its id, moves its state
 * from BLOCKED to CANCELLED with one CAS and writes the eventfd: the poll returns, the
 * thread sees CANCELLED and its call fails with ERROR_OPERATION_ABORTED. A thread that is
 * not blocked (state IDLE) makes the cancel answer ERROR_NOT_FOUND.
 *
 * Records: a fixed table (BSS: untouched slots cost no memory) claimed by CAS at the
 * thread's first blocking call, given back by a thread-specific-data destructor at its
 * end. A slot's word is (thread id << 32 | state), so a cancel acts only on the thread
 * it names, in one CAS. A slot keeps its eventfd for ever (reused by the next thread
 * that claims it): a cancel racing the end of its thread can only leave a stale count,
 * which the next owner drains and ignores (its state says BLOCKED, not CANCELLED). No
 * lock anywhere: the blocking path is two atomic operations around the poll, a cancel
 * a probe of the table and a CAS. Exhaustion (IO_SYNC_SLOTS threads blocking at once,
 * or no descriptor for an eventfd) is -ENOMEM for the blocking call: never a call that
 * cannot be cancelled.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "io/io_internal.h"
#include "io/io_api.h"

#define IO_SYNC_SLOTS 16384u
enum { S_IDLE = 0, S_BLOCKED = 1, S_CANCELLED = 2 };

struct sync_slot {
    _Atomic uint64_t word;               /* tid << 32 | state; 0: free */
    _Atomic int efd;                     /* 0: none yet (never stdin: made with F_DUPFD >= 3) */
};

static struct sync_slot slots[IO_SYNC_SLOTS];
static __thread struct sync_slot *mine;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static inline uint64_t W(uint32_t tid, uint32_t st) { return (uint64_t)tid << 32 | st; }

static void slot_give_back(void *p)
{
    struct sync_slot *s = p;
    if (s) atomic_store(&s->word, 0);
    mine = NULL;
}

/* fork: the child has one thread; the parent's eventfds are shared objects (a drain
 * in the child could eat a cancel meant for a parent thread): the child drops them */
static void after_fork_child(void)
{
    for (uint32_t i = 0; i < IO_SYNC_SLOTS; i++) {
        int fd = atomic_load_explicit(&slots[i].efd, memory_order_relaxed);
        if (fd > 0) close(fd);
        atomic_store_explicit(&slots[i].efd, 0, memory_order_relaxed);
        atomic_store_explicit(&slots[i].word, 0, memory_order_relaxed);
    }
    mine = NULL;
}

static void key_init(void)
{
    pthread_key_create(&key, slot_give_back);
    pthread_atfork(NULL, NULL, after_fork_child);
}

static inline uint32_t home(uint32_t tid) { return (tid * 2654435761u) % IO_SYNC_SLOTS; }

static struct sync_slot *claim(void)
{
    pthread_once(&key_once, key_init);
    uint32_t tid = nspa_thread_id();
    for (uint32_t k = 0, i = home(tid); k < IO_SYNC_SLOTS; k++, i = (i + 1) % IO_SYNC_SLOTS) {
        uint64_t z = 0;
        if (atomic_load_explicit(&slots[i].word, memory_order_relaxed)) continue;
        if (!atomic_compare_exchange_strong(&slots[i].word, &z, W(tid, S_IDLE))) continue;
        if (atomic_load(&slots[i].efd) <= 0) {
            int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
            if (fd >= 0 && fd < 3) {             /* keep 0..2 free for the std streams */
                int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                close(fd);
                fd = d;
            }
            if (fd < 0) {
                atomic_store(&slots[i].word, 0);
                return NULL;
            }
            atomic_store(&slots[i].efd, fd);
        }
        pthread_setspecific(key, &slots[i]);
        return mine = &slots[i];
    }
    return NULL;
}

NSPA_HIDDEN void io_wake_drain(int efd)
{
    uint64_t v;
    while (read(efd, &v, sizeof v) < 0 && errno == EINTR)
        ;
}
#define drain io_wake_drain

/* The epoll engine's sleep (engine_epoll.c) polls on the same eventfd: a thread is
 * either in io_block or in a wait of the sync core, never both, and a cancel writes
 * only to a thread in io_block (a stale count is one spurious wake-up). */
NSPA_HIDDEN uint32_t io_wake_slot(int claim_now, int *efd)
{
    struct sync_slot *s = mine ? mine : claim_now ? claim() : NULL;
    if (!s) return 0;
    *efd = atomic_load_explicit(&s->efd, memory_order_relaxed);
    return (uint32_t)(s - slots) + 1;
}

/* A fork child has dropped the parent's eventfds (0 here): the waker then uses the
 * futex. A slot taken over by another thread meanwhile gets a spurious wake-up. */
NSPA_HIDDEN int io_wake_slot_kick(uint32_t mark)
{
    if (!mark || mark > IO_SYNC_SLOTS) return 0;
    int fd = atomic_load_explicit(&slots[mark - 1].efd, memory_order_relaxed);
    if (fd <= 0) return 0;
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == (ssize_t)sizeof one;
}

NSPA_HIDDEN int io_block(int fd, int events, uint32_t timeout_ms)
{
    struct sync_slot *s = mine ? mine : claim();
    if (!s) return -ENOMEM;
    uint32_t tid = (uint32_t)(atomic_load_explicit(&s->word, memory_order_relaxed) >> 32);
    int efd = atomic_load_explicit(&s->efd, memory_order_relaxed);
    struct pollfd p[2] = { { fd, (short)events, 0 }, { efd, POLLIN, 0 } };
    uint64_t end = timeout_ms ? nspa_time_ns() + (uint64_t)timeout_ms * 1000000ull : 0;
    atomic_store(&s->word, W(tid, S_BLOCKED));  /* seq_cst: a cancel from here on is seen */
    int r;
    for (;;) {
        int ms = -1;
        if (end) {
            uint64_t now = nspa_time_ns();
            if (now >= end) { r = -ETIMEDOUT; break; }
            ms = (int)((end - now + 999999) / 1000000);
        }
        int n = poll(p, 2, ms);
        if (n > 0 && p[1].revents) drain(efd);     /* a cancel, or a stale count */
        if ((uint32_t)atomic_load(&s->word) == S_CANCELLED) { r = -ECANCELED; break; }
        if (n > 0 && p[0].revents) { r = 0; break; }
        if (n == 0) { r = -ETIMEDOUT; break; }
        if (n < 0 && errno != EINTR) { r = -errno; break; }
    }
    /* a cancel that took effect before this exchange aborts the call, even if the
     * descriptor became ready at the same time (either outcome is NT's) */
    if ((uint32_t)atomic_exchange(&s->word, W(tid, S_IDLE)) == S_CANCELLED) r = -ECANCELED;
    return r;
}

NSPA_HIDDEN int io_cancel_sync(uint32_t tid)
{
    if (!tid) return -ENOENT;
    for (uint32_t k = 0, i = home(tid); k < IO_SYNC_SLOTS; k++, i = (i + 1) % IO_SYNC_SLOTS) {
        uint64_t w = atomic_load_explicit(&slots[i].word, memory_order_acquire);
        if ((uint32_t)(w >> 32) != tid) continue;
        uint64_t want = W(tid, S_BLOCKED);
        if (!atomic_compare_exchange_strong(&slots[i].word, &want, W(tid, S_CANCELLED))) return -ENOENT;
        uint64_t one = 1;
        (void)!write(atomic_load(&slots[i].efd), &one, sizeof one);   /* never closed */
        return 0;
    }
    return -ENOENT;
}
