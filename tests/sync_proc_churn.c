/* Processes of a namespace (issue: at least 4,096 processes per namespace; nothing
 * leaked by processes that exit, _exit or are killed; attach time flat).
 *
 * Two phases, each in a child process under a watchdog (sync_phase.h):
 *  - churn: 10,000 short-lived processes (fork, no exec), at most 8 alive at once.
 *    Each opens or creates a named semaphore shared with the parent and releases it
 *    once, then leaves in one of four ways:
 *      40%  nspa_close and exit() (cleanup runs),
 *      30%  create on the existing name (NSPA_EXISTED), release, _exit() (no cleanup),
 *      20%  also create a named event of its own ("pc-ev-<i>"), then _exit(),
 *      10%  also create "pc-ev-<i>", then block in an INFINITE wait on a named event
 *           and be killed there with SIGKILL by the parent.
 *    Afterwards (every child reaped, a named open made so that dead processes are
 *    swept): the semaphore's count is exactly the number of releases (10,000); no
 *    wait of a killed child is left on the named event; every "pc-ev-<i>" is gone
 *    (nspa_open -> -ENOENT); nspa_check_namespace() == 0; and the time per 100
 *    children is flat: over the last 1,000 at most 3x what it is over the first
 *    1,000 (lower quartiles of 10 samples; if not, the churn is run and measured once
 *    more, so that a busy machine does not fail the test but a slower core does).
 *  - live: 4,096 processes attached at once (this phase's process and 4,095
 *    children), each holding a named semaphore it released once and blocked in an
 *    INFINITE wait on a named manual event; one nspa_event_set wakes them all and
 *    every child exits 0. The phase fails at the first child that dies otherwise.
 * Then the test's own process attaches and checks that nothing of either phase is
 * left: the names are gone and nspa_check_namespace() == 0.
 * Under ASan: 2,000 churned and 1,024 live processes (still past today's 256), no
 * timing check (a forked ASan process costs ~10x more, and 4,096 of them memory).
 *
 * Today (256 process slots): the churn passes (slots of dead processes are swept);
 * in the live phase, once 255 children are attached (256 processes), the next child
 * to attach aborts ("nspa: namespace ... has no free process slot", "nspa: fatal: no
 * namespace"): the phase reports the SIGABRT and exits 1. */
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "sync_phase.h"
#include "sync_util.h"

/* under ASan a forked process costs ~10x more: fewer (the timing is not checked) */
#define KIDS (PHASE_ASAN ? 2000 : 10000)
#define MAX_ALIVE 8
#define SUB 100                 /* children per timing sample */
#define SUBS_PER_1000 (1000 / SUB)
#define MAX_RATIO 3.0
#define LIVE (PHASE_ASAN ? 1023 : 4095)   /* + the phase's own process: 4,096 processes */

enum { M_CLEAN, M_EXISTED, M_OWNNAME, M_KILLED };

static int kid_mode(int i)
{
    switch (i % 10) {
    case 0: case 1: case 2: case 3: return M_CLEAN;
    case 4: case 6: case 8: return M_EXISTED;
    case 5: case 7: return M_OWNNAME;
    default: return M_KILLED;
    }
}

static const char *mode_name[] = { "exit", "_exit (existed)", "_exit (own name)", "SIGKILL" };

/* the child: returns its exit code: 0 = done its part, 10..17 = the step that failed */
static int churn_kid(int i, int mode, int report_fd)
{
    nspa_obj_t s, e, never;
    char name[32];
    int r;
    if (mode == M_EXISTED) {
        struct nspa_sem_args sa = { 0, 1u << 20 };
        if ((r = nspa_create_sem(&sa, "pc-sem", &s)) != NSPA_EXISTED) return 10;
    } else if ((r = nspa_open(NSPA_TYPE_SEM, "pc-sem", &s))) {
        return 11;
    }
    if (mode == M_OWNNAME || mode == M_KILLED) {
        struct nspa_event_args ea = { 1, 0 };
        snprintf(name, sizeof(name), "pc-ev-%d", i);
        if (nspa_create_event(&ea, name, &e) != 0) return 12;
    }
    uint32_t c = 1;
    if (nspa_sem_release(s, &c)) return 13;
    switch (mode) {
    case M_CLEAN:
        if (nspa_close(s)) return 14;
        return 0;
    case M_KILLED: {
        if (nspa_open(NSPA_TYPE_EVENT, "pc-never", &never)) return 15;
        char b = 1;
        if (write(report_fd, &b, 1) != 1) return 16;
        wait_any_ms(&never, 1, (uint32_t)syscall(SYS_gettid), UINT32_MAX, 0, NULL);
        return 17;   /* never woken */
    }
    default:
        _exit(0);
    }
}

