/*
 * Internal layout of an NSPA namespace (see docs/sync.md for the design).
 *
 * One namespace = one shared memory file, mapped at the same size by every process.
 * Everything in it is addressed by index, never by pointer.
 *
 * LOCKING RULES (read before touching anything below)
 *
 *  1. ns->lock (a robust, process-shared, priority-inheriting pthread mutex) protects
 *     every field of the region except the ones marked [atomic] or [owner].
 *  2. obj->word [atomic] holds an object's whole state. Without ns->lock, a thread may
 *     change it with one compare-and-swap ONLY while OBJ_CLAIMED is clear ("fast
 *     path"). The holder of ns->lock sets OBJ_CLAIMED (by CAS) on every object it reads
 *     or writes; from then on the word is the lock holder's alone. An object with
 *     waiters stays claimed across unlocks, so that every state change of an object
 *     with waiters goes through the lock and wakes them.
 *  3. Every store made under ns->lock goes through jset32/jset64, which first logs
 *     the old value in the journal. If a process dies holding the lock, the next
 *     locker gets EOWNERDEAD and rolls the journal back: the region is exactly as it was
 *     before the dead section. The section commits by emptying the journal; wakes of
 *     granted waiters are done after the commit, from a wake list that recovery
 *     replays, then the lock is released.
 *  4. A thread's slot fields marked [owner] are written by that thread alone without
 *     the lock (its owned-mutex array, its wake word reset).
 *  5. Lock order: ns->lock, then nothing. Thread-alive mutexes are only ever
 *     try-locked (never waited on under ns->lock). No allocation happens under the
 *     lock or on any wait/wake path.
 */
#ifndef NSPA_SYNC_INTERNAL_H
#define NSPA_SYNC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include "nspa/sync.h"
#include "common/export.h"

#define NS_MAGIC        0x4e535041534e3031ull   /* "NSPASN01" */
#define NS_VERSION      2

#define MAX_PROCS       256
#define MAX_THREADS     4096
#define MAX_OBJECTS     (1u << 22)      /* 4M objects per namespace */
#define MAX_HANDLES     (1u << 21)      /* 2M handles per process */
#define MAX_NAMES       16384
#define NAME_BUCKETS    16384
#define TID_BUCKETS     8192
#define JOURNAL_MAX     (1u << 20)
#define OWNED_MAX       126             /* fast-path owned-mutex array per thread */
#define WAIT_SLOTS      (NSPA_MAX_WAIT_OBJECTS + 1)

/* obj->word encodings */
#define OBJ_CLAIMED     (1ull << 63)
#define MTX_ABANDONED   (1ull << 62)
#define MTX_CNT_SHIFT   32
#define MTX_CNT_MASK    0x3fffffffull       /* 30-bit count; BIG means "in obj->ext" */
#define MTX_CNT_BIG     MTX_CNT_MASK
#define EVT_SIGNALED    1ull
#define EVT_MANUAL      2ull

struct ns_journal_entry {
    uint64_t off;       /* byte offset in the region; bit 0: 64-bit store */
    uint64_t old;
};

struct ns_obj {                         /* one cache line */
    _Atomic uint64_t word;              /* [atomic] state, see above */
    uint8_t  type;                      /* enum nspa_obj_type; 0 = free */
    uint8_t  pad0[3];
    uint32_t refs;                      /* handles (all processes) + registered waits */
    uint32_t max;                       /* semaphore max */
    uint32_t ext;                       /* mutex count when MTX_CNT_BIG */
    uint32_t q_head, q_tail;            /* wait queue: entry ids (slot*WAIT_SLOTS+i+1) */
    uint32_t name;                      /* name slot + 1, or 0 */
    uint32_t next_free;                 /* free list link */
    uint32_t owner_hint;                /* thread slot + 1 of the owner when known */
    uint32_t pad1[5];
};
_Static_assert(sizeof(struct ns_obj) == 64, "ns_obj is one cache line");

struct ns_wait_entry {
    uint32_t next, prev;                /* entry ids, 0 = none */
    uint32_t obj;                       /* object index */
    uint32_t pad;
};

