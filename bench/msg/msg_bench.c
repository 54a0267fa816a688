/* nspa-bench msg: the Win32 side. One plain Win32 C source, built natively against NSPA's
 * <windows.h> (bench/msg.cmake) and with x86_64-w64-mingw32-gcc for stock Wine (run.sh).
 *
 * Usage: msg_bench <impl> [ms=1000]  runs, in one process, each for ms milliseconds in all
 * (20 slices per kind, the kinds taking turns slice by slice; the value is the median of
 * a kind's slices, so that load bursts on a shared machine hit every kind alike):
 *   roundtrip/<impl>-event   two threads, two auto-reset events (SetEvent + WaitForSingleObject
 *                            each way): nspa-bench sync's pingpong, the reference
 *   roundtrip/<impl>-post    two threads, PostThreadMessage + GetMessage each way
 *   roundtrip/<impl>-send    SendMessage to a message-only window of a thread in a
 *                            GetMessage/DispatchMessage loop (the reply is the way back)
 *   msgwait/<impl>-post      a thread in MsgWaitForMultipleObjects(1 event, QS_POSTMESSAGE)
 *                            woken by PostThreadMessage; it peeks and acks with an event
 *   msgwait/<impl>-setevent  the same wait woken by SetEvent on its event (same peek, same ack)
 * microseconds per round trip, one line each:
 *   RESULT bench=<bench> impl=<impl>-<kind> unit=us value=<v> better=lower iters=<n> slices=20
 * Any failed call prints an ERROR line and exits 2. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *g_impl = "?";
static volatile LONG g_stop;
static double g_qpf;

static void fail(const char *call)
{
    printf("ERROR impl=%s call=%s err=%lu\n", g_impl, call, (unsigned long)GetLastError());
    fflush(stdout);
    exit(2);
}
#define CHECK(c, call) do { if (!(c)) fail(call); } while (0)

static double now_s(void)
{
    LARGE_INTEGER c;
    if (!g_qpf) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        g_qpf = (double)f.QuadPart;
    }
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / g_qpf;
}

static HANDLE thread(LPTHREAD_START_ROUTINE fn, DWORD *tid)
{
    HANDLE h = CreateThread(NULL, 0, fn, NULL, 0, tid);
    CHECK(h, "CreateThread");
    return h;
}

static void join(HANDLE h)
{
    CHECK(WaitForSingleObject(h, INFINITE) == WAIT_OBJECT_0, "WaitForSingleObject(thread)");
    CloseHandle(h);
}

/* run one round trip fn for secs; returns the count, *el the time */
static unsigned long timed(void (*fn)(void), double secs, double *el)
{
    for (int i = 0; i < 4; i++) fn();      /* warm-up: the partner awake */
    unsigned long n = 0;
    double t0 = now_s(), t1;
    do {
        for (int i = 0; i < 16; i++) fn();
        n += 16;
    } while ((t1 = now_s()) - t0 < secs);
    *el = t1 - t0;
    return n;
}

/* ---- event ping-pong ---------------------------------------------------------------- */
static HANDLE ev_a, ev_b;
static DWORD WINAPI ev_partner(LPVOID p)
{
    for (;;) {
        CHECK(WaitForSingleObject(ev_a, INFINITE) == WAIT_OBJECT_0, "WaitForSingleObject");
        LONG last = g_stop;
        CHECK(SetEvent(ev_b), "SetEvent");
        if (last) return 0;
    }
}
static void ev_trip(void)
{
    CHECK(SetEvent(ev_a), "SetEvent");
    CHECK(WaitForSingleObject(ev_b, INFINITE) == WAIT_OBJECT_0, "WaitForSingleObject");
}

/* ---- PostThreadMessage ping-pong ------------------------------------------------------ */
static DWORD main_tid, partner_tid;
static HANDLE ready;
static DWORD WINAPI post_partner(LPVOID p)
{
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    SetEvent(ready);
    while (GetMessageA(&m, NULL, 0, 0) > 0)
        CHECK(PostThreadMessageA(main_tid, WM_APP + 1, m.wParam, 0), "PostThreadMessage(back)");
    return 0;
}
static void post_trip(void)
{
    MSG m;
    CHECK(PostThreadMessageA(partner_tid, WM_APP, 0, 0), "PostThreadMessage");
    CHECK(GetMessageA(&m, NULL, 0, 0) > 0 && m.message == WM_APP + 1, "GetMessage");
}

