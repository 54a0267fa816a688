/* "No one else in, and no one else can lock you out": another local user cannot enter a
 * user's namespace, and cannot stop that user's programs from working by planting
 * something where the namespace would be (sync-semantics.md: a namespace is the
 * owning user's alone; unnamed objects stay private to the process and need no shared
 * namespace).
 *
 * Needs root, to play two other users: the VICTIM (uid/gid 61477, no passwd entry
 * needed) and the ATTACKER (65534, nobody). Without root it is skipped (exit 77).
 *
 *  1. Control, in two environments (XDG_RUNTIME_DIR unset; XDG_RUNTIME_DIR set to a
 *     private 0700 directory of the victim): the victim (this program, exec'd as the
 *     victim with a fresh namespace name) uses unnamed objects, creates a named event,
 *     reports nspa_namespace_path() and holds the event; meanwhile the attacker can
 *     neither open that file (read or write) nor find the named event through NSPA
 *     ("no one else in").
 *  2. Squatting, for each of four plants x the two environments: before the victim
 *     starts, the attacker (a child that dropped to uid 65534) plants, at every path
 *     where the namespace may live (squat_paths(): today's /dev/shm/nspa-<uid>-<ns>,
 *     a per-user directory under /dev/shm, $XDG_RUNTIME_DIR/nspa..., and the paths the
 *     control runs reported), creating the missing directories as its own (0777):
 *       (a) a junk file of the attacker;
 *       (b) a symlink of the attacker to a file of the attacker (mode 0666);
 *       (c) a file of the victim with mode 0666 (its directories the victim's, 0755);
 *       (d) a FIFO of the attacker (a reader that opens it read-only would hang).
 *     Inside the victim's private XDG directory, where the attacker cannot write, the
 *     same plants are made by root and given to their owner ("whatever the region
 *     looks like"). The victim must then: create an unnamed event and use it (SetEvent,
 *     WaitForSingleObject, a thread woken through one), an unnamed semaphore through the
 *     C API; get NULL with GetLastError() == ERROR_ACCESS_DENIED from named
 *     CreateEvent/CreateMutex/CreateSemaphore, NULL from OpenEvent, a negative errno
 *     from nspa_create_event/nspa_open with a name; and still use unnamed objects
 *     after that. It must exit 0 within 20 s: never SIGABRT, never a hang. The
 *     attacker's files are left unchanged.
 *
 * Today: every squatted victim dies with SIGABRT at its first (unnamed) CreateEvent:
 * "nspa: cannot open namespace /dev/shm/nspa-61477-<ns>: Permission denied" (or "Too
 * many levels of symbolic links" for the symlink), then "nspa: fatal: no namespace".
 * The control runs pass. */
#include <windows.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

#define VICTIM 61477
#define ATTACKER 65534
#define VICTIM_TIMEOUT_MS 20000
#define PLEN 1024                  /* our paths are short: /dev/shm, /tmp, /proc */
#define EV_NAME "squat-ev"

static char self_exe[PLEN];
static char ns_name[64];           /* this run's namespace name */
static char tmp_root[PLEN];    /* /tmp/nspa-squat-<pid> (root's, 0755) */
static char xdg_dir[PLEN];     /* the victim's XDG_RUNTIME_DIR in environment B */
static char target[PLEN];      /* the attacker's file that symlinks point to */
#define TARGET_DATA "attacker's data, must stay as it is\n"

/* snprintf for paths (all short here), through a va_list */
static void pathf(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, PLEN, fmt, ap);
    va_end(ap);
}

/* ---- where a namespace may live: change here when the layout moves -------------- */

#define MAX_PATHS 24
static char learned[2][PLEN];  /* what nspa_namespace_path() said in the controls */

/* The paths where the victim's namespace region may be: today's, the likely per-user
 * runtime-dir layouts, and whatever the control runs reported. */
