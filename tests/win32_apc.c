/* QueueUserAPC and alertable waits: APCs run only in an alertable wait of their
 * thread (WaitForSingleObjectEx, WaitForMultipleObjectsEx, SleepEx,
 * SignalObjectAndWait with bAlertable), which then returns WAIT_IO_COMPLETION;
 * queued APCs run in FIFO order; non-alertable waits neither run them nor end for
 * them; a wait whose object is already signaled is satisfied first (the APC stays
 * queued); and an alertable wait with nothing queued is not ended by an APC that has
 * already run. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"
#include "win32_testutil.h"

#define LOGMAX 64
static LONG volatile nlog;
static ULONG_PTR log_param[LOGMAX];
static DWORD log_tid[LOGMAX];

static void CALLBACK apc_fn(ULONG_PTR p)
{
    LONG i = InterlockedIncrement(&nlog) - 1;
    if (i < LOGMAX) {
        log_param[i] = p;
        log_tid[i] = GetCurrentThreadId();
    }
}
static LONG nran(void) { return InterlockedCompareExchange(&nlog, 0, 0); }
static void reset_log(void) { InterlockedExchange(&nlog, 0); }

/* ---- to self ---------------------------------------------------------------- */

static void test_self_non_alertable(void)
{
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE arr[1] = { ev };
    reset_log();
    SetLastError(0xdead);
    CHECK(QueueUserAPC(apc_fn, GetCurrentThread(), 5) != 0);
    CHECK_EQ(GetLastError(), 0xdead);
    /* none of these run it */
    Sleep(0);
    CHECK_EQ(SleepEx(0, FALSE), 0);
    CHECK_EQ(SleepEx(10, FALSE), 0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(ev, 10), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObjectEx(ev, 10, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(WaitForMultipleObjectsEx(1, arr, FALSE, 10, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(WaitForMultipleObjectsEx(1, arr, TRUE, 10, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(nran(), 0);
    /* an alertable one does, once */
    CHECK_EQ(SleepEx(0, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(nran(), 1);
    CHECK_EQ(log_param[0], 5);
    CHECK_EQ(log_tid[0], GetCurrentThreadId());
    /* nothing queued now: alertable waits end by their timeout, no second run */
    CHECK_EQ(WaitForSingleObjectEx(ev, 50, TRUE), WAIT_TIMEOUT);
    CHECK_EQ(SleepEx(20, TRUE), 0);
    CHECK_EQ(WaitForMultipleObjectsEx(1, arr, FALSE, 20, TRUE), WAIT_TIMEOUT);
    CHECK_EQ(SleepEx(0, TRUE), 0);
    CHECK_EQ(nran(), 1);
    CloseHandle(ev);
}

/* Each kind of alertable wait returns WAIT_IO_COMPLETION for a queued APC; and the
 * next alertable wait of the same kind, with nothing queued, is not ended by it. */
static void test_self_each_wait(void)
{
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL), ev2 = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE arr[2] = { ev, ev2 };
    for (int kind = 0; kind < 6; kind++) {
        for (int round = 0; round < 2; round++) {
            reset_log();
            if (round == 0) CHECK(QueueUserAPC(apc_fn, GetCurrentThread(), 100 + kind));
            DWORD r;
            switch (kind) {
            case 0: r = WaitForSingleObjectEx(ev, 50, TRUE); break;
            case 1: r = WaitForMultipleObjectsEx(2, arr, FALSE, 50, TRUE); break;
            case 2: r = WaitForMultipleObjectsEx(2, arr, TRUE, 50, TRUE); break;
            case 3: r = SleepEx(50, TRUE); break;
            case 4: r = SignalObjectAndWait(ev2, ev, 50, TRUE); WaitForSingleObject(ev2, 0); break;
            default: r = WaitForSingleObjectEx(ev, 0, TRUE); break;
            }
            DWORD idle = kind == 3 ? 0 : WAIT_TIMEOUT;
            if (r != (round == 0 ? WAIT_IO_COMPLETION : idle))
                fprintf(stderr, "wait kind %d round %d: %u\n", kind, round, r);
            CHECK_EQ(r, round == 0 ? WAIT_IO_COMPLETION : idle);
            CHECK_EQ(nran(), round == 0 ? 1 : 0);
            if (round == 0) CHECK_EQ(log_param[0], 100 + kind);
        }
    }
    CloseHandle(ev);
    CloseHandle(ev2);
}

static void test_fifo(void)
{
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    reset_log();
    for (ULONG_PTR i = 1; i <= 5; i++) CHECK(QueueUserAPC(apc_fn, GetCurrentThread(), i));
    CHECK_EQ(WaitForSingleObjectEx(ev, 1000, TRUE), WAIT_IO_COMPLETION);
    /* one alertable wait delivers everything that was queued, in order */
    CHECK_EQ(nran(), 5);
    for (int i = 0; i < 5; i++) CHECK_EQ(log_param[i], (ULONG_PTR)i + 1);
    CHECK_EQ(SleepEx(0, TRUE), 0);
    CloseHandle(ev);
}

/* A signaled object is taken before queued APCs are delivered. */
static void test_object_first(void)
{
    HANDLE ev = CreateEventA(NULL, FALSE, TRUE, NULL), arr[2];
    reset_log();
    CHECK(QueueUserAPC(apc_fn, GetCurrentThread(), 9));
    CHECK_EQ(WaitForSingleObjectEx(ev, 0, TRUE), WAIT_OBJECT_0);
    CHECK_EQ(nran(), 0);
    SetEvent(ev);
    arr[0] = CreateEventA(NULL, FALSE, FALSE, NULL);
    arr[1] = ev;
    CHECK_EQ(WaitForMultipleObjectsEx(2, arr, FALSE, 0, TRUE), WAIT_OBJECT_0 + 1);
    CHECK_EQ(nran(), 0);
    /* wait-all too: all objects ready wins over the queued APC */
    SetEvent(ev);
    SetEvent(arr[0]);
    CHECK_EQ(WaitForMultipleObjectsEx(2, arr, TRUE, 0, TRUE), WAIT_OBJECT_0);
    CHECK_EQ(nran(), 0);
    CHECK_EQ(WaitForSingleObject(ev, 0), WAIT_TIMEOUT);   /* both were taken */
    CHECK_EQ(WaitForSingleObject(arr[0], 0), WAIT_TIMEOUT);
    /* still queued: the next alertable wait delivers it */
    CHECK_EQ(WaitForSingleObjectEx(ev, 1000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(nran(), 1);
    CloseHandle(arr[0]);
    CloseHandle(ev);
}

/* SignalObjectAndWait(alertable) with an APC queued: the signal still happens. */
static void test_signal_and_wait_alertable(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 0, 1, NULL), ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    reset_log();
    CHECK(QueueUserAPC(apc_fn, GetCurrentThread(), 1));
    CHECK_EQ(SignalObjectAndWait(s, ev, 1000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(nran(), 1);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CloseHandle(s);
    CloseHandle(ev);
}

static void test_errors(void)
{
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE bad[] = { NULL, ev, (HANDLE)(uintptr_t)0x9990 };
    for (size_t i = 0; i < ARRAYSIZE(bad); i++) {
        SetLastError(0);
        CHECK_EQ(QueueUserAPC(apc_fn, bad[i], 1), 0);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    CloseHandle(ev);
    CHECK_EQ(SleepEx(0, TRUE), 0);
}

/* ---- to another thread -------------------------------------------------------- */

struct target {
    int kind;               /* which wait it blocks in */
    HANDLE ev;              /* never signaled */
    DWORD result, result2;  /* of the blocking wait, and of a SleepEx(0, TRUE) after it */
    LONG ran_before_2nd;    /* APCs run when the first wait returned */
};

static DWORD WINAPI target_main(LPVOID p)
{
    struct target *t = p;
    HANDLE arr[2] = { t->ev, t->ev };
    switch (t->kind) {
    case 0: t->result = WaitForSingleObjectEx(t->ev, 10000, TRUE); break;
    case 1: t->result = WaitForMultipleObjectsEx(1, arr, FALSE, 10000, TRUE); break;
    case 2: t->result = WaitForMultipleObjectsEx(1, arr, TRUE, 10000, TRUE); break;
    case 3: t->result = SleepEx(10000, TRUE); break;
    case 4: t->result = WaitForSingleObject(t->ev, 300); break;              /* not alertable */
    case 5: t->result = WaitForSingleObjectEx(t->ev, 300, FALSE); break;    /* not alertable */
    default: t->result = WaitForMultipleObjectsEx(2, arr, FALSE, 300, FALSE); break;
    }
    t->ran_before_2nd = nran();
    t->result2 = SleepEx(0, TRUE);
    return 0;
}

static void test_other_thread(void)
{
    for (int kind = 0; kind < 7; kind++) {
        int alertable = kind < 4;
        struct target t = { kind, CreateEventA(NULL, TRUE, FALSE, NULL), 0xdead, 0xdead, -1 };
        reset_log();
        DWORD tid;
        HANDLE h = CreateThread(NULL, 0, target_main, &t, 0, &tid);
        CHECK(w32t_wait_blocked(tid));
        CHECK(QueueUserAPC(apc_fn, h, 40 + kind));
        CHECK_EQ(WaitForSingleObject(h, 10000), WAIT_OBJECT_0);
        if (t.result != (alertable ? WAIT_IO_COMPLETION : WAIT_TIMEOUT))
            fprintf(stderr, "target kind %d: %u\n", kind, t.result);
        CHECK_EQ(t.result, alertable ? WAIT_IO_COMPLETION : WAIT_TIMEOUT);
        CHECK_EQ(t.ran_before_2nd, alertable ? 1 : 0);
        CHECK_EQ(t.result2, alertable ? 0 : WAIT_IO_COMPLETION);
        CHECK_EQ(nran(), 1);
        CHECK_EQ(log_param[0], 40 + kind);
        CHECK_EQ(log_tid[0], tid);   /* it ran in the target thread */
        CloseHandle(h);
        CloseHandle(t.ev);
    }
}

/* A pthread_create thread, reached through a duplicate of its GetCurrentThread(). */
struct pt { HANDLE self, ready; DWORD tid, result; };
static void *pthread_target(void *p)
{
    struct pt *x = p;
    x->tid = GetCurrentThreadId();
    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &x->self, 0, FALSE,
                    DUPLICATE_SAME_ACCESS);
    SetEvent(x->ready);
    x->result = SleepEx(10000, TRUE);
    return NULL;
}

static void test_pthread_target(void)
{
    struct pt x = { NULL, CreateEventA(NULL, TRUE, FALSE, NULL), 0, 0xdead };
    reset_log();
    pthread_t t;
    pthread_create(&t, NULL, pthread_target, &x);
    CHECK_EQ(WaitForSingleObject(x.ready, 10000), WAIT_OBJECT_0);
    CHECK(w32t_wait_blocked(x.tid));
    CHECK(QueueUserAPC(apc_fn, x.self, 77));
    pthread_join(t, NULL);
    CHECK_EQ(x.result, WAIT_IO_COMPLETION);
    CHECK_EQ(nran(), 1);
    CHECK_EQ(log_tid[0], x.tid);
    /* the thread has ended: queueing to it fails */
    SetLastError(0);
    CHECK_EQ(QueueUserAPC(apc_fn, x.self, 78), 0);
    CloseHandle(x.self);
    CloseHandle(x.ready);
}

/* APCs left queued when a thread ends are dropped, never run elsewhere. */
static DWORD WINAPI wait_then_exit(LPVOID p) { WaitForSingleObject((HANDLE)p, 10000); return 0; }
static void test_undelivered(void)
{
    HANDLE go = CreateEventA(NULL, TRUE, FALSE, NULL);
    reset_log();
    HANDLE h = CreateThread(NULL, 0, wait_then_exit, go, 0, NULL);
    for (int i = 0; i < 3; i++) CHECK(QueueUserAPC(apc_fn, h, i));
    SetEvent(go);
    CHECK_EQ(WaitForSingleObject(h, 10000), WAIT_OBJECT_0);
    CHECK_EQ(SleepEx(0, TRUE), 0);
    CHECK_EQ(nran(), 0);
    CloseHandle(h);
    CloseHandle(go);
}

int main(void)
{
    test_self_non_alertable();
    test_self_each_wait();
    test_fifo();
    test_object_first();
    test_signal_and_wait_alertable();
    test_errors();
    test_other_thread();
    test_pthread_target();
    test_undelivered();
    return nspa_test_done();
}
