/* The sync core's interface to the other modules of the library (the Win32 layer):
 * hidden, declared once here. */
#ifndef NSPA_SYNC_API_H
#define NSPA_SYNC_API_H
#include <stdint.h>
#include <time.h>
#include "nspa/sync.h"
#include "common/export.h"

/* Win32 thread objects: a manual event set at the thread's end, with its id and exit
 * code */
NSPA_HIDDEN int nspa__create_thread_obj(nspa_obj_t *out);
NSPA_HIDDEN int nspa__thread_obj_signal(nspa_obj_t h, uint32_t exit_code);
NSPA_HIDDEN int nspa__thread_obj_info(nspa_obj_t h, uint32_t *tid, uint32_t *exit_code, int *signaled);
NSPA_HIDDEN int nspa__thread_obj_set_tid(nspa_obj_t h, uint32_t tid);
/* exit objects in general: NSPA_TYPE_THREAD or NSPA_TYPE_PROCESS (same shape: id, exit
 * code, signaled at the end) */
NSPA_HIDDEN int nspa__create_exit_obj(int type, uint32_t id, nspa_obj_t *out);
NSPA_HIDDEN int nspa__exit_obj_signal(nspa_obj_t h, int type, uint32_t exit_code);
NSPA_HIDDEN int nspa__exit_obj_set_id(nspa_obj_t h, int type, uint32_t id);
NSPA_HIDDEN int nspa__exit_obj_info(nspa_obj_t h, int type, uint32_t *id, uint32_t *exit_code, int *signaled);
/* nspa_create_sem/mutex/event (args of that type) with @shared: an unnamed object is
 * made in the namespace region, so that its handles can cross processes (Win32: an
 * inheritable handle at creation) */
NSPA_HIDDEN int nspa__create_obj(int type, const void *args, const char *name, int shared, nspa_obj_t *out);
/* handle inheritance across exec and handles of other processes (inherit.c) */
/* the parent, before the spawn: a slot for the child (@inherit: with the inheritable
 * handles; without, an empty one that DuplicateHandle can fill before the child runs) */
NSPA_HIDDEN int nspa__handoff_prepare(uint32_t *slot, int inherit);
NSPA_HIDDEN void nspa__handoff_commit(uint32_t slot, int32_t child);   /* after it */
NSPA_HIDDEN void nspa__handoff_cancel(uint32_t slot);        /* the spawn failed */
NSPA_HIDDEN void nspa__handoff_reap(uint32_t slot, int32_t child);     /* the child ended */
/* In the access word given to nspa__dup_to_process (and kept in the ledger): the handle
 * is to be inheritable in the target (DuplicateHandle's bInheritHandle). Bit 26 is
 * reserved in NT access masks, so no right is ever this bit. */
#define NSPA__ACCESS_INHERIT (1u << 26)
NSPA_HIDDEN int nspa__dup_to_process(nspa_obj_t h, int32_t pid, uint32_t access, nspa_obj_t *remote);
NSPA_HIDDEN int nspa__dup_from_process(int32_t pid, nspa_obj_t remote, nspa_obj_t *out, int close_source,
                                       uint32_t *access);
/* process @pid grows the arena object behind its handle @remote into the region, so
 * that nspa__dup_from_process finds it (ask.c; it answers through its request thread) */
NSPA_HIDDEN int nspa__ask_grow(int32_t pid, nspa_obj_t remote);
/* process @pid sends the descriptor of its file, socket or pipe handle @remote and
 * closes that handle (DUPLICATE_CLOSE_SOURCE); a record here over it, handle *@tmp */
NSPA_HIDDEN int nspa__ask_take(int32_t pid, nspa_obj_t remote, nspa_obj_t *tmp);
/* a descriptor given to process @pid (DuplicateHandle of a file into another process,
 * gift.c): *@remote gets the handle value there; @meta (< 96 bytes) goes to the hook */
