/*
 * nspa/sync.h — NT synchronization objects in user space.
 *
 * The model is the Linux kernel's ntsync driver (include/uapi/linux/ntsync.h): every
 * ntsync ioctl has an nspa_ call with the same arguments and the same results
 * (docs/sync-ntsync-map.md maps them one to one). On top of ntsync NSPA adds:
 * named objects shared by every process of a namespace without a kernel driver,
 * priority-ordered wakeup, and automatic abandonment of the mutexes of a thread that
 * exits or a process that dies.
 *
 * Conventions (liburing style): functions return 0 on success or a negative errno
 * value; they never set errno. Objects are referred to by per-process handles
 * (nspa_obj_t); a handle is 0 never, and always a multiple of 4 (so that the Win32
 * layer can use it as a HANDLE value unchanged).
 *
 * Errors common to every call taking a handle:
 *   -EBADF   the handle is not open in this process (closed, never opened, garbage)
 *   -EINVAL  the handle is open but names an object of another type
 *   -EFAULT  a required pointer argument is NULL
 *
 * Every call is thread-safe and may be made from any thread, including threads the
 * program made with pthread_create: such a thread gets an NSPA thread id on its first
 * call. Uncontended operations make no system call.
 */
#ifndef NSPA_SYNC_H
#define NSPA_SYNC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t nspa_obj_t;

/* Object types, as returned by nspa_obj_type(). */
enum nspa_obj_type {
    NSPA_TYPE_NONE = 0,
    NSPA_TYPE_SEM = 1,
    NSPA_TYPE_MUTEX = 2,
    NSPA_TYPE_EVENT = 3,
    NSPA_TYPE_THREAD = 4,  /* a manual event set when a Win32 thread ends */
    NSPA_TYPE_FILE = 5,    /* a file or socket (src/io, docs/io.md) */
    NSPA_TYPE_IOCP = 6,    /* an I/O completion port (src/io, docs/io.md) */
    NSPA_TYPE_PROCESS = 7, /* a manual event set when a process ends (Win32 layer) */
    NSPA_TYPE_TIMER = 8,   /* a waitable timer (nspa/timer.h) */
    NSPA_TYPE_SECTION = 12, /* a file mapping (src/vm, docs/vm.md); not waitable */
};

/* = struct ntsync_sem_args */
struct nspa_sem_args {
    uint32_t count;
    uint32_t max;
};

/* = struct ntsync_mutex_args */
struct nspa_mutex_args {
    uint32_t owner;
    uint32_t count;
};

/* = struct ntsync_event_args */
struct nspa_event_args {
    uint32_t manual;
    uint32_t signaled;
};

/* nspa_wait_args.flags */
#define NSPA_WAIT_REALTIME  0x1   /* timeout is CLOCK_REALTIME, not CLOCK_MONOTONIC */

#define NSPA_TIMEOUT_INFINITE UINT64_MAX
#define NSPA_MAX_WAIT_OBJECTS 64

/* = struct ntsync_wait_args, with handles instead of file descriptors. */
struct nspa_wait_args {
    uint64_t timeout;        /* absolute ns on CLOCK_MONOTONIC (or REALTIME), or INFINITE */
    const nspa_obj_t *objs;  /* count handles */
    uint32_t count;          /* 0..NSPA_MAX_WAIT_OBJECTS */
    uint32_t index;          /* out: index of the acquired object; count = the alert */
    uint32_t flags;          /* NSPA_WAIT_REALTIME */
    uint32_t owner;          /* owner id for mutexes (0 is accepted, as by ntsync) */
    nspa_obj_t alert;        /* optional alert object (any type), 0 for none */
    uint32_t pad;
};

/* ---- Namespaces --------------------------------------------------------------------
 *
 * Named objects live in a namespace: a shared memory region readable and writable by
 * its owning user alone (mode 0600). The default namespace is "default", per user; the
 * environment variable NSPA_NAMESPACE selects another one (as WINEPREFIX selects a Wine
 * prefix), and a program may choose one with nspa_set_namespace() before its first
 * NSPA call. Names are [A-Za-z0-9._-]{1,64}.
 *
 * Unnamed objects are reachable only through the creating process's handles (and its
 * fork children's copies of them); they live in the process's own memory and work
 * whatever happens to the namespace region (see docs/sync.md).
 *
 * Named calls fail with -EACCES when the namespace cannot be had safely (its file or
 * directory belongs to someone else, is a symlink, or is readable by others), and with
 * -EMFILE when the namespace has no free process slot; -ENOSPC when a table of the
 * namespace (objects, names) is full or the calling thread has no namespace slot.
 */

/*
 * nspa_set_namespace - choose the namespace of this process
 *   Must be called before any other NSPA call. Returns 0, -EINVAL for a bad name,
 *   -EBUSY if the process already attached to a namespace.
 */
int nspa_set_namespace(const char *name);

