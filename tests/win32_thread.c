/* Win32 threads: CreateThread (ids, waitable handles), GetExitCodeThread
 * (STILL_ACTIVE, then the code), ExitThread, CREATE_SUSPENDED + ResumeThread,
 * GetThreadId, GetCurrentThreadId/GetCurrentProcessId, threads made with
 * pthread_create, and bad thread handles. */
#include <windows.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "nspa_test.h"
#include "win32_testutil.h"

struct targ {
    HANDLE go;              /* the thread waits for it before returning, if set */
    DWORD code;             /* what it returns (or passes to ExitThread) */
    int use_exit;           /* 1: ExitThread from a nested call */
    DWORD my_id;            /* its GetCurrentThreadId() */
    LONG volatile ran;      /* set once it runs */
    int after_exit;         /* must stay 0: code after ExitThread */
    HANDLE done;            /* set just before it returns, if set */
};

static void nested_exit(struct targ *a)
{
    ExitThread(a->code);
}

static DWORD WINAPI thread_main(LPVOID p)
{
    struct targ *a = p;
    a->my_id = GetCurrentThreadId();
    InterlockedExchange(&a->ran, 1);
    if (a->go) WaitForSingleObject(a->go, 10000);
    if (a->use_exit) {
        nested_exit(a);
        a->after_exit = 1;
    }
    DWORD code = a->code;
    if (a->done) SetEvent(a->done);   /* a is not touched after this */
    return code;
}

static void test_lifecycle_table(void)
{
    static const struct { DWORD code; int use_exit; } cases[] = {
        { 0, 0 }, { 42, 0 }, { 0xFFFFFFFEu, 0 }, { 7, 1 }, { 0, 1 }, { 0x80000000u, 1 },
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        struct targ a = { CreateEventA(NULL, TRUE, FALSE, NULL), cases[i].code, cases[i].use_exit, 0, 0, 0 };
        DWORD tid = 0;
        SetLastError(0xdead);
        HANDLE t = CreateThread(NULL, 0, thread_main, &a, 0, &tid);
        REQUIRE(t != NULL);
        CHECK_EQ(GetLastError(), 0xdead);
        CHECK(tid != 0);
        CHECK(tid != GetCurrentThreadId());
        CHECK_EQ(GetThreadId(t), tid);
        /* running: not signaled, STILL_ACTIVE */
        CHECK(W32T_EVENTUALLY(InterlockedCompareExchange(&a.ran, 0, 0) == 1));
        CHECK_EQ(WaitForSingleObject(t, 0), WAIT_TIMEOUT);
        DWORD code = 0;
        CHECK(GetExitCodeThread(t, &code));
        CHECK_EQ(code, STILL_ACTIVE);
        /* let it end */
        SetEvent(a.go);
        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        CHECK_EQ(a.my_id, tid);
        CHECK(GetExitCodeThread(t, &code));
        CHECK_EQ(code, cases[i].code);
        CHECK_EQ(a.after_exit, 0);
        /* stays signaled (manual), the id stays readable */
        CHECK_EQ(WaitForSingleObject(t, 0), WAIT_OBJECT_0);
        CHECK_EQ(WaitForMultipleObjects(1, &t, TRUE, 0), WAIT_OBJECT_0);
        CHECK_EQ(GetThreadId(t), tid);
        CHECK(CloseHandle(t));
        CloseHandle(a.go);
    }
}

static void test_null_tid_and_stack(void)
{
    static const SIZE_T stacks[] = { 0, 1, 64 * 1024, 1 << 20 };
    for (size_t i = 0; i < ARRAYSIZE(stacks); i++) {
        struct targ a = { NULL, 3, 0, 0, 0, 0 };
        HANDLE t = CreateThread(NULL, stacks[i], thread_main, &a, 0, NULL);
        REQUIRE(t != NULL);
        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        DWORD code = 0;
        CHECK(GetExitCodeThread(t, &code));
        CHECK_EQ(code, 3);
        CHECK_EQ(GetThreadId(t), a.my_id);
        CloseHandle(t);
    }
    struct targ a = { NULL, 4, 0, 0, 0, 0 };
    HANDLE t = CreateThread(NULL, 256 * 1024, thread_main, &a, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
    CHECK(t != NULL);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);
}

