/* Handles: CloseHandle, DuplicateHandle within the process (DUPLICATE_CLOSE_SOURCE,
 * the GetCurrentThread() pseudo handle), and bad handles — closed, garbage and of
 * the wrong type — for every call that takes one: ERROR_INVALID_HANDLE and the
 * object unchanged. Closing a handle while another thread waits on the object does
 * not wake it: its wait ends by its timeout (sync-semantics.md, "Waits"). */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static void test_close(void)
{
    HANDLE kinds[3] = { CreateEventA(NULL, FALSE, FALSE, NULL), CreateMutexA(NULL, FALSE, NULL),
                        CreateSemaphoreA(NULL, 0, 1, NULL) };
    for (int i = 0; i < 3; i++) {
        REQUIRE(kinds[i] != NULL);
        CHECK_EQ((uintptr_t)kinds[i] % 4, 0);
        SetLastError(0xdead);
        CHECK_EQ(CloseHandle(kinds[i]), TRUE);
        CHECK_EQ(GetLastError(), 0xdead);
        SetLastError(0);
        CHECK_EQ(CloseHandle(kinds[i]), FALSE);   /* twice */
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    static const uintptr_t garbage[] = { 0, 1, 2, 3, 4 * 1000003, 0x12345678, 0xfffffff0u, 0x7ffffffcu };
    for (size_t i = 0; i < ARRAYSIZE(garbage); i++) {
        SetLastError(0);
        CHECK_EQ(CloseHandle((HANDLE)garbage[i]), FALSE);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    /* the pseudo handles close as a no-op and stay usable */
    CHECK_EQ(CloseHandle(GetCurrentProcess()), TRUE);
    CHECK_EQ(CloseHandle(GetCurrentThread()), TRUE);
    CHECK_EQ(GetThreadId(GetCurrentThread()), GetCurrentThreadId());
}

/* Every call on a bad handle, of every kind of badness: ERROR_INVALID_HANDLE. Wrong
 * types leave the object of the other type unchanged. */
enum { K_EVENT, K_MUTEX, K_SEM, K_THREAD, NK };

static DWORD WINAPI return_nine(LPVOID p) { return 9; }

/* Apply operation op to h; returns 1 if it failed with ERROR_INVALID_HANDLE. */
static int op_fails_invalid_handle(int op, HANDLE h)
{
    BOOL ok;
    DWORD r, code;
    LONG prev;
    HANDLE dup, arr[2] = { h, h };
    SetLastError(0);
    switch (op) {
    case 0: ok = SetEvent(h); break;
    case 1: ok = ResetEvent(h); break;
    case 2: ok = PulseEvent(h); break;
    case 3: ok = ReleaseMutex(h); break;
    case 4: ok = ReleaseSemaphore(h, 1, &prev); break;
    case 5: r = WaitForSingleObject(h, 0); ok = r != WAIT_FAILED; break;
    case 6: r = WaitForSingleObjectEx(h, 0, TRUE); ok = r != WAIT_FAILED; break;
    case 7: r = WaitForMultipleObjects(1, arr, FALSE, 0); ok = r != WAIT_FAILED; break;
    case 8: r = WaitForMultipleObjects(1, arr, TRUE, 0); ok = r != WAIT_FAILED; break;
    case 9: ok = DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, FALSE,
                                 DUPLICATE_SAME_ACCESS); break;
    case 10: ok = GetExitCodeThread(h, &code); break;
    case 11: ok = GetThreadId(h) != 0; break;
    case 12: ok = ResumeThread(h) != (DWORD)-1; break;
    case 13: r = SignalObjectAndWait(h, GetCurrentThread(), 0, FALSE); ok = r != WAIT_FAILED; break;
    default: ok = CloseHandle(h); break;
    }
    if (ok) return 0;
    if (GetLastError() != ERROR_INVALID_HANDLE) {
        fprintf(stderr, "op %d on %p: error %u\n", op, h, GetLastError());
        return 0;
    }
    return 1;
}
#define NOPS 15
/* which operations accept which kind (1 = valid for that kind) */
static const char valid_for[NOPS][NK] = {
    /* Set */ { 1, 0, 0, 0 }, /* Reset */ { 1, 0, 0, 0 }, /* Pulse */ { 1, 0, 0, 0 },
    /* ReleaseMutex */ { 0, 1, 0, 0 }, /* ReleaseSemaphore */ { 0, 0, 1, 0 },
    /* waits */ { 1, 1, 1, 1 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 },
    /* Duplicate */ { 1, 1, 1, 1 },
    /* GetExitCodeThread */ { 0, 0, 0, 1 }, /* GetThreadId */ { 0, 0, 0, 1 }, /* ResumeThread */ { 0, 0, 0, 1 },
    /* SignalObjectAndWait */ { 1, 1, 1, 0 },
    /* Close */ { 1, 1, 1, 1 },
};

static void test_bad_handles_table(void)
{
    for (int op = 0; op < NOPS; op++) {
        /* garbage and NULL */
        static const uintptr_t garbage[] = { 0, 3, 0x12345678, 0xfffffff0u, 4 * 1999999 };
        for (size_t g = 0; g < ARRAYSIZE(garbage); g++) {
            int r = op_fails_invalid_handle(op, (HANDLE)garbage[g]);
            if (!r) fprintf(stderr, "op %d garbage %zu accepted\n", op, g);
            CHECK(r);
        }
        /* closed handles of each kind */
        for (int k = 0; k < NK; k++) {
            HANDLE h = k == K_EVENT ? CreateEventA(NULL, FALSE, FALSE, NULL)
                     : k == K_MUTEX ? CreateMutexA(NULL, FALSE, NULL)
                     : k == K_SEM ? CreateSemaphoreA(NULL, 0, 1, NULL)
                     : CreateThread(NULL, 0, return_nine, NULL, 0, NULL);
            if (k == K_THREAD) WaitForSingleObject(h, 10000);
            CHECK(CloseHandle(h));
            int r = op_fails_invalid_handle(op, h);
            if (!r) fprintf(stderr, "op %d closed kind %d accepted\n", op, k);
            CHECK(r);
        }
    }
}

/* Wrong types: for every (operation, kind) pair the operation does not accept, the
 * call fails with ERROR_INVALID_HANDLE and the object keeps its state. */
static void test_wrong_type_table(void)
{
    for (int op = 0; op < NOPS; op++) {
        for (int k = 0; k < NK; k++) {
            if (valid_for[op][k]) continue;
            HANDLE h;
            switch (k) {
            case K_EVENT: h = CreateEventA(NULL, TRUE, FALSE, NULL); break;   /* unsignaled */
            case K_MUTEX: h = CreateMutexA(NULL, TRUE, NULL); break;          /* owned by us */
            case K_SEM: h = CreateSemaphoreA(NULL, 1, 2, NULL); break;        /* count 1 */
            default: h = CreateThread(NULL, 0, return_nine, NULL, 0, NULL);
                     WaitForSingleObject(h, 10000);
            }
            int r = op_fails_invalid_handle(op, h);
            if (!r) fprintf(stderr, "op %d on kind %d accepted\n", op, k);
            CHECK(r);
            /* unchanged */
            switch (k) {
            case K_EVENT: CHECK_EQ(WaitForSingleObject(h, 0), WAIT_TIMEOUT); break;
            case K_MUTEX: CHECK(ReleaseMutex(h)); CHECK(!ReleaseMutex(h)); break;
            case K_SEM:
                CHECK_EQ(WaitForSingleObject(h, 0), WAIT_OBJECT_0);
                CHECK_EQ(WaitForSingleObject(h, 0), WAIT_TIMEOUT);
                break;
            default: {
                DWORD code = 0;
                CHECK(GetExitCodeThread(h, &code));
                CHECK_EQ(code, 9);
                CHECK_EQ(WaitForSingleObject(h, 0), WAIT_OBJECT_0);
            }
            }
            CloseHandle(h);
        }
    }
}

static void test_duplicate(void)
{
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL), d = NULL, d2 = NULL;
    SetLastError(0xdead);
    CHECK(DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &d, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), 0xdead);
    CHECK(d != NULL && d != e);
    CHECK_EQ((uintptr_t)d % 4, 0);
    /* one object */
    CHECK(SetEvent(e));
    CHECK_EQ(WaitForSingleObject(d, 0), WAIT_OBJECT_0);
    CHECK(ResetEvent(d));
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_TIMEOUT);
    /* closing the original keeps the duplicate's object alive */
    CHECK(CloseHandle(e));
    CHECK(SetEvent(d));
    CHECK_EQ(WaitForSingleObject(d, 0), WAIT_OBJECT_0);
    /* DUPLICATE_CLOSE_SOURCE: the source is closed, the new handle works */
    CHECK(DuplicateHandle(GetCurrentProcess(), d, GetCurrentProcess(), &d2, EVENT_ALL_ACCESS, FALSE,
                          DUPLICATE_CLOSE_SOURCE));
    CHECK(d2 != NULL);
    SetLastError(0);
    CHECK(!SetEvent(d) || d == d2);
    if (d != d2) CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK_EQ(WaitForSingleObject(d2, 0), WAIT_OBJECT_0);
    CHECK(CloseHandle(d2));

    /* mutex: a duplicate names the same mutex with the same owner */
    HANDLE m = CreateMutexA(NULL, TRUE, NULL), md = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), m, GetCurrentProcess(), &md, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CHECK(ReleaseMutex(md));
    CHECK(!ReleaseMutex(m));
    CHECK_EQ(GetLastError(), ERROR_NOT_OWNER);
    CloseHandle(m);
    CloseHandle(md);

    /* a semaphore: state shared */
    HANDLE s = CreateSemaphoreA(NULL, 0, 5, NULL), sd = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), s, GetCurrentProcess(), &sd, 0, FALSE, DUPLICATE_SAME_ACCESS));
    LONG prev = -1;
    CHECK(ReleaseSemaphore(s, 2, &prev));
    CHECK(ReleaseSemaphore(sd, 1, &prev));
    CHECK_EQ(prev, 2);
    CloseHandle(s);
    CloseHandle(sd);

    /* a duplicate of a bad handle fails and writes nothing */
    HANDLE out = (HANDLE)(uintptr_t)0x1234;
    SetLastError(0);
    CHECK(!DuplicateHandle(GetCurrentProcess(), (HANDLE)(uintptr_t)0x5550, GetCurrentProcess(), &out, 0, FALSE,
                           DUPLICATE_SAME_ACCESS));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(out == (HANDLE)(uintptr_t)0x1234);
}