static int status_ok(int mode, int st)
{
    if (mode == M_KILLED) return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

struct kid { pid_t pid; int i, mode; };
static struct kid alive[MAX_ALIVE];
static int nalive, failures, ok;

/* account for child @p's end */
static void reaped(pid_t p, int st)
{
    for (int k = 0; k < nalive; k++) {
        if (alive[k].pid != p) continue;
        if (status_ok(alive[k].mode, st)) ok++;
        else {
            char b[96];
            if (failures++ < 10)
                fprintf(stderr, "churn: child %d (%s): %s\n", alive[k].i, mode_name[alive[k].mode],
                        phase_status(st, b, sizeof(b)));
        }
        alive[k] = alive[--nalive];
        return;
    }
}

/* One churn of KIDS processes with its checks; returns last/first (lower quartiles
 * of the time per SUB children over the last and the first 1,000), or 1.0 if within
 * MAX_RATIO. */
static double churn_round(void)
{
    struct nspa_sem_args sa = { 0, 1u << 20 };
    struct nspa_event_args ea = { 1, 0 };
    nspa_obj_t sem, never;
    REQUIRE(nspa_create_sem(&sa, "pc-sem", &sem) == 0);
    REQUIRE(nspa_create_event(&ea, "pc-never", &never) == 0);
    int pfd[2];
    REQUIRE(pipe(pfd) == 0);
    nalive = failures = ok = 0;
    int started = 0;
    double sub_s[10000 / SUB];
    double t0 = phase_now(), ts = t0;
    pid_t me = getpid();
    for (int i = 0; i < KIDS && failures < 20; i++) {
        while (nalive == MAX_ALIVE) {
            int st;
            pid_t p = waitpid(-1, &st, 0);
            if (p < 0) break;
            reaped(p, st);
        }
        int mode = kid_mode(i);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != me) _exit(98);
            alarm(20);    /* a child that hangs dies of SIGALRM: reported as such */
            exit(churn_kid(i, mode, pfd[1]));
        }
        started++;
        alive[nalive++] = (struct kid){ pid, i, mode };
        if (mode == M_KILLED) {
            /* kill it once it has released (it is about to wait, or waits already);
             * a child that dies before is reported with its status */
            double w0 = phase_now();
            for (;;) {
                struct pollfd pf = { pfd[0], POLLIN, 0 };
                char b;
                int st;
                if (poll(&pf, 1, 50) == 1 && read(pfd[0], &b, 1) == 1) {
                    kill(pid, SIGKILL);
                    break;
                }
                if (waitpid(pid, &st, WNOHANG) == pid) {
                    reaped(pid, st);
                    break;
                }
                if (phase_now() - w0 > 20) {
                    kill(pid, SIGKILL);
                    if (failures++ < 10) fprintf(stderr, "churn: child %d never reached its wait\n", i);
                    break;
                }
            }
        }
        if ((i + 1) % SUB == 0) {
            double now = phase_now();
            sub_s[i / SUB] = now - ts;
            ts = now;
        }
    }
    while (nalive > 0) {
        int st;
        pid_t p = waitpid(-1, &st, 0);
        if (p < 0) break;
        reaped(p, st);
    }
    double total = phase_now() - t0;
    printf("churn: %d processes in %.2f s, %d as expected, %d not\n", started, total, ok, failures);
    CHECK_EQ(failures, 0);
    CHECK_EQ(started, KIDS);
    /* a named open sweeps the dead processes; then nothing of theirs is left */
    nspa_obj_t x;
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "pc-never", &x), 0);
    nspa_close(x);
    CHECK_EQ(sem_count(sem), ok);
    CHECK_EQ(nspa_obj_waiters(never), 0);
    int left = 0;
    for (int i = 0; i < started; i++) {
        if (kid_mode(i) != M_OWNNAME && kid_mode(i) != M_KILLED) continue;
        char name[32];
        snprintf(name, sizeof(name), "pc-ev-%d", i);
        int r = nspa_open(NSPA_TYPE_EVENT, name, &x);
        if (r != -ENOENT) {
            if (left++ < 5) fprintf(stderr, "churn: %s still there after its creator died (%d)\n", name, r);
            if (r == 0) nspa_close(x);
        }
    }
    CHECK_EQ(left, 0);
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_close(sem);
    nspa_close(never);
    close(pfd[0]);
    close(pfd[1]);
    if (started < KIDS) return 1.0;   /* failed above */
    int n = KIDS / SUB;
    double first = phase_quantile(sub_s, SUBS_PER_1000, 0.25);
    double last = phase_quantile(sub_s + n - SUBS_PER_1000, SUBS_PER_1000, 0.25);
    printf("churn: time per %d processes (lower quartile): first 1,000 %.1f ms, last 1,000 %.1f ms (x%.2f)\n",
           SUB, first * 1e3, last * 1e3, last / first);
    return last <= MAX_RATIO * first + 0.002 ? 1.0 : last / first;
}

