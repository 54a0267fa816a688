/* Threads that exit leave their blocks valid: other threads free them, their arenas are
 * adopted by later threads, and many short-lived threads leave the heap consistent. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"

static HANDLE h;
#define N 3000
static void *blocks[8][N];
static int errs[8];

static void *producer(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < N; i++) {
        blocks[id][i] = HeapAlloc(i & 1 ? h : GetProcessHeap(), 0, (size_t)(i % 900) + 1);
        memset(blocks[id][i], (int)id, (size_t)(i % 900) + 1);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < N; i++) {
        unsigned char *p = blocks[id][i];
        if (!(p[0] == id && p[i % 900] == id)) errs[id]++;
        if (!HeapFree(i & 1 ? h : GetProcessHeap(), 0, p)) errs[id]++;
    }
    /* and allocate a lot: the orphaned arenas get adopted */
    void *q[N];
    for (int i = 0; i < N; i++) q[i] = HeapAlloc(h, 0, 200);
    for (int i = 0; i < N; i++) if (!HeapFree(h, 0, q[i])) errs[id]++;
    return NULL;
}

static void *shortlived(void *arg)
{
    void *p = HeapAlloc(h, 0, 64);
    void *q = HeapAlloc(GetProcessHeap(), 0, 64);
    HeapFree(h, 0, arg);
    HeapFree(GetProcessHeap(), 0, q);
    return p;   /* freed by main after the thread is gone */
}

int main(void)
{
    h = HeapCreate(0, 0, 0);
    REQUIRE(h);
    pthread_t t[8];
    for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, producer, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    /* main frees half of thread 0's blocks */
    for (int i = 0; i < N; i++) {
        CHECK(HeapFree(i & 1 ? h : GetProcessHeap(), 0, blocks[0][i]));
    }
    for (long i = 1; i < 4; i++) pthread_create(&t[i], NULL, consumer, (void *)i);
    for (int i = 1; i < 4; i++) pthread_join(t[i], NULL);
    for (int i = 1; i < 4; i++) CHECK_EQ(errs[i], 0);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapValidate(GetProcessHeap(), 0, NULL));
    for (int r = 0; r < 100; r++) {
        pthread_t s;
        void *ret;
        pthread_create(&s, NULL, shortlived, HeapAlloc(h, 0, 32));
        pthread_join(s, &ret);
        CHECK(HeapValidate(h, 0, ret));
        CHECK(HeapFree(h, 0, ret));
    }
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}
