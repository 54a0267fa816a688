/* WM_TIMER is served by the timer service (docs/msg.md, "Timers"): the queue's NT timer
 * object is what is armed, and its expiry is what wakes the queue's thread.
 *
 *  - no timer service thread ("nspa-timer") runs before the first SetTimer; a thread
 *    blocked in GetMessage with one 300 ms thread timer makes the service sleep until
 *    exactly that timer's due time (its futex timeout, read from /proc), and nothing
 *    else is armed;
 *  - that thread wakes for the WM_TIMER with no other message, not early and within
 *    bounds; after KillTimer the service sleeps with no timeout (the arm is gone);
 *  - waits that cannot hold the timer object are woken by the service's expiry
 *    callback through the queue: MsgWaitForMultipleObjects with MWMO_WAITALL and with
 *    63 handles return for QS_TIMER at the due time;
 *  - a timer due after a pending timer's next grid point (where the queue's timer fires
 *    first) still ends a wait at its own due time, with and without the object in the
 *    wait set;
 *  - with the timer object in the set, the results keep their indices: an object i is
 *    WAIT_OBJECT_0 + i, an APC WAIT_IO_COMPLETION, nothing WAIT_TIMEOUT;
 *  - expiries stay on the grid start + k * period through the service: after five
 *    WM_TIMERs the service sleeps until a point of the first arm's grid (no drift).
 * Timing bounds are loose (loaded machine, sanitizers); none-early is exact. */
#include <windows.h>
#include <fcntl.h>
#include <unistd.h>
#include "nspa_test.h"
#include "win32_testutil.h"
#include "task_util.h"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pid_t service_tid(void) { return task_named("nspa-timer"); }

/* The service's sleep: 1 with *due the absolute CLOCK_MONOTONIC timeout of its futex
 * wait (0: no timeout), 0 when it is not asleep in one now. The timespec is on the
 * service's stack; it is read through /proc/self/mem (no shared access the sanitizers
 * would call a race), between two identical reads of its system call. */
static int service_sleep(pid_t tid, uint64_t *due)
{
    char path[96], a[256], b[256];
    snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
    for (int tries = 0; tries < 200; tries++, Sleep(1)) {
        FILE *f = fopen(path, "r");
        if (!f) return 0;
        int ok = fgets(a, sizeof(a), f) != NULL;
        fclose(f);
        unsigned long nr, uaddr, op, val, tsp;
        if (!ok || sscanf(a, "%lu %lx %lx %lx %lx", &nr, &uaddr, &op, &val, &tsp) != 5 || nr != SYS_futex)
            continue;
        struct timespec ts = { 0, 0 };
        if (tsp) {
            int fd = open("/proc/self/mem", O_RDONLY);
            if (fd < 0) return 0;
            ssize_t r = pread(fd, &ts, sizeof(ts), (off_t)tsp);
            close(fd);
            if (r != (ssize_t)sizeof(ts)) continue;
        }
        f = fopen(path, "r");
        if (!f) return 0;
        ok = fgets(b, sizeof(b), f) != NULL;
        fclose(f);
        if (!ok || strcmp(a, b)) continue;     /* it moved meanwhile: again */
        *due = tsp ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
        return 1;
    }
    return 0;
}

/* ---- a thread blocked in GetMessage, woken by its timer alone -------------------- */
static HANDLE armed, go_on;
static volatile DWORD w_tid;
static uint64_t set_before, set_after, got_at;
static UINT first_msg;
static int w_others;

static DWORD WINAPI getter(LPVOID p)
{
    MSG m;
    PeekMessageW(&m, NULL, 0, 0, PM_NOREMOVE);
    W32T_ST(set_before, mono_ns());
    UINT_PTR id = SetTimer(NULL, 0, 300, NULL);
    W32T_ST(set_after, mono_ns());
    SetEvent(armed);
    if (!id) return 1;
    if (GetMessageW(&m, NULL, 0, 0) <= 0) return 2;
    W32T_ST(got_at, mono_ns());
    W32T_ST(first_msg, m.message);
    if (m.wParam != id || m.hwnd) return 3;
    KillTimer(NULL, id);
    SetEvent(armed);
    /* now without timers: sleep in GetMessage until the main thread posts WM_QUIT */
    while (GetMessageW(&m, NULL, 0, 0) > 0) W32T_ST(w_others, W32T_LD(w_others) + 1);
    WaitForSingleObject(go_on, 10000);
    return 0;
}

