/* Real-time waits inside the heap (docs/heap.md, "Waiting in real time"): a
 * SCHED_FIFO thread that has to wait for a lower-priority thread in the heap sleeps and
 * lends that thread its priority; it never spins on the CPU the other thread needs.
 *
 * Every case puts three threads on CPU 0: the holder L (SCHED_FIFO 1) stops while it
 * holds the state the high thread H (SCHED_FIFO 50) then needs; a middle thread M
 * (SCHED_FIFO 20) spins throughout. Once H waits, L is released. L can only run again if
 * H sleeps *and* boosts it above M; then H gets what it wants within milliseconds. A
 * watchdog (SCHED_FIFO 99, on CPU 1 when there is one) gives H WAIT_MS and reports a
 * failure otherwise (a spinning H or an unboosted L); the parent kills a child that
 * does not end.
 *
 *   lock    L is inside HeapFree (its busy word is set: it faults on a block it
 *           write-protected, and its SIGSEGV handler holds it); H calls HeapLock, which
 *           waits for every thread inside the heap to leave.
 *   init    L is in the middle of the heap's first-use initialisation (stopped in
 *           getenv, which this program replaces, when the heap reads
 *           NSPA_HEAP_LARGE_PAGES); H calls GetProcessHeap/HeapAlloc.
 *   holder  L holds HeapLock; H calls HeapAlloc on that heap and must wait for the
 *           HeapUnlock (the heap's internal mutexes inherit priority).
 *   dead    as holder, but L exits without HeapUnlock: the heap stays locked (as NT's
 *           does) and H must go on sleeping, neither spin nor take the process down.
 *
 * Each case runs in a fresh process (the init case needs the heap untouched). Needs
 * SCHED_FIFO: SKIP (77) without. */
#include <windows.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include "locks_util.h"
#include "nspa_test.h"

enum { PRIO_LOW = 1, PRIO_MID = 20, PRIO_HIGH = 50, PRIO_WATCH = 99 };
#define WAIT_MS 3000          /* H's allowance once L may run again */
#define MID_SPIN_MS 10000     /* M spins at most this long (longer than WAIT_MS) */

static const char *const cases[] = { "lock", "init", "holder", "dead" };
#define NCASES 4
static int the_case;

static _Atomic int stage;               /* 1: L holds, 2: H calls, 3: H got it */
static _Atomic uint32_t go;             /* futex word: L may go on */
static _Atomic int stop_mid;
static _Atomic int low_prio_seen = 1000;   /* L's kernel priority once it runs again */
static _Atomic pid_t high_tid;
static HANDLE heap;
static void *prot_page;

/* ---- async-signal-safe helpers (L's wait runs in a signal handler and in getenv) ---- */

/* the calling thread's effective priority as the kernel shows it (field 18 of its
 * stat: -1 - the RT priority, boosts included) */