enum { WAIT_NONE = 0, WAIT_ANY = 1, WAIT_ALL = 2 };

/* result word of a wait: 0 pending, else RES_DONE | flags | index */
#define RES_DONE        0x80000000u
#define RES_ABANDONED   0x40000000u
#define RES_INDEX_MASK  0x0000ffffu

/* wake word values */
#define WAKE_WAITING    0
#define WAKE_GRANTED    1
#define WAKE_REARM      2               /* re-evaluate (owner changed, fork) and sleep on */

struct ns_thread {
    /* --- liveness ------------------------------------------------------------------ */
    pthread_mutex_t alive;              /* robust; locked by the thread for its life */
    uint32_t tid;                       /* 0 = free slot */
    uint32_t proc;                      /* process slot */
    uint32_t tid_next;                  /* tid hash chain (slot + 1) */
    uint32_t pad0;
    /* --- the current wait (under ns->lock) ------------------------------------------ */
    _Alignas(64) _Atomic uint32_t wake; /* futex word: set to 1 after a grant commits */
    uint32_t result;                    /* RES_* (journaled) */
    uint32_t kind;                      /* WAIT_NONE/ANY/ALL */
    uint32_t count;                     /* objects in the wait, alert excluded */
    uint32_t owner;                     /* owner id of the wait */
    uint32_t prio;                      /* queue key: higher first */
    uint32_t has_alert;
    uint32_t wake_private;              /* sleeps on a private futex (see sync.c) */
    /* --- priority inheritance (under ns->lock; see pi.c) ---------------------------- */
    uint32_t boost;                     /* key of the boost applied now; 0 = none */
    uint32_t base_key;                  /* the thread's own key, valid while boosted */
    int32_t  base_policy, base_prio, base_nice;   /* its own setting, saved at boost */
    uint32_t base_flags;
    int32_t  nt_prio;                   /* Win32 thread priority (-15..15) */
    uint32_t nt_prio_set;
    uint32_t objs[WAIT_SLOTS];          /* object indices; [count] = alert */
    struct ns_wait_entry entries[WAIT_SLOTS];
    /* --- mutexes this thread acquired [owner] --------------------------------------- */
    _Alignas(64) _Atomic uint32_t nowned;   /* high-water mark of owned[] */
    _Atomic uint32_t owned_overflow;        /* owned[] was full once: scan at cleanup */
    _Atomic uint32_t owned[OWNED_MAX];      /* object index + 1, 0 = empty */
};

struct ns_proc {
    uint32_t pid;                       /* 0 = free */
    uint32_t handles_hwm;               /* handle table high-water mark */
    uint32_t free_handle;               /* free list head (index + 1) */
    uint32_t nhandles;
    uint64_t start_time;                /* /proc/pid/stat starttime: guards pid reuse */
    _Atomic uint32_t reaper_poke;       /* futex: bumped when the reaper must re-arm */
    uint32_t pad0;
    uint32_t pad[8];
};

struct ns_name {
    uint32_t obj;                       /* object index */
    uint32_t next;                      /* bucket chain (name slot + 1) */
    uint32_t hash;
    uint32_t len;
    char     str[NSPA_MAX_NAME + 4];
};

struct ns_header {
    uint64_t magic;
    uint32_t version;
    uint32_t uid;
    uint64_t size;
    /* offsets of the arrays */
    uint64_t off_journal, off_threads, off_procs, off_objs, off_names, off_handles;
    _Alignas(64) pthread_mutex_t lock;  /* robust | pshared | PI */
    _Alignas(64) uint32_t journal_len;  /* entries in use; 0 = committed */
    uint32_t nwake;                     /* wake list (thread slots) of the last commit */
    uint32_t wake[MAX_THREADS];
    /* allocation state (under lock) */
    uint32_t obj_hwm, obj_free, name_hwm, name_free;
    uint32_t nobjs;                     /* live objects */
    uint32_t dead;                      /* unlinked by the last process: attach anew */
    uint32_t name_buckets[NAME_BUCKETS];
    uint32_t tid_buckets[TID_BUCKETS];
};