static void test_suspended(void)
{
    struct targ a = { NULL, 11, 0, 0, 0, 0 };
    DWORD tid = 0;
    HANDLE t = CreateThread(NULL, 0, thread_main, &a, CREATE_SUSPENDED, &tid);
    REQUIRE(t != NULL);
    CHECK(tid != 0);
    CHECK_EQ(GetThreadId(t), tid);
    /* it does not run */
    CHECK_EQ(WaitForSingleObject(t, 100), WAIT_TIMEOUT);
    CHECK_EQ(InterlockedCompareExchange(&a.ran, 0, 0), 0);
    DWORD code = 0;
    CHECK(GetExitCodeThread(t, &code));
    CHECK_EQ(code, STILL_ACTIVE);
    /* ResumeThread returns the previous suspend count */
    CHECK_EQ(ResumeThread(t), 1);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(InterlockedCompareExchange(&a.ran, 0, 0), 1);
    CHECK_EQ(a.my_id, tid);
    CHECK(GetExitCodeThread(t, &code));
    CHECK_EQ(code, 11);
    CloseHandle(t);
    /* resuming a thread that is not suspended: 0 */
    struct targ b = { CreateEventA(NULL, TRUE, FALSE, NULL), 0, 0, 0, 0, 0 };
    t = CreateThread(NULL, 0, thread_main, &b, 0, NULL);
    CHECK_EQ(ResumeThread(t), 0);
    SetEvent(b.go);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CloseHandle(t);
    CloseHandle(b.go);
}

/* Closing a thread handle does not stop the thread; other handles still work. */
static void test_close_running(void)
{
    struct targ a = { CreateEventA(NULL, TRUE, FALSE, NULL), 5, 0, 0, 0, 0 };
    HANDLE t = CreateThread(NULL, 0, thread_main, &a, 0, NULL), d = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), t, GetCurrentProcess(), &d, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(CloseHandle(t));
    SetEvent(a.go);
    CHECK_EQ(WaitForSingleObject(d, 10000), WAIT_OBJECT_0);
    DWORD code = 0;
    CHECK(GetExitCodeThread(d, &code));
    CHECK_EQ(code, 5);
    CloseHandle(d);
    CloseHandle(a.go);
    /* a handle closed before the thread ends: the thread still runs to the end */
    struct targ b = { CreateEventA(NULL, TRUE, FALSE, NULL), 6, 0, 0, 0, 0, CreateEventA(NULL, TRUE, FALSE, NULL) };
    t = CreateThread(NULL, 0, thread_main, &b, 0, NULL);
    CHECK(CloseHandle(t));
    SetEvent(b.go);
    CHECK_EQ(WaitForSingleObject(b.done, 10000), WAIT_OBJECT_0);
    CHECK(b.my_id != 0);
    CloseHandle(b.go);
    CloseHandle(b.done);
}

/* Many threads: wait for all of them at once; each has its own exit code and id. */
#define NT 16
static void test_many(void)
{
    struct targ a[NT];
    HANDLE t[NT];
    DWORD ids[NT];
    for (int i = 0; i < NT; i++) {
        a[i] = (struct targ){ NULL, 100 + i, i & 1, 0, 0, 0 };
        t[i] = CreateThread(NULL, 0, thread_main, &a[i], 0, &ids[i]);
        REQUIRE(t[i] != NULL);
    }
    CHECK_EQ(WaitForMultipleObjects(NT, t, TRUE, 10000), WAIT_OBJECT_0);
    for (int i = 0; i < NT; i++) {
        DWORD code = 0;
        CHECK(GetExitCodeThread(t[i], &code));
        CHECK_EQ(code, 100 + i);
        CHECK_EQ(a[i].my_id, ids[i]);
        for (int j = 0; j < i; j++) CHECK(ids[i] != ids[j] || 0);
        CloseHandle(t[i]);
    }
}

/* pthread_create threads: an id on first use, stable, unique among live threads. */
struct pinfo { DWORD id1, id2, pid; pid_t gettid; DWORD pseudo_id; HANDLE hold, filled; };
static void *pthread_main(void *p)
{
    struct pinfo *x = p;
    x->id1 = GetCurrentThreadId();
    x->id2 = GetCurrentThreadId();
    x->pid = GetCurrentProcessId();
    x->gettid = (pid_t)syscall(SYS_gettid);
    x->pseudo_id = GetThreadId(GetCurrentThread());
    ReleaseSemaphore(x->filled, 1, NULL);
    WaitForSingleObject(x->hold, 10000);   /* stay alive until all have their ids */
    return NULL;
}