/*
 * nspa_namespace_path - the path of the shared memory file backing this process's
 *   namespace, for diagnostics. Attaches to the namespace if not attached yet.
 *   Returns a pointer to a static string, or NULL if the namespace cannot be opened.
 */
const char *nspa_namespace_path(void);

/* ---- Creation, naming and handles -------------------------------------------------- */

/*
 * nspa_create_sem - create a semaphore (NTSYNC_IOC_CREATE_SEM)
 * nspa_create_mutex - create a mutex (NTSYNC_IOC_CREATE_MUTEX)
 * nspa_create_event - create an event (NTSYNC_IOC_CREATE_EVENT)
 *   @name: NULL for an unnamed object, else a name (UTF-8, 1..NSPA_MAX_NAME bytes, no
 *          NUL) in this process's namespace. If an object of that name exists, it is
 *          opened instead and its state is left alone.
 *   @out:  receives the new handle.
 *   Returns 0 when a new object was created, NSPA_EXISTED (a positive value) when an
 *   existing named object was opened, or:
 *   -EINVAL  semaphore count > max; mutex owner and count not both zero or both
 *            non-zero; a bad name (event flags: any non-zero value is true, and
 *            reads back as 1, as in ntsync);
 *   -EEXIST  the name exists with another object type (Win32: ERROR_INVALID_HANDLE);
 *   -ENOMEM  out of memory;
 *   -EMFILE  the process's handle table is full;
 *   -ENOSPC  the namespace's object or name table is full;
 *   -EACCES  (named) the namespace cannot be had safely (see above);
 *   -EFAULT  args or out is NULL.
 */
#define NSPA_EXISTED 1
#define NSPA_MAX_NAME 780   /* MAX_PATH UTF-16 units as UTF-8, worst case */
int nspa_create_sem(const struct nspa_sem_args *args, const char *name, nspa_obj_t *out);
int nspa_create_mutex(const struct nspa_mutex_args *args, const char *name, nspa_obj_t *out);
int nspa_create_event(const struct nspa_event_args *args, const char *name, nspa_obj_t *out);

/*
 * nspa_open - open an existing named object
 *   @type: the expected type (NSPA_TYPE_SEM/MUTEX/EVENT), or NSPA_TYPE_NONE for any.
 *   Returns 0, -ENOENT if no object has that name, -EEXIST if it has another type,
 *   -EINVAL for a bad name, -ENOMEM if the handle table is full.
 */
int nspa_open(int type, const char *name, nspa_obj_t *out);

/*
 * nspa_close - close a handle (close() of an ntsync object fd)
 *   The object lives on while another handle (in any process) or a wait refers to it.
 *   A thread waiting on it is not woken. Returns 0, -EBADF, or -EPERM when the handle
 *   is protected from close (NSPA_HANDLE_PROTECT).
 */
int nspa_close(nspa_obj_t obj);

/*
 * nspa_dup - a second handle to the same object, in this process (dup()).
 *   Returns 0, -EBADF, -ENOMEM.
 */
int nspa_dup(nspa_obj_t obj, nspa_obj_t *out);

/* nspa_obj_type - the type of the object behind a handle, or -EBADF. */
int nspa_obj_type(nspa_obj_t obj);

/*
 * nspa_handle_get_flags / nspa_handle_set_flags - a handle's flags (Win32
 *   GetHandleInformation / SetHandleInformation): NSPA_HANDLE_INHERIT (the handle goes
 *   to child processes, with the processes work) and NSPA_HANDLE_PROTECT (nspa_close
 *   refuses it). set changes the bits in @mask to those of @flags.
 *   Returns 0, -EBADF, -EFAULT, -EINVAL (unknown bits).
 */
#define NSPA_HANDLE_INHERIT 0x1
#define NSPA_HANDLE_PROTECT 0x2
int nspa_handle_get_flags(nspa_obj_t obj, uint32_t *flags);
int nspa_handle_set_flags(nspa_obj_t obj, uint32_t mask, uint32_t flags);

/* ---- Operations ------------------------------------------------------------------- */

/*
 * nspa_sem_release - NTSYNC_IOC_SEM_RELEASE
 *   @count: in: how much to add (0 allowed); out: the previous count.
 *   Wakes up to *count waiters, highest priority first.
 *   Returns 0, or -EOVERFLOW (count would exceed max or 2^32-1; nothing changes).
 */
int nspa_sem_release(nspa_obj_t sem, uint32_t *count);

/*
 * nspa_mutex_unlock - NTSYNC_IOC_MUTEX_UNLOCK
 *   @args: in: owner (must not be 0); out: count = the previous recursion count.
 *   Returns 0, -EINVAL (owner 0), -EPERM (not the owner, or the mutex is unowned).
 */
int nspa_mutex_unlock(nspa_obj_t mutex, struct nspa_mutex_args *args);

