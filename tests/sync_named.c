/* Named objects across processes: fork and exec share a namespace; create on an
 * existing name opens it ("existed"); another type's name fails; the namespace file
 * is private to its user (0600); another namespace is another world; an object is
 * reclaimed when no handle refers to it, also when its last holder was killed. */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "sync_util.h"

static int child_exec(const char *self, const char *what)
{
    pid_t p = fork();
    if (p == 0) {
        execl(self, self, what, (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec-child")) {
        /* a fresh process image: open by name, signal, take */
        nspa_obj_t e, s;
        if (nspa_open(NSPA_TYPE_EVENT, "shared-event", &e)) return 10;
        if (nspa_open(NSPA_TYPE_SEM, "shared-sem", &s)) return 11;
        if (nspa_event_set(e, NULL)) return 12;
        if (wait_any_ms(&s, 1, 1, 2000, 0, NULL)) return 13;
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "hold-and-die")) {
        nspa_obj_t e;
        struct nspa_event_args a = { 1, 1 };
        if (nspa_create_event(&a, "orphan", &e) != 0) return 20;
        raise(SIGKILL);
        return 21;
    }
    struct nspa_event_args ea = { 0, 0 };
    struct nspa_sem_args sa = { 0, 10 };
    nspa_obj_t e, s, e2, x;
    CHECK_EQ(nspa_create_event(&ea, "shared-event", &e), 0);
    CHECK_EQ(nspa_create_sem(&sa, "shared-sem", &s), 0);
    /* create again: opens, reports existed, state untouched */
    ea.signaled = 1;
    CHECK_EQ(nspa_create_event(&ea, "shared-event", &e2), NSPA_EXISTED);
    CHECK_EQ(event_signaled(e2), 0);
    CHECK(e2 != e);
    /* another type under that name */
    CHECK_EQ(nspa_create_sem(&sa, "shared-event", &x), -EEXIST);
    CHECK_EQ(nspa_open(NSPA_TYPE_MUTEX, "shared-event", &x), -EEXIST);
    CHECK_EQ(nspa_open(NSPA_TYPE_NONE, "shared-event", &x), 0);
    CHECK_EQ(nspa_obj_type(x), NSPA_TYPE_EVENT);
    nspa_close(x);
    /* names are case-sensitive, as Win32 object names */
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "Shared-Event", &x), -ENOENT);

    /* the namespace file: ours alone */
    struct stat st;
    const char *path = nspa_namespace_path();
    REQUIRE(path && stat(path, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_EQ(st.st_uid, getuid());

    /* fork: the child opens by name, signals the parent, takes the semaphore */
    pid_t p = fork();
    if (p == 0) {
        nspa_obj_t ce, cs;
        if (nspa_open(NSPA_TYPE_EVENT, "shared-event", &ce)) _exit(1);
        if (nspa_open(NSPA_TYPE_SEM, "shared-sem", &cs)) _exit(2);
        if (nspa_event_set(ce, NULL)) _exit(3);
        if (wait_any_ms(&cs, 1, 1, 2000, 0, NULL)) _exit(4);
        _exit(0);
    }
    CHECK_EQ(wait_any_ms(&e, 1, 1, 2000, 0, NULL), 0);
    uint32_t n = 1;
    nspa_sem_release(s, &n);
    int status;
    waitpid(p, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(sem_count(s), 0);

    /* exec: the same, from a new image */
    n = 1;
    nspa_sem_release(s, &n);
    CHECK_EQ(child_exec(argv[0], "exec-child"), 0);
    CHECK_EQ(wait_any_ms(&e, 1, 1, 0, 0, NULL), 0);
    CHECK_EQ(sem_count(s), 0);

    /* reclaimed when the last handle goes */
    nspa_close(e);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "shared-event", &x), 0);   /* e2 still open */
    nspa_close(x);
    nspa_close(e2);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "shared-event", &x), -ENOENT);
    ea.signaled = 0;
    CHECK_EQ(nspa_create_event(&ea, "shared-event", &e), 0);       /* new, not existed */
    CHECK_EQ(event_signaled(e), 0);

    /* a holder killed by SIGKILL: its handles are released, the object reclaimed */
    CHECK_EQ(child_exec(argv[0], "hold-and-die"), 128 + SIGKILL);
    CHECK_EQ(nspa_open(NSPA_TYPE_EVENT, "orphan", &x), -ENOENT);

    /* another namespace (NSPA_NAMESPACE in a child) does not see these names */
    p = fork();
    if (p == 0) {
        /* a forked child shares the parent's attachment; use exec with another env */
        char ns[64];
        snprintf(ns, sizeof(ns), "NSPA_NAMESPACE=other-%d", (int)getpid());
        char *envp[] = { ns, NULL };
        execle(argv[0], argv[0], "exec-child", (char *)NULL, envp);
        _exit(127);
    }
    waitpid(p, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10);   /* open failed: ENOENT */
    return nspa_test_done();
}
