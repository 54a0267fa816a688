/*
 * CreateProcessA/W (docs/process.md).
 *
 * The program: lpApplicationName as given (no search), else the first token of the
 * command line (quoted, or for an unquoted line with blanks the shortest prefix that
 * names a program, as Windows tries "C:\Program Files\..." piece by piece), searched in
 * Windows' order: the directory of the calling program, the current directory, then
 * PATH. ".exe" is optional both ways: "child.exe" finds "child", and "child" finds
 * "child.exe". Backslashes in the program's path are separators.
 *
 * The child: posix_spawn (glibc: clone(CLONE_VM | CLONE_VFORK), no atfork handlers run,
 * no page tables copied; exec errors come back as the call's result), then pidfd_open:
 * the child cannot be reaped before that (the watcher, process.c, reaps it). Its argv is
 * the command line split by the Windows rules; its command line itself travels in
 * NSPA_CMDLINE so that GetCommandLine in an NSPA child answers exactly. Signal mask and
 * dispositions are reset, and a real-time caller's child starts SCHED_OTHER (no
 * priority, no PI boost, no RT promotion is inherited by accident; RT mode passes through
 * NSPA_RT_PRIO in the environment, which the child's NSPA runtime reads).
 *
 * Files, sockets and pipes (inherited ones, and STARTUPINFO's standard handles with
 * STARTF_USESTDHANDLES) reach the child as descriptors that src/io/inherit.c prepares:
 * dup2s in the child before the exec, and environment entries its runtime reads.
 *
 * CREATE_SUSPENDED: the child is a plain clone3(CLONE_PIDFD) copy that stops itself
 * (SIGSTOP) before it execs; ResumeThread on its thread handle sends SIGCONT. The
 * program has not run any of its code until then, NSPA program or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa/rt.h"
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"
#include "win32/process_private.h"
#include "io/io_api.h"

extern char **environ;

#define CMDLINE_MAX 32767               /* UNICODE_STRING: 32767 units with the NUL */

/* ---- finding the program ------------------------------------------------------------ */

/* 0: @path is an executable regular file; else the Win32 error it would give (stat's
 * -EACCES: ERROR_ACCESS_DENIED; the search, try_name, counts every other one as absent) */
static DWORD check_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) return win32_error_from_errno(-errno, WIN32_ERR_PROCESS);
    if (!S_ISREG(st.st_mode)) return ERROR_ACCESS_DENIED;       /* a directory: as NT */
    if (access(path, X_OK) < 0) return ERROR_ACCESS_DENIED;
    return 0;
}

/* Try @name in @dir (NULL: as it is), with and without ".exe". 0 and @out filled, or the
 * most telling error (a file that exists but cannot run beats one that does not exist):
 * the search's rule over the candidates' errors, not an error mapping. */
static DWORD try_name(const char *dir, const char *name, char *out, size_t cap)
{
    char base[PATH_MAX];
    size_t n = strlen(name);
    if (dir) {
        if ((size_t)snprintf(base, sizeof(base), "%s/%s", dir, name) >= sizeof(base)) return ERROR_FILENAME_EXCED_RANGE;
    } else {
        if (n >= sizeof(base)) return ERROR_FILENAME_EXCED_RANGE;
        memcpy(base, name, n + 1);
    }
    size_t bl = strlen(base);
    char alt[PATH_MAX];
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash : name, '.');
    alt[0] = 0;
    if (bl > 4 && strcasecmp(base + bl - 4, ".exe") == 0) {
        memcpy(alt, base, bl - 4);                                /* "child.exe" -> "child" */
        alt[bl - 4] = 0;
    } else if (!dot && bl + 5 <= sizeof(alt)) {
        memcpy(alt, base, bl);                                    /* "child" -> "child.exe" */
        memcpy(alt + bl, ".exe", 5);
    }
    DWORD e1 = check_file(base);
    if (!e1) return snprintf(out, cap, "%s", base) >= (int)cap ? ERROR_FILENAME_EXCED_RANGE : 0;
    DWORD e2 = alt[0] ? check_file(alt) : ERROR_FILE_NOT_FOUND;
    if (!e2) return snprintf(out, cap, "%s", alt) >= (int)cap ? ERROR_FILENAME_EXCED_RANGE : 0;
    return e1 == ERROR_ACCESS_DENIED || e2 == ERROR_ACCESS_DENIED ? ERROR_ACCESS_DENIED : ERROR_FILE_NOT_FOUND;
}

/* The search of a name without a directory: the program's directory, the current
 * directory, PATH. */
