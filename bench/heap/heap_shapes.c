/* nspa-bench heap: the workload shapes the allocator field compares itself on, written
 * here from their descriptions (no third-party code): docs/heap.md, "Benchmark", says
 * how close each is to the original program.
 *
 *   larson    server simulation: per thread a set of 5,000 live blocks (8..1000 bytes);
 *             each step frees a random one and allocates a new one in its place; after
 *             each of 10 rounds (400,000 steps) the thread hands its set to a new thread
 *             and exits (so blocks
 *             are freed by threads that did not allocate them, and threads come and go)
 *   xmalloc   producers allocate batches of 4,096 blocks of 64 bytes for 1 s x scale
 *             (wall time), consumers free them; a LIFO of at most 100 batches between
 *             them; N producers and N consumers (2N threads, as xmalloc-test -w N)
 *   mstress   N threads per iteration, 25 iterations (mstress N 50 25); thread i makes
 *             5,000 * (i % 8 + 1) allocations with a 50% chance
 *             into a growing array or a retained array (power-of-two sizes of 8..128 and
 *             8..512 bytes, 1% of them 100x, 0.1% 1000x, 0.01% 10000x), fills and checks
 *             every block, frees a random entry 66% of the time and swaps one with a
 *             global transfer array 25% of the time (a quarter of the blocks change
 *             thread); half the transfer array survives into the next iteration
 *   rptest    rpmalloc-benchmark's parameters (10,000 loops, 1000 slots, 50-150 frees and
 *             50-150 allocations a loop, 8..16000 bytes with linearly more small ones,
 *             every 2nd loop a quarter of the loop's allocations handed to the next
 *             thread to free)
 *   cscratch  cache-scratch (false sharing): the main thread allocates one 8-byte
 *             object per thread; each thread frees it, then 1,000 times allocates an
 *             8-byte object and writes it 200,000 times; an allocator that hands
 *             threads neighbouring objects makes them fight over one cache line
 *
 * Built twice: heap_shapes_malloc (malloc/free/realloc; the allocator is chosen with
 * LD_PRELOAD) and heap_shapes_nspa (HeapAlloc/HeapFree/HeapReAlloc on the process heap).
 * Figures: operations (allocations + frees; for cscratch, object writes) per CPU second
 * of the process (HEAP_SHAPES_WALL=1: per second of wall time), and its peak RSS;
 * xmalloc also reports the deepest its queue got, which its peak RSS follows.
 * Usage: heap_shapes_* <impl-label> <shape> <threads> [scale] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <sys/resource.h>
#ifdef USE_NSPA
#include <windows.h>
static HANDLE heap;
#define ALLOC(n)      HeapAlloc(heap, 0, (n))
#define FREE(p)       HeapFree(heap, 0, (p))
#define REALLOC(p, n) ((p) ? HeapReAlloc(heap, 0, (p), (n)) : HeapAlloc(heap, 0, (n)))
#else
#define ALLOC(n)      malloc(n)
#define FREE(p)       free(p)
#define REALLOC(p, n) realloc((p), (n))
#endif

static int nthreads;
static double scale = 1.0;
static _Atomic uint64_t total_ops;

static inline uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static void *xalloc(size_t n)
{
    void *p = ALLOC(n);
    if (!p) {
        fprintf(stderr, "allocation of %zu bytes failed\n", n);
        exit(2);
    }
    return p;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
    if (pthread_create(t, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(2);
    }
}

/* ---- larson -------------------------------------------------------------------------- */

#define LARSON_BLOCKS 5000
#define LARSON_ROUNDS 10
struct larson { void **blk; uint64_t rng; int round; pthread_t next; };

/* One round of a chain; it starts the next round's thread before it exits, and the main
 * thread joins the chain's threads one after the other (each sets 'next' before it
 * returns, so the join of one makes the next visible). */