NSPA_HIDDEN int nspa__gift_send(int32_t pid, int fd, const char *meta, uint32_t access, nspa_obj_t *remote);
/* the receiving side: a record over @fd described by @meta, as a handle *@tmp (0 or
 * -errno; on error @fd is the caller's to close) */
NSPA_HIDDEN void nspa__set_gift_hook(int (*fn)(int fd, const char *meta, nspa_obj_t *tmp));
/* the I/O module's other side (ask.c, DUPLICATE_CLOSE_SOURCE from another process): a
 * copy of file handle @h's descriptor in *@fd and its description in @meta */
NSPA_HIDDEN void nspa__set_give_hook(int (*fn)(nspa_obj_t h, int *fd, char *meta, size_t cap));
/* a child that was given files before it ran: fetch them from its parent (gift.c; the
 * I/O module calls it once its hook is set, the attach once it is attached) */
NSPA_HIDDEN void nspa__gift_fetch_parked(void);
/* The fd map (fdmap.c): the I/O module's description of a file object (fd + 1 in the
 * low 32 bits, its description bits above; 0: not one to give), asked whenever a handle
 * to one is made or moved; _note: a new record's description is complete; _take: a
 * copy of the descriptor behind handle @remote of process @pid (pidfd_getfd): 0,
 * -EBADF (no file there), -ESRCH, -EACCES (refused: ptrace rights), -ENOSYS */
struct sobj;
NSPA_HIDDEN void nspa__set_fdmap_hook(uint64_t (*fn)(const struct sobj *o));
NSPA_HIDDEN void nspa__fdmap_note(nspa_obj_t h);
NSPA_HIDDEN int nspa__fdmap_take(int32_t pid, nspa_obj_t remote, int *fd, uint32_t *desc);
/* the calling thread is leaving (ExitThread): its mutexes are abandoned now */
NSPA_HIDDEN void nspa__thread_unregister(void);
/* WaitForSingleObject's path: one handle, the caller's thread id as owner */
NSPA_HIDDEN int nspa__wait_single(nspa_obj_t h, uint64_t timeout);
/* Kinds that are not waitable (file mappings): an object of @type whose word, max and
 * ext carry the kind's own data; named ones are shared by the namespace. Create returns
 * 0, NSPA_EXISTED (same type: a new handle to it) or -EEXIST (another type). */
NSPA_HIDDEN int nspa__obj_create_data(int type, uint64_t word, uint32_t max, uint32_t ext,
                                      const char *name, nspa_obj_t *out);
NSPA_HIDDEN int nspa__obj_data(nspa_obj_t h, int type, uint64_t *word, uint32_t *max, uint32_t *ext);
/* @fn runs when an object of @type is freed (its last reference gone, in whichever
 * process drops it, a sweep of a dead process included), under the object's lock */
NSPA_HIDDEN void nspa__obj_on_free(int type, void (*fn)(uint64_t word, uint32_t max, uint32_t ext));
/* the namespace region's file path (the directory is private to the user), or NULL */
NSPA_HIDDEN const char *nspa__ns_path(void);