static int phase_churn(void *unused)
{
    (void)unused;
    double ratio = churn_round();
    if (ratio > MAX_RATIO && !PHASE_ASAN) {
        /* once more, to tell a slower core from a busy machine */
        printf("churn: the last processes were x%.2f slower: measuring again\n", ratio);
        ratio = churn_round();
    }
    if (!PHASE_ASAN) CHECK(ratio <= MAX_RATIO);
    return nspa_test_done();
}

static pid_t *live_pids;
static int nlive;
static nspa_obj_t live_sem;
static int kids_err = -1;   /* the children's stderr: one memfd, appended to */

/* what the children printed (NSPA's messages when they die): the first lines */
static void show_kids_stderr(void)
{
    if (kids_err < 0) return;
    char buf[4096];
    ssize_t n = pread(kids_err, buf, sizeof(buf) - 1, 0);
    if (n <= 0) return;
    buf[n] = 0;
    off_t size = lseek(kids_err, 0, SEEK_END);
    int lines = 0;
    char *end = buf;
    for (char *q = buf; *q && lines < 6; q++)
        if (*q == '\n') { lines++; end = q + 1; }
    *end = 0;
    printf("live: the children's stderr (%lld bytes), first lines:\n%s", (long long)size, buf);
}

static void live_kill_all(void)
{
    for (int k = 0; k < nlive; k++) kill(live_pids[k], SIGKILL);
    int st;
    while (waitpid(-1, &st, 0) > 0) {}
}

/* a child of the live phase that died: report the first one (lowest index) and stop */
static int live_check_dead(const char *when)
{
    int st;
    pid_t p = waitpid(-1, &st, WNOHANG);
    if (p <= 0) return 0;
    phase_sleep_ms(300);  /* its siblings that die the same way, too; the others release */
    int first = -1, first_st = 0, dead = 0;
    do {
        dead++;
        for (int k = 0; k < nlive; k++)
            if (live_pids[k] == p && (first < 0 || k < first)) { first = k; first_st = st; }
    } while ((p = waitpid(-1, &st, WNOHANG)) > 0);
    char b[96];
    /* how many are in: the count once it stops growing (the attached ones release) */
    struct nspa_sem_args a = { 0, 0 };
    uint32_t seen = UINT32_MAX;
    for (int i = 0; i < 40 && a.count != seen; i++) {
        seen = a.count;
        phase_sleep_ms(250);
        nspa_sem_read(live_sem, &a);
    }
    while ((p = waitpid(-1, &st, WNOHANG)) > 0) dead++;
    printf("live: %d children died %s; %u others attached and released (%u processes in the namespace); "
           "the first forked of the dead, child %d: %s\n", dead, when, a.count, a.count + 1, first + 1,
           phase_status(first_st, b, sizeof(b)));
    show_kids_stderr();
    return 1;
}