static int squat_paths(char out[][PLEN])
{
    int n = 0;
    pathf(out[n++], "/dev/shm/nspa-%d-%s", VICTIM, ns_name);
    pathf(out[n++], "/dev/shm/nspa-%d/nspa-%s", VICTIM, ns_name);
    /* the fallback directories the region moves on to when /dev/shm/nspa-<uid> is
     * taken (docs/sync.md, "Where the region lives"): all of them squatted, the
     * victim has nowhere safe and must get the error */
    for (int k = 1; k <= 7; k++) pathf(out[n++], "/dev/shm/nspa-%d.%d/nspa-%s", VICTIM, k, ns_name);
    pathf(out[n++], "/dev/shm/nspa-%d/%s", VICTIM, ns_name);
    pathf(out[n++], "%s/nspa/%s", xdg_dir, ns_name);
    pathf(out[n++], "%s/nspa/nspa-%s", xdg_dir, ns_name);
    pathf(out[n++], "%s/nspa-%s", xdg_dir, ns_name);
    for (int k = 0; k < 2; k++) {
        if (!learned[k][0]) continue;
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= !strcmp(out[i], learned[k]);
        if (!dup && n < MAX_PATHS) pathf(out[n++], "%s", learned[k]);
    }
    return n;
}

/* The directory a path is planted under: the victim's XDG dir, or a world-writable
 * one (/dev/shm, /tmp). Returns its length in @p, 0 if neither. */
static size_t plant_base(const char *p, int *in_xdg)
{
    size_t l = strlen(xdg_dir);
    *in_xdg = 0;
    if (!strncmp(p, xdg_dir, l) && p[l] == '/') { *in_xdg = 1; return l; }
    if (!strncmp(p, "/dev/shm/", 9)) return 8;
    if (!strncmp(p, "/tmp/", 5)) return 4;
    return 0;
}

/* ---- running as another user ------------------------------------------------------ */

static int drop_to(uid_t uid)
{
    if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) return -1;
    return 0;
}

enum plant_kind { P_JUNK, P_SYMLINK, P_MODE0666, P_FIFO, P_NKINDS };
static const char *kind_name[] = { "(a) junk file of the attacker", "(b) symlink of the attacker to its file",
                                   "(c) file of the victim, mode 0666", "(d) FIFO of the attacker" };

