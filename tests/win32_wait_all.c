/* WaitForMultipleObjects(Ex) with bWaitAll = TRUE (sync-semantics.md, "Waits"):
 * all-or-nothing — every object is taken in one step or none is, a timeout leaves
 * every object untouched; WAIT_ABANDONED_0 + i with everything acquired; duplicate
 * objects (same handle or two handles of one object) -> ERROR_INVALID_PARAMETER with
 * nothing taken; 0 or more than 64 handles -> ERROR_INVALID_PARAMETER; NULL array. */
#include <windows.h>
#include <pthread.h>
#include "nspa_test.h"
#include "win32_testutil.h"

enum { SEM, AUTO_EV, MANUAL_EV, MUTEX };


/* Probe state without lasting change: 1 if a wait would succeed now. */
static int is_signaled(int kind, HANDLE h)
{
    DWORD r = WaitForSingleObject(h, 0);
    if (r != WAIT_OBJECT_0 && r != WAIT_ABANDONED_0) return 0;
    if (kind == SEM) ReleaseSemaphore(h, 1, NULL);
    if (kind == AUTO_EV) SetEvent(h);
    if (kind == MUTEX) ReleaseMutex(h);
    return 1;
}

/* Does this thread own mutex m (with what count)? Releases it count times. */
static int release_all(HANDLE m)
{
    int n = 0;
    while (ReleaseMutex(m)) n++;
    return n;
}

static void test_all_or_nothing_table(void)
{
    static const int kinds[4] = { SEM, AUTO_EV, MUTEX, MANUAL_EV };
    static const DWORD timeouts[] = { 0, 50 };
    for (size_t ti = 0; ti < ARRAYSIZE(timeouts); ti++) {
        for (unsigned mask = 0; mask < 16; mask++) {
            HANDLE h[4];
            struct holder hold = { .n = 0 };
            for (int i = 0; i < 4; i++) {
                int sig = (mask >> i) & 1;
                switch (kinds[i]) {
                case SEM: h[i] = CreateSemaphoreA(NULL, sig ? 2 : 0, 10, NULL); break;
                case AUTO_EV: h[i] = CreateEventA(NULL, FALSE, sig, NULL); break;
                case MANUAL_EV: h[i] = CreateEventA(NULL, TRUE, sig, NULL); break;
                default:
                    h[i] = CreateMutexA(NULL, FALSE, NULL);
                    if (!sig) hold.m[hold.n++] = h[i];
                }
            }
            if (hold.n) holder_start(&hold, 0);
            DWORD r = WaitForMultipleObjects(4, h, TRUE, timeouts[ti]);
            if (mask == 15) {
                CHECK_EQ(r, WAIT_OBJECT_0);
                /* every object taken: sem 2 -> 1, auto event reset, mutex ours */
                CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_OBJECT_0);
                CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_TIMEOUT);
                CHECK_EQ(is_signaled(AUTO_EV, h[1]), 0);
                CHECK_EQ(release_all(h[2]), 1);
                CHECK_EQ(is_signaled(MANUAL_EV, h[3]), 1);
            } else {
                if (r != WAIT_TIMEOUT) fprintf(stderr, "mask %x: %u\n", mask, r);
                CHECK_EQ(r, WAIT_TIMEOUT);
                /* nothing taken */
                if (mask & 1) {
                    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_OBJECT_0);
                    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_OBJECT_0);
                    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_TIMEOUT);
                } else CHECK_EQ(is_signaled(SEM, h[0]), 0);
                CHECK_EQ(is_signaled(AUTO_EV, h[1]), (mask >> 1) & 1);
                CHECK_EQ(release_all(h[2]), 0);
                CHECK_EQ(is_signaled(MANUAL_EV, h[3]), (mask >> 3) & 1);
            }
            if (hold.n) holder_stop(&hold);
            for (int i = 0; i < 4; i++) CloseHandle(h[i]);
        }
    }
}