/* DuplicateHandle(GetCurrentThread()) makes a real handle to this thread, usable
 * from other threads; it becomes signaled when the thread ends. */
struct dup_self { HANDLE h; DWORD tid; BOOL ok; HANDLE go; };

static void *pthread_dups_itself(void *p)
{
    struct dup_self *x = p;
    x->tid = GetCurrentThreadId();
    x->ok = DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &x->h, 0, FALSE,
                            DUPLICATE_SAME_ACCESS);
    SetEvent(x->go);
    return NULL;
}

static void test_duplicate_current_thread(void)
{
    HANDLE self = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self, 0, FALSE,
                          DUPLICATE_SAME_ACCESS));
    CHECK(self != NULL && self != GetCurrentThread());
    CHECK_EQ(GetThreadId(self), GetCurrentThreadId());
    CHECK_EQ(WaitForSingleObject(self, 0), WAIT_TIMEOUT);   /* we are running */
    DWORD code = 0;
    CHECK(GetExitCodeThread(self, &code));
    CHECK_EQ(code, STILL_ACTIVE);
    /* the pseudo handle itself is not consumed by DUPLICATE_CLOSE_SOURCE */
    HANDLE self2 = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &self2, 0, FALSE,
                          DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE));
    CHECK_EQ(GetThreadId(GetCurrentThread()), GetCurrentThreadId());
    CHECK_EQ(GetThreadId(self2), GetCurrentThreadId());
    CloseHandle(self);
    CloseHandle(self2);

    /* from a pthread_create thread: the handle outlives it and is signaled at its end */
    struct dup_self x = { NULL, 0, FALSE, CreateEventA(NULL, TRUE, FALSE, NULL) };
    pthread_t t;
    pthread_create(&t, NULL, pthread_dups_itself, &x);
    CHECK_EQ(WaitForSingleObject(x.go, 10000), WAIT_OBJECT_0);
    pthread_join(t, NULL);
    CHECK(x.ok);
    CHECK_EQ(GetThreadId(x.h), x.tid);
    CHECK_EQ(WaitForSingleObject(x.h, 10000), WAIT_OBJECT_0);
    CHECK(GetExitCodeThread(x.h, &code));
    CHECK(code != STILL_ACTIVE);
    CloseHandle(x.h);
    CloseHandle(x.go);
}

