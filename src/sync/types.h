/*
 * The sync core's one types header: objects, thread records, the namespace region.
 * The design is in docs/sync.md; the locking rules are here, next to the data.
 *
 * TWO ARENAS, ONE OBJECT MODEL
 *   - the process arena (arena.c): unnamed objects. An anonymous MAP_SHARED mapping of
 *     the process, so that after fork() the child still reaches its parent's objects at
 *     the same addresses (today's fork behaviour), and no other process can.
 *   - the namespace region (region.c): named objects, every thread record, process
 *     slots, names, the per-process ledger of handles to named objects.
 *   Both hold the same struct sobj; code that works on an object never asks where it
 *   lives, except to pick futex flags.
 *
 * REFERENCES (uint64_t "refs")
 *   Memory in the region is mapped at different addresses in different processes, so a
 *   reference to it is its offset, tagged with bit 0 (everything is 8-byte aligned); a
 *   reference to process-arena memory is its address (bit 0 clear): valid in this
 *   process and its fork children (same mapping, same address). R() decodes both. A
 *   process that is not of the referrer's fork family (struct thr.family) never follows
 *   an untagged ref it finds in the region.
 *
 * LOCKING RULES (ntsync's model: a lock per object, no lock shared by unrelated objects)
 *  1. o->lock (robust, process-shared, priority-inheriting pthread mutex) protects o's
 *     queue (q_head/q_tail, the links of the entries in it, nall, seq), o->intent and
 *     o->ext, and every change of o->word while OBJ_CLAIMED is set.
 *  2. o->word holds o's whole state. While OBJ_CLAIMED is clear (no waiter queued) any
 *     thread may change it with one compare-and-swap, without the lock ("fast path").
 *     A lock holder that changes the word sets OBJ_CLAIMED first (by CAS); the bit stays
 *     while o has waiters and is cleared, under the lock, when the queue empties.
 *  3. Nobody holds two object locks, except a wait-all waiter granting itself: it
 *     takes the locks of its own objects in the canonical order (process-arena
 *     objects by address, then region objects by offset) and nothing else. So no lock
 *     order can cycle, and there is no wait-all lock at all.
 *  4. A waiter is granted exactly once: by a compare-and-swap of its futex word from
 *     "waiting" to DONE (wait-any: by whoever holds the lock of the object it gets;
 *     wait-all: by the waiter itself holding all its objects' locks; timeout: by the
 *     waiter). The granter changes the object word after that CAS, with o->intent
 *     recording old and new words first: a holder killed at any instant leaves the
 *     object either as it was or as the grant made it (obj_recover()). The intent's
 *     words are valid only while the word stays claimed: the word stays claimed while
 *     an intent names a waiter, queue or no queue. An intent with equal old and new
 *     words (grant_all_inline's, while it wakes the waiter) owes only the wake.
 *  5. A queue entry's obj field is set before it is linked and cleared after it is
 *     unlinked: a holder killed mid-link leaves entries that recovery relinks in
 *     (key, ticket) order by scanning the thread records.
 *  6. The region's registry lock (region.c: robust, PI, with an undo journal) protects
 *     names, object allocation, refcounts of named objects, process and thread slots and
 *     the ledgers. It is never taken on a wait or wake path. Order: registry lock, then
 *     one object lock.
 *  7. Nothing is allocated on a wait or wake path. A granted waiter is woken by a
 *     FUTEX_WAKE after the CAS: under the lock, with the intent still naming it, when
 *     it lives in another process (a granter killed before the wake leaves the intent
 *     to the next locker, who wakes it); after the granter's last lock when it lives in
 *     the granter's process (they die together). No waiter needs a timer to find out.
 */
#ifndef NSPA_SYNC_TYPES_H
#define NSPA_SYNC_TYPES_H
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "nspa/sync.h"
#include "common/export.h"

#define WAIT_SLOTS      (NSPA_MAX_WAIT_OBJECTS + 1)   /* objects + the alert */
#define OWNED_MAX       126                          /* owned-mutex list per thread */