static void test_duplicates_invalid(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 2, 10, NULL);
    HANDLE e = CreateEventA(NULL, FALSE, TRUE, NULL);
    HANDLE m = CreateMutexA(NULL, FALSE, NULL);
    HANDLE e2 = NULL;
    CHECK(DuplicateHandle(GetCurrentProcess(), e, GetCurrentProcess(), &e2, 0, FALSE, DUPLICATE_SAME_ACCESS));
    HANDLE cases[][3] = {
        { s, s, e }, { e, s, e }, { m, e, m }, { e, e2, s },   /* last: two handles, one object */
    };
    for (size_t i = 0; i < ARRAYSIZE(cases); i++) {
        for (int ex = 0; ex < 2; ex++) {
            SetLastError(0);
            DWORD r = ex ? WaitForMultipleObjectsEx(3, cases[i], TRUE, 0, FALSE)
                         : WaitForMultipleObjects(3, cases[i], TRUE, 0);
            CHECK_EQ(r, WAIT_FAILED);
            CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
        }
    }
    /* nothing taken by the failed waits */
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(e, 0), WAIT_OBJECT_0);
    CHECK_EQ(release_all(m), 0);
    /* wait-any accepts the same arrays */
    SetEvent(e);
    CHECK_EQ(WaitForMultipleObjects(3, cases[3], FALSE, 0), WAIT_OBJECT_0);
    CloseHandle(s);
    CloseHandle(e);
    CloseHandle(e2);
    CloseHandle(m);
}

static void test_abandoned_index(void)
{
    for (int i = 0; i < 3; i++) {
        HANDLE h[3];
        struct holder hold = { .n = 0 };
        for (int j = 0; j < 3; j++) {
            if (j == i) {
                h[j] = CreateMutexA(NULL, FALSE, NULL);
                hold.m[hold.n++] = h[j];
            } else {
                h[j] = CreateSemaphoreA(NULL, 1, 1, NULL);
            }
        }
        holder_start(&hold, 1);
        holder_stop(&hold);   /* exits owning the mutex */
        CHECK_EQ(WaitForMultipleObjects(3, h, TRUE, 0), WAIT_ABANDONED_0 + (DWORD)i);
        /* everything acquired, the abandoned mutex included */
        for (int j = 0; j < 3; j++) {
            if (j == i) CHECK_EQ(release_all(h[j]), 1);
            else CHECK_EQ(WaitForSingleObject(h[j], 0), WAIT_TIMEOUT);
        }
        for (int j = 0; j < 3; j++) CloseHandle(h[j]);
    }
    /* two abandoned mutexes: both acquired; reported once each */
    HANDLE h[2] = { CreateMutexA(NULL, FALSE, NULL), CreateMutexA(NULL, FALSE, NULL) };
    struct holder hold = { .m = { h[0], h[1] }, .n = 2 };
    holder_start(&hold, 1);
    holder_stop(&hold);
    DWORD r = WaitForMultipleObjects(2, h, TRUE, 0);
    CHECK(r == WAIT_ABANDONED_0 || r == WAIT_ABANDONED_0 + 1);
    CHECK_EQ(release_all(h[0]), 1);
    CHECK_EQ(release_all(h[1]), 1);
    CHECK_EQ(WaitForMultipleObjects(2, h, TRUE, 0), WAIT_OBJECT_0);
    CHECK_EQ(release_all(h[0]), 1);
    CHECK_EQ(release_all(h[1]), 1);
    CloseHandle(h[0]);
    CloseHandle(h[1]);
}

/* Mutexes we own count as signaled for us (recursion). */
static void test_owned_mutex(void)
{
    HANDLE m = CreateMutexA(NULL, TRUE, NULL);
    HANDLE e = CreateEventA(NULL, TRUE, TRUE, NULL);
    HANDLE h[2] = { m, e };
    CHECK_EQ(WaitForMultipleObjects(2, h, TRUE, 0), WAIT_OBJECT_0);
    CHECK_EQ(release_all(m), 2);
    CloseHandle(m);
    CloseHandle(e);
}

static void test_counts(void)
{
    HANDLE h[MAXIMUM_WAIT_OBJECTS + 1];
    for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) h[i] = CreateSemaphoreA(NULL, 1, 1, NULL);
    static const DWORD bad[] = { 0, MAXIMUM_WAIT_OBJECTS + 1, 0xFFFFFFFFu };
    for (size_t i = 0; i < ARRAYSIZE(bad); i++) {
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjects(bad[i], h, TRUE, 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    }
    SetLastError(0);
    CHECK_EQ(WaitForMultipleObjects(2, NULL, TRUE, 0), WAIT_FAILED);
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    /* nothing taken so far; 64 at once works */
    CHECK_EQ(WaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS, h, TRUE, 0), WAIT_OBJECT_0);
    for (int i = 0; i < MAXIMUM_WAIT_OBJECTS; i++) CHECK_EQ(WaitForSingleObject(h[i], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[MAXIMUM_WAIT_OBJECTS], 0), WAIT_OBJECT_0);
    for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) CloseHandle(h[i]);
}

