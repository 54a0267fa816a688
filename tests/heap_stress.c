/* Randomized multi-threaded stress: 4 threads allocate, reallocate and free random sizes,
 * hand blocks to each other to free, and check the contents and HeapSize of every live
 * block they own before freeing it; meanwhile a fifth thread validates both heaps over
 * and over (each validation stops the heap's world and pushes the workers' batched
 * cross-thread frees while they are in full swing). Bounded by operation count. */
#include <windows.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include "nspa_test.h"

#define T 4
#define SLOTS 2000
#if defined(__SANITIZE_THREAD__)
#define OPS 8000
#elif defined(__SANITIZE_ADDRESS__)
#define OPS 30000
#else
#define OPS 150000
#endif

static HANDLE heaps[2];
struct blk { unsigned char *p; size_t n; unsigned char seed; int heap; };
static struct { pthread_mutex_t m; struct blk b[4096]; int n; } box[T];
static int errors[T];
static _Atomic int workers_done;
static int validations, validation_failures;

static void *validator(void *arg)
{
    (void)arg;
    while (!workers_done) {
        if (!HeapValidate(heaps[validations & 1], 0, NULL))
            validation_failures++;
        validations++;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static uint64_t rnd(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

static int check(struct blk *b)
{
    if (HeapSize(heaps[b->heap], 0, b->p) != b->n) return 0;
    for (size_t i = 0; i < b->n; i += (b->n > 4096 ? 61 : 1))
        if (b->p[i] != (unsigned char)(b->seed + i)) return 0;
    return 1;
}

static void fill(struct blk *b) { for (size_t i = 0; i < b->n; i++) b->p[i] = (unsigned char)(b->seed + i); }

static size_t rsize(uint64_t *s)
{
    uint64_t r = rnd(s) % 100;
    if (r < 70) return rnd(s) % 256;
    if (r < 95) return rnd(s) % 8192;
    if (r < 99) return rnd(s) % 131072;
    return 131072 + rnd(s) % 400000;
}

static void *run(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t s = 0x1234567ull * (uint64_t)(id + 1);
    static __thread struct blk slot[SLOTS];
    for (long op = 0; op < OPS; op++) {
        int k = (int)(rnd(&s) % SLOTS);
        struct blk *b = &slot[k];
        int what = (int)(rnd(&s) % 10);
        if (b->p) {
            if (!check(b)) errors[id]++;
            if (what == 0) {               /* hand it to another thread */
                int to = (id + 1 + (int)(rnd(&s) % (T - 1))) % T;
                pthread_mutex_lock(&box[to].m);
                if (box[to].n < 4096) { box[to].b[box[to].n++] = *b; b->p = NULL; }
                pthread_mutex_unlock(&box[to].m);
                if (!b->p) continue;
            }
            if (what == 1) {               /* reallocate */
                size_t n = rsize(&s);
                unsigned char *q = HeapReAlloc(heaps[b->heap], 0, b->p, n);
                if (!q) { errors[id]++; continue; }
                size_t keep = n < b->n ? n : b->n;
                for (size_t i = 0; i < keep; i += (keep > 4096 ? 61 : 1))
                    if (q[i] != (unsigned char)(b->seed + i)) { errors[id]++; break; }
                b->p = q; b->n = n; fill(b);
                continue;
            }
            if (!HeapFree(heaps[b->heap], 0, b->p)) errors[id]++;
            b->p = NULL;
        } else {
            b->n = rsize(&s);
            b->heap = (int)(rnd(&s) & 1);
            b->seed = (unsigned char)rnd(&s);
            b->p = HeapAlloc(heaps[b->heap], (what & 1) ? HEAP_ZERO_MEMORY : 0, b->n);
            if (!b->p || ((uintptr_t)b->p & 15)) { errors[id]++; b->p = NULL; continue; }
            if (what & 1)
                for (size_t i = 0; i < b->n; i++) if (b->p[i]) { errors[id]++; break; }
            fill(b);
        }
        if ((op & 255) == 0) {             /* free what others handed us, after checking */
            pthread_mutex_lock(&box[id].m);
            for (int i = 0; i < box[id].n; i++) {
                if (!check(&box[id].b[i])) errors[id]++;
                if (!HeapFree(heaps[box[id].b[i].heap], 0, box[id].b[i].p)) errors[id]++;
            }
            box[id].n = 0;
            pthread_mutex_unlock(&box[id].m);
        }
    }
    for (int k = 0; k < SLOTS; k++)
        if (slot[k].p) {
            if (!check(&slot[k])) errors[id]++;
            if (!HeapFree(heaps[slot[k].heap], 0, slot[k].p)) errors[id]++;
        }
    return NULL;
}

int main(void)
{
    heaps[0] = GetProcessHeap();
    heaps[1] = HeapCreate(0, 0, 0);
    REQUIRE(heaps[1]);
    for (int i = 0; i < T; i++) pthread_mutex_init(&box[i].m, NULL);
    pthread_t t[T], v;
    pthread_create(&v, NULL, validator, NULL);
    for (int i = 0; i < T; i++) pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
    for (int i = 0; i < T; i++) pthread_join(t[i], NULL);
    workers_done = 1;
    pthread_join(v, NULL);
    CHECK(validations > 0);
    CHECK_EQ(validation_failures, 0);
    for (int i = 0; i < T; i++) {
        for (int k = 0; k < box[i].n; k++) {
            CHECK(check(&box[i].b[k]));
            CHECK(HeapFree(heaps[box[i].b[k].heap], 0, box[i].b[k].p));
        }
        CHECK_EQ(errors[i], 0);
    }
    CHECK(HeapValidate(heaps[0], 0, NULL));
    CHECK(HeapValidate(heaps[1], 0, NULL));
    /* the threads are gone: their arenas were orphaned; a new thread adopts them */
    CHECK(HeapDestroy(heaps[1]));
    return nspa_test_done();
}