struct ns {
    char *base;
    size_t size;
    struct ns_header *hdr;
    struct ns_journal_entry *journal;
    struct ns_thread *threads;
    struct ns_proc *procs;
    struct ns_obj *objs;
    struct ns_name *names;
    uint32_t *handles;                  /* this process's table */
    uint32_t proc;                      /* this process's slot */
    char path[256];
};

extern struct ns *nspa_ns;               /* attached namespace, NULL before */

/* per-thread state (private) */
struct nspa_tls {
    uint32_t slot;                      /* thread slot in the namespace */
    uint32_t tid;
    struct ns_thread *t;
};
extern __thread struct nspa_tls *nspa_self;

NSPA_HIDDEN struct ns *ns_attach(void);
NSPA_HIDDEN struct nspa_tls *ns_thread_register(void);
NSPA_HIDDEN void ns_lock(struct ns *ns);
NSPA_HIDDEN void ns_unlock(struct ns *ns);
NSPA_HIDDEN void jset32(struct ns *ns, uint32_t *p, uint32_t v);
NSPA_HIDDEN void jset64(struct ns *ns, uint64_t *p, uint64_t v);
NSPA_HIDDEN void ns_queue_wake(struct ns *ns, uint32_t slot);
NSPA_HIDDEN int ns_has_forked(void);
NSPA_HIDDEN uint64_t obj_claim(struct ns *ns, uint32_t idx);
NSPA_HIDDEN void obj_store(struct ns *ns, uint32_t idx, uint64_t word);
NSPA_HIDDEN void obj_unclaim_if_idle(struct ns *ns, uint32_t idx);
NSPA_HIDDEN int  ns_thread_dead_check(struct ns *ns, uint32_t tid);
NSPA_HIDDEN void ns_sweep_dead(struct ns *ns);
NSPA_HIDDEN void ns_obj_unref(struct ns *ns, uint32_t idx);
NSPA_HIDDEN void sync_try_wake(struct ns *ns, uint32_t idx);
NSPA_HIDDEN void sync_cancel_wait(struct ns *ns, uint32_t slot);
NSPA_HIDDEN void sync_abandon_thread(struct ns *ns, uint32_t slot);
NSPA_HIDDEN int  ns_handle_lookup(struct ns *ns, nspa_obj_t h, uint32_t *idx);
NSPA_HIDDEN uint32_t ns_tid_slot(struct ns *ns, uint32_t tid);

/* priority inheritance (pi.c); lock held */
NSPA_HIDDEN int  pi_enabled(void);
NSPA_HIDDEN uint32_t pi_eff_key(const struct ns_thread *t);
NSPA_HIDDEN void pi_update_owner_of(struct ns *ns, uint32_t obj_idx);
NSPA_HIDDEN void pi_update_thread(struct ns *ns, uint32_t slot, int depth);
NSPA_HIDDEN uint32_t pi_own_key(struct ns *ns, struct ns_thread *t, uint32_t current_key);
NSPA_HIDDEN void pi_forget(struct ns *ns, uint32_t slot);
NSPA_HIDDEN void pi_apply_deferred(void);
NSPA_HIDDEN int pi_deferred_pending(void);
#define WAKE_BACKSTOP_NS 1000000000ull   /* see ns_unlock() */

/* reaper.c: the per-process thread that notices the death of waiters boosting this
 * process's threads */
NSPA_HIDDEN void reaper_ensure(struct ns *ns);
NSPA_HIDDEN void reaper_poke_owner(struct ns *ns, uint32_t owner_tid);
NSPA_HIDDEN void reaper_after_fork(void);

static inline struct nspa_tls *self(void)
{
    struct nspa_tls *s = nspa_self;
    if (__builtin_expect(s == NULL, 0))
        s = ns_thread_register();
    return s;
}

static inline uint32_t entry_id(uint32_t slot, uint32_t i) { return slot * WAIT_SLOTS + i + 1; }

#endif
