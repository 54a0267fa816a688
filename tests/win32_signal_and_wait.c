/* SignalObjectAndWait: signal an event, release a semaphore or a mutex, then wait.
 * Errors of the signal (ERROR_NOT_OWNER, ERROR_TOO_MANY_POSTS, ERROR_INVALID_HANDLE)
 * fail the call with WAIT_FAILED before any wait; a bad wait handle fails it before
 * anything is signaled (Windows references both objects first). */
#include <windows.h>
#include "nspa_test.h"
#include "win32_testutil.h"

static int release_all(HANDLE m) { int n = 0; while (ReleaseMutex(m)) n++; return n; }

static void test_basic(void)
{
    /* event -> wait times out; the event was set */
    HANDLE e1 = CreateEventA(NULL, FALSE, FALSE, NULL), e2 = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK_EQ(SignalObjectAndWait(e1, e2, 50, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(e1, 0), WAIT_OBJECT_0);
    /* event -> wait succeeds at once */
    SetEvent(e2);
    CHECK_EQ(SignalObjectAndWait(e1, e2, 0, FALSE), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(e1, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(e2, 0), WAIT_TIMEOUT);

    /* semaphore: count + 1; and signal-then-wait on the same semaphore takes it back */
    HANDLE s = CreateSemaphoreA(NULL, 0, 2, NULL);
    CHECK_EQ(SignalObjectAndWait(s, e2, 0, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(SignalObjectAndWait(s, s, 0, FALSE), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);

    /* mutex owned twice: one release per call */
    HANDLE m = CreateMutexA(NULL, TRUE, NULL);
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK_EQ(SignalObjectAndWait(m, e2, 0, FALSE), WAIT_TIMEOUT);
    CHECK_EQ(release_all(m), 1);
    /* release and re-acquire the same mutex */
    CHECK_EQ(WaitForSingleObject(m, 0), WAIT_OBJECT_0);
    CHECK_EQ(SignalObjectAndWait(m, m, 0, FALSE), WAIT_OBJECT_0);
    CHECK_EQ(release_all(m), 1);
    CloseHandle(e1);
    CloseHandle(e2);
    CloseHandle(s);
    CloseHandle(m);
}

static DWORD WINAPI return_zero(LPVOID p) { return 0; }

static void test_signal_errors(void)
{
    HANDLE w = CreateSemaphoreA(NULL, 1, 1, NULL);   /* the wait object: must stay at 1 */
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE full = CreateSemaphoreA(NULL, 3, 3, NULL);
    HANDLE closed = CreateEventA(NULL, FALSE, FALSE, NULL);
    CloseHandle(closed);
    HANDLE thr = CreateThread(NULL, 0, return_zero, NULL, 0, NULL);
    WaitForSingleObject(thr, 10000);
    static const char *what[] = { "unowned mutex", "full semaphore", "NULL", "closed", "garbage", "thread" };
    HANDLE sig[] = { m, full, NULL, closed, (HANDLE)(uintptr_t)0x7777770, thr };
    DWORD err[] = { ERROR_NOT_OWNER, ERROR_TOO_MANY_POSTS, ERROR_INVALID_HANDLE, ERROR_INVALID_HANDLE,
                    ERROR_INVALID_HANDLE, ERROR_INVALID_HANDLE };
    for (size_t i = 0; i < ARRAYSIZE(sig); i++) {
        SetLastError(0);
        DWORD r = SignalObjectAndWait(sig[i], w, 0, FALSE);
        if (r != WAIT_FAILED || GetLastError() != err[i])
            fprintf(stderr, "signal %s: %u err %u\n", what[i], r, GetLastError());
        CHECK_EQ(r, WAIT_FAILED);
        CHECK_EQ(GetLastError(), err[i]);
    }
    /* no wait happened: w still holds its unit; the full semaphore still 3 */
    CHECK_EQ(WaitForSingleObject(w, 0), WAIT_OBJECT_0);
    for (int k = 0; k < 3; k++) CHECK_EQ(WaitForSingleObject(full, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(full, 0), WAIT_TIMEOUT);
    CloseHandle(w);
    CloseHandle(m);
    CloseHandle(full);
    CloseHandle(thr);
}

static void test_wait_errors(void)
{
    HANDLE bad[] = { NULL, NULL, (HANDLE)(uintptr_t)0x7777770, (HANDLE)(uintptr_t)0x6666661 };   /* tag bits ignored: NT */
    for (size_t i = 0; i < ARRAYSIZE(bad); i++) {
        HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
        HANDLE s = CreateSemaphoreA(NULL, 0, 1, NULL);
        HANDLE m = CreateMutexA(NULL, TRUE, NULL);
        if (i == 1) {   /* a closed handle (made after the others: values are reused) */
            bad[1] = CreateEventA(NULL, TRUE, TRUE, NULL);
            CloseHandle(bad[1]);
        }
        HANDLE sig[3] = { e, s, m };
        for (int k = 0; k < 3; k++) {
            SetLastError(0);
            CHECK_EQ(SignalObjectAndWait(sig[k], bad[i], 0, FALSE), WAIT_FAILED);
            CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
        }
        /* nothing was signaled */
        CHECK_EQ(WaitForSingleObject(e, 0), WAIT_TIMEOUT);
        CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);
        CHECK_EQ(release_all(m), 1);
        CloseHandle(e);
        CloseHandle(s);
        CloseHandle(m);
    }
}

static DWORD WINAPI own_and_exit(LPVOID p) { WaitForSingleObject((HANDLE)p, 0); return 0; }

static void test_wait_abandoned(void)
{
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, own_and_exit, m, 0, NULL);
    WaitForSingleObject(t, 10000);
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
    CHECK_EQ(SignalObjectAndWait(e, m, 0, FALSE), WAIT_ABANDONED_0);
    CHECK_EQ(release_all(m), 1);
    CloseHandle(t);
    CloseHandle(m);
    CloseHandle(e);
}

/* ---- threaded: strict ping-pong ------------------------------------------------ */

#define ROUNDS 200
struct pp { HANDLE ping, pong; LONG volatile *turn; int bad; };

static DWORD WINAPI ponger(LPVOID p)
{
    struct pp *x = p;
    if (WaitForSingleObject(x->ping, 10000) != WAIT_OBJECT_0) { x->bad = 1; return 1; }
    for (int i = 0; i < ROUNDS; i++) {
        if (InterlockedCompareExchange(x->turn, 2 * i + 2, 2 * i + 1) != 2 * i + 1) x->bad = 1;
        DWORD r = i + 1 < ROUNDS ? SignalObjectAndWait(x->pong, x->ping, 10000, FALSE)
                                 : (SetEvent(x->pong) ? WAIT_OBJECT_0 : WAIT_FAILED);
        if (r != WAIT_OBJECT_0) { x->bad = 2; return 1; }
    }
    return 0;
}

static void test_ping_pong(void)
{
    LONG volatile turn = 0;
    struct pp x = { CreateEventA(NULL, FALSE, FALSE, NULL), CreateEventA(NULL, FALSE, FALSE, NULL), &turn, 0 };
    HANDLE t = CreateThread(NULL, 0, ponger, &x, 0, NULL);
    int bad = 0;
    for (int i = 0; i < ROUNDS; i++) {
        if (InterlockedCompareExchange(&turn, 2 * i + 1, 2 * i) != 2 * i) bad = 1;
        if (SignalObjectAndWait(x.ping, x.pong, 10000, FALSE) != WAIT_OBJECT_0) { bad = 2; break; }
    }
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(bad, 0);
    CHECK_EQ(x.bad, 0);
    CHECK_EQ(turn, 2 * ROUNDS);
    CloseHandle(t);
    CloseHandle(x.ping);
    CloseHandle(x.pong);
}

int main(void)
{
    test_basic();
    test_signal_errors();
    test_wait_errors();
    test_wait_abandoned();
    test_ping_pong();
    return nspa_test_done();
}