/* ---- kinds of other modules (docs/sync.md, "Adding a kind") ---------------------- */
struct sobj;
struct sync_kind {
    /* is @o signaled for a waiter with owner id @owner, its word being @w? */
    int (*signaled)(const struct sobj *o, uint64_t w, uint32_t owner);
    /* the word after a successful wait by @owner (OBJ_CLAIMED kept as in @w); *@ext
     * (in: the current ext): the new ext; returns 1 when the wait reports "abandoned"
     * (-EOWNERDEAD, WAIT_ABANDONED) */
    int (*consume)(const struct sobj *o, uint64_t w, uint32_t owner, uint64_t *nw, uint32_t *ext);
    /* optional: the last handle to @o is gone (no lock held; waiters may still be
     * queued, and the object is freed once they leave) */
    void (*closed)(struct sobj *o);
    /* waiters of equal priority are served last come, first served (completion ports) */
    int lifo;
};
NSPA_HIDDEN void sync_kind_register(int type, const struct sync_kind *k);
/* an unnamed object of a registered kind, with its word, max and ext */
NSPA_HIDDEN int nspa__obj_create(int type, uint64_t word, uint32_t max, uint32_t ext, nspa_obj_t *out);
/* move handle @from (an arena object's) to the free value @to: 0, -EBADF, -EEXIST, -EINVAL */
NSPA_HIDDEN int nspa__handle_move(nspa_obj_t from, nspa_obj_t to);
/* The NT access mask of a handle (the core checks SYNCHRONIZE for waits and the
 * MODIFY_STATE bit for set/reset/pulse/release: -EACCES). A handle the core makes has
 * every bit; the NT layer sets what Open/Create/DuplicateHandle asked for. */
NSPA_HIDDEN int nspa__handle_access(nspa_obj_t h, uint32_t *access);
NSPA_HIDDEN int nspa__handle_set_access(nspa_obj_t h, uint32_t access);
/* 0 when @h names an object of @type and grants one of the bits of @need; -EBADF,
 * -EINVAL (another type), -EACCES */
NSPA_HIDDEN int nspa__handle_check(nspa_obj_t h, int type, uint32_t need);
/* the next handle at index *@i or above to an object of @type (0: none); *@i moves on */
NSPA_HIDDEN nspa_obj_t nspa__handle_next(uint32_t *i, int type, uint32_t *flags);
/* the object behind @h if it has type @type, else NULL (no reference taken) */
NSPA_HIDDEN struct sobj *nspa__obj_lookup(nspa_obj_t h, int type);
NSPA_HIDDEN void nspa__obj_priv(const struct sobj *o, uint32_t *max, uint32_t *ext);
/* the object's word without the claim bit */
NSPA_HIDDEN uint64_t nspa__obj_word(const struct sobj *o);
/* Change the object's word to fn(word, arg) (both without the claim bit): one CAS while
 * nobody waits, else under the object's lock, serving its queue. Returns the old word. */
NSPA_HIDDEN uint64_t nspa__obj_update(struct sobj *o, uint64_t (*fn)(uint64_t w, void *arg), void *arg);
/* the process code's wait on one process object (wait.c calls it when the object is not
 * signaled; it returns 0, -ETIMEDOUT, or 1 to let the ordinary wait run) */
NSPA_HIDDEN void nspa__set_proc_wait_hook(int (*fn)(nspa_obj_t h, uint64_t timeout));
/* Waitable timers (timerobj.c): the object is an event-like kind whose `max` holds the
 * arm generation. Arm (set or cancel) bumps the generation under the object lock, so a
 * pending expiry armed before, by any process, finds it stale and does nothing. */
NSPA_HIDDEN int nspa__timer_create(int manual, const char *name, nspa_obj_t *out);
/* an arm: due time (ns on CLOCK_REALTIME if @realtime, else CLOCK_MONOTONIC), period
 * (ns, 0: one-shot) */
struct nspa__timer_sched {
    uint64_t due, period;
    int realtime;
};
/* bump the generation (*gen: the new one); @s: a set (the timer becomes unsignaled; a
 * timer of the region records @s for adoption), NULL: a cancel */
NSPA_HIDDEN int nspa__timer_arm(nspa_obj_t h, const struct nspa__timer_sched *s, uint32_t *gen);
/* The timer whose key is @key (nspa__obj_key), if it is in the region and armed by
 * another process: 2 when that process lives (*s, *gen: its arm), 1 when it was gone
 * and this process took the arm over (*s, *gen, and *own: a new handle to the object,
 * for the taker's service), 0 otherwise (not armed, ours, arena timer). */
