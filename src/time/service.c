/*
 * The timer service: one thread per process that sleeps until the next due time and
 * runs the expiries (waitable timers, timer-queue timers, thread-pool timers,
 * multimedia timers are all entries here).
 *
 * REAL TIME. In RT mode (NSPA_RT_PRIO) the thread runs SCHED_FIFO one step below band
 * 31 (NSPA_RT_PRIO - 1), as the seed project serves its timers just below the audio
 * thread: a TIME_CRITICAL waiter is never preempted by it, everything else is. Its
 * timer slack is 1 ns (PR_SET_TIMERSLACK; SCHED_FIFO threads have none anyway). There
 * is no periodic tick: the thread sleeps in one futex wait with an absolute timeout on
 * the earliest due time, and a new earlier entry wakes it (the futex word `seq`).
 *
 * CLOCKS. Entries are kept in two heaps: CLOCK_MONOTONIC (relative Win32 due times)
 * and CLOCK_REALTIME (absolute ones, which follow changes of the wall clock as on
 * Windows). When the earliest entry is a realtime one the service sleeps on
 * CLOCK_REALTIME itself (the kernel re-evaluates an absolute realtime sleep when the
 * clock is set); otherwise a watcher thread, started with the first realtime entry,
 * blocks on one timerfd armed with TFD_TIMER_CANCEL_ON_SET and wakes the service when
 * the clock is set. One descriptor per process, none per timer.
 *
 * LOCKING. One process-local priority-inheriting mutex (`lk`) protects the heaps and
 * the entries' idx/flags/due while queued or running. Held for O(log n) heap steps
 * only: callbacks run without it, so nobody is ever held on a callback. The only wait
 * path that takes it is the direct path (a waiter reading its timer's due time and
 * running its expiry, time_internal.h), for those same short steps; PI makes a
 * real-time waiter lend its priority to a holder. An expiry signals its object under
 * that object's lock only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include "common/platform.h"
#include "nspa/rt.h"
#include "sync/sync_api.h"
#include "time/time_internal.h"

#define F_REMOVED 1u                 /* removed while its callback runs: do not requeue */
#define F_RUNNING 2u                 /* its callback runs (on the service or a waiter) */
#define F_DIRECT  4u                 /* a local waiter will run this expiry (direct path) */
/* An expiry a local waiter is committed to run (F_DIRECT: it sleeps in its wait until
 * that due time, then runs it) is left to that waiter however late it runs: it replays
 * every period as a clock_nanosleep TIMER_ABSTIME loop does, and the service never runs
 * it in its place. The service still looks at the due time (a look at the heap, under
 * `lk` for a few steps: it finds the expiry done or still the waiter's); a waiter that
 * leaves its wait without running the expiry drops the commit (tsvc_uncommit) and
 * wakes the service if it must serve it earlier than it would look.
 *
 * A committed waiter held up past its due time (the kernel, the host) replays the periods
 * it missed one wait at a time, and between two waits it is not committed. Woken at
 * once, the service would run the whole backlog in the few microseconds the waiter spends
 * out of its wait (or in its loop's work), and an auto-reset timer's signals merge: the
 * waiter would see one expiry for all the periods missed. So an uncommit behind the
 * schedule leaves the entry to the waiter for one more period (`grace`, at most
 * GRACE_MAX_NS): a waiter that comes back in time commits again and goes on replaying; one
 * that does not is served by the service then (its signals merge, as on Windows). */
#define GRACE_MAX_NS 10000000ull

struct heap {
    struct tsvc_ent **a;
    uint32_t n, cap;
};

static pthread_mutex_t lk;
static pthread_once_t lk_once = PTHREAD_ONCE_INIT;
static struct heap heaps[2];         /* 0: CLOCK_MONOTONIC, 1: CLOCK_REALTIME */
static _Atomic uint32_t seq;         /* futex: bumped to make the service look again */
static _Atomic uint32_t run_seq;     /* futex: bumped when a callback returns */
static uint32_t run_waiters;
static int started, watcher_started;
/* per heap: the service looks at it again at the latest then (its sleep's timeout);
 * UINT64_MAX: not before it is woken; 0: awake, it looks anyway. A waiter that queues
 * an entry due for the service earlier wakes it (run_entry). */
static uint64_t svc_until[2];
static uint32_t svc_tid;
static int svc_rt;                   /* the service runs SCHED_FIFO (RT mode) */
static __thread int on_service;
static __thread struct tsvc_ent *cur_ent;    /* the entry whose callback this thread runs */

static inline struct heap *heap_of(const struct tsvc_ent *e) { return &heaps[e->clock == CLOCK_REALTIME]; }