/* ---- object state words ------------------------------------------------------------ */
#define OBJ_CLAIMED     (1ull << 63)
#define MTX_ABANDONED   (1ull << 62)
#define MTX_CNT_SHIFT   32
#define MTX_CNT_MASK    0x3fffffffull       /* 30-bit count; BIG: the count is in o->ext */
#define MTX_CNT_BIG     MTX_CNT_MASK
#define EVT_SIGNALED    1ull
#define EVT_MANUAL      2ull

struct sobj_intent {                 /* a grant in progress (rule 4) */
    uint64_t waiter;                 /* ref of the thread record granted; 0 = none */
    uint64_t old_word, new_word;
    uint32_t old_ext, new_ext;
};

struct sobj {
    /* line 0: what a contended operation touches */
    pthread_mutex_t lock;            /* rule 1 */
    _Atomic uint64_t word;           /* rule 2 */
    uint64_t q_head;                 /* ref of the first entry (highest priority) */
    uint8_t  type;                   /* enum nspa_obj_type; 0 = free */
    uint8_t  in_region;              /* lives in the namespace region */
    uint8_t  zombie;                 /* no handle left, waiters still queued */
    uint8_t  bypass;                 /* mutex: hand-offs in a row to a running waiter
                                      * past the sleeping head (wake.c) */
    uint32_t nall;                   /* wait-all entries queued */
    /* line 1 */
    uint64_t q_tail;
    struct sobj_intent intent;
    _Atomic uint32_t refs;           /* handles (process arena: atomic; region: registry) */
    uint32_t max;                    /* semaphore max; thread object: thread id */
    uint32_t ext;                    /* mutex count when BIG; thread object: exit code */
    uint32_t name;                   /* region name slot + 1, or 0 */
    uint32_t seq;                    /* FIFO ticket of the next queued entry */
    uint32_t next_free;              /* free list link (index + 1) */
};
_Static_assert(sizeof(struct sobj) == 128, "sobj is two cache lines");

/* ---- thread records ---------------------------------------------------------------- */

struct went {                        /* one object of a wait: its entry in that queue */
    uint64_t next, prev;             /* refs of neighbouring entries (rule 1) */
    uint64_t obj;                    /* ref of the object while queued, else 0 (rule 5) */
    uint16_t key;                    /* queue key: higher first */
    uint16_t idx;                    /* its index in the wait (thr.ent[idx]) */
    uint32_t ticket;                 /* FIFO among equal keys */
};

enum { WAIT_NONE = 0, WAIT_ANY = 1, WAIT_ALL = 2 };
/* thr.spinning: what a waiting thread does now. A granted waiter still says T_SLEEP
 * until it runs: the owner of a mutex it was just handed is not on a CPU yet, and
 * nobody spins for it (wait.c, owner_state). T_WOKEN: asleep, and already woken to
 * look at a free mutex for itself (wake.c, mutex_to_runner), so not woken again;
 * off the CPU like T_SLEEP until it runs. */
enum { T_RUN = 0, T_SPIN = 1, T_SLEEP = 2, T_WOKEN = 3 };
static inline int thr_state_off_cpu(uint32_t s) { return s >= T_SLEEP; }

/* the futex word of a wait (rule 4) */
#define W_DONE          0x80000000u
#define W_ABANDONED     0x40000000u
#define W_TIMEDOUT      0x20000000u
#define W_ENDED         (W_DONE | W_TIMEDOUT)
#define W_IDX_SHIFT     16
#define W_IDX_MASK      0x7fu
#define W_POKE_MASK     0xffffu      /* bumped to make the waiter look again */