/* make the missing directories of @p below its base, as the current user, with @mode */
static int mkdirs(const char *p, size_t base, mode_t mode)
{
    char buf[PLEN];
    pathf(buf, "%s", p);
    for (char *s = buf + base + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(buf, mode) < 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return 0;
}

static int make_leaf(const char *p, enum plant_kind k)
{
    int fd;
    switch (k) {
    case P_JUNK:
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
        if (fd < 0) return -1;
        for (int i = 0; i < 64; i++)
            if (write(fd, "junk junk junk junk junk junk junk junk junk junk junk junk junk\n", 64) != 64) break;
        close(fd);
        return 0;
    case P_SYMLINK:
        return symlink(target, p);
    case P_MODE0666:
        fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
        if (fd < 0) return -1;
        fchmod(fd, 0666);
        close(fd);
        return 0;
    case P_FIFO:
        return mkfifo(p, 0666);
    default:
        return -1;
    }
}

/* Plant @k at @p. Under a world-writable directory a child that dropped to the
 * owner's uid does it (the attacker for a/b/d, the victim for c); inside the victim's
 * private XDG directory root does it and hands the entries to their owner. */
static int plant(const char *p, enum plant_kind k)
{
    int in_xdg;
    size_t base = plant_base(p, &in_xdg);
    if (!base) return -1;
    uid_t owner = k == P_MODE0666 ? VICTIM : ATTACKER;
    if (in_xdg) {
        /* directories: the victim's own (its private dir goes on) */
        char buf[PLEN];
        pathf(buf, "%s", p);
        for (char *s = buf + base + 1; (s = strchr(s, '/')); s++) {
            *s = 0;
            if (mkdir(buf, 0700) == 0 && chown(buf, VICTIM, VICTIM) < 0) return -1;
            *s = '/';
        }
        mode_t old = umask(0);
        int r = make_leaf(p, k);
        umask(old);
        if (r < 0 && errno != EEXIST) return -1;
        return lchown(p, owner, owner);
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (drop_to(owner)) _exit(2);
        umask(0);
        if (mkdirs(p, base, k == P_MODE0666 ? 0755 : 0777)) _exit(3);
        if (make_leaf(p, k) < 0 && errno != EEXIST) _exit(4);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* remove @p and its now-empty directories below its base */
static void unplant(const char *p)
{
    int in_xdg;
    size_t base = plant_base(p, &in_xdg);
    if (!base) return;
    unlink(p);
    rmdir(p);
    char buf[PLEN];
    pathf(buf, "%s", p);
    for (char *s; (s = strrchr(buf, '/')) && (size_t)(s - buf) > base;) {
        *s = 0;
        if (rmdir(buf) < 0) break;
    }
}

static void rm_rf(const char *p)
{
    char cmd[PLEN + 32];
    snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", p);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", p);
}

/* Remove everything a case left: plants, namespaces of the victim and the attacker
 * under this run's name, the per-user directories made for the test's victim. */
static void cleanup(void)
{
    char paths[MAX_PATHS][PLEN];
    int n = squat_paths(paths);
    for (int i = 0; i < n; i++) unplant(paths[i]);
    char p[PLEN];
    snprintf(p, sizeof(p), "/dev/shm/nspa-%d", VICTIM);     /* the test's own uid */
    rm_rf(p);
    snprintf(p, sizeof(p), "/dev/shm/nspa-%d-%s", ATTACKER, ns_name);
    unlink(p);
    snprintf(p, sizeof(p), "/dev/shm/nspa-%d/nspa-%s", ATTACKER, ns_name);
    unlink(p);
    snprintf(p, sizeof(p), "/dev/shm/nspa-%d/%s", ATTACKER, ns_name);
    unlink(p);
    /* the victim's private runtime dir, fresh for each case */
    rm_rf(xdg_dir);
    if (mkdir(xdg_dir, 0700) < 0 || chown(xdg_dir, VICTIM, VICTIM) < 0)
        fprintf(stderr, "cannot make %s: %s\n", xdg_dir, strerror(errno));
}

/* ---- the victim and the intruder (this program, exec'd as another user) ---------- */

static int victim_fail;
#define VCHECK(cond, ...) do { if (!(cond)) { victim_fail++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static DWORD WINAPI woken_thread(LPVOID p)
{
    return WaitForSingleObject((HANDLE)p, 10000) == WAIT_OBJECT_0 ? 0 : 1;
}

/* unnamed objects work: events (a set, a wait, a poll, a thread woken), a semaphore */
static void victim_unnamed(const char *when)
{
    HANDLE e = CreateEventA(NULL, FALSE, FALSE, NULL);
    VCHECK(e != NULL, "%s: unnamed CreateEvent: error %u", when, (unsigned)GetLastError());
    if (e) {
        VCHECK(SetEvent(e), "%s: SetEvent", when);
        VCHECK(WaitForSingleObject(e, 1000) == WAIT_OBJECT_0, "%s: WaitForSingleObject of a set event", when);
        VCHECK(WaitForSingleObject(e, 0) == WAIT_TIMEOUT, "%s: the auto-reset event stayed set", when);
        HANDLE m = CreateEventA(NULL, TRUE, FALSE, NULL);
        HANDLE t = m ? CreateThread(NULL, 0, woken_thread, m, 0, NULL) : NULL;
        VCHECK(t != NULL, "%s: CreateThread: error %u", when, (unsigned)GetLastError());
        if (t) {
            Sleep(20);
            SetEvent(m);
            DWORD code = 99;
            VCHECK(WaitForSingleObject(t, 10000) == WAIT_OBJECT_0, "%s: the thread did not end", when);
            GetExitCodeThread(t, &code);
            VCHECK(code == 0, "%s: the thread was not woken by SetEvent", when);
            CloseHandle(t);
        }
        if (m) CloseHandle(m);
        CloseHandle(e);
    }
    struct nspa_sem_args sa = { 0, 2 };
    nspa_obj_t s = 0;
    int r = nspa_create_sem(&sa, NULL, &s);
    VCHECK(r == 0, "%s: nspa_create_sem unnamed: %d", when, r);
    if (r == 0) {
        uint32_t c = 1;
        VCHECK(nspa_sem_release(s, &c) == 0, "%s: nspa_sem_release", when);
        struct nspa_wait_args w = { .timeout = nspa_time_ns() + 1000000000ull, .objs = &s, .count = 1, .owner = 1 };
        VCHECK(nspa_wait_any(&w) == 0, "%s: nspa_wait_any on the semaphore", when);
        nspa_close(s);
    }
}

static int victim_main(int control)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("victim: uid %d, namespace %s, XDG_RUNTIME_DIR=%s\n", (int)getuid(), getenv("NSPA_NAMESPACE"),
           getenv("XDG_RUNTIME_DIR") ? getenv("XDG_RUNTIME_DIR") : "(unset)");
    victim_unnamed("first use");
    if (control) {
        SetLastError(1234);
        HANDLE h = CreateEventA(NULL, TRUE, FALSE, EV_NAME);
        VCHECK(h != NULL && GetLastError() == 0, "control: named CreateEvent: %p, error %u", (void *)h,
               (unsigned)GetLastError());
        const char *p = nspa_namespace_path();
        printf("PATH=%s\n", p ? p : "");
        printf("READY\n");
        char b;
        while (read(0, &b, 1) > 0) {}   /* the parent checks the intruder meanwhile */
        if (h) CloseHandle(h);
    } else {
        static const char *what[] = { "CreateEventA", "CreateMutexA", "CreateSemaphoreA" };
        for (int i = 0; i < 3; i++) {
            SetLastError(0);
            HANDLE h = i == 0 ? CreateEventA(NULL, TRUE, FALSE, EV_NAME)
                     : i == 1 ? CreateMutexA(NULL, FALSE, "squat-mx") : CreateSemaphoreA(NULL, 0, 1, "squat-sem");
            DWORD err = GetLastError();
            VCHECK(h == NULL && err == ERROR_ACCESS_DENIED, "named %s: %p, GetLastError() %u (want NULL, %d)",
                   what[i], (void *)h, (unsigned)err, ERROR_ACCESS_DENIED);
            if (h) CloseHandle(h);
        }
        SetLastError(0);
        HANDLE o = OpenEventA(SYNCHRONIZE, FALSE, EV_NAME);
        printf("victim: OpenEventA: %p, GetLastError() %u\n", (void *)o, (unsigned)GetLastError());
        VCHECK(o == NULL, "named OpenEventA succeeded");
        struct nspa_event_args ea = { 1, 0 };
        nspa_obj_t x = 0;
        int r = nspa_create_event(&ea, "squat-ev2", &x);
        printf("victim: nspa_create_event(named): %d\n", r);
        VCHECK(r < 0, "nspa_create_event with a name: %d (want a negative errno)", r);
        r = nspa_open(NSPA_TYPE_EVENT, EV_NAME, &x);
        printf("victim: nspa_open: %d\n", r);
        VCHECK(r < 0, "nspa_open: %d (want a negative errno)", r);
        const char *p = nspa_namespace_path();
        printf("victim: nspa_namespace_path() = %s\n", p ? p : "NULL");
        victim_unnamed("after the named calls");
    }
    printf("victim: %s\n", victim_fail ? "FAILED" : "all as expected");
    return victim_fail ? 1 : 0;
}

/* the attacker tries to get in: the victim's file, and the name through NSPA */
static int intruder_main(const char *path)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int bad = 0;
    if (path && *path) {
        int fd = open(path, O_RDONLY);
        if (fd >= 0) { printf("FAIL: the attacker opened %s for reading\n", path); bad++; close(fd); }
        fd = open(path, O_RDWR);
        if (fd >= 0) { printf("FAIL: the attacker opened %s for writing\n", path); bad++; close(fd); }
    }
    nspa_obj_t x;
    int r = nspa_open(NSPA_TYPE_EVENT, EV_NAME, &x);
    if (r == 0) { printf("FAIL: the attacker opened the victim's named event through NSPA\n"); bad++; }
    HANDLE h = OpenEventA(SYNCHRONIZE, FALSE, EV_NAME);
    if (h) { printf("FAIL: the attacker's OpenEventA found the victim's event\n"); bad++; }
    printf("intruder: %s\n", bad ? "got in" : "kept out");
    return bad ? 1 : 0;
}