/* when the service may run @e (not committed): its due time, or later in a grace */
static inline uint64_t ent_when(const struct tsvc_ent *e) { return e->grace > e->due ? e->grace : e->due; }

/* ---- the heaps (lk held) --------------------------------------------------------- */

static void heap_set(struct heap *h, uint32_t i, struct tsvc_ent *e)
{
    h->a[i] = e;
    e->idx = (int32_t)i;
}

static void sift_up(struct heap *h, uint32_t i)
{
    struct tsvc_ent *e = h->a[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (h->a[p]->due <= e->due) break;
        heap_set(h, i, h->a[p]);
        i = p;
    }
    heap_set(h, i, e);
}

static void sift_down(struct heap *h, uint32_t i)
{
    struct tsvc_ent *e = h->a[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1]->due < h->a[c]->due) c++;
        if (e->due <= h->a[c]->due) break;
        heap_set(h, i, h->a[c]);
        i = c;
    }
    heap_set(h, i, e);
}

static void heap_del(struct heap *h, struct tsvc_ent *e)
{
    uint32_t i = (uint32_t)e->idx;
    e->idx = -1;
    struct tsvc_ent *last = h->a[--h->n];
    if (i == h->n) return;
    heap_set(h, i, last);
    sift_up(h, i);
    sift_down(h, (uint32_t)last->idx);
}

static int heap_push(struct heap *h, struct tsvc_ent *e)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 64;
        struct tsvc_ent **a = realloc(h->a, sizeof(*a) * cap);
        if (!a) return -ENOMEM;
        h->a = a;
        h->cap = cap;
    }
    heap_set(h, h->n++, e);
    sift_up(h, (uint32_t)e->idx);
    return 0;
}

/* ---- the service thread ------------------------------------------------------------ */

static void svc_sched_setup(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    prctl(PR_SET_NAME, "nspa-timer", 0, 0, 0);
    if (nspa_rt_enabled()) {
        int p = nspa_rt_prio() - 1;
        struct sched_param sp = { .sched_priority = p < 1 ? 1 : p };
        /* refused (no CAP_SYS_NICE): the service stays SCHED_OTHER, as NSPA's other
         * refused promotions (docs/rt.md) */
        svc_rt = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
    }
}

/* In RT mode the service, like a real-time waiter of a timer (docs/time.md, "The last
 * stretch spins"), stops sleeping NSPA_TIMER_SPIN_US before a monotonic due time and
 * spins to it without its lock, watching @seq (a new earlier entry, a wall-clock set):
 * callbacks of timer queues, multimedia timers and completion routines then run at the
 * due time, not when the kernel's wake-up comes (25-80 us late at p99 here). */
static void svc_sleep(uint32_t s, uint64_t mono_due, const struct timespec *tp, clockid_t clk)
{
    uint64_t early = svc_rt && clk == CLOCK_MONOTONIC && tp ? nspa__timer_spin_ns() : 0;
    if (!early) {
        nspa_futex_wait_abs(&seq, s, tp, clk, 0);
        return;
    }
    if (mono_due > nspa_clock_ns(CLOCK_MONOTONIC) + early) {
        struct timespec t = nspa_ts_from_ns(mono_due - early);
        if (nspa_futex_wait_abs(&seq, s, &t, clk, 0) != -ETIMEDOUT) return;   /* woken: look again */
    }
    for (uint32_t k = 0; atomic_load_explicit(&seq, memory_order_acquire) == s; k++) {
        if (k % 16 == 0 && nspa_clock_ns(CLOCK_MONOTONIC) >= mono_due) return;
        nspa_cpu_relax();
    }
}

/* lk held: an entry of @h due for the service at @now, or NULL and *@when = the next
 * time the service must look. Entries a local waiter is committed to run (F_DIRECT)
 * are passed over (their children looked at); there are at most as many as threads
 * waiting, so this visits O(waiters) entries. */
static struct tsvc_ent *heap_due(struct heap *h, uint64_t now, uint64_t *when)
{
    uint32_t st[64], sp = 0;
    uint64_t w = UINT64_MAX;
    if (h->n) st[sp++] = 0;
    while (sp) {
        struct tsvc_ent *e = h->a[st[--sp]];
        if (e->due >= w) continue;               /* nothing below it is earlier */
        if (!(e->flags & F_DIRECT)) {
            uint64_t t = ent_when(e);
            if (t <= now) return e;
            if (t < w) w = t;
            if (t == e->due) continue;           /* children are later; in a grace: look */
        } else if (now < e->due) w = e->due;     /* look then; past it: the waiter's */
        for (uint32_t c = 2 * (uint32_t)e->idx + 1; c <= 2 * (uint32_t)e->idx + 2; c++)
            if (c < h->n && sp < 64) st[sp++] = c;
    }
    *when = w;
    return NULL;
}