static int phase_live(void *unused)
{
    (void)unused;
    struct nspa_sem_args sa = { 0, LIVE };
    struct nspa_event_args ea = { 1, 0 };
    nspa_obj_t sem, go;
    REQUIRE(nspa_create_sem(&sa, "pl-sem", &sem) == 0);
    live_sem = sem;
    REQUIRE(nspa_create_event(&ea, "pl-go", &go) == 0);
    live_pids = calloc(LIVE, sizeof(pid_t));
    kids_err = memfd_create("live-stderr", 0);
    if (kids_err >= 0) fcntl(kids_err, F_SETFL, O_APPEND);
    pid_t me = getpid();
    double t0 = phase_now();
    for (int i = 0; i < LIVE; i++) {
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != me) _exit(98);
            alarm(90);
            if (kids_err >= 0) dup2(kids_err, 2);
            nspa_obj_t s, g;
            if (nspa_open(NSPA_TYPE_SEM, "pl-sem", &s)) exit(10);
            if (nspa_open(NSPA_TYPE_EVENT, "pl-go", &g)) exit(11);
            uint32_t c = 1;
            if (nspa_sem_release(s, &c)) exit(12);
            if (wait_any_ms(&g, 1, (uint32_t)syscall(SYS_gettid), UINT32_MAX, 0, NULL)) exit(13);
            if (nspa_close(s) || nspa_close(g)) exit(14);
            exit(0);
        }
        live_pids[nlive++] = pid;
        if (live_check_dead("while the others were starting")) {
            live_kill_all();
            return 1;
        }
    }
    double forked = phase_now() - t0;
    /* all attached (each released once) and all waiting */
    uint32_t n = 0;
    while ((n = sem_count(sem)) < LIVE || nspa_obj_waiters(go) < LIVE) {
        if (live_check_dead("before the wake")) {
            live_kill_all();
            return 1;
        }
        if (phase_now() - t0 > 80) {
            fprintf(stderr, "live: after 80 s, %u of %d children released, %d waiting\n", n, LIVE,
                    nspa_obj_waiters(go));
            show_kids_stderr();
            live_kill_all();
            return 1;
        }
        phase_sleep_ms(5);
    }
    double ready = phase_now() - t0;
    CHECK_EQ(nspa_event_set(go, NULL), 0);
    int good = 0, bad = 0;
    double ws = phase_now();
    while (good + bad < LIVE) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            if (WIFEXITED(st) && WEXITSTATUS(st) == 0) good++;
            else {
                char b[96];
                if (bad++ < 5) fprintf(stderr, "live: a child: %s\n", phase_status(st, b, sizeof(b)));
            }
            continue;
        }
        if (phase_now() - ws > 30) {
            fprintf(stderr, "live: only %d of %d children ended within 30 s of the wake\n", good + bad, LIVE);
            live_kill_all();
            return 1;
        }
        phase_sleep_ms(1);
    }
    printf("live: %d processes attached at once (forked in %.1f s, all waiting after %.1f s); "
           "all ended %.2f s after one set\n", LIVE + 1, forked, ready, phase_now() - ws);
    CHECK_EQ(bad, 0);
    CHECK_EQ(nspa_obj_waiters(go), 0);
    CHECK_EQ(sem_count(sem), LIVE);
    CHECK_EQ(nspa_check_namespace(), 0);
    nspa_close(sem);
    nspa_close(go);
    return nspa_test_done();
}

int main(void)
{
    phase_init();
    int failed = run_phase("churn", phase_churn, NULL, 100);
    failed |= run_phase("live", phase_live, NULL, 110);
    /* this process attaches only now: whatever the phases left must be gone */
    nspa_obj_t x;
    int r1 = nspa_open(NSPA_TYPE_SEM, "pc-sem", &x), r2 = nspa_open(NSPA_TYPE_SEM, "pl-sem", &x);
    int r3 = nspa_check_namespace();
    if (r1 != -ENOENT || r2 != -ENOENT || r3 != 0) {
        printf("after the phases: pc-sem %d, pl-sem %d (both must be -ENOENT), check %d\n", r1, r2, r3);
        failed = 1;
    }
    printf("%s\n", failed ? "sync_proc_churn: FAILED" : "sync_proc_churn: passed");
    return failed;
}