static void test_getmessage_woken_by_service(void)
{
    CHECK_EQ(service_tid(), 0);            /* nothing armed yet in this process */
    armed = CreateEventW(NULL, FALSE, FALSE, NULL);
    go_on = CreateEventW(NULL, TRUE, FALSE, NULL);
    DWORD tid;
    HANDLE t = CreateThread(NULL, 0, getter, NULL, 0, &tid);
    REQUIRE(t != NULL);
    CHECK_EQ(WaitForSingleObject(armed, 10000), WAIT_OBJECT_0);
    pid_t svc = 0;                         /* SetTimer started the timer service (it names
                                            * itself once it runs) */
    CHECK(W32T_EVENTUALLY((svc = service_tid()) != 0));
    CHECK(w32t_wait_blocked(tid));         /* in GetMessage, no message to take */
    uint64_t due = 0;
    CHECK(service_sleep(svc, &due));
    uint64_t lo = W32T_LD(set_before) + 300000000ull, hi = W32T_LD(set_after) + 300000000ull;
    if (!W32T_LD(got_at)) {                /* read before the expiry: the service sleeps until it */
        CHECK(due >= lo && due <= hi);
        if (!(due >= lo && due <= hi))
            fprintf(stderr, "service timeout %llu, timer due in [%llu, %llu]\n", (unsigned long long)due,
                    (unsigned long long)lo, (unsigned long long)hi);
    }
    CHECK_EQ(WaitForSingleObject(armed, 10000), WAIT_OBJECT_0);
    CHECK_EQ(W32T_LD(first_msg), WM_TIMER);    /* woken for WM_TIMER with nothing else */
    uint64_t got = W32T_LD(got_at);
    CHECK(got >= lo);                          /* not early */
    CHECK(got < hi + 500000000ull);            /* within bounds (loose: loaded machine) */
    fprintf(stderr, "GetMessage woke %.3f ms after the due time (+- %.3f ms: SetTimer's duration)\n",
            (double)(int64_t)(got - hi) / 1e6, (double)(hi - lo) / 1e6);
    /* KillTimer took the arm away: once past the timeout it was sleeping to (a removal
     * does not wake the service), the service sleeps without one */
    CHECK(w32t_wait_blocked(tid));
    int idle = 0;
    for (int i = 0; i < 100 && !idle; i++, Sleep(20)) idle = service_sleep(svc, &due) && due == 0;
    CHECK(idle);
    CHECK(PostThreadMessageW(tid, WM_QUIT, 0, 0));
    SetEvent(go_on);
    CHECK_EQ(WaitForSingleObject(t, 10000), WAIT_OBJECT_0);
    DWORD code = 9;
    GetExitCodeThread(t, &code);
    CHECK_EQ(code, 0);
    CHECK_EQ(W32T_LD(w_others), 0);
    CloseHandle(t);
}