NSPA_HIDDEN int nspa__timer_adopt(uintptr_t key, struct nspa__timer_sched *s, uint32_t *gen, nspa_obj_t *own);
/* an expiry armed at @gen: signal and serve the queue; a periodic timer of the region
 * records @next_due as its next expiry. Returns 0, -ESTALE (re-armed or cancelled
 * since), -EBADF/-EINVAL; *refs: the object's handle count (1 = only ours). */
NSPA_HIDDEN int nspa__timer_fire(nspa_obj_t h, uint32_t gen, uint64_t next_due, uint32_t *refs);
NSPA_HIDDEN int nspa__timer_read(nspa_obj_t h, int *manual, int *signaled, uint32_t *gen);
/* The timer service's direct path (docs/time.md): a wait on timers armed in this
 * process sleeps only until the earliest due time, then runs that expiry on the
 * waiting thread. due: the due time (CLOCK_MONOTONIC ns) of the timer whose key is
 * @key, if armed here (1), else 0; expire: run its expiry if it is due. */
struct nspa__timer_hooks {
    int (*due)(uintptr_t key, uint64_t *mono_ns);
    void (*expire)(uintptr_t key);
    /* a poll (timeout 0) found the timer unsignaled: 1 if an expiry ran meanwhile (an
     * orphaned arm taken over, docs/time.md): look again */
    int (*poll)(uintptr_t key);
    /* the wait that asked for the due time ends without having run the expiry */
    void (*uncommit)(uintptr_t key);
};
NSPA_HIDDEN void nspa__set_timer_hooks(const struct nspa__timer_hooks *h);
/* NSPA_TIMER_SPIN_US in ns (read once): how long before a due time a real-time timer
 * waiter, and the timer service in RT mode, stop sleeping and spin to it (wait.c) */
NSPA_HIDDEN uint64_t nspa__timer_spin_ns(void);
/* The I/O module's sleep (docs/io.md, "Waits that reap their own I/O"): a thread with
 * a ring of its own sleeps there, on its futex word and its I/O at once, and completes
 * what finished itself. sleep: sleep until *word is no longer @v (a FUTEX_WAKE), @deadline
 * (ns on @clk; UINT64_MAX none), a signal or a completion of the thread's I/O; 1 when it
 * slept, 0 when the caller is to sleep on the futex. With @other_words the caller sleeps
 * on futex_waitv: the hook only makes sure nothing else of the thread's sleeps on the
 * word, and returns 0. thread_end: the thread ends (before its record is freed; NULL:
 * nothing to do).
 *
 * A hook may instead sleep where a FUTEX_WAKE cannot reach (the epoll engine sleeps in
 * poll() on the thread's socket and a wake eventfd): it then stores a nonzero number in
 * *@poll_mark (seq_cst) before it looks at the word a last time and clears it when it
 * wakes, and a waker that finds the mark after its change of the word calls wake(mark)
 * instead of FUTEX_WAKE (1: woken that way; 0: use the futex). Only for a wait no other
 * process can grant (@shared 0): the mark means something in this process alone. */
struct nspa__sleep_hooks {
    int (*sleep)(_Atomic uint32_t *word, uint32_t v, int shared, uint64_t deadline, clockid_t clk,
                 int other_words, _Atomic uint32_t *poll_mark);
    void (*thread_end)(void);
    int (*wake)(uint32_t mark);
    /* the calling thread's I/O completes only while it is in the kernel (its ring's task
     * work, its socket's poll): its waits must not spin in user space (wait.c; NULL: no) */
    int (*io_needs_sleep)(void);
};
NSPA_HIDDEN void nspa__set_sleep_hooks(const struct nspa__sleep_hooks *h);
/* wake the thread whose hook sleeps on @word to look at its wait again (sleep.c) */
NSPA_HIDDEN void nspa__sleep_poke(_Atomic uint32_t *word);
/* a key naming the object behind @h in this process (0: not a handle) */
NSPA_HIDDEN uintptr_t nspa__obj_key(nspa_obj_t h);
#endif