static void *larson_round(void *arg)
{
    struct larson *l = arg;
    uint64_t ops = 0;
    int steps = (int)(LARSON_BLOCKS * 80 * scale);
    /* the generator's state in a local: the chains' structures share a cache line, and
     * a store to it at every step (the calls keep the compiler from holding it in a
     * register) made the two chains fight over that line whenever they ran at the same
     * time, 3-5x slower per CPU second for whatever allocator (docs/heap.md) */
    uint64_t rng = l->rng;
    for (int i = 0; i < steps; i++) {
        uint32_t k = (uint32_t)(rnd(&rng) % LARSON_BLOCKS);
        FREE(l->blk[k]);
        size_t n = 8 + rnd(&rng) % 993;
        char *p = xalloc(n);
        p[0] = 1; p[n - 1] = 2;
        l->blk[k] = p;
        ops += 2;
    }
    l->rng = rng;
    if (++l->round < LARSON_ROUNDS)
        spawn(&l->next, larson_round, l);      /* hand the set over, then exit */
    else {
        for (int k = 0; k < LARSON_BLOCKS; k++)
            FREE(l->blk[k]);
        ops += LARSON_BLOCKS;
    }
    atomic_fetch_add(&total_ops, ops);
    return NULL;
}

static void shape_larson(void)
{
    struct larson *L = calloc((size_t)nthreads, sizeof *L);
    for (int i = 0; i < nthreads; i++) {
        L[i].blk = calloc(LARSON_BLOCKS, sizeof(void *));
        L[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
        for (int k = 0; k < LARSON_BLOCKS; k++)   /* allocated by the main thread */
            L[i].blk[k] = xalloc(8 + rnd(&L[i].rng) % 993);
        spawn(&L[i].next, larson_round, &L[i]);
    }
    for (int i = 0; i < nthreads; i++)
        for (int k = 0; k < LARSON_ROUNDS; k++)
            pthread_join(L[i].next, NULL);
    for (int i = 0; i < nthreads; i++)
        free(L[i].blk);
    free(L);
}

/* ---- xmalloc ------------------------------------------------------------------------- */

/* As xmalloc-test: the producers run until a deadline (the original 5 s, here 1 s x
 * scale), not for a number of batches: how full the queue gets (and so the peak RSS) is
 * a steady state of the producer/consumer speed balance, which a run of a fraction of a
 * second never reaches. One condition variable per direction, each signalled once per
 * batch (a broadcast on a shared one woke both sides at every change); what is left in
 * the queue at the end is freed by the main thread, as there. */
#define XM_PER_BATCH 4096
#define XM_QMAX 100
struct xbatch { struct xbatch *next; void *obj[XM_PER_BATCH]; };
static pthread_mutex_t xm_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t xm_nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t xm_nonfull = PTHREAD_COND_INITIALIZER;
static struct xbatch *xm_q;
static int xm_len, xm_deepest;          /* the queue's length now and at its deepest */
static _Atomic int xm_done;

static void *xm_producer(void *arg)
{
    uint64_t ops = 0;
    while (!atomic_load_explicit(&xm_done, memory_order_relaxed)) {
        struct xbatch *b = xalloc(sizeof *b);
        for (int i = 0; i < XM_PER_BATCH; i++) {
            b->obj[i] = xalloc(64);
            memset(b->obj[i], i, 64);
        }
        ops += XM_PER_BATCH + 1;
        pthread_mutex_lock(&xm_mtx);
        while (xm_len >= XM_QMAX && !atomic_load(&xm_done))
            pthread_cond_wait(&xm_nonfull, &xm_mtx);
        b->next = xm_q;
        xm_q = b;
        if (++xm_len > xm_deepest && !atomic_load(&xm_done))
            xm_deepest = xm_len;            /* (not the last batch, queued after the end) */
        pthread_cond_signal(&xm_nonempty);
        pthread_mutex_unlock(&xm_mtx);
    }
    atomic_fetch_add(&total_ops, ops);
    return NULL;
}

static uint64_t xm_free_batch(struct xbatch *b)
{
    for (int i = 0; i < XM_PER_BATCH; i++)
        FREE(b->obj[i]);
    FREE(b);
    return XM_PER_BATCH + 1;
}

static void *xm_consumer(void *arg)
{
    uint64_t ops = 0;
    while (!atomic_load_explicit(&xm_done, memory_order_relaxed)) {
        pthread_mutex_lock(&xm_mtx);
        while (!xm_q && !atomic_load(&xm_done))
            pthread_cond_wait(&xm_nonempty, &xm_mtx);
        struct xbatch *b = xm_q;
        if (b) {
            xm_q = b->next;
            xm_len--;
            pthread_cond_signal(&xm_nonfull);
        }
        pthread_mutex_unlock(&xm_mtx);
        if (b)
            ops += xm_free_batch(b);
    }
    atomic_fetch_add(&total_ops, ops);
    return NULL;
}

static void shape_xmalloc(void)
{
    pthread_t t[64];
    for (int i = 0; i < nthreads; i++) {
        spawn(&t[2 * i], xm_consumer, NULL);
        spawn(&t[2 * i + 1], xm_producer, NULL);
    }
    double end = now() + scale;
    while (now() < end) {
        struct timespec ts = { 0, 1000000 };   /* the original polls every millisecond */
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&xm_mtx);
    atomic_store(&xm_done, 1);
    pthread_cond_broadcast(&xm_nonempty);
    pthread_cond_broadcast(&xm_nonfull);
    pthread_mutex_unlock(&xm_mtx);
    for (int i = 0; i < 2 * nthreads; i++)
        pthread_join(t[i], NULL);
    uint64_t ops = 0;
    while (xm_q) {
        struct xbatch *b = xm_q;
        xm_q = b->next;
        ops += xm_free_batch(b);
    }
    atomic_fetch_add(&total_ops, ops);
}

/* ---- mstress ------------------------------------------------------------------------- */

#define MS_TRANSFERS 1000
static _Atomic(uintptr_t *) ms_transfer[MS_TRANSFERS];
static const uintptr_t ms_cookie = 0xbf58476d1ce4e5b9ull;

static inline int chance(int perc, uint64_t *r) { return (int)(rnd(r) % 100) <= perc; }

static uintptr_t *ms_alloc(size_t items, uint64_t *r)
{
    if (chance(1, r)) {
        if (chance(1, r)) items *= 10000;
        else if (chance(10, r)) items *= 1000;
        else items *= 100;
    }
    uintptr_t *p = xalloc(items * sizeof(uintptr_t));
    for (uintptr_t i = 0; i < items; i++)
        p[i] = (items - i) ^ ms_cookie;
    return p;
}

static void ms_free(uintptr_t *p)
{
    if (!p)
        return;
    uintptr_t items = p[0] ^ ms_cookie;
    for (uintptr_t i = 0; i < items; i++)
        if ((p[i] ^ ms_cookie) != items - i) {
            fprintf(stderr, "mstress: block %p corrupted at %zu\n", (void *)p, (size_t)i);
            exit(3);
        }
    FREE(p);
}

static void *ms_thread(void *arg)
{
    intptr_t tid = (intptr_t)arg;
    uint64_t r = (uint64_t)(tid + 1) * 0x9E3779B97F4A7C15ull, ops = 0;
    size_t allocs = (size_t)(100 * 50 * scale) * (size_t)(tid % 8 + 1);
    size_t retain = allocs / 2, top = 0, cap = 0, rtop = 0;
    uintptr_t **data = NULL;
    uintptr_t **kept = xalloc((retain ? retain : 1) * sizeof(void *));
    while (allocs > 0 || retain > 0) {
        if (retain == 0 || (chance(50, &r) && allocs > 0)) {
            allocs--;
            if (top >= cap) {
                cap += 10000;
                data = REALLOC(data, cap * sizeof(void *));
                if (!data) exit(2);
            }
            data[top++] = ms_alloc((size_t)1 << (rnd(&r) % 5), &r);
        } else {
            kept[rtop++] = ms_alloc((size_t)1 << (rnd(&r) % 7), &r);
            retain--;
        }
        ops++;
        if (chance(66, &r) && top > 0) {
            size_t i = rnd(&r) % top;
            if (data[i]) ops++;
            ms_free(data[i]);
            data[i] = NULL;
        }
        if (chance(25, &r) && top > 0) {
            size_t i = rnd(&r) % top, j = rnd(&r) % MS_TRANSFERS;
            data[i] = atomic_exchange(&ms_transfer[j], data[i]);
        }
    }
    for (size_t i = 0; i < rtop; i++)
        ms_free(kept[i]);
    for (size_t i = 0; i < top; i++) {
        if (data[i]) ops++;
        ms_free(data[i]);
    }
    FREE(kept);
    FREE(data);
    atomic_fetch_add(&total_ops, ops + rtop);
    return NULL;
}

static void shape_mstress(void)
{
    uint64_t r = 43 * 43;
    for (int it = 0; it < 25; it++) {
        pthread_t t[64];
        for (intptr_t i = 0; i < nthreads; i++)
            spawn(&t[i], ms_thread, (void *)i);
        for (int i = 0; i < nthreads; i++)
            pthread_join(t[i], NULL);
        for (int i = 0; i < MS_TRANSFERS; i++)
            if (chance(50, &r) || it == 24)
                ms_free(atomic_exchange(&ms_transfer[i], NULL));
    }
}

/* ---- rptest -------------------------------------------------------------------------- */

#define RP_SLOTS 1000
#define RP_LOOPS 500
struct rp {
    pthread_mutex_t mtx;
    void **inbox;
    size_t nin, cap;
} __attribute__((aligned(64)));
static struct rp RP[64];
static size_t rp_sizes[4096];
static _Atomic int rp_running;

static uint64_t rp_drain(struct rp *w)
{
    pthread_mutex_lock(&w->mtx);
    void **in = w->inbox;
    size_t n = w->nin;
    w->inbox = NULL;
    w->nin = w->cap = 0;
    pthread_mutex_unlock(&w->mtx);
    for (size_t i = 0; i < n; i++)
        FREE(in[i]);
    free(in);
    return n;
}

static void *rp_thread(void *arg)
{
    intptr_t id = (intptr_t)arg;
    struct rp *me = &RP[id], *peer = &RP[(id + 1) % nthreads];
    uint64_t r = (uint64_t)(id + 7) * 0x9E3779B97F4A7C15ull, ops = 0;
    void *slot[RP_SLOTS] = { 0 };
    void *hand[160];
    size_t fi = 0, ai = 0;
    int loops = (int)(RP_LOOPS * scale * 20);
    for (int l = 0; l < loops; l++) {
        ops += rp_drain(me);
        int nf = 50 + (int)(rnd(&r) % 101), na = 50 + (int)(rnd(&r) % 101), nh = 0;
        for (int i = 0; i < nf; i++, fi = (fi + 7) % RP_SLOTS)
            if (slot[fi]) { FREE(slot[fi]); slot[fi] = NULL; ops++; }
        for (int i = 0; i < na; i++, ai = (ai + 13) % RP_SLOTS) {
            if (slot[ai]) { FREE(slot[ai]); ops++; }
            size_t n = rp_sizes[rnd(&r) % 4096];
            char *p = xalloc(n);
            *(int *)p = (int)n;
            for (size_t o = 4096; o < n; o += 4096) p[o] = 1;
            p[n - 1] = 1;
            slot[ai] = p;
            ops++;
            if (l % 2 == 0 && nthreads > 1 && i % 4 == 0) {  /* hand a quarter over */
                hand[nh++] = p;
                slot[ai] = NULL;
            }
        }
        if (nh) {
            pthread_mutex_lock(&peer->mtx);
            /* bounded backlog (as in heap_random.c): a preempted receiver on this shared
             * machine would otherwise let the hand-off queue grow with scheduling luck */
            while (peer->nin > 4000 && atomic_load(&rp_running) == nthreads) {
                pthread_mutex_unlock(&peer->mtx);
                ops += rp_drain(me);
                struct timespec ts = { 0, 20000 };
                nanosleep(&ts, NULL);
                pthread_mutex_lock(&peer->mtx);
            }
            if (peer->nin + (size_t)nh > peer->cap) {
                peer->cap = (peer->nin + (size_t)nh) * 2;
                peer->inbox = realloc(peer->inbox, peer->cap * sizeof(void *));
            }
            memcpy(peer->inbox + peer->nin, hand, (size_t)nh * sizeof(void *));
            peer->nin += (size_t)nh;
            pthread_mutex_unlock(&peer->mtx);
        }
    }
    atomic_fetch_sub(&rp_running, 1);
    while (atomic_load(&rp_running) > 0)       /* keep freeing what the others hand us */
        if (!rp_drain(me)) {
            struct timespec ts = { 0, 50000 };
            nanosleep(&ts, NULL);
        }
    ops += rp_drain(me);
    for (int i = 0; i < RP_SLOTS; i++)
        if (slot[i]) { FREE(slot[i]); ops++; }
    atomic_fetch_add(&total_ops, ops);
    return NULL;
}

static void shape_rptest(void)
{
    /* sizes 8..16000, the density falling linearly to 0 at 16000 */
    uint64_t r = 12345;
    for (int i = 0; i < 4096; i++) {
        double u = (double)(rnd(&r) >> 11) / 9007199254740992.0;
        rp_sizes[i] = 8 + (size_t)((16000 - 8) * (1.0 - sqrt(1.0 - u)));
    }
    pthread_t t[64];
    atomic_store(&rp_running, nthreads);
    for (intptr_t i = 0; i < nthreads; i++) {
        pthread_mutex_init(&RP[i].mtx, NULL);
        spawn(&t[i], rp_thread, (void *)i);
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < nthreads; i++)
        rp_drain(&RP[i]);
}

/* ---- cache-scratch ------------------------------------------------------------------- */

/* The writes, in a function of their own at a 64-byte boundary so that the loop sits at
 * the same place in a cache line in both builds. Inlined into cs_thread it landed at
 * whatever offset the code before it left: in heap_shapes_nspa the 22-byte loop started
 * 8 bytes before a 32-byte boundary and crossed it, in heap_shapes_malloc it started on
 * one, and on the AMD EPYC (Zen 4) VM the HeapAlloc build wrote 0.70-0.88x as fast as
 * the malloc build with glibc, mimalloc or NSPA's shim (which all ran within 1% of each
 * other): the figure measured the loop's placement, not the allocator. */
__attribute__((noinline, aligned(64))) static void cs_write(volatile char *p, int reps)
{
    for (int j = 0; j < reps; j++) {
        p[0] = (char)j;
        p[1] = (char)(p[0] + 1);
    }
}

static void *cs_thread(void *arg)
{
    char *obj = arg;
    FREE(obj);                    /* the main thread's object, next to the others' */
    int iters = (int)(1000 * scale), reps = 200000;
    for (int i = 0; i < iters; i++) {
        volatile char *p = xalloc(8);
        cs_write(p, reps);
        FREE((void *)p);
    }
    atomic_fetch_add(&total_ops, (uint64_t)iters * reps);
    return NULL;
}

static void shape_cscratch(void)
{
    pthread_t t[64];
    void *objs[64];
    for (int i = 0; i < nthreads; i++)
        objs[i] = xalloc(8);
    for (int i = 0; i < nthreads; i++)
        spawn(&t[i], cs_thread, objs[i]);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
}

/* -------------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s impl larson|xmalloc|mstress|rptest|cscratch threads [scale]\n",
                argv[0]);
        return 2;
    }
    const char *impl = argv[1], *shape = argv[2];
    nthreads = atoi(argv[3]);
    if (argc > 4)
        scale = atof(argv[4]);
    if (nthreads < 1 || nthreads > 32 || scale <= 0) {
        fprintf(stderr, "threads 1..32, scale > 0\n");
        return 2;
    }
#ifdef USE_NSPA
    heap = GetProcessHeap();
#endif
    double t0 = now();
    if (!strcmp(shape, "larson"))
        shape_larson();
    else if (!strcmp(shape, "xmalloc"))
        shape_xmalloc();
    else if (!strcmp(shape, "mstress"))
        shape_mstress();
    else if (!strcmp(shape, "rptest"))
        shape_rptest();
    else if (!strcmp(shape, "cscratch"))
        shape_cscratch();
    else {
        fprintf(stderr, "unknown shape %s\n", shape);
        return 2;
    }
    double dt = now() - t0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    /* per CPU second of the whole process (user + system: page faults and the kernel's
     * work for mappings count): on this shared machine wall time mostly measures the
     * other tenants; HEAP_SHAPES_WALL=1 reports per wall-clock second instead */
    double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
    int wall = getenv("HEAP_SHAPES_WALL") && atoi(getenv("HEAP_SHAPES_WALL"));
    printf("RESULT bench=%s_%dt impl=%s unit=%s value=%.3f better=higher\n",
           shape, nthreads, impl, wall ? "Mops/s" : "Mops/cpu-s",
           (double)atomic_load(&total_ops) / (wall ? dt : cpu) / 1e6);
    printf("RESULT bench=%s_rss_%dt impl=%s unit=MiB value=%.1f better=lower\n",
           shape, nthreads, impl, ru.ru_maxrss / 1024.0);
    /* xmalloc's peak RSS is mostly how deep its queue got (docs/heap.md): say it */
    if (!strcmp(shape, "xmalloc"))
        printf("RESULT bench=%s_depth_%dt impl=%s unit=batches value=%d better=lower\n",
               shape, nthreads, impl, xm_deepest);
    return 0;
}