/* lk held: make the service look again if it sleeps past the time it may run @e */
static void wake_for(struct tsvc_ent *e)
{
    int k = e->clock == CLOCK_REALTIME;
    if (on_service || e->idx < 0 || ent_when(e) >= svc_until[k]) return;
    svc_until[k] = 0;
    atomic_fetch_add_explicit(&seq, 1, memory_order_release);
    nspa_futex_wake_n(&seq, 1, 0);
}

/* Run @e's callback (taken off its heap; lk held, dropped meanwhile), then queue it
 * again if it is periodic and nobody removed or re-armed it. */
static void run_entry(struct tsvc_ent *e, uint64_t now)
{
    e->flags |= F_RUNNING;
    struct tsvc_ent *prev = cur_ent;
    cur_ent = e;
    pthread_mutex_unlock(&lk);
    int again = e->fire(e, now);
    pthread_mutex_lock(&lk);
    cur_ent = prev;
    /* re-armed by its own callback (idx >= 0), or removed: leave it alone */
    uint32_t removed = e->flags & F_REMOVED;
    e->flags = 0;
    if (again == 1 && e->period && e->idx < 0 && !removed) {
        e->due += e->period;
        e->grace = 0;
        if (heap_push(heap_of(e), e)) { /* no room: the periodic entry ends */ }
        /* queued again by a waiter (the direct path): the service, asleep, must come
         * for it if no waiter commits to it (a wake only if it sleeps past its due
         * time: with a waiter running every period, the service's look at the previous
         * due comes first, so no system call here) */
        else wake_for(e);
    }
    atomic_fetch_add_explicit(&run_seq, 1, memory_order_release);
    if (run_waiters) nspa_futex_wake_n(&run_seq, INT32_MAX, 0);
    if (again == TSVC_RELEASE && e->idx < 0) e->release(e);     /* nobody else knows it */
}

static void *svc_main(void *arg)
{
    on_service = 1;
    __atomic_store_n(&svc_tid, (uint32_t)gettid(), __ATOMIC_RELEASE);
    svc_sched_setup();
    pthread_mutex_lock(&lk);
    for (;;) {
        svc_until[0] = svc_until[1] = 0;
        uint64_t now[2] = { nspa_clock_ns(CLOCK_MONOTONIC), nspa_clock_ns(CLOCK_REALTIME) };
        uint64_t when[2] = { UINT64_MAX, UINT64_MAX };
        struct tsvc_ent *e = NULL;
        for (int k = 0; k < 2 && !e; k++) e = heap_due(&heaps[k], now[k], &when[k]);
        if (e) {
            heap_del(heap_of(e), e);
            run_entry(e, now[e->clock == CLOCK_REALTIME]);
            continue;
        }
        /* sleep until the earliest time something is due, on its own clock */
        struct timespec ts, *tp = NULL;
        clockid_t clk = CLOCK_MONOTONIC;
        if (when[0] != UINT64_MAX) {
            ts = nspa_ts_from_ns(when[0]);
            tp = &ts;
        }
        if (when[1] != UINT64_MAX && (!tp || when[1] - now[1] + now[0] < when[0])) {
            ts = nspa_ts_from_ns(when[1]);
            tp = &ts;
            clk = CLOCK_REALTIME;
        }
        uint32_t s = atomic_load_explicit(&seq, memory_order_acquire);
        svc_until[0] = when[0];
        svc_until[1] = when[1];
        pthread_mutex_unlock(&lk);
        svc_sleep(s, when[0], tp, clk);
        pthread_mutex_lock(&lk);
    }
    return NULL;
}

/* The wall clock was set: wake the service so that it recomputes (it may be sleeping
 * on CLOCK_MONOTONIC for an earlier monotonic entry). */
static void *watcher_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    prctl(PR_SET_NAME, "nspa-clockwatch", 0, 0, 0);
    for (;;) {
        struct itimerspec its = { .it_value = { .tv_sec = INT32_MAX } };
        if (timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL) < 0) break;
        uint64_t n;
        ssize_t r = read(fd, &n, sizeof(n));
        if (r < 0 && errno == ECANCELED) {
            atomic_fetch_add_explicit(&seq, 1, memory_order_release);
            nspa_futex_wake_n(&seq, 1, 0);
        }
    }
    close(fd);
    return NULL;
}

static void svc_atfork_child(void)
{
    /* the service and the watcher are the parent's threads; the parent's entries
     * stay the parent's (owners in the child see them idle) */
    nspa_pi_mutex_init(&lk);
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < heaps[k].n; i++) heaps[k].a[i]->idx = -1;
        heaps[k].n = 0;
    }
    run_waiters = 0;
    svc_until[0] = svc_until[1] = 0;
    started = watcher_started = 0;
    svc_tid = 0;
}

