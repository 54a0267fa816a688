/* Memory that comes back: the producer/consumer shape (xmalloc-test's: one thread
 * allocates batches of 4096 blocks (64 bytes, one in 16 of 16-1015), another frees them; at most 100 batches queued, a
 * LIFO, so the oldest batches stay live for long and the freed blocks lie in the middle
 * of the producer's pages) run through malloc: once on glibc, once with
 * LD_PRELOAD=libnspa-malloc.so, each in a fresh process (this program re-executed).
 *  - peak RSS through the shim within 1.5x glibc's (docs/heap.md, "Memory that comes
 *    back", states the bound);
 *  - owner blocked: the producer allocates 100 batches and waits; the consumer frees
 *    them all and calls malloc_trim(0): the heap's committed memory drops below 8 MiB
 *    while the producer is still blocked;
 *  - owner gone: the producer exits with 100 batches queued; the consumer frees them:
 *    the heap's committed memory drops below 8 MiB without the producer.
 * Not under ASan or TSan: both replace malloc (and the preloaded shim with them). */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa/heap.h"
#include "nspa_test.h"

#ifndef NSPA_MALLOC_PATH
#error NSPA_MALLOC_PATH must name libnspa-malloc.so
#endif

#define PER_BATCH 4096
#define QMAX 100
#ifndef BATCHES
#define BATCHES 1200
#endif
struct batch { struct batch *next; void *obj[PER_BATCH]; };

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct batch *queue;
static int qlen, produced_all, phase_go;

static struct batch *make_batch(uint64_t *rng)
{
    struct batch *b = malloc(sizeof *b);
    if (!b) exit(3);
    for (int i = 0; i < PER_BATCH; i++) {
        /* 64 bytes, as mimalloc-bench runs xmalloc-test (-s 64); every 16th block
         * another size, so that more than one class is in play */
        *rng ^= *rng << 13; *rng ^= *rng >> 7; *rng ^= *rng << 17;
        size_t n = (*rng & 15) ? 64 : 16 + (*rng >> 8) % 1000;
        b->obj[i] = malloc(n);
        if (!b->obj[i]) exit(3);
        memset(b->obj[i], i, n);
    }
    return b;
}

static void free_batch(struct batch *b)
{
    for (int i = 0; i < PER_BATCH; i++)
        free(b->obj[i]);
    free(b);
}

/* phase 1: BATCHES batches through the queue; then QMAX more, queued, and either wait
 * (blocked owner) or exit (gone owner) */
static void *producer(void *arg)
{
    int block = *(int *)arg;
    uint64_t rng = 88172645463325252ull;
    for (int k = 0; k < BATCHES + QMAX; k++) {
        struct batch *b = make_batch(&rng);
        pthread_mutex_lock(&mtx);
        while (qlen >= QMAX && k < BATCHES)
            pthread_cond_wait(&cv, &mtx);
        b->next = queue;
        queue = b;
        qlen++;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mtx);
    }
    pthread_mutex_lock(&mtx);
    produced_all = 1;
    pthread_cond_broadcast(&cv);
    while (block && !phase_go)
        pthread_cond_wait(&cv, &mtx);
    pthread_mutex_unlock(&mtx);
    return NULL;
}

static size_t committed(void)
{
    struct nspa_heap_stats st;
    if (nspa_heap_stats(nspa_heap_process(), &st) != 0)
        return (size_t)-1;
    return st.bytes_committed;
}

/* the child: runs the shape, prints "peak <KiB> after <bytes>" */
static int child(int block, int nspa)
{
    pthread_t p;
    REQUIRE(pthread_create(&p, NULL, producer, &block) == 0);
    int consumed = 0;
    for (;;) {
        pthread_mutex_lock(&mtx);
        /* phase 1: take the newest batch whenever the queue is full (the consumer is
         * the slower side in xmalloc-test too: its queue stays full, and its oldest
         * batches live through the whole run); then wait until the last QMAX are
         * queued and, for a gone owner, until the producer has exited */
        while (!queue || (consumed < BATCHES && qlen < QMAX) ||
               (consumed >= BATCHES && !produced_all))
            pthread_cond_wait(&cv, &mtx);
        struct batch *b = queue;
        queue = b->next;
        qlen--;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mtx);
        if (consumed == BATCHES && !block)
            pthread_join(p, NULL);
        free_batch(b);
        if (++consumed == BATCHES + QMAX)
            break;
    }
    malloc_trim(0);
    size_t after = nspa ? committed() : 0;
    pthread_mutex_lock(&mtx);
    phase_go = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mtx);
    if (block)
        pthread_join(p, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak %ld after %zu\n", ru.ru_maxrss, after);
    return 0;
}

static int run(const char *self, int block, int nspa, long *peak, size_t *after)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s child %d %d",
             nspa ? "env LD_PRELOAD=" NSPA_MALLOC_PATH : "env -u LD_PRELOAD", self, block, nspa);
    FILE *f = popen(cmd, "r");
    if (!f)
        return 0;
    int ok = fscanf(f, "peak %ld after %zu", peak, after) == 2;
    return pclose(f) == 0 && ok;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "child"))
        return child(atoi(argv[2]), atoi(argv[3]));
    for (int block = 1; block >= 0; block--) {
        long pg = 0, pn = 0;
        size_t ag, an;
        REQUIRE(run(argv[0], block, 0, &pg, &ag));
        REQUIRE(run(argv[0], block, 1, &pn, &an));
        printf("%s owner: peak RSS glibc %ld KiB, nspa %ld KiB (%.2fx); nspa committed after "
               "the frees %.1f MiB\n", block ? "blocked" : "gone", pg, pn, (double)pn / pg,
               an / 1048576.0);
        CHECK(pn <= pg * 3 / 2);
        CHECK(an < (size_t)8 << 20);
    }
    return nspa_test_done();
}