static void test_pthread_ids(void)
{
    HANDLE hold = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE filled = CreateSemaphoreA(NULL, 0, 4, NULL);
    struct pinfo x[4];
    pthread_t pt[4];
    for (int i = 0; i < 4; i++) {
        memset(&x[i], 0, sizeof(x[i]));
        x[i].hold = hold;
        x[i].filled = filled;
        pthread_create(&pt[i], NULL, pthread_main, &x[i]);
    }
    for (int i = 0; i < 4; i++) CHECK_EQ(WaitForSingleObject(filled, 10000), WAIT_OBJECT_0);
    SetEvent(hold);
    for (int i = 0; i < 4; i++) pthread_join(pt[i], NULL);
    for (int i = 0; i < 4; i++) {
        CHECK(x[i].id1 != 0);
        CHECK_EQ(x[i].id1, x[i].id2);
        CHECK_EQ(x[i].id1, (DWORD)x[i].gettid);   /* the Linux thread id (sync.h) */
        CHECK_EQ(x[i].pseudo_id, x[i].id1);
        CHECK_EQ(x[i].pid, (DWORD)getpid());
        CHECK(x[i].id1 != GetCurrentThreadId());
        for (int j = 0; j < i; j++) CHECK(x[i].id1 != x[j].id1);   /* all alive together */
    }
    CHECK_EQ(GetCurrentProcessId(), (DWORD)getpid());
    CHECK_EQ(GetCurrentThreadId(), (DWORD)syscall(SYS_gettid));
    CloseHandle(hold);
    CloseHandle(filled);
}

/* A Win32 thread created from a pthread_create thread. */
static void *creates_thread(void *p)
{
    struct targ *a = p;
    HANDLE t = CreateThread(NULL, 0, thread_main, a, 0, NULL);
    DWORD r = t ? WaitForSingleObject(t, 10000) : WAIT_FAILED;
    DWORD code = 0;
    if (t) GetExitCodeThread(t, &code);
    a->after_exit = r == WAIT_OBJECT_0 && code == a->code ? 0 : 1;
    if (t) CloseHandle(t);
    return NULL;
}

static void test_from_pthread(void)
{
    struct targ a = { NULL, 77, 0, 0, 0, 0 };
    pthread_t pt;
    pthread_create(&pt, NULL, creates_thread, &a);
    pthread_join(pt, NULL);
    CHECK_EQ(a.after_exit, 0);
    CHECK(a.my_id != 0);
}

static void test_bad_handles(void)
{
    HANDLE e = CreateEventA(NULL, TRUE, TRUE, NULL);
    HANDLE bad[] = { NULL, e, (HANDLE)(uintptr_t)0x5678 };
    for (size_t i = 0; i < ARRAYSIZE(bad); i++) {
        DWORD code = 0x1234;
        SetLastError(0);
        CHECK(!GetExitCodeThread(bad[i], &code));
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        CHECK_EQ(code, 0x1234);
        SetLastError(0);
        CHECK_EQ(GetThreadId(bad[i]), 0);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        SetLastError(0);
        CHECK_EQ(ResumeThread(bad[i]), (DWORD)-1);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    CloseHandle(e);
    /* the pseudo handle */
    DWORD code = 0;
    CHECK(GetExitCodeThread(GetCurrentThread(), &code));
    CHECK_EQ(code, STILL_ACTIVE);
    CHECK_EQ(WaitForSingleObject(GetCurrentThread(), 50), WAIT_TIMEOUT);
    CHECK(GetCurrentThread() == (HANDLE)(LONG_PTR)-2);
    CHECK(GetCurrentProcess() == (HANDLE)(LONG_PTR)-1);
}

int main(void)
{
    test_lifecycle_table();
    test_null_tid_and_stack();
    test_suspended();
    test_close_running();
    test_many();
    test_pthread_ids();
    test_from_pthread();
    test_bad_handles();
    return nspa_test_done();
}