static void lk_init(void)
{
    nspa_pi_mutex_init(&lk);
    pthread_atfork(NULL, NULL, svc_atfork_child);
}

/* lk held */
static int svc_start(void)
{
    if (nspa_thread_detached(svc_main, NULL, NULL)) return -EAGAIN;
    started = 1;
    return 0;
}

static void watcher_start(void)
{
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    if (fd < 0) return;            /* no watcher: realtime sleeps still follow the clock */
    if (nspa_thread_detached(watcher_main, (void *)(intptr_t)fd, NULL)) close(fd);
    else watcher_started = 1;
}

/* ---- the interface --------------------------------------------------------------- */

NSPA_HIDDEN int tsvc_add(struct tsvc_ent *e)
{
    pthread_once(&lk_once, lk_init);
    pthread_mutex_lock(&lk);
    int r = 0;
    if (!started) r = svc_start();
    if (!r && e->clock == CLOCK_REALTIME && !watcher_started) watcher_start();
    if (!r) {
        e->flags &= F_REMOVED | F_RUNNING;   /* re-armed from its own callback */
        e->grace = 0;
        r = heap_push(heap_of(e), e);
    }
    if (!r) wake_for(e);             /* due before the service would look: it looks now */
    pthread_mutex_unlock(&lk);
    return r;
}

NSPA_HIDDEN int tsvc_remove(struct tsvc_ent *e)
{
    pthread_once(&lk_once, lk_init);
    pthread_mutex_lock(&lk);
    int was = 0;
    e->flags &= ~F_DIRECT;           /* a commit of a waiter is to this arm only */
    if (e->idx >= 0) {
        heap_del(heap_of(e), e);
        was = 1;
    }
    if (e->flags & F_RUNNING) {
        e->flags |= F_REMOVED;
        was = 1;
        while (cur_ent != e && (e->flags & F_RUNNING)) {     /* not from its own callback */
            uint32_t s = atomic_load_explicit(&run_seq, memory_order_acquire);
            run_waiters++;
            pthread_mutex_unlock(&lk);
            nspa_futex_wait_abs(&run_seq, s, NULL, CLOCK_MONOTONIC, 0);
            pthread_mutex_lock(&lk);
            run_waiters--;
        }
    }
    pthread_mutex_unlock(&lk);
    return was;
}

NSPA_HIDDEN int tsvc_on_service_thread(void) { return on_service; }
NSPA_HIDDEN uint32_t tsvc_thread_tid(void) { return __atomic_load_n(&svc_tid, __ATOMIC_ACQUIRE); }

NSPA_HIDDEN int tsvc_due_mono(struct tsvc_ent *e, uint64_t *due)
{
    pthread_once(&lk_once, lk_init);
    pthread_mutex_lock(&lk);
    int q = e->idx >= 0 && !(e->flags & F_RUNNING);
    if (q) e->flags |= F_DIRECT;         /* committed: the service leaves it to the caller */
    uint64_t d = e->due;
    clockid_t clk = e->clock;
    pthread_mutex_unlock(&lk);
    if (!q) return 0;
    if (clk == CLOCK_REALTIME) {
        uint64_t now_r = nspa_clock_ns(CLOCK_REALTIME), now_m = nspa_clock_ns(CLOCK_MONOTONIC);
        d = d <= now_r ? now_m : d - now_r + now_m;
    }
    *due = d;
    return 1;
}

NSPA_HIDDEN void tsvc_uncommit(struct tsvc_ent *e)
{
    pthread_once(&lk_once, lk_init);
    pthread_mutex_lock(&lk);
    if (e->flags & F_DIRECT) {
        e->flags &= ~F_DIRECT;
        /* behind the schedule: the waiter replays the missed periods, one per wait;
         * the service takes over only if it does not come back within a period */
        uint64_t now = nspa_clock_ns(e->clock);
        if (e->idx >= 0 && e->period && e->due <= now && !e->grace)   /* once per due time */
            e->grace = now + (e->period < GRACE_MAX_NS ? e->period : GRACE_MAX_NS);
        wake_for(e);
    }
    pthread_mutex_unlock(&lk);
}

NSPA_HIDDEN int tsvc_run_if_due(struct tsvc_ent *e)
{
    pthread_once(&lk_once, lk_init);
    pthread_mutex_lock(&lk);
    int ran = 0;
    if (e->idx >= 0) {
        uint64_t now = nspa_clock_ns(e->clock);
        if (e->due <= now) {
            heap_del(heap_of(e), e);
            run_entry(e, now);
            ran = 1;
        }
    }
    pthread_mutex_unlock(&lk);
    return ran;
}