/* ---- closing a handle while another thread waits on its object --------------- */

struct cw { HANDLE h; DWORD ms; DWORD result; };
static DWORD WINAPI close_waiter(LPVOID p)
{
    struct cw *w = p;
    w->result = WaitForSingleObject(w->h, w->ms);
    return 0;
}

static void test_close_while_waiting(void)
{
    /* the only handle: the waiter is not woken, not failed; its wait times out */
    for (int k = 0; k < 3; k++) {
        HANDLE h = k == 0 ? CreateEventA(NULL, FALSE, FALSE, NULL)
                 : k == 1 ? CreateSemaphoreA(NULL, 0, 1, NULL) : CreateMutexA(NULL, TRUE, NULL);
        struct cw w = { h, 300, 0xdead };
        DWORD tid;
        HANDLE t = CreateThread(NULL, 0, close_waiter, &w, 0, &tid);
        CHECK(w32t_wait_blocked(tid));
        /* (the mutex is owned by this thread, so only the close could end that wait) */
        CHECK(CloseHandle(h));
        CHECK(w32t_wait_blocked(tid));   /* still asleep after the close */
        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        CHECK_EQ(w.result, WAIT_TIMEOUT);
        CloseHandle(t);
    }
    /* the closed handle's value is reused by a new object: signaling that one does
     * not wake the waiter, which waits on the old object */
    {
        HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
        struct cw w = { e, 300, 0xdead };
        DWORD tid;
        HANDLE t = CreateThread(NULL, 0, close_waiter, &w, 0, &tid);
        CHECK(w32t_wait_blocked(tid));
        CHECK(CloseHandle(e));
        HANDLE reused = CreateEventA(NULL, TRUE, FALSE, NULL);
        if (reused != e) fprintf(stderr, "note: handle value not reused (%p, %p)\n", e, reused);
        CHECK(SetEvent(reused));
        CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
        CHECK_EQ(w.result, WAIT_TIMEOUT);
        CloseHandle(t);
        CloseHandle(reused);
    }
    /* another handle keeps the object: signaling it after the close still wakes the
     * waiter (the wait holds the object, not the handle) */
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL), d = NULL;
    DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &d, 0, FALSE, DUPLICATE_SAME_ACCESS);
    struct cw w = { e, 10000, 0xdead };
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, close_waiter, &w, 0, &tid);
    CHECK(w32t_wait_blocked(tid));
    CHECK(CloseHandle(e));
    CHECK(w32t_wait_blocked(tid));
    CHECK(SetEvent(d));
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(w.result, WAIT_OBJECT_0);
    CloseHandle(t);
    CloseHandle(d);
}

int main(void)
{
    test_close();
    test_bad_handles_table();
    test_wrong_type_table();
    test_duplicate();
    test_duplicate_current_thread();
    test_close_while_waiting();
    return nspa_test_done();
}