static int my_kernel_prio(void)
{
    char buf[512];
    int fd = open("/proc/thread-self/stat", O_RDONLY);
    if (fd < 0)
        return 1000;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1000;
    buf[n] = 0;
    char *p = buf + n;
    while (p > buf && *p != ')')
        p--;
    int field = 2;
    for (; *p; p++) {
        if (*p == ' ' && ++field == 18) {
            int neg = p[1] == '-', v = 0;
            for (p += 1 + neg; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (*p - '0');
            return neg ? -v : v;
        }
    }
    return 1000;
}

/* L: say it holds, sleep until released, note the priority it then runs at */
static void hold_here(void)
{
    atomic_store(&stage, 1);
    while (!atomic_load(&go))
        syscall(SYS_futex, &go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    atomic_store(&low_prio_seen, my_kernel_prio());
}

/* ---- init: getenv, replaced, stops L when the heap's initialisation reads its option ---- */

extern char **environ;
static _Atomic int hook_armed;
static _Atomic pid_t hook_tid;

static int name_is(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* (default visibility: the library's getenv calls must bind to it) */
__attribute__((visibility("default"))) char *getenv(const char *name)
{
    if (atomic_load(&hook_armed) && name_is(name, "NSPA_HEAP_LARGE_PAGES") &&
        (pid_t)syscall(SYS_gettid) == atomic_load(&hook_tid)) {
        atomic_store(&hook_armed, 0);
        hold_here();
    }
    for (char **e = environ; e && *e; e++) {
        const char *s = *e, *n = name;
        while (*n && *s == *n)
            s++, n++;
        if (!*n && *s == '=')
            return (char *)s + 1;
    }
    return NULL;
}

/* ---- lock: L faults inside HeapFree on a block it write-protected ---- */

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    uintptr_t a = (uintptr_t)si->si_addr, p = (uintptr_t)prot_page;
    if (!p || a < p || a >= p + 4096) {
        signal(SIGSEGV, SIG_DFL);   /* a real fault: die of it */
        return;
    }
    hold_here();
    mprotect(prot_page, 4096, PROT_READ | PROT_WRITE);
}

static void *low_thread(void *arg)
{
    (void)arg;
    if (the_case == 0) {
        heap = HeapCreate(0, 0, 0);
        void *b = HeapAlloc(heap, 0, 4000);   /* class 4096: page-aligned blocks */
        if (!b || ((uintptr_t)b & 4095)) {
            fprintf(stderr, "setup: block %p is not page-aligned\n", b);
            _exit(2);
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, NULL);
        prot_page = b;
        mprotect(b, 4096, PROT_READ);
        /* the free writes the block's link with the busy word set: the handler holds */
        HeapFree(heap, 0, b);
    } else if (the_case == 1) {
        atomic_store(&hook_tid, (pid_t)syscall(SYS_gettid));
        atomic_store(&hook_armed, 1);
        heap = GetProcessHeap();            /* the first heap call initialises */
    } else {
        heap = HeapCreate(0, 0, 0);
        HeapLock(heap);
        hold_here();
        if (the_case == 2)
            HeapUnlock(heap);
        /* dead: exits holding the lock */
    }
    return NULL;
}

static void *mid_thread(void *arg)
{
    (void)arg;
    uint64_t end = lu_now_ns() + MID_SPIN_MS * 1000000ull;
    while (!atomic_load(&stop_mid) && lu_now_ns() < end)
        ;
    return NULL;
}

static void *high_thread(void *arg)
{
    (void)arg;
    atomic_store(&high_tid, lu_gettid());
    atomic_store(&stage, 2);
    if (the_case == 0) {
        HeapLock(heap);
        HeapUnlock(heap);
    } else {
        HANDLE h = the_case == 1 ? GetProcessHeap() : heap;
        void *p = HeapAlloc(h, 0, 16);
        HeapFree(h, 0, p);
    }
    atomic_store(&stage, 3);
    return NULL;
}

static int wait_stage(int s, unsigned ms)
{
    for (unsigned i = 0; i < ms && atomic_load(&stage) < s; i++)
        lu_sleep_ms(1);
    return atomic_load(&stage) >= s;
}

/* dead: L has exited holding HeapLock while H waited in HeapAlloc. The heap stays
 * locked (NT's does too), and H must go on sleeping: the kernel hands a dead owner's PI
 * mutex to its waiter, and the heap must not turn that into a spin. */
static int dead_holder(pthread_t l, pthread_t m)
{
    atomic_store(&stop_mid, 1);           /* (an unboosted L could not exit past M) */
    pthread_join(m, NULL);
    pthread_join(l, NULL);
    lu_sleep_ms(50);
    int running = 0;
    for (int i = 0; i < 20; i++) {
        char buf[512];
        char *st = lu_thread_stat(atomic_load(&high_tid), buf, sizeof buf);
        running += st && st[1] == 'R';
        lu_sleep_ms(10);
    }
    printf("dead: the waiter ran in %d of 20 samples after the holder exited\n", running);
    CHECK(running <= 2);
    CHECK_EQ(atomic_load(&stage), 2);     /* still waiting */
    fflush(stdout);
    _exit(nspa_test_done());              /* (H cannot be joined) */
}

static int run_case(void)
{
    const char *name = cases[the_case];
    int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    lu_pin(ncpu > 1 ? 1 : 0);
    struct sched_param sp = { .sched_priority = PRIO_WATCH };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP: SCHED_FIFO not permitted here (%s)\n", strerror(errno));
        return 77;
    }
    pthread_t l, m, h;
    REQUIRE(lu_thread(&l, low_thread, NULL, PRIO_LOW, 0) == 0);
    if (!wait_stage(1, 3000)) {
        fprintf(stderr, "%s: the FIFO %d holder never stopped where it should\n", name, PRIO_LOW);
        _exit(1);
    }
    REQUIRE(lu_thread(&m, mid_thread, NULL, PRIO_MID, 0) == 0);
    REQUIRE(lu_thread(&h, high_thread, NULL, PRIO_HIGH, 0) == 0);
    REQUIRE(wait_stage(2, 3000));
    lu_sleep_ms(100);                     /* H is in its wait now (it has CPU 0 first) */
    atomic_store(&go, 1);
    syscall(SYS_futex, &go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    uint64_t t0 = lu_now_ns();
    if (the_case == 3)
        return dead_holder(l, m);
    if (!wait_stage(3, WAIT_MS)) {
        char buf[512];
        char *st = lu_thread_stat(atomic_load(&high_tid), buf, sizeof buf);
        int spins = st && st[1] == 'R';
        printf("%s: FAIL: the FIFO %d thread still waits %d ms after the FIFO %d holder on "
               "its CPU was released: %s\n", name, PRIO_HIGH, WAIT_MS, PRIO_LOW,
               spins ? "it spins (state R), the holder never runs"
                     : "it sleeps, but the holder does not get its priority and the FIFO 20 "
                       "spinner keeps the CPU");
        fflush(stdout);
        _exit(1);                         /* ends the spinning threads too */
    }
    double ms = (lu_now_ns() - t0) / 1e6;
    atomic_store(&stop_mid, 1);
    pthread_join(h, NULL);
    pthread_join(m, NULL);
    pthread_join(l, NULL);
    printf("%s: the FIFO %d thread got through %.1f ms after the holder was released; the "
           "holder ran at kernel priority %d\n", name, PRIO_HIGH, ms, atomic_load(&low_prio_seen));
    CHECK_EQ(atomic_load(&low_prio_seen), -1 - PRIO_HIGH);   /* boosted to H's priority */
    if (the_case != 1) {
        CHECK(HeapValidate(heap, 0, NULL));
        if (heap != GetProcessHeap())
            CHECK(HeapDestroy(heap));
    }
    return nspa_test_done();
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (the_case = 0; the_case < NCASES && strcmp(argv[1], cases[the_case]); the_case++)
            ;
        REQUIRE(the_case < NCASES);
        return run_case();
    }
    struct sched_param sp = { .sched_priority = 1 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
        printf("SKIP: SCHED_FIFO not permitted here (%s)\n", strerror(errno));
        return 77;   /* ctest SKIP_RETURN_CODE: reported as skipped, not passed */
    }
    sp.sched_priority = 0;
    sched_setscheduler(0, SCHED_OTHER, &sp);
    int failed = 0;
    for (int c = 0; c < NCASES; c++) {
        fflush(NULL);
        pid_t p = fork();
        if (p == 0) {
            execl("/proc/self/exe", argv[0], cases[c], (char *)NULL);
            _exit(127);
        }
        int st = 0, done = 0;
        for (int i = 0; i < 4 * (WAIT_MS + 3000) / 10 && !done; i++) {
            done = waitpid(p, &st, WNOHANG) == p;
            if (!done)
                lu_sleep_ms(10);
        }
        if (!done) {                      /* the child's watchdog did not end it */
            kill(p, SIGKILL);
            waitpid(p, &st, 0);
            printf("%s: killed, it did not end\n", cases[c]);
            st = 1 << 8;
        }
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        printf("%s: exit %d\n", cases[c], code);
        if (code == 77)
            return 77;
        failed |= code != 0;
    }
    printf("%s\n", failed ? "FAILED" : "all cases passed");
    return failed;
}
