/*
 * Processes of a namespace: attaching, fork, exit, and sweeping the dead.
 *
 * A process attaches on its first NSPA call that needs the region (named objects, its
 * thread records). If the region cannot be had (refused path, no memory), the process
 * works on without it: unnamed objects live in the process arena, thread records too,
 * and named calls fail with the reason (ns_error(); Win32 ERROR_ACCESS_DENIED for a
 * refused path). Nothing here aborts.
 *
 * Each process has a slot (pid, start time: pid reuse is caught) and a ledger: for every
 * handle it holds to a named object, the object's index at the handle's index. A dead
 * process's ledger is how its references are given back (ns_sweep_dead).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "sync/internal.h"

struct ns *nspa_ns;
static int ns_err;                     /* why there is no region */
static int ns_tried;
static int ns_ready;                   /* nspa_ns is attached (it is set earlier, while
                                        * attaching, for the refs of the sweep) */
static pthread_mutex_t attach_lock = PTHREAD_MUTEX_INITIALIZER;
static char ns_name[65];
static struct ns ns_store;

static int valid_ns_name(const char *n)
{
    size_t len = strlen(n);
    if (len < 1 || len > 64 || n[0] == '.') return 0;
    for (size_t i = 0; i < len; i++) {
        char c = n[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

NSPA_EXPORT int nspa_set_namespace(const char *name)
{
    if (!name || !valid_ns_name(name)) return -EINVAL;
    pthread_mutex_lock(&attach_lock);
    int ret = 0;
    if (ns_tried) ret = -EBUSY;
    else snprintf(ns_name, sizeof(ns_name), "%s", name);
    pthread_mutex_unlock(&attach_lock);
    return ret;
}

/* Is the process of slot @p dead? A registered thread of it that is alive says no at
 * the cost of a load (the kernel marks a dead thread's liveness word at once, and a
 * reused pid cannot fool it); else kill(pid, 0) and the start time (pid reuse). */
static int proc_is_dead(struct ns *ns, struct ns_proc *p)
{
    if (!p->pid) return 0;
    if (p->any_thread && p->any_thread <= MAX_THREADS) {
        struct thr *t = &ns->threads[p->any_thread - 1];
        uint32_t v = atomic_load(nspa_robust_word(&t->alive));
        if (t->tid && &ns->procs[t->proc] == p && (v & FUTEX_TID_MASK) && !thr_is_dead_word(v)) return 0;
    }
    if (kill((pid_t)p->pid, 0) < 0 && errno == ESRCH) return 1;
    /* the pid lives: is it still that process? (pid reuse) The start time is read at
     * most once a second per slot: a sweep of thousands of processes stays cheap */
    uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000ull;
    if (now - __atomic_load_n(&p->verified_ms, __ATOMIC_RELAXED) < 1000) return 0;
    uint64_t st = nspa_task_start_time((int)p->pid, 0);
    if (st && st != p->start_time) return 1;
    __atomic_store_n((uint64_t *)&p->verified_ms, now, __ATOMIC_RELAXED);
    return 0;
}

/* Is the process that had slot @slot with pid @pid gone (slot released, reused, or its
 * process dead)? */
NSPA_HIDDEN int proc_gone(struct ns *ns, uint32_t slot, uint32_t pid)
{
    if (slot >= MAX_PROCS) return 1;
    struct ns_proc *p = &ns->procs[slot];
    if (__atomic_load_n(&p->pid, __ATOMIC_ACQUIRE) != pid) return 1;
    /* an exited process its parent has not reaped yet is dead for us, though
     * proc_is_dead (kill(pid, 0)) cannot tell */
    return proc_is_dead(ns, p) || nspa_task_exited((int)pid);
}

/* ---- slots ------------------------------------------------------------------------ */

NSPA_HIDDEN uint32_t proc_take(struct ns *ns)
{
    return REGION_TAKE(ns, proc_free, proc_hwm, MAX_PROCS, ns->procs, next_free);
}

/* Slot @p is this process's from now on (its ledger left as it is). */
static void proc_own(struct ns *ns, struct ns_proc *p)
{
    jset32(ns, &p->pid, (uint32_t)getpid());
    jset64(ns, &p->start_time, nspa_task_start_time(getpid(), 0));
    jset64(ns, &p->family, arena_family());
    jset32(ns, &p->next_free, 0);
    jset32(ns, &p->nthreads, 0);
    jset32(ns, &p->any_thread, 0);
    jset32(ns, &p->handoff, 0);
}

static void proc_claim(struct ns *ns, uint32_t slot)
{
    struct ns_proc *p = &ns->procs[slot];
    proc_own(ns, p);
    for (uint32_t c = 0; c < LEDGER_DIR; c++) jset32(ns, &p->ledger[c], 0);
}

/* The slot of the attached process @pid, or UINT32_MAX. Registry lock held. */
NSPA_HIDDEN uint32_t proc_slot_of_pid(struct ns *ns, uint32_t pid)
{
    for (uint32_t i = 0; i < ns->hdr->proc_hwm; i++)
        if (ns->procs[i].pid == pid && !ns->procs[i].handoff) return i;
    return UINT32_MAX;
}

/* The slot a parent prepared for its child @pid that has not attached yet (handoff,
 * committed: the child's pid in it), or UINT32_MAX. Registry lock held. */
NSPA_HIDDEN uint32_t proc_handoff_of_pid(struct ns *ns, uint32_t pid)
{
    for (uint32_t i = 0; i < ns->hdr->proc_hwm; i++)
        if (ns->procs[i].pid == pid && ns->procs[i].handoff && pid != (uint32_t)getpid()) return i;
    return UINT32_MAX;
}

/* A child with inherited handles (NSPA_INHERIT=<slot>:<parent pid>, inherit.c): the
 * slot its parent prepared, with the handles in its ledger, becomes its own. Registry
 * lock held. UINT32_MAX: none (no such variable, or not for us: the parent died, the
 * slot was swept). */
static uint32_t proc_adopt(struct ns *ns)
{
    const char *e = getenv("NSPA_INHERIT");
    if (!e) return UINT32_MAX;
    char *end;
    unsigned long slot = strtoul(e, &end, 10), ppid = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
    unsetenv("NSPA_INHERIT");                      /* not for our own children */
    if (slot >= ns->hdr->proc_hwm || !ppid || ppid != (unsigned long)getppid()) return UINT32_MAX;
    struct ns_proc *p = &ns->procs[slot];
    if (!p->handoff || (p->pid != ppid && p->pid != (uint32_t)getpid())) return UINT32_MAX;
    proc_own(ns, p);                               /* with the inherited handles */
    return (uint32_t)slot;
}

/* Give back every reference in process @slot's ledger, then the slot. Registry lock
 * held; commits every 1024 handles (each prefix is consistent). */
NSPA_HIDDEN void proc_release(struct ns *ns, uint32_t slot)
{
    struct ns_proc *p = &ns->procs[slot];
    for (uint32_t c = 0; c < LEDGER_DIR; c++) {
        if (!p->ledger[c]) continue;
        uint32_t *chunk = ns->chunks + (size_t)(p->ledger[c] - 1) * LEDGER_CHUNK;
        for (uint32_t k = 0; k < LEDGER_CHUNK; k++) {
            uint32_t v = chunk[k];
            if (!v) continue;
            jset32(ns, &chunk[k], 0);
            if (v <= MAX_OBJECTS) obj_unref(&ns->objs[v - 1]);   /* else a gift's mark (gift.c) */
            if ((k & 1023) == 1023) { reg_unlock(ns); reg_lock(ns); }
        }
        region_give(ns, &ns->hdr->chunk_free, ns->chunks, LEDGER_CHUNK * sizeof(uint32_t), 0, p->ledger[c] - 1);
        jset32(ns, &p->ledger[c], 0);
    }
    jset32(ns, &p->pid, 0);
    REGION_GIVE(ns, proc_free, ns->procs, next_free, slot);
}

/* Reclaim dead processes: their threads, their references. Registry lock held. */
NSPA_HIDDEN void ns_sweep_dead(struct ns *ns)
{
    for (uint32_t i = 0; i < ns->hdr->proc_hwm; i++) {
        struct ns_proc *p = &ns->procs[i];
        if (!p->pid || i == ns->proc) continue;
        if (p->handoff) {
            /* prepared for a child (its pid, or ours until the spawn returns) */
            if (!proc_is_dead(ns, p)) continue;
        } else if (p->pid != (uint32_t)getpid() && !proc_is_dead(ns, p)) {
            /* (a slot with our own pid that is not ours: left by our image before an exec) */
            continue;
        }
        int busy = 0;
        for (uint32_t s = 0; s < ns->hdr->thr_hwm && p->nthreads; s++) {
            struct thr *t = &ns->threads[s];
            if (!t->tid || t->proc != i) continue;
            int r = thr_reclaimable(ns, t) ? pthread_mutex_trylock(&t->alive) : EBUSY;
            if (r == EBUSY) {
                /* the kernel has not run its robust list yet, or the record is its fork
                 * family's to reclaim: next sweep */
                busy = 1;
                continue;
            }
            thr_release(ns, t);
            if (r == EOWNERDEAD) pthread_mutex_consistent(&t->alive);
            pthread_mutex_unlock(&t->alive);
            nspa_futex_wake_n(nspa_robust_word(&t->alive), INT32_MAX, 1);
        }
        if (!busy) {
            gift_forget(ns, p);                /* its mailbox's socket file */
            fdmap_forget(ns, p);               /* its fd map */
            proc_release(ns, i);
        }
    }
}

/* ---- attach ----------------------------------------------------------------------- */

static void at_exit(void);
static void fork_prepare(void);
static void fork_child(void);

static int attach_locked(void)
{
    if (!ns_name[0]) {
        const char *env = getenv("NSPA_NAMESPACE");
        snprintf(ns_name, sizeof(ns_name), "%s", env && valid_ns_name(env) ? env : "default");
    }
    struct ns *ns = &ns_store;
    for (int tries = 0; tries < 8; tries++) {
        memset(ns, 0, sizeof(*ns));
        ns->proc = UINT32_MAX;
        int r = region_open(ns, ns_name);
        if (r < 0) return r;
        __atomic_store_n(&nspa_ns, ns, __ATOMIC_RELEASE);   /* refs decode from here on */
        reg_lock(ns);
        if (!ns->hdr->dead) break;
        /* the last user unlinked it as we opened it: open (create) anew */
        reg_unlock(ns);
        __atomic_store_n(&nspa_ns, NULL, __ATOMIC_RELEASE);
        munmap(ns->base, ns->size);
        ns->base = NULL;
    }
    if (!ns->base) return -EAGAIN;
    uint32_t slot = proc_adopt(ns);
    if (slot != UINT32_MAX) {
        ns->proc = slot;
        h_revoke_attach(ns);
        h_adopt_ledger(ns);                /* the inherited handles, same values */
        reg_unlock(ns);
        gift_open(ns);
        ask_start(ns);
        fdmap_fill();
        return 0;
    }
    /* sweep only when the table is full: a sweep looks at every process */
    slot = proc_take(ns);
    if (slot == UINT32_MAX) {
        ns_sweep_dead(ns);
        slot = proc_take(ns);
    }
    if (slot == UINT32_MAX) {
        reg_unlock(ns);
        __atomic_store_n(&nspa_ns, NULL, __ATOMIC_RELEASE);
        munmap(ns->base, ns->size);
        return -EMFILE;
    }
    proc_claim(ns, slot);
    ns->proc = slot;
    h_revoke_attach(ns);
    reg_unlock(ns);
    gift_open(ns);
    ask_start(ns);
    fdmap_fill();
    return 0;
}

int nspa_fork_pending;                    /* a fork child that has not called us yet */

NSPA_HIDDEN struct ns *ns_get(void)
{
    if (__builtin_expect(__atomic_load_n(&nspa_fork_pending, __ATOMIC_ACQUIRE), 0)) procs_fork_fixup();
    if (__builtin_expect(__atomic_load_n(&ns_ready, __ATOMIC_ACQUIRE), 1))
        return __atomic_load_n(&nspa_ns, __ATOMIC_ACQUIRE);
    pthread_mutex_lock(&attach_lock);
    if (!ns_tried) {
        static int hooks;
        if (!hooks) {
            hooks = 1;
            pthread_atfork(fork_prepare, NULL, fork_child);
            atexit(at_exit);
        }
        int r = attach_locked();
        ns_err = r;
        __atomic_store_n(&ns_tried, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&ns_ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&attach_lock);
    return nspa_ns;
}

/* A child with inherited handles attaches before main: no handle of its own can take
 * an inherited handle's value first. */
__attribute__((constructor)) static void inherit_attach(void)
{
    if (!getenv("NSPA_INHERIT")) return;
    /* files given before we ran (if the I/O module is up: else its constructor does
     * it), out of the attach lock: their records are objects of ours */
    struct ns *ns = ns_get();
    if (ns) gift_fetch_parked(ns);
}

NSPA_HIDDEN int ns_error(void) { return ns_err ? ns_err : -EACCES; }

NSPA_EXPORT const char *nspa_namespace_path(void)
{
    struct ns *ns = ns_get();
    return ns ? ns->path : NULL;
}

/* ---- fork ------------------------------------------------------------------------- */

/* Before fork: this family's waits sleep on shared futexes from now on (the child will
 * reach the process arena), and threads sleeping on private ones are made to look
 * again. */
static void fork_prepare(void)
{
    if (!arena_has_forked()) {
        arena_mark_forked();
        thr_rearm_sleepers();
    }
}

/* The child: a process of its own. Its threads register anew, and its handles (a copy
 * of the parent's table) get their references on its first NSPA call (h_fork_refs). */
static void fork_child(void)
{
    pthread_mutex_init(&attach_lock, NULL);
    arena_after_fork_child();
    thr_after_fork_child();
    h_after_fork_child();
    gift_after_fork_child();
    ask_after_fork_child();
    fdmap_after_fork_child();
    reaper_after_fork();
    if (nspa_ns) {
        __atomic_store_n(&nspa_fork_pending, 1, __ATOMIC_RELEASE);
        nspa_ns->proc = UINT32_MAX;
        h_revoke_attach(nspa_ns);
    }
}

/* The child's first call: a process slot, then the handles' references. If the
 * namespace has no free process slot, the region is dropped: unnamed objects go on. */
NSPA_HIDDEN void procs_fork_fixup(void)
{
    pthread_mutex_lock(&attach_lock);
    if (__atomic_load_n(&nspa_fork_pending, __ATOMIC_ACQUIRE)) {
        struct ns *ns = nspa_ns;
        if (ns) {
            reg_lock(ns);
            uint32_t slot = proc_take(ns);
            if (slot == UINT32_MAX) {
                ns_sweep_dead(ns);
                slot = proc_take(ns);
            }
            if (slot != UINT32_MAX) {
                proc_claim(ns, slot);
                ns->proc = slot;
                h_revoke_attach(ns);
            }
            reg_unlock(ns);
            if (slot != UINT32_MAX) {
                gift_open(ns);
                ask_start(ns);
            }
            if (slot == UINT32_MAX) {
                ns_err = -EMFILE;
                __atomic_store_n(&nspa_ns, NULL, __ATOMIC_RELEASE);
            }
        }
        h_fork_refs();
        __atomic_store_n(&nspa_fork_pending, 0, __ATOMIC_RELEASE);
        fdmap_fill();
    }
    pthread_mutex_unlock(&attach_lock);
}

NSPA_HIDDEN int procs_fork_pending(void) { return __atomic_load_n(&nspa_fork_pending, __ATOMIC_RELAXED); }

/* ---- exit ------------------------------------------------------------------------- */

/* Process exit: the exiting thread's mutexes are abandoned (other threads' when the
 * kernel marks their liveness mutexes), handles closed; the last process of an empty
 * namespace removes its file. */
static void at_exit(void)
{
    if (procs_fork_pending()) return;          /* a child that never called us */
    nspa__thread_unregister();
    h_close_all();
    gift_close();
    ask_close();
    fdmap_close();
    struct ns *ns = nspa_ns;
    if (!ns || ns->proc == UINT32_MAX) return;
    reg_lock(ns);
    struct ns_proc *p = &ns->procs[ns->proc];
    int last = 0;
    if (!p->nthreads) {
        proc_release(ns, ns->proc);
        h_revoke_attach(NULL);         /* the slot may be another process's from now on */
        last = ns->hdr->nobjs == 0;
        for (uint32_t i = 0; i < ns->hdr->proc_hwm && last; i++)
            if (ns->procs[i].pid && !proc_is_dead(ns, &ns->procs[i])) last = 0;
    }
    if (last) {
        /* the mailboxes of processes that died without their exit work (killed), whose
         * slots no sweep reached */
        for (uint32_t i = 0; i < ns->hdr->proc_hwm; i++)
            if (ns->procs[i].pid) {
                gift_forget(ns, &ns->procs[i]);
                fdmap_forget(ns, &ns->procs[i]);
            }
        jset32(ns, &ns->hdr->dead, 1);
        unlink(ns->path);
    }
    reg_unlock(ns);
}