static DWORD search(const char *name, int use_path, char *out, size_t cap)
{
    char tmp[PATH_MAX];
    for (size_t i = 0; name[i] && i < sizeof(tmp) - 1; i++) tmp[i] = name[i] == '\\' ? '/' : name[i], tmp[i + 1] = 0;
    if (!*name) return ERROR_FILE_NOT_FOUND;
    if (strlen(name) >= sizeof(tmp) - 1) return ERROR_FILENAME_EXCED_RANGE;
    if (strchr(tmp, '/') || !use_path) return try_name(NULL, tmp, out, cap);
    DWORD best = ERROR_FILE_NOT_FOUND, e;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = 0;
        char *s = strrchr(self, '/');
        if (s) *s = 0;
        if (!(e = try_name(self, tmp, out, cap))) return 0;
        if (e == ERROR_ACCESS_DENIED) best = e;
    }
    if (!(e = try_name(".", tmp, out, cap))) return 0;
    if (e == ERROR_ACCESS_DENIED) best = e;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t l = c ? (size_t)(c - path) : strlen(path);
        char dir[PATH_MAX];
        if (l && l < sizeof(dir)) {
            memcpy(dir, path, l);
            dir[l] = 0;
            if (!(e = try_name(dir, tmp, out, cap))) return 0;
            if (e == ERROR_ACCESS_DENIED) best = e;
        }
        path += l + (c ? 1 : 0);
    }
    return best;
}

/* The program of a command line without lpApplicationName (see the top). */
static DWORD program_of_cmdline(const char *cmd, char *out, size_t cap)
{
    while (*cmd == ' ' || *cmd == '\t') cmd++;
    char tok[PATH_MAX];
    if (*cmd == '"') {
        const char *e = strchr(cmd + 1, '"');
        size_t l = e ? (size_t)(e - cmd - 1) : strlen(cmd + 1);
        if (l >= sizeof(tok)) return ERROR_FILENAME_EXCED_RANGE;
        memcpy(tok, cmd + 1, l);
        tok[l] = 0;
        return search(tok, 1, out, cap);
    }
    DWORD first = 0;
    for (const char *p = cmd;; p++) {
        if (*p && *p != ' ' && *p != '\t') continue;
        size_t l = (size_t)(p - cmd);
        if (l >= sizeof(tok)) return first ? first : ERROR_FILENAME_EXCED_RANGE;
        memcpy(tok, cmd, l);
        tok[l] = 0;
        DWORD e = search(tok, 1, out, cap);
        if (!e) return 0;
        if (!first) first = e;                    /* the first token's error is reported */
        if (!*p) return first;
    }
}

/* ---- the environment ---------------------------------------------------------------- */

struct strv { char **v; size_t n, cap; };

static int strv_add(struct strv *s, char *str)
{
    if (!str) return -1;
    if (s->n + 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        char **nv = realloc(s->v, nc * sizeof(char *));
        if (!nv) { free(str); return -1; }
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
    return 0;
}

static void strv_free(struct strv *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->v[i]);
    free(s->v);
}

static int strv_has(const struct strv *s, const char *name)
{
    size_t l = strlen(name);
    for (size_t i = 0; i < s->n; i++)
        if (strncmp(s->v[i], name, l) == 0 && s->v[i][l] == '=') return 1;
    return 0;
}

static char *kv(const char *k, const char *v)
{
    size_t a = strlen(k), b = strlen(v);
    char *s = malloc(a + b + 2);
    if (!s) return NULL;
    memcpy(s, k, a);
    s[a] = '=';
    memcpy(s + a + 1, v, b + 1);
    return s;
}

/* what an NSPA child needs to be in the same namespace and mode as its parent */
static const char *const pass_down[] = { "NSPA_NAMESPACE", "XDG_RUNTIME_DIR", "NSPA_RT_PRIO", "NSPA_RT_POLICY",
                                         "NSPA_PI", NULL };