/* ---- waits without the timer object in their set: woken by the service's callback --- */
static void test_waits_without_timer_object(void)
{
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {}
    HANDLE ev = CreateEventW(NULL, TRUE, TRUE, NULL);    /* signaled: only input is missing */
    uint64_t t0 = mono_ns();
    UINT_PTR id = SetTimer(NULL, 0, 50, NULL);
    CHECK(id != 0);
    DWORD r = MsgWaitForMultipleObjects(1, &ev, TRUE, 5000, QS_TIMER);
    uint64_t el = mono_ns() - t0;
    CHECK_EQ(r, WAIT_OBJECT_0);                          /* wait-all: the event and the timer */
    CHECK(el >= 50000000ull && el < 2000000000ull);
    CHECK(PeekMessageW(&m, NULL, 0, 0, PM_REMOVE) && m.message == WM_TIMER && m.wParam == id);

    HANDLE many[63];
    for (int i = 0; i < 63; i++) many[i] = CreateEventW(NULL, FALSE, FALSE, NULL);
    t0 = mono_ns();
    CHECK(SetTimer(NULL, id, 50, NULL) == id);           /* replaced: due 50 ms from now */
    r = MsgWaitForMultipleObjects(63, many, FALSE, 5000, QS_TIMER);
    el = mono_ns() - t0;
    CHECK_EQ(r, WAIT_OBJECT_0 + 63);                     /* no slot for the timer object */
    CHECK(el >= 50000000ull && el < 2000000000ull);
    CHECK(PeekMessageW(&m, NULL, 0, 0, PM_REMOVE) && m.message == WM_TIMER);
    for (int i = 0; i < 63; i++) CloseHandle(many[i]);

    /* an ordinary MsgWait holds the timer object: woken at the due time too */
    t0 = mono_ns();
    CHECK(SetTimer(NULL, id, 50, NULL) == id);
    r = MsgWaitForMultipleObjects(0, NULL, FALSE, 5000, QS_TIMER);
    el = mono_ns() - t0;
    CHECK_EQ(r, WAIT_OBJECT_0);
    CHECK(el >= 50000000ull && el < 2000000000ull);
    CHECK(KillTimer(NULL, id));
    CHECK(!PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_REMOVE));   /* KillTimer took it */
    CloseHandle(ev);
}

/* ---- a pending timer's grid comes first: the later timer is still on time -----------
 * A (200 ms) has its WM_TIMER pending and seen; B (180 ms, set 250 ms in) is due 30 ms
 * after A's next grid point and 170 ms before the one after. The queue's timer fires on
 * A's grid first; a wait must still return for B at its due time, not at A's next
 * point: with the object in the set (the owner re-arms when it fires), in a wait-all
 * and in a 63-handle wait (the object is not in the set). */
static int wait_for_b(int kind, HANDLE *many, HANDLE on)
{
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {}
    uint64_t t0 = mono_ns();
    /* A's period is long so that the wrong answer (A's next grid point, ~550 ms after B
     * was set) stands far from the right one (B's 180 ms) on a loaded machine */
    UINT_PTR a = SetTimer(NULL, 0, 600, NULL);
    Sleep(650);
    CHECK(PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_NOREMOVE) && m.wParam == a);   /* A seen, pending */
    uint64_t tb = mono_ns();
    UINT_PTR b = SetTimer(NULL, 0, 180, NULL);
    DWORD r = kind == 0 ? MsgWaitForMultipleObjects(0, NULL, FALSE, 3000, QS_TIMER)
            : kind == 1 ? MsgWaitForMultipleObjects(1, &on, TRUE, 3000, QS_TIMER)
                        : MsgWaitForMultipleObjects(63, many, FALSE, 3000, QS_TIMER);
    uint64_t el = mono_ns() - tb;
    CHECK_EQ(r, kind == 0 ? WAIT_OBJECT_0 : kind == 1 ? WAIT_OBJECT_0 : WAIT_OBJECT_0 + 63);
    int on_time = el >= 180000000ull && el < 500000000ull;   /* A's next point: ~550 ms */
    if (!on_time)
        fprintf(stderr, "wait %d: B due after 180 ms, the wait returned after %.1f ms (A set %.1f ms before)\n",
                kind, (double)el / 1e6, (double)(tb - t0) / 1e6);
    CHECK(PeekMessageW(&m, NULL, WM_TIMER, WM_TIMER, PM_REMOVE));
    KillTimer(NULL, a);
    KillTimer(NULL, b);
    return on_time;
}

