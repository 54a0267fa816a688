/* INIT_ONCE: InitOnceExecuteOnce runs the callback once across racing threads and hands
 * every caller the context; a failing callback leaves the object to be retried;
 * InitOnceBeginInitialize/Complete (sync and async), INIT_ONCE_CHECK_ONLY, the error
 * codes (ERROR_GEN_FAILURE, ERROR_INVALID_PARAMETER), reserved context bits. */
#include <windows.h>
#include "nspa/locks.h"
#include "locks_util.h"
#include "nspa_test.h"

static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static _Atomic int calls, fail_first;
static int payload = 1234;

static BOOL CALLBACK init_fn(PINIT_ONCE o, PVOID param, PVOID *ctx)
{
    calls++;
    lu_sleep_ms(20);   /* let the other threads pile up behind us */
    if (fail_first) {
        fail_first = 0;
        return FALSE;
    }
    if (ctx)
        *ctx = param;
    return o == &once;
}

static void *racer(void *arg)
{
    void *ctx = NULL;
    BOOL r = InitOnceExecuteOnce(&once, init_fn, &payload, &ctx);
    *(int *)arg = r && ctx == &payload;
    return NULL;
}

int main(void)
{
    void *ctx;
    BOOL pending;

    /* racing threads: one call, everybody sees the context */
    pthread_t t[4];
    int ok[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, racer, &ok[i]);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK(ok[i]);
    }
    CHECK_EQ(calls, 1);
    ctx = NULL;
    CHECK(InitOnceExecuteOnce(&once, init_fn, &payload, &ctx));
    CHECK(ctx == &payload);
    CHECK_EQ(calls, 1);
    CHECK(InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY, &pending, &ctx));
    CHECK(!pending);
    CHECK(ctx == &payload);

    /* failure resets: the next call runs the callback again */
    InitOnceInitialize(&once);
    CHECK(once.Ptr == NULL);
    calls = 0;
    fail_first = 1;
    CHECK(!InitOnceExecuteOnce(&once, init_fn, &payload, &ctx));
    CHECK(once.Ptr == NULL);
    CHECK(InitOnceExecuteOnce(&once, init_fn, &payload, &ctx));
    CHECK_EQ(calls, 2);

    /* Begin / Complete, synchronous */
    InitOnceInitialize(&once);
    SetLastError(0);
    CHECK(!InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY, &pending, &ctx));
    CHECK_EQ(GetLastError(), ERROR_GEN_FAILURE);
    SetLastError(0);
    CHECK(!InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY | INIT_ONCE_ASYNC, &pending, &ctx));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    pending = FALSE;
    CHECK(InitOnceBeginInitialize(&once, 0, &pending, &ctx));
    CHECK(pending);
    SetLastError(0);
    CHECK(!InitOnceBeginInitialize(&once, INIT_ONCE_ASYNC, &pending, &ctx)); /* sync in progress */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, 0, (void *)((ULONG_PTR)&payload | 1))); /* reserved bits */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, INIT_ONCE_INIT_FAILED, &payload)); /* failed needs NULL */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(InitOnceComplete(&once, 0, &payload));
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, 0, &payload)); /* nothing in progress */
    CHECK_EQ(GetLastError(), ERROR_GEN_FAILURE);
    ctx = NULL;
    CHECK(InitOnceBeginInitialize(&once, 0, &pending, &ctx));
    CHECK(!pending);
    CHECK(ctx == &payload);
    CHECK(((ULONG_PTR)once.Ptr & 3) == 2);

    /* failed: back to the start */
    InitOnceInitialize(&once);
    CHECK(InitOnceBeginInitialize(&once, 0, &pending, &ctx) && pending);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, INIT_ONCE_INIT_FAILED | INIT_ONCE_ASYNC, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(InitOnceComplete(&once, INIT_ONCE_INIT_FAILED, NULL));
    CHECK(once.Ptr == NULL);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, INIT_ONCE_INIT_FAILED, NULL)); /* nothing in progress */
    CHECK_EQ(GetLastError(), ERROR_GEN_FAILURE);

    /* asynchronous: several initialisers, the first Complete wins */
    CHECK(InitOnceBeginInitialize(&once, INIT_ONCE_ASYNC, &pending, &ctx) && pending);
    CHECK(InitOnceBeginInitialize(&once, INIT_ONCE_ASYNC, &pending, &ctx) && pending);
    SetLastError(0);
    CHECK(!InitOnceBeginInitialize(&once, 0, &pending, &ctx)); /* async in progress */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, 0, &payload));       /* async needs the ASYNC flag */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, INIT_ONCE_INIT_FAILED, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(InitOnceComplete(&once, INIT_ONCE_ASYNC, &payload));
    SetLastError(0);
    CHECK(!InitOnceComplete(&once, INIT_ONCE_ASYNC, &calls)); /* lost the race */
    CHECK_EQ(GetLastError(), ERROR_GEN_FAILURE);
    CHECK(InitOnceBeginInitialize(&once, INIT_ONCE_ASYNC, &pending, &ctx));
    CHECK(!pending);
    CHECK(ctx == &payload);

    /* native twins */
    nspa_once_t n = NSPA_ONCE_INIT;
    CHECK_EQ(nspa_once_begin(&n, NSPA_ONCE_CHECK_ONLY, NULL), -EAGAIN);
    CHECK_EQ(nspa_once_begin(&n, 0, NULL), 1);
    CHECK_EQ(nspa_once_complete(&n, 0, NULL), 0);
    CHECK_EQ(nspa_once_begin(&n, NSPA_ONCE_CHECK_ONLY, &ctx), 0);
    CHECK(ctx == NULL);
    return nspa_test_done();
}