static int build_env(struct strv *env, const void *block, int unicode, const char *cmdline)
{
    if (!block) {
        for (char **e = environ; e && *e; e++)
            if (strncmp(*e, "NSPA_CMDLINE=", 13) && strv_add(env, strdup(*e))) return -1;
    } else if (unicode) {
        for (const WCHAR *p = block; *p; p += nspa__wlen(p) + 1)
            if (strv_add(env, nspa__w_to_utf8(p))) return -1;
    } else {
        for (const char *p = block; *p; p += strlen(p) + 1)
            if (strv_add(env, strdup(p))) return -1;
    }
    for (int i = 0; pass_down[i]; i++) {
        const char *v = getenv(pass_down[i]);
        if (v && !strv_has(env, pass_down[i]) && strv_add(env, kv(pass_down[i], v))) return -1;
    }
    for (size_t i = 0; i < env->n; i++) {             /* never a stale one of ours */
        if (strncmp(env->v[i], "NSPA_INHERIT=", 13) && strncmp(env->v[i], "NSPA_IOINHERIT=", 15) &&
            strncmp(env->v[i], "NSPA_STDH=", 10))
            continue;
        free(env->v[i]);
        env->v[i] = env->v[--env->n];
        env->v[env->n] = NULL;
        i--;
    }
    return strv_add(env, kv("NSPA_CMDLINE", cmdline));
}

/* ---- the spawn ---------------------------------------------------------------------- */

struct spawn_req {
    const char *path, *cwd;
    char **argv, **envp;
    int new_group, suspended, reset_sched;
    const struct io_spawn *io;          /* descriptors for the child (src/io/inherit.c) */
};

static int spawn_plain(const struct spawn_req *q, pid_t *pid)
{
    posix_spawnattr_t at;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_init(&at);
    posix_spawn_file_actions_init(&fa);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    if (q->new_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&at, 0);
    }
    if (q->reset_sched) {
        struct sched_param sp = { .sched_priority = 0 };
        flags |= POSIX_SPAWN_SETSCHEDULER;
        posix_spawnattr_setschedpolicy(&at, SCHED_OTHER);
        posix_spawnattr_setschedparam(&at, &sp);
    }
    posix_spawnattr_setflags(&at, flags);
    if (q->cwd) posix_spawn_file_actions_addchdir_np(&fa, q->cwd);
    /* inherited files and the standard handles: dup2 onto itself keeps a descriptor
     * across exec (glibc clears its close-on-exec flag), onto 0..2 sets a stream */
    for (uint32_t i = 0; i < q->io->n; i++)
        if (posix_spawn_file_actions_adddup2(&fa, q->io->fds[i].src, q->io->fds[i].dst)) {
            posix_spawn_file_actions_destroy(&fa);
            posix_spawnattr_destroy(&at);
            return -ENOMEM;
        }
    int r = posix_spawn(pid, q->path, &fa, &at, q->argv, q->envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return -r;
}

/* CREATE_SUSPENDED: a copy of us (clone3, no atfork handlers) stops itself, then execs.
 * Between the clone and the exec the child calls async-signal-safe functions only. */