/*
 * nspa_mutex_kill - NTSYNC_IOC_MUTEX_KILL: abandon the mutex on behalf of @owner.
 *   The mutex becomes unowned and abandoned; the next acquirer gets -EOWNERDEAD.
 *   Returns 0, -EINVAL (owner 0), -EPERM (@owner does not own it).
 */
int nspa_mutex_kill(nspa_obj_t mutex, uint32_t owner);

/*
 * nspa_event_set / nspa_event_reset / nspa_event_pulse - NTSYNC_IOC_EVENT_SET/RESET/PULSE
 *   @prev: out (may be NULL): the previous signaled state.
 *   Pulse is one atomic step: set, wake what can be woken (one waiter for an
 *   auto-reset event, every current waiter for a manual one), reset.
 */
int nspa_event_set(nspa_obj_t event, uint32_t *prev);
int nspa_event_reset(nspa_obj_t event, uint32_t *prev);
int nspa_event_pulse(nspa_obj_t event, uint32_t *prev);

/*
 * nspa_sem_read / nspa_mutex_read / nspa_event_read - NTSYNC_IOC_*_READ
 *   nspa_mutex_read returns -EOWNERDEAD (with owner 0, count 0 filled in) while the
 *   mutex is abandoned.
 */
int nspa_sem_read(nspa_obj_t sem, struct nspa_sem_args *args);
int nspa_mutex_read(nspa_obj_t mutex, struct nspa_mutex_args *args);
int nspa_event_read(nspa_obj_t event, struct nspa_event_args *args);

/*
 * nspa_wait_any - NTSYNC_IOC_WAIT_ANY
 *   Acquires exactly one object: the lowest index that is signaled; the alert (if any:
 *   an object of any type, acquired like the others when it ends the wait) is checked
 *   last and reported as index = count. Duplicates are allowed. Owner 0 is a valid
 *   owner (a mutex taken by owner 0 keeps owner 0 with its count raised, as ntsync).
 *   Waiters are served highest scheduler priority first, FIFO among equals.
 *   Returns 0 with args->index set; -EOWNERDEAD with index set when the acquired
 *   mutex was abandoned (it is acquired all the same); -ETIMEDOUT; -EINVAL (count >
 *   64, bad flags, pad); -EBADF/-EINVAL for bad handles; -EFAULT.
 *   Signals do not interrupt a wait (SA_RESTART or not): NT waits are not EINTR-able.
 *
 * nspa_wait_all - NTSYNC_IOC_WAIT_ALL
 *   Acquires every object in one atomic step or none; a timeout leaves them all
 *   untouched. Duplicates, or the alert among the objects, are -EINVAL. If the
 *   objects and the alert are both ready, the objects win. -EOWNERDEAD reports the
 *   index of an abandoned mutex among the acquired ones.
 */
int nspa_wait_any(struct nspa_wait_args *args);
int nspa_wait_all(struct nspa_wait_args *args);

/*
 * nspa_obj_waiters - diagnostics: how many waits are queued on the object now.
 *   Returns the count, or -EBADF. The value may be stale as soon as it is returned;
 *   tests use it to know that a thread has started waiting.
 */
int nspa_obj_waiters(nspa_obj_t obj);

/*
 * nspa_check_namespace - diagnostics: verify the invariants of this process's
 *   namespace (the lock can be taken and its journal is committed; every wait queue
 *   is well linked and points at live waits of live thread slots; an object without
 *   waiters is not left claimed; reference counts cover the handles of live
 *   processes). Takes the namespace lock. Returns 0, or -EUCLEAN after printing the
 *   first violations to stderr.
 */
int nspa_check_namespace(void);

/*
 * nspa_namespace_stats - diagnostics: counters of this process's namespace.
 *   lock_recoveries: object locks the next locker took over from a dead holder (the
 *   object repaired); registry_recoveries: registry sections rolled back; processes,
 *   threads: slots in use (dead ones count until they are swept); objects: named
 *   objects alive. Returns 0, -EFAULT, or the namespace's error (-EACCES, -EMFILE).
 */
struct nspa_ns_stats {
    uint64_t lock_recoveries;
    uint64_t registry_recoveries;
    uint32_t processes;
    uint32_t threads;
    uint32_t objects;
    uint32_t pad;
};
int nspa_namespace_stats(struct nspa_ns_stats *st);

/* ---- Threads --------------------------------------------------------------------- */

/*
 * nspa_thread_id - the calling thread's NSPA thread id: its Linux thread id (gettid),
 *   never 0, unique among live threads of the machine. This is the owner id the Win32
 *   layer uses; mutexes whose owner id is the id of a thread that exits (or whose
 *   process dies) are abandoned automatically. Other owner ids are the caller's to
 *   manage with nspa_mutex_kill(), as with ntsync.
 */
uint32_t nspa_thread_id(void);

/*
 * nspa_time_ns - CLOCK_MONOTONIC now, in ns (the clock of wait timeouts).
 */
uint64_t nspa_time_ns(void);

#ifdef __cplusplus
}
#endif
#endif