/* ---- spawning ------------------------------------------------------------------- */

struct proc {
    pid_t pid;
    int out, in;                 /* its stdout+stderr (read), its stdin (write) */
    char buf[32768];
    size_t len;
};

/* The victim and the intruder run this program as other users, who may not reach the
 * build tree (a clone under /root is 0700): run copies of it and of libnspa from
 * tmp_root/bin (root's, 0755), the library found through LD_LIBRARY_PATH, which comes
 * before the executable's RUNPATH. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC), out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    char buf[65536];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) n = -1;
    if (in >= 0) close(in);
    if (out >= 0 && close(out)) n = -1;
    return out < 0 || n < 0 ? -1 : chmod(to, mode);
}

static char lib_dir[PLEN];

static int stage_exe(void)
{
    Dl_info di;
    char path[PLEN], lib[PLEN];
    if (!dladdr((void *)nspa_create_event, &di) || !di.dli_fname) return -1;
    pathf(lib_dir, "%s/bin", tmp_root);
    if (mkdir(lib_dir, 0755)) return -1;
    const char *base = strrchr(di.dli_fname, '/');
    pathf(lib, "%s/%s", lib_dir, base ? base + 1 : di.dli_fname);
    pathf(path, "%s/victim", lib_dir);
    if (copy_file(di.dli_fname, lib, 0755) || copy_file(self_exe, path, 0755)) return -1;
    snprintf(self_exe, sizeof(self_exe), "%s", path);
    return 0;
}

/* exec this program as @uid with @mode, in environment B when @xdg, else A */
static int spawn(struct proc *p, uid_t uid, const char *mode, const char *arg, int xdg)
{
    int o[2], i[2];
    if (pipe(o) || pipe(i)) return -1;
    memset(p, 0, sizeof(*p));
    fflush(NULL);
    pid_t parent = getpid();
    p->pid = fork();
    if (p->pid < 0) return -1;
    if (p->pid == 0) {
        dup2(i[0], 0);
        dup2(o[1], 1);
        dup2(o[1], 2);
        close(o[0]); close(o[1]); close(i[0]); close(i[1]);
        setpgid(0, 0);
        if (drop_to(uid)) _exit(120);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(121);
        if (chdir("/") < 0) _exit(122);
        struct rlimit nocore = { 0, 0 };   /* today's expected aborts dump no core */
        setrlimit(RLIMIT_CORE, &nocore);
        setenv("NSPA_NAMESPACE", ns_name, 1);
        if (xdg) setenv("XDG_RUNTIME_DIR", xdg_dir, 1);
        else unsetenv("XDG_RUNTIME_DIR");
        setenv("HOME", "/nonexistent", 1);
        setenv("LD_LIBRARY_PATH", lib_dir, 1);
        execl(self_exe, self_exe, mode, arg ? arg : "", (char *)NULL);
        _exit(123);
    }
    close(o[1]);
    close(i[0]);
    p->out = o[0];
    p->in = i[1];
    return 0;
}