static void test_pending_grid_first(void)
{
    HANDLE on = CreateEventW(NULL, TRUE, TRUE, NULL);
    HANDLE many[63];
    for (int i = 0; i < 63; i++) many[i] = CreateEventW(NULL, FALSE, FALSE, NULL);
    CHECK(wait_for_b(0, many, on));
    CHECK(wait_for_b(1, many, on));
    CHECK(wait_for_b(2, many, on));
    for (int i = 0; i < 63; i++) CloseHandle(many[i]);
    CloseHandle(on);
}

/* ---- the indices with the timer object in the set: objects, then the queue, then the
 * alert; the timer object never shows ------------------------------------------------ */
static volatile LONG apcs;
static void CALLBACK apc(ULONG_PTR p) { InterlockedIncrement(&apcs); }
static HANDLE late_ev;
static DWORD WINAPI set_late(LPVOID p)
{
    Sleep(30);
    SetEvent(late_ev);
    return 0;
}

static void test_indices_with_timer(void)
{
    MSG m;
    while (PeekMessageW(&m, NULL, 0, 0, PM_REMOVE)) {}
    UINT_PTR id = SetTimer(NULL, 0, 2000, NULL);
    CHECK(id != 0);
    /* an APC while the timer is armed: WAIT_IO_COMPLETION, not the timer's slot */
    CHECK(QueueUserAPC(apc, GetCurrentThread(), 0));
    CHECK_EQ(MsgWaitForMultipleObjectsEx(0, NULL, 1000, QS_TIMER, MWMO_ALERTABLE), WAIT_IO_COMPLETION);
    CHECK_EQ(apcs, 1);
    /* the second of two objects, signaled while we wait: WAIT_OBJECT_0 + 1 */
    HANDLE evs[2] = { CreateEventW(NULL, FALSE, FALSE, NULL), CreateEventW(NULL, FALSE, FALSE, NULL) };
    late_ev = evs[1];
    HANDLE t = CreateThread(NULL, 0, set_late, NULL, 0, NULL);
    CHECK_EQ(MsgWaitForMultipleObjectsEx(2, evs, 1000, QS_TIMER, MWMO_ALERTABLE), WAIT_OBJECT_0 + 1);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    /* nothing comes: a timeout, even with the timer's object in the set */
    CHECK_EQ(MsgWaitForMultipleObjectsEx(2, evs, 50, QS_TIMER, 0), WAIT_TIMEOUT);
    CHECK(KillTimer(NULL, id));
    CloseHandle(evs[0]);
    CloseHandle(evs[1]);
}

/* ---- one timer, many WM_TIMERs: the service keeps its grid --------------------------- */
static void test_service_on_grid(void)
{
    pid_t svc = service_tid();
    REQUIRE(svc != 0);
    uint64_t t0 = mono_ns();
    UINT_PTR id = SetTimer(NULL, 0, 20, NULL);
    uint64_t t1 = mono_ns();
    MSG m;
    int n = 0;
    while (n < 5 && GetMessageW(&m, NULL, 0, 0) > 0)
        if (m.message == WM_TIMER && m.wParam == id) n++;
    CHECK_EQ(n, 5);
    /* the service's next timeout is on the grid of SetTimer's time (t + k * 20 ms),
     * however late each WM_TIMER was taken */
    uint64_t due = 0;
    int ok = 0;
    for (int tries = 0; tries < 20 && !ok; tries++) {
        if (!service_sleep(svc, &due) || !due) continue;
        uint64_t k = (due - t0 + 10000000ull) / 20000000ull;   /* the nearest grid point */
        uint64_t lo = t0 + k * 20000000ull, hi = t1 + k * 20000000ull;
        ok = k >= 5 && due >= lo && due <= hi;
        if (!ok && tries == 19)
            fprintf(stderr, "service timeout %llu not on the grid [%llu + k*20ms, %llu + k*20ms]\n",
                    (unsigned long long)due, (unsigned long long)t0, (unsigned long long)t1);
    }
    CHECK(ok);
    CHECK(KillTimer(NULL, id));
}

int main(void)
{
    test_getmessage_woken_by_service();
    test_waits_without_timer_object();
    test_indices_with_timer();
    test_pending_grid_first();
    test_service_on_grid();
    return nspa_test_done();
}