struct thr {
    uint32_t tid;                    /* 0 = free slot */
    uint32_t proc;                   /* process slot (UINT32_MAX: no region) */
    uint32_t tid_next;               /* tid hash chain (slot + 1) */
    uint32_t next_free;              /* free list (slot + 1) */
    uint64_t family;                 /* fork family of its process arena */
    /* --- the current wait ----------------------------------------------------------- */
    _Alignas(64) _Atomic uint32_t futex;
    uint32_t kind;                   /* WAIT_NONE/ANY/ALL (written by the thread) */
    uint32_t count;                  /* objects, alert excluded */
    uint32_t has_alert;
    uint32_t owner;                  /* owner id of the wait */
    uint32_t key;                    /* its own key in this wait (see pi.c) */
    uint32_t shared_futex;           /* wakers use a shared FUTEX_WAKE */
    _Atomic uint32_t spinning;       /* T_RUN, T_SPIN (looking at its futex word before
                                      * it sleeps) or T_SLEEP (in the kernel) */
    /* ent[0] shares the futex word's line: a granter writes both, and the waiter it woke
     * reads both, so a one-object hand-off between CPUs moves one line of the record
     * instead of two (a cross-CPU hand-off's cost is its line transfers: docs/sync.md) */
    struct went ent[WAIT_SLOTS];
    uint64_t since;                  /* when the wait queued (CLOCK_MONOTONIC ns) */
    uint64_t objs[WAIT_SLOTS];       /* refs; [count] = the alert */
    _Atomic uint32_t poll_mark;      /* nonzero: asleep in the I/O module's poll, woken
                                      * through its hook (sync_api.h, nspa__sleep_hooks);
                                      * in the padding before pi_lock: no layout change */
    /* --- priority inheritance (pi.c; under pi_lock) ----------------------------------- */
    _Alignas(64) pthread_mutex_t pi_lock;
    uint32_t boost;                  /* key of the boost in force; 0 = none */
    uint32_t base_key;
    int32_t  base_policy, base_prio, base_nice;
    uint32_t base_flags;
    /* --- mutexes this thread acquired (written by it, or by a granter while it sleeps) */
    _Alignas(64) _Atomic uint32_t nowned;
    _Atomic uint32_t owned_overflow;
    _Atomic uint64_t owned[OWNED_MAX];   /* refs, 0 = empty */
    /* robust; held by the thread for its whole life. On a line of its own: glibc links
     * every robust mutex the thread takes (each object lock) into the thread's robust
     * list through the list's head, which is this mutex while nothing else is held, so
     * the thread writes this line at every object lock and unlock; a waker reading
     * tid or proc of the record next to it took a cache miss per hand-off. */
    _Alignas(64) pthread_mutex_t alive;
};
_Static_assert(offsetof(struct thr, ent) == offsetof(struct thr, futex) + 32 &&
               offsetof(struct thr, futex) % 64 == 0, "ent[0] shares the futex word's cache line");

/* ---- the namespace region ------------------------------------------------------------ */

#define NS_MAGIC        0x4e535041534e3032ull   /* "NSPASN02" */
#define NS_VERSION      9               /* 5: the timer records (off_timers); 6: thr.since;
                                         * 7: the ledger's access masks (off_access);
                                         * 8: thr.spinning T_WOKEN; 9: thr.ent before
                                         * thr.objs (ent[0] on the futex line), thr.alive
                                         * last, on its own line */
#define MAX_PROCS       4096
#define MAX_THREADS     32768
#define MAX_OBJECTS     (1u << 21)              /* 2M named objects */
#define LEDGER_CHUNK    32768u                  /* ledger entries per chunk */
#define LEDGER_DIR      64u                     /* chunks per process: 2M handles */
#define LEDGER_CHUNKS   16384u                  /* chunks in the region */
#define MAX_NAMES       (1u << 21)
#define NAME_BUCKETS    (1u << 20)
#define NAME_INLINE     40
#define NAME_BLOCK      64
#define MAX_NAME_BLOCKS (1u << 22)              /* 256 MiB of long names */
#define TID_BUCKETS     (1u << 15)
#define REMOTE_BASE     (1u << 20)              /* handle indices another process inserts
                                                 * (DuplicateHandle into a process) from */
/* ledger values that are not objects (gift.c): a descriptor on its way to the process
 * (in its mailbox), and an index the process uses for a local object it was given */
#define GIFT_MARK       0xFFFFFFFFu
#define GIFT_HELD       0xFFFFFFFEu
/* a handle another process closed (DUPLICATE_CLOSE_SOURCE from another process): the
 * reference went with the copy; the owner drops its table entry (h_revoke_scan) */
#define LEDGER_REVOKED  0xFFFFFFFDu
/* a file, socket or pipe given to a child that had not attached yet (CREATE_SUSPENDED):
 * its parent keeps the descriptor until the child fetches it (gift.c, ask.c) */
#define GIFT_PARKED     0xFFFFFFFCu
#define JOURNAL_MAX     (1u << 16)

struct ns_journal_entry { uint64_t off, old; };