static void test_bad_handle(void)
{
    HANDLE s = CreateSemaphoreA(NULL, 1, 1, NULL);
    HANDLE c = CreateEventA(NULL, TRUE, TRUE, NULL);
    CloseHandle(c);
    HANDLE bads[] = { NULL, c, (HANDLE)(uintptr_t)0x4444440 };
    for (size_t i = 0; i < ARRAYSIZE(bads); i++) {
        HANDLE h[2] = { s, bads[i] };
        SetLastError(0);
        CHECK_EQ(WaitForMultipleObjects(2, h, TRUE, 0), WAIT_FAILED);
        CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    }
    CHECK_EQ(WaitForSingleObject(s, 0), WAIT_OBJECT_0);
    CloseHandle(s);
}

/* ---- threaded: a blocked wait-all takes nothing until it can take everything -- */

struct allw { HANDLE *h; DWORD n; DWORD result; };
static DWORD WINAPI all_waiter(LPVOID p)
{
    struct allw *w = p;
    w->result = WaitForMultipleObjects(w->n, w->h, TRUE, 10000);
    return 0;
}

static void test_threaded_partial(void)
{
    HANDLE h[3] = { CreateEventA(NULL, FALSE, FALSE, NULL), CreateSemaphoreA(NULL, 0, 5, NULL),
                    CreateMutexA(NULL, TRUE, NULL) };
    struct allw w = { h, 3, 0xdead };
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, all_waiter, &w, 0, &tid);
    CHECK(w32t_wait_blocked(tid));
    /* two of three ready: the waiter takes neither */
    SetEvent(h[0]);
    ReleaseSemaphore(h[1], 1, NULL);
    Sleep(30);
    CHECK(w32t_wait_blocked(tid));
    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_OBJECT_0);   /* still there: we take it */
    CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_OBJECT_0);
    /* put them back, then release the mutex: now it takes all three */
    SetEvent(h[0]);
    ReleaseSemaphore(h[1], 2, NULL);
    CHECK(ReleaseMutex(h[2]));
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(w.result, WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_OBJECT_0);   /* 2 - 1 */
    CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[2], 0), WAIT_ABANDONED_0);   /* the waiter exited owning it */
    CHECK(ReleaseMutex(h[2]));
    CloseHandle(t);
    for (int i = 0; i < 3; i++) CloseHandle(h[i]);
}

/* Objects that become signaled one at a time (each taken back before the next) are
 * never taken by a blocked wait-all; it completes once all are signaled together. */
static void test_threaded_no_partial_take(void)
{
    HANDLE h[2] = { CreateEventA(NULL, FALSE, FALSE, NULL), CreateEventA(NULL, FALSE, FALSE, NULL) };
    struct allw w = { h, 2, 0xdead };
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, all_waiter, &w, 0, &tid);
    CHECK(w32t_wait_blocked(tid));
    SetEvent(h[0]);
    Sleep(20);
    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_OBJECT_0);   /* we take it back */
    SetEvent(h[1]);
    Sleep(20);
    CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_OBJECT_0);
    CHECK(w32t_wait_blocked(tid));
    SetEvent(h[0]);
    SetEvent(h[1]);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    CHECK_EQ(w.result, WAIT_OBJECT_0);
    CHECK_EQ(WaitForSingleObject(h[0], 0), WAIT_TIMEOUT);
    CHECK_EQ(WaitForSingleObject(h[1], 0), WAIT_TIMEOUT);
    CloseHandle(t);
    CloseHandle(h[0]);
    CloseHandle(h[1]);
}

int main(void)
{
    test_all_or_nothing_table();
    test_duplicates_invalid();
    test_abandoned_index();
    test_owned_mutex();
    test_counts();
    test_bad_handle();
    test_threaded_partial();
    test_threaded_no_partial_take();
    return nspa_test_done();
}