static int spawn_suspended(const struct spawn_req *q, pid_t *pid, int *pidfd)
{
    int fd = -1;
    struct clone_args ca;
    memset(&ca, 0, sizeof(ca));
    ca.flags = CLONE_PIDFD;
    ca.pidfd = (uint64_t)(uintptr_t)&fd;
    ca.exit_signal = SIGCHLD;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);       /* no handler runs in the copy */
    long p = syscall(SYS_clone3, &ca, sizeof(ca));
    if (p == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
        if (q->reset_sched) {
            struct sched_param sp = { .sched_priority = 0 };
            sched_setscheduler(0, SCHED_OTHER, &sp);
        }
        if (q->new_group) setpgid(0, 0);
        for (uint32_t i = 0; i < q->io->n; i++) {
            int src = q->io->fds[i].src, dst = q->io->fds[i].dst;
            if (src == dst ? fcntl(src, F_SETFD, 0) < 0 : dup2(src, dst) < 0) _exit(127);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        kill(getpid(), SIGSTOP);                     /* until ResumeThread */
        if (q->cwd && chdir(q->cwd) < 0) _exit(127);
        execve(q->path, q->argv, q->envp);
        _exit(127);
    }
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (p < 0) return -e;
    /* stopped, before CreateProcess returns: a ResumeThread cannot come too early */
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    while (waitid(P_PIDFD, (id_t)fd, &si, WSTOPPED | WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    *pid = (pid_t)p;
    *pidfd = fd;
    return 0;
}

/* ---- CreateProcess ------------------------------------------------------------------ */

#define KNOWN_FLAGS (CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP | CREATE_UNICODE_ENVIRONMENT | DETACHED_PROCESS | \
                     CREATE_NEW_CONSOLE | CREATE_NO_WINDOW | CREATE_DEFAULT_ERROR_MODE | NORMAL_PRIORITY_CLASS | \
                     IDLE_PRIORITY_CLASS | HIGH_PRIORITY_CLASS | REALTIME_PRIORITY_CLASS | \
                     BELOW_NORMAL_PRIORITY_CLASS | ABOVE_NORMAL_PRIORITY_CLASS)

/* Both CreateProcess calls, in UTF-8. @stdh: the three standard handles or NULL. */
static BOOL create_process(const char *app, const char *cmd, BOOL inherit, DWORD flags, const void *env,
                           const char *cwd, const HANDLE *stdh, LPPROCESS_INFORMATION pi)
{
    if (!pi || (!app && !cmd)) {
        SetLastError(!pi ? ERROR_NOACCESS : ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    if (flags & ~(DWORD)KNOWN_FLAGS) {
        SetLastError(ERROR_INVALID_PARAMETER);       /* debugging, jobs: not supported */
        return FALSE;
    }
    char *owned_cmd = NULL;
    if (!cmd || !*cmd) {
        /* the command line is the application name, quoted when it has blanks */
        size_t l = strlen(app);
        owned_cmd = malloc(l + 3);
        if (!owned_cmd) {
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return FALSE;
        }
        snprintf(owned_cmd, l + 3, strpbrk(app, " \t") ? "\"%s\"" : "%s", app);
        cmd = owned_cmd;
    }
    BOOL ok = FALSE;
    struct strv envv = { 0 };
    struct io_spawn ios = { 0 };
    char **argv = NULL;
    char path[PATH_MAX];
    DWORD err = strlen(cmd) >= CMDLINE_MAX ? ERROR_FILENAME_EXCED_RANGE : 0;
    if (!err) err = app ? search(app, 0, path, sizeof(path)) : program_of_cmdline(cmd, path, sizeof(path));
    if (!err && cwd) {
        struct stat st;
        if (stat(cwd, &st) < 0 || !S_ISDIR(st.st_mode)) err = ERROR_DIRECTORY;
    }
    if (!err && !(argv = nspa__split_cmdline(cmd, NULL))) err = ERROR_NOT_ENOUGH_MEMORY;
    if (!err && build_env(&envv, env, (flags & CREATE_UNICODE_ENVIRONMENT) != 0, cmd)) err = ERROR_NOT_ENOUGH_MEMORY;
    if (err) goto out;
    /* files, sockets, pipes: their descriptors (src/io/inherit.c) */
    uint32_t std32[3];
    if (stdh)
        for (int i = 0; i < 3; i++) std32[i] = stdh[i] == INVALID_HANDLE_VALUE ? UINT32_MAX : (uint32_t)(uintptr_t)stdh[i];
    int ior = io_spawn_prepare(&ios, stdh ? std32 : NULL, inherit != 0);
    if (ior) {
        err = win32_error_from_errno(ior, WIN32_ERR_PROCESS);   /* -ENOMEM, -EMFILE */
        goto out;
    }
    if ((ios.env && strv_add(&envv, strdup(ios.env))) || (ios.stdenv && strv_add(&envv, strdup(ios.stdenv)))) {
        err = ERROR_NOT_ENOUGH_MEMORY;
        goto out;
    }
    /* inheritable handles go to the child through a slot of the namespace (inherit.c);
     * a suspended child gets one too, so that DuplicateHandle can give it handles
     * before it runs (they wait in the slot until it attaches) */
    uint32_t slot = UINT32_MAX;
    if ((inherit || (flags & CREATE_SUSPENDED)) && nspa__handoff_prepare(&slot, inherit != 0) == 0) {
        char v[48];
        snprintf(v, sizeof(v), "%u:%d", slot, (int)getpid());
        if (strv_add(&envv, kv("NSPA_INHERIT", v))) {
            nspa__handoff_cancel(slot);
            err = ERROR_NOT_ENOUGH_MEMORY;
            goto out;
        }
    }
    struct spawn_req q = {
        .path = path, .cwd = cwd, .argv = argv, .envp = envv.v,
        .new_group = (flags & CREATE_NEW_PROCESS_GROUP) != 0,
        .suspended = (flags & CREATE_SUSPENDED) != 0,
        .reset_sched = nspa_thread_is_rt() || sched_getscheduler(0) != SCHED_OTHER,
        .io = &ios,
    };
    pid_t pid = 0;
    int pidfd = -1;
    int r = q.suspended ? spawn_suspended(&q, &pid, &pidfd) : spawn_plain(&q, &pid);
    io_spawn_done(&ios);                   /* the child has its copies (or failed) */
    if (r) {
        if (slot != UINT32_MAX) nspa__handoff_cancel(slot);
        err = win32_error_from_errno(r, WIN32_ERR_PROCESS);
        goto out;
    }
    if (slot != UINT32_MAX) nspa__handoff_commit(slot, pid);
    if (pidfd < 0) {
        pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (pidfd >= 0) fcntl(pidfd, F_SETFD, FD_CLOEXEC);
    }
    nspa_obj_t ph = 0, th = 0;
    r = pidfd < 0 ? -errno : nspa__watch_process(pid, pidfd, 1, 1, slot, q.suspended, &ph, &th);
    if (r) {
        /* no handle can be given for it: it must not run unseen */
        kill(pid, SIGKILL);
        waitpid(pid, NULL, __WALL);
        if (slot != UINT32_MAX) nspa__handoff_reap(slot, pid);
        err = win32_error_from_errno(r, WIN32_ERR_OBJECT);
        goto out;
    }
    pi->hProcess = (HANDLE)(uintptr_t)ph;
    pi->hThread = (HANDLE)(uintptr_t)th;
    pi->dwProcessId = (DWORD)pid;
    pi->dwThreadId = (DWORD)pid;           /* a Linux process's main thread id is its pid */
    ok = TRUE;
out:
    io_spawn_done(&ios);
    if (argv) nspa__free_argv(argv);
    strv_free(&envv);
    free(owned_cmd);
    if (!ok) SetLastError(err);
    return ok;
}

NSPA_EXPORT BOOL WINAPI CreateProcessA(LPCSTR app, LPSTR cmdline, LPSECURITY_ATTRIBUTES psa,
                                       LPSECURITY_ATTRIBUTES tsa, BOOL inherit, DWORD flags, LPVOID env, LPCSTR cwd,
                                       LPSTARTUPINFOA si, LPPROCESS_INFORMATION pi)
{
    (void)psa;
    (void)tsa;
    HANDLE std3[3];
    const HANDLE *stdh = NULL;
    if (si && (si->dwFlags & STARTF_USESTDHANDLES)) {
        std3[0] = si->hStdInput, std3[1] = si->hStdOutput, std3[2] = si->hStdError;
        stdh = std3;
    }
    return create_process(app, cmdline, inherit, flags, env, cwd, stdh, pi);
}

NSPA_EXPORT BOOL WINAPI CreateProcessW(LPCWSTR app, LPWSTR cmdline, LPSECURITY_ATTRIBUTES psa,
                                       LPSECURITY_ATTRIBUTES tsa, BOOL inherit, DWORD flags, LPVOID env, LPCWSTR cwd,
                                       LPSTARTUPINFOW si, LPPROCESS_INFORMATION pi)
{
    (void)psa;
    (void)tsa;
    char *a = app ? nspa__w_to_utf8(app) : NULL;
    char *c = cmdline ? nspa__w_to_utf8(cmdline) : NULL;
    char *d = cwd ? nspa__w_to_utf8(cwd) : NULL;
    BOOL ok = FALSE;
    if ((app && !a) || (cmdline && !c) || (cwd && !d)) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    } else {
        HANDLE std3[3];
        const HANDLE *stdh = NULL;
        if (si && (si->dwFlags & STARTF_USESTDHANDLES)) {
            std3[0] = si->hStdInput, std3[1] = si->hStdOutput, std3[2] = si->hStdError;
            stdh = std3;
        }
        ok = create_process(a, c, inherit, flags, env, d, stdh, pi);
    }
    free(a);
    free(c);
    free(d);
    return ok;
}

/* With STARTF_USESTDHANDLES from the parent: the flag and the standard handles (the
 * values GetStdHandle answers with), as NT's process parameters keep them. */
NSPA_EXPORT void WINAPI GetStartupInfoA(LPSTARTUPINFOA si)
{
    if (!si) return;
    memset(si, 0, sizeof(*si));
    si->cb = sizeof(*si);
    if (io_startup_std()) {
        si->dwFlags = STARTF_USESTDHANDLES;
        si->hStdInput = GetStdHandle(STD_INPUT_HANDLE);
        si->hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
        si->hStdError = GetStdHandle(STD_ERROR_HANDLE);
    }
}

NSPA_EXPORT void WINAPI GetStartupInfoW(LPSTARTUPINFOW si)
{
    if (!si) return;
    STARTUPINFOA a;
    GetStartupInfoA(&a);
    memset(si, 0, sizeof(*si));
    si->cb = sizeof(*si);
    si->dwFlags = a.dwFlags;
    si->hStdInput = a.hStdInput;
    si->hStdOutput = a.hStdOutput;
    si->hStdError = a.hStdError;
}