/* ---- SendMessage round trip ----------------------------------------------------------- */
static HWND send_hwnd;
static LRESULT CALLBACK send_proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
    if (m == WM_APP) return (LRESULT)wp + 1;
    return DefWindowProcA(h, m, wp, lp);
}
static DWORD WINAPI send_partner(LPVOID p)
{
    MSG m;
    send_hwnd = CreateWindowExA(0, "nspa-bench-msg", NULL, 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
    CHECK(send_hwnd, "CreateWindowEx(HWND_MESSAGE)");
    SetEvent(ready);
    while (GetMessageA(&m, NULL, 0, 0) > 0) DispatchMessageA(&m);
    DestroyWindow(send_hwnd);
    return 0;
}
static void send_trip(void)
{
    CHECK(SendMessageA(send_hwnd, WM_APP, 41, 0) == 42, "SendMessage");
}

/* ---- MsgWaitForMultipleObjects woken by a post or by SetEvent ------------------------- */
static HANDLE mw_ev, mw_ack;
static DWORD WINAPI mw_partner(LPVOID p)
{
    MSG m;
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    SetEvent(ready);
    for (;;) {
        DWORD r = MsgWaitForMultipleObjects(1, &mw_ev, FALSE, INFINITE, QS_POSTMESSAGE);
        CHECK(r == WAIT_OBJECT_0 || r == WAIT_OBJECT_0 + 1, "MsgWaitForMultipleObjects");
        while (PeekMessageA(&m, NULL, 0, 0, PM_REMOVE)) {}
        LONG last = g_stop;
        CHECK(SetEvent(mw_ack), "SetEvent(ack)");
        if (last) return 0;
    }
}
static void mw_post_trip(void)
{
    CHECK(PostThreadMessageA(partner_tid, WM_APP, 0, 0), "PostThreadMessage");
    CHECK(WaitForSingleObject(mw_ack, INFINITE) == WAIT_OBJECT_0, "WaitForSingleObject(ack)");
}
static void mw_event_trip(void)
{
    CHECK(SetEvent(mw_ev), "SetEvent");
    CHECK(WaitForSingleObject(mw_ack, INFINITE) == WAIT_OBJECT_0, "WaitForSingleObject(ack)");
}

/* ---- the schedule: every kind in turn, in short slices ----------------------------- */
#define KINDS 5
#define SLICES 20
static const struct { const char *bench, *kind; void (*fn)(void); } kinds[KINDS] = {
    { "roundtrip", "event", ev_trip }, { "roundtrip", "post", post_trip }, { "roundtrip", "send", send_trip },
    { "msgwait", "post", mw_post_trip }, { "msgwait", "setevent", mw_event_trip },
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <impl> [ms]\n", argv[0]);
        return 1;
    }
    g_impl = argv[1];
    double secs = argc > 2 ? atof(argv[2]) / 1000.0 : 1.0;
    MSG m;
    main_tid = GetCurrentThreadId();
    ready = CreateEventA(NULL, FALSE, FALSE, NULL);
    PeekMessageA(&m, NULL, 0, 0, PM_NOREMOVE);
    ev_a = CreateEventA(NULL, FALSE, FALSE, NULL);
    ev_b = CreateEventA(NULL, FALSE, FALSE, NULL);
    mw_ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    mw_ack = CreateEventA(NULL, FALSE, FALSE, NULL);
    WNDCLASSA wc;
    memset(&wc, 0, sizeof(wc));
    wc.lpfnWndProc = send_proc;
    wc.lpszClassName = "nspa-bench-msg";
    CHECK(RegisterClassA(&wc), "RegisterClass");

    /* all partners up at once, asleep while another kind runs */
    DWORD post_tid, send_tid, mw_tid;
    HANDLE t_ev = thread(ev_partner, NULL);
    HANDLE t_post = thread(post_partner, &post_tid);
    WaitForSingleObject(ready, INFINITE);
    HANDLE t_send = thread(send_partner, &send_tid);
    WaitForSingleObject(ready, INFINITE);
    HANDLE t_mw = thread(mw_partner, &mw_tid);
    WaitForSingleObject(ready, INFINITE);

    /* SLICES slices per kind, the kinds in turn (the first kind of a slice rotates), so
     * that a burst of load on the machine hits every kind alike; per kind the median
     * of its slices */
    double per[KINDS][SLICES];
    unsigned long iters[KINDS] = { 0 };
    double slice = secs / SLICES;
    for (int sl = 0; sl < SLICES; sl++) {
        for (int j = 0; j < KINDS; j++) {
            int k = (sl + j) % KINDS;
            partner_tid = k == 1 ? post_tid : mw_tid;
            double el;
            unsigned long n = timed(kinds[k].fn, slice, &el);
            per[k][sl] = el * 1e6 / (double)n;
            iters[k] += n;
        }
    }
    for (int k = 0; k < KINDS; k++) {
        qsort(per[k], SLICES, sizeof(double), cmp_double);
        double med = (per[k][SLICES / 2 - 1] + per[k][SLICES / 2]) / 2;
        printf("RESULT bench=%s impl=%s-%s unit=us value=%.6g better=lower iters=%lu slices=%d\n", kinds[k].bench,
               g_impl, kinds[k].kind, med, iters[k], SLICES);
    }
    fflush(stdout);

    /* stop the partners */
    g_stop = 1;
    ev_trip();
    join(t_ev);
    CHECK(PostThreadMessageA(post_tid, WM_QUIT, 0, 0), "PostThreadMessage(WM_QUIT)");
    join(t_post);
    CHECK(PostThreadMessageA(send_tid, WM_QUIT, 0, 0), "PostThreadMessage(WM_QUIT)");
    join(t_send);
    partner_tid = mw_tid;
    mw_event_trip();
    join(t_mw);
    return 0;
}
