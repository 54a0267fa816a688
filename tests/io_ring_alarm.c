/* A thread ring's alarm (docs/io.md, "Thread rings"): a finite wait of a thread with a
 * ring of its own arms no timer of its own when the ring's alarm (one absolute
 * IORING_OP_TIMEOUT left armed across sleeps) rings by its deadline. Checked here:
 *
 * 1. The alarm's CQE taken by another reaper: the owner arms the alarm (a 40 ms wait
 *    satisfied early), then is busy outside the library when it rings, so the engine
 *    thread reaps it (through the ring's eventfd), and is held there (test point
 *    tring_alarm_rang, 300 ms) before it clears the alarm. Meanwhile the owner starts a
 *    100 ms wait: its own reap finds nothing, the alarm still says armed, and it sleeps
 *    with no timer. The held reaper must poke it when it clears the alarm; without that
 *    the wait never ends (nobody sets its event). The wait must time out, no earlier
 *    than 100 ms and within 5 s.
 * 2. Timeouts stay exact whatever the alarm is: a wait that rides an alarm set for an
 *    earlier deadline wakes there, finds its own deadline not due and sleeps on. 300
 *    waits with random timeouts (1-12 ms, some satisfied early by another thread):
 *    every timed-out wait took at least its timeout, and none returned anything else.
 * 3. A wait with an earlier deadline than the armed alarm has a timer of its own: a
 *    20 ms wait after a 3 s alarm was armed returns long before 2.5 s.
 *
 * With the epoll engine (no rings) the same waits run on plain futex timeouts. */
#include "io_util.h"
#include <stdatomic.h>
#include <time.h>

static HANDLE ev_go, ev_never;
static SOCKET c, s;
static WSAOVERLAPPED ov;
static char buf[16];
static atomic_int phase;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* outside the library: arms no alarm */
static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts)) ;
}

static void wait_phase(int p)
{
    while (atomic_load(&phase) < p) nap_ms(1);
}

/* sets ev_go now and then while phase 2 runs */
static DWORD WINAPI setter(LPVOID unused)
{
    (void)unused;
    unsigned seed = 7;
    while (atomic_load(&phase) == 2) {
        Sleep(1 + rand_r(&seed) % 6);
        SetEvent(ev_go);
    }
    return 0;
}

static DWORD WINAPI owner(LPVOID unused)
{
    (void)unused;
    /* a pending receive: this thread gets a ring of its own (io_uring engine) */
    CHECK_EQ(io_post_recv(s, &ov, buf, sizeof(buf)), WSA_IO_PENDING);

    /* 1. the alarm armed by a 40 ms wait that main satisfies early, then rung while
     * this thread is busy elsewhere (the engine thread reaps it and is held) */
    atomic_store(&phase, 1);
    CHECK_EQ(WaitForSingleObject(ev_go, 40), WAIT_OBJECT_0);
    nap_ms(100);
    double t0 = now_ms();
    DWORD r = WaitForSingleObject(ev_never, 100);
    double el = now_ms() - t0;
    printf("1: the 100 ms wait returned %u after %.1f ms\n", (unsigned)r, el);
    CHECK_EQ(r, WAIT_TIMEOUT);
    CHECK(el >= 100.0 - 0.01);

    /* 2. random finite waits */
    wait_phase(2);
    unsigned seed = 11;
    int early = 0, timed = 0;
    for (int i = 0; i < 300; i++) {
        DWORD ms = 1 + rand_r(&seed) % 12;
        double t1 = now_ms();
        r = WaitForSingleObject(rand_r(&seed) % 3 ? ev_go : ev_never, ms);
        el = now_ms() - t1;
        if (r == WAIT_TIMEOUT) {
            timed++;
            if (el < ms - 0.01) {
                printf("wait %d: WAIT_TIMEOUT after %.3f ms of %u\n", i, el, (unsigned)ms);
                early++;
            }
        } else {
            CHECK_EQ(r, WAIT_OBJECT_0);
        }
    }
    printf("2: %d of 300 waits timed out, %d early\n", timed, early);
    CHECK_EQ(early, 0);
    CHECK(timed > 50);
    atomic_store(&phase, 3);

    /* 3. an alarm 3 s away (main satisfies the wait early), then a 20 ms wait: its
     * deadline is earlier than the alarm's, so it has a timer of its own (riding the
     * alarm it would return after ~3 s) */
    wait_phase(4);
    CHECK_EQ(WaitForSingleObject(ev_go, 3000), WAIT_OBJECT_0);
    double t2 = now_ms();
    CHECK_EQ(WaitForSingleObject(ev_never, 20), WAIT_TIMEOUT);
    el = now_ms() - t2;
    printf("3: a 20 ms wait under a 3 s alarm: %.1f ms\n", el);
    CHECK(el >= 20.0 - 0.01 && el < 2500.0);
    return 0;
}

int main(void)
{
    /* read at the first test point: before any I/O */
    setenv("NSPA_TEST_PAUSE_AT", "tring_alarm_rang:300", 1);
    io_test_start();
    io_tcp_pair(&c, &s);
    ov.hEvent = WSACreateEvent();
    ev_go = CreateEventW(NULL, FALSE, FALSE, NULL);
    ev_never = CreateEventW(NULL, TRUE, FALSE, NULL);
    REQUIRE(ev_go && ev_never);
    HANDLE ot = CreateThread(NULL, 0, owner, NULL, 0, NULL);
    REQUIRE(ot);
    wait_phase(1);
    nap_ms(5);
    SetEvent(ev_go);                   /* satisfies the 40 ms wait early */
    nap_ms(400);                       /* phase 1 ends by then (~0.35 s) */
    atomic_store(&phase, 2);
    HANDLE st = CreateThread(NULL, 0, setter, NULL, 0, NULL);
    REQUIRE(st);
    wait_phase(3);
    CHECK_EQ(WaitForSingleObject(st, 5000), WAIT_OBJECT_0);
    ResetEvent(ev_go);                 /* a set left by the setter */
    atomic_store(&phase, 4);
    nap_ms(5);
    SetEvent(ev_go);                   /* satisfies the 3 s wait early */
    /* the owner's waits must all end (needs ~0.4 s after phase 1) */
    CHECK_EQ(WaitForSingleObject(ot, 10000), WAIT_OBJECT_0);
    CloseHandle(st);
    CloseHandle(ot);
    closesocket(c);
    closesocket(s);
    WSACleanup();
    return nspa_test_done();
}