/* read its output until @until appears (or EOF if NULL); 0 on timeout */
static int collect(struct proc *p, const char *until, int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (until && memmem(p->buf, p->len, until, strlen(until))) return 1;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0) return 0;
        struct pollfd pf = { p->out, POLLIN, 0 };
        if (poll(&pf, 1, (int)left) <= 0) continue;
        ssize_t n = read(p->out, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
        if (n <= 0) return until == NULL;
        p->len += (size_t)n;
        p->buf[p->len] = 0;
    }
}

static void show(const struct proc *p, const char *who)
{
    const char *s = p->buf;
    while (*s) {
        const char *e = strchr(s, '\n');
        int n = e ? (int)(e - s) : (int)strlen(s);
        printf("    %s| %.*s\n", who, n, s);
        s += n + (e != NULL);
    }
}

/* finish: close its stdin, wait for EOF and its exit (bounded); returns its wait
 * status, or -1 if it hung (then it is killed) */
static int finish(struct proc *p, int ms)
{
    close(p->in);
    int ok = collect(p, NULL, ms);
    int st = 0;
    if (!ok) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
    }
    waitpid(p->pid, &st, 0);
    close(p->out);
    return ok ? st : -1;
}

static const char *describe(int st, char *b, size_t n)
{
    if (st == -1) snprintf(b, n, "HANG (no exit within %d s, killed)", VICTIM_TIMEOUT_MS / 1000);
    else if (WIFEXITED(st)) snprintf(b, n, "exit code %d", WEXITSTATUS(st));
    else snprintf(b, n, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    return b;
}

/* ---- the cases ------------------------------------------------------------------ */

static int control(int xdg)
{
    const char *env = xdg ? "XDG_RUNTIME_DIR set" : "XDG_RUNTIME_DIR unset";
    cleanup();
    struct proc v, in;
    char b[96];
    REQUIRE(spawn(&v, VICTIM, "victim-control", NULL, xdg) == 0);
    int ready = collect(&v, "READY\n", VICTIM_TIMEOUT_MS);
    char *pl = strstr(v.buf, "PATH=");
    if (ready && pl) {
        size_t n = strcspn(pl + 5, "\n");
        pathf(learned[xdg], "%.*s", (int)n, pl + 5);
    }
    int ist = -2;
    if (ready) {
        REQUIRE(spawn(&in, ATTACKER, "intruder", learned[xdg], 0) == 0);
        ist = finish(&in, VICTIM_TIMEOUT_MS);
        show(&in, "attacker");
    }
    int st = finish(&v, VICTIM_TIMEOUT_MS);
    show(&v, "victim");
    int ok = ready && st == 0 && ist == 0;
    printf("control (%s): namespace at %s; victim %s; intruder %s: %s\n", env,
           learned[xdg][0] ? learned[xdg] : "?", describe(st, b, sizeof(b)),
           ist == -2 ? "not run" : ist == 0 ? "kept out" : "GOT IN or failed", ok ? "ok" : "FAILED");
    /* the victim's own namespace, if it is still there */
    if (learned[xdg][0]) {
        int in_xdg;
        if (plant_base(learned[xdg], &in_xdg)) unlink(learned[xdg]);
    }
    return ok;
}

static int file_unchanged(const char *p, const char *data)
{
    char buf[256];
    struct stat st;
    int fd = open(p, O_RDONLY | O_NOFOLLOW);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    fstat(fd, &st);
    close(fd);
    if (n < 0) return 0;
    buf[n] = 0;
    return st.st_uid == ATTACKER && (st.st_mode & 0777) == 0666 && !strcmp(buf, data);
}

static int squatted(enum plant_kind k, int xdg)
{
    const char *env = xdg ? "XDG_RUNTIME_DIR set" : "XDG_RUNTIME_DIR unset";
    cleanup();
    char paths[MAX_PATHS][PLEN];
    int n = squat_paths(paths);
    int planted = 0;
    for (int i = 0; i < n; i++) {
        if (plant(paths[i], k) == 0) planted++;
        else fprintf(stderr, "could not plant %s at %s\n", kind_name[k], paths[i]);
    }
    struct proc v;
    char b[96];
    REQUIRE(spawn(&v, VICTIM, "victim-squatted", NULL, xdg) == 0);
    int st = finish(&v, VICTIM_TIMEOUT_MS);
    int target_ok = file_unchanged(target, TARGET_DATA);
    int ok = st == 0 && target_ok;
    printf("%s, %s (%d paths): victim %s%s: %s\n", kind_name[k], env, planted, describe(st, b, sizeof(b)),
           target_ok ? "" : "; the attacker's file was changed", ok ? "ok" : "FAILED");
    if (!ok) show(&v, "victim");
    return ok;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "victim-control")) return victim_main(1);
    if (argc > 1 && !strcmp(argv[1], "victim-squatted")) return victim_main(0);
    if (argc > 1 && !strcmp(argv[1], "intruder")) return intruder_main(argc > 2 ? argv[2] : NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (geteuid() != 0) {
        printf("SKIP: needs root (to play the victim and the attacker users)\n");
        return 77;   /* ctest SKIP_RETURN_CODE */
    }
    ssize_t l = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
    REQUIRE(l > 0);
    self_exe[l] = 0;
    snprintf(ns_name, sizeof(ns_name), "squat-%d", (int)getpid());
    snprintf(tmp_root, sizeof(tmp_root), "/tmp/nspa-squat-%d", (int)getpid());
    pathf(xdg_dir, "%s/xdg-%d", tmp_root, VICTIM);
    snprintf(target, sizeof(target), "/dev/shm/nspa-squat-target-%d", (int)getpid());
    REQUIRE(mkdir(tmp_root, 0755) == 0);
    REQUIRE(stage_exe() == 0);
    /* the attacker's own file, that its symlinks point to */
    pid_t p = fork();
    if (p == 0) {
        if (drop_to(ATTACKER)) _exit(2);
        umask(0);
        int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 || write(fd, TARGET_DATA, strlen(TARGET_DATA)) < 0) _exit(3);
        close(fd);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    REQUIRE(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* 1. controls: the victim works; the attacker stays out */
    CHECK(control(0));
    CHECK(control(1));
    /* 2. squatted */
    for (int k = 0; k < P_NKINDS; k++)
        for (int xdg = 0; xdg < 2; xdg++) CHECK(squatted((enum plant_kind)k, xdg));

    cleanup();
    rm_rf(tmp_root);
    unlink(target);
    return nspa_test_done();
}