struct ns_proc {
    uint32_t pid;                    /* 0 = free */
    uint32_t next_free;
    uint64_t start_time;             /* /proc/pid/stat starttime: guards pid reuse */
    uint64_t family;
    _Atomic uint32_t reaper_poke;    /* futex: the reaper must re-arm */
    uint32_t nthreads;               /* thread slots of this process */
    uint32_t any_thread;             /* one of them (slot + 1): its liveness word says
                                      * the process lives, without a system call */
    uint64_t verified_ms;            /* when its start time was last read (a hint) */
    uint32_t handoff;                /* 1: prepared by a parent (pid: the parent's, then the
                                      * child's) for a child that has not attached yet;
                                      * its ledger holds the inherited handles (inherit.c) */
    uint32_t revoked;                /* bumped when another process closed one of its
                                      * handles (DUPLICATE_CLOSE_SOURCE, inherit.c) */
    uint32_t ledger[LEDGER_DIR];     /* ledger chunks (index + 1): handle index -> obj + 1 */
};

struct ns_name {
    uint32_t obj;                    /* object index */
    uint32_t next;                   /* bucket chain (slot + 1) */
    uint32_t hash, len;
    uint32_t blocks;                 /* long names: first block + 1 of the string */
    uint32_t nblocks;
    char     str[NAME_INLINE];       /* names up to NAME_INLINE bytes */
};

/* A timer object's arm, for timers in the region (named or shared ones: timerobj.c,
 * docs/time.md): one record per object slot, at the object's index, so that any
 * process holding a handle can take over the expiries when the process that armed the
 * timer is gone. Written under the object's lock only; valid while `gen` equals the
 * object's arm generation (its `max`) and TMR_ARMED is set. The array is as long as
 * the object array but only the pages of timers are ever touched (the file is sparse). */
#define TMR_ARMED       1u
#define TMR_REALTIME    2u                      /* due on CLOCK_REALTIME, else MONOTONIC */
struct ns_timer {
    uint32_t gen;                    /* the arm generation this describes */
    uint32_t flags;                  /* TMR_* */
    uint64_t due;                    /* ns on its clock: the next expiry */
    uint64_t period;                 /* ns; 0: one-shot */
    uint32_t owner_slot;             /* the process whose timer service serves it */
    uint32_t owner_pid;              /* (its pid then: a released or reused slot differs) */
};

struct ns_header {
    uint64_t magic;
    uint32_t version, uid;
    uint64_t size;
    uint64_t off_journal, off_threads, off_procs, off_objs, off_names, off_blocks,
             off_ledger, off_name_buckets, off_tid_buckets, off_timers, off_access;
    _Alignas(64) pthread_mutex_t lock;      /* the registry lock (rule 6) */
    _Alignas(64) uint32_t journal_len;
    uint32_t obj_hwm, obj_free, nobjs;
    uint32_t name_hwm, name_free;
    uint32_t block_hwm;
    uint32_t thr_hwm, thr_free, nthreads;
    uint32_t proc_hwm, proc_free;
    uint32_t chunk_hwm, chunk_free;
    _Atomic uint64_t obj_recoveries;         /* object locks taken over from the dead */
    _Atomic uint64_t reg_recoveries;         /* registry sections rolled back */
    uint32_t dead;                   /* unlinked by the last process: attach anew */
    uint32_t block_free[16];         /* free long-name runs by length (blocks) */
};

struct ns {
    char *base;
    size_t size;
    struct ns_header *hdr;
    struct ns_journal_entry *journal;
    struct thr *threads;
    struct ns_proc *procs;
    struct sobj *objs;
    struct ns_name *names;
    char *blocks;
    uint32_t *chunks;                /* ledger chunks */
    uint32_t *access;                /* parallel to chunks: each ledger entry's NT access
                                      * mask (a handle given to a process carries it) */
    uint32_t *name_buckets, *tid_buckets;
    struct ns_timer *timers;         /* parallel to objs */
    uint32_t proc;                   /* this process's slot */
    char path[768];
};

/* ---- per-thread private state ------------------------------------------------------ */

struct nspa_tls {
    struct thr *t;                   /* its record (region slot, or process arena) */
    uint32_t tid;
    uint32_t slot;                   /* region slot, or UINT32_MAX */
};

#endif
