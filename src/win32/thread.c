/*
 * Win32 threads over pthreads: CreateThread with waitable thread handles, exit codes,
 * QueueUserAPC with alertable waits, Sleep/SleepEx/SwitchToThread, and the clocks.
 *
 * A thread's Win32 state (APC queue, alert event, thread object) lives in a record
 * created when the thread starts through CreateThread, or on first need for threads
 * the program made with pthread_create. Records are found by thread id through a
 * small registry (a mutex and a list); nothing on a wait path touches it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "vm/vm_api.h"
#include "common/export.h"
#include "win32/win32_private.h"
#include "win32/process_private.h"
#include "sched/sched_internal.h"

/* A queued APC is a struct nspa_apc (win32_private.h): NtQueueApcThread's three-argument
 * form (QueueUserAPC's routine and data travel as arg1 and arg2 through user_apc_call).
 * The ones queued here are malloc'ed (release NULL); other modules queue records of
 * their own (I/O completion routines) with nspa__win32_queue_apc_rec. */
#define apc nspa_apc

struct w32_thread {
    struct w32_thread *next;            /* registry */
    uint32_t tid;
    nspa_obj_t thread_obj;              /* the record's own reference, 0 if none yet */
    nspa_obj_t apc_event;               /* 0 until first needed */
    pthread_mutex_t lock;               /* APC queue and start gate */
    pthread_cond_t cond;
    struct apc *apc_head, *apc_tail;
    /* special user APCs (QueueUserAPC2): a lock-free stack the signal handler empties,
     * and the nodes it ran, freed later outside the handler */
    struct apc *_Atomic special_head;
    struct apc *_Atomic special_done;
    pthread_t pt;
    LPTHREAD_START_ROUTINE start;
    void *param;
    int started, suspended, exited;
    int handed;                         /* CreateThread is done with the record */
    int in_tls;                         /* a foreign thread's record: static TLS, not freed */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct w32_thread *registry;
static pthread_key_t rec_key;
static pthread_once_t rec_once = PTHREAD_ONCE_INIT;
static __thread struct w32_thread *cur;

static void thread_finish(struct w32_thread *t, DWORD code);
static void apc_free_list(struct apc *a);
static void apc_drop_list(struct apc *a);

static void rec_destructor(void *arg)
{
    struct w32_thread *t = arg;
    if (t && !t->exited) thread_finish(t, 0);
}

/* fork child: only the forking thread exists; its record (and every other) belongs
 * to the parent. */
static void rec_atfork_child(void)
{
    cur = NULL;
    registry = NULL;
    pthread_mutex_init(&registry_lock, NULL);
}

static void rec_key_init(void)
{
    pthread_key_create(&rec_key, rec_destructor);
    pthread_atfork(NULL, NULL, rec_atfork_child);
}

static struct w32_thread *rec_new(void)
{
    struct w32_thread *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    return t;
}

static void registry_add(struct w32_thread *t)
{
    pthread_mutex_lock(&registry_lock);
    t->next = registry;
    registry = t;
    pthread_mutex_unlock(&registry_lock);
}

/* Registry lookup; returns with registry_lock HELD on success (caller unlocks). */
static struct w32_thread *registry_find_locked(uint32_t tid)
{
    pthread_mutex_lock(&registry_lock);
    for (struct w32_thread *t = registry; t; t = t->next)
        if (t->tid == tid) return t;
    pthread_mutex_unlock(&registry_lock);
    return NULL;
}

/* The calling thread's record, made on first use for threads not made by CreateThread:
 * in static TLS, so that a thread's first (alertable) wait allocates nothing. */
static __thread struct w32_thread tls_rec;

static struct w32_thread *current(void)
{
    struct w32_thread *t = cur;
    if (t) return t;
    pthread_once(&rec_once, rec_key_init);
    t = &tls_rec;
    memset(t, 0, sizeof(*t));
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->cond, NULL);
    t->in_tls = 1;
    t->pt = pthread_self();
    t->tid = nspa_thread_id();
    t->started = 1;
    cur = t;
    pthread_setspecific(rec_key, t);
    registry_add(t);
    return t;
}

/* Thread end: abandon its mutexes, signal its thread object with the exit code, drop
 * its record. */
static void thread_finish(struct w32_thread *t, DWORD code)
{
    t->exited = 1;
    pthread_mutex_lock(&registry_lock);
    for (struct w32_thread **pp = &registry; *pp; pp = &(*pp)->next)
        if (*pp == t) { *pp = t->next; break; }
    pthread_mutex_unlock(&registry_lock);
    /* its message queue and windows end before its handle is signaled, as on Windows */
    nspa__msg_thread_exit();
    nspa__thread_unregister();
    if (t->thread_obj) {
        nspa__thread_obj_signal(t->thread_obj, code);
        nspa_close(t->thread_obj);
    }
    if (t->apc_event) nspa_close(t->apc_event);
    /* APCs still queued are dropped, as Windows drops a dead thread's */
    apc_drop_list(t->apc_head);
    apc_free_list(atomic_exchange(&t->special_head, NULL));
    apc_free_list(atomic_exchange(&t->special_done, NULL));
    pthread_setspecific(rec_key, NULL);
    cur = NULL;
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->cond);
    if (!t->in_tls) free(t);
}

static void *trampoline(void *arg)
{
    struct w32_thread *t = arg;
    cur = t;
    t->pt = pthread_self();
    pthread_setspecific(rec_key, t);
    uint32_t tid = nspa_thread_id();
    rt_thread_start();
    nspa__vm_thread_start();              /* its alternate signal stack, if exceptions are used */
    nspa__thread_obj_set_tid(t->thread_obj, tid);
    pthread_mutex_lock(&t->lock);
    t->tid = tid;
    t->started = 1;
    pthread_cond_broadcast(&t->cond);
    /* wait until CreateThread has registered us (our record must not be freed
     * under it) and, with CREATE_SUSPENDED, until ResumeThread */
    while (!t->handed || t->suspended)
        pthread_cond_wait(&t->cond, &t->lock);
    pthread_mutex_unlock(&t->lock);
    DWORD code = t->start(t->param);
    thread_finish(t, code);
    return NULL;
}

NSPA_EXPORT HANDLE WINAPI CreateThread(LPSECURITY_ATTRIBUTES sa, SIZE_T stack, LPTHREAD_START_ROUTINE start,
                                       LPVOID param, DWORD flags, LPDWORD tid)
{
    if (!start || (flags & ~(CREATE_SUSPENDED | STACK_SIZE_PARAM_IS_A_RESERVATION))) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    pthread_once(&rec_once, rec_key_init);
    struct w32_thread *t = rec_new();
    if (!t) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    t->start = start;
    t->param = param;
    t->suspended = (flags & CREATE_SUSPENDED) != 0;
    nspa_obj_t mine, theirs;
    int r = nspa__create_thread_obj(&mine);
    if (!r && (r = nspa_dup(mine, &theirs)) < 0) nspa_close(mine);
    if (r) {
        free(t);
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return NULL;
    }
    t->thread_obj = mine;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (stack) {
        size_t s = stack < (SIZE_T)PTHREAD_STACK_MIN ? (size_t)PTHREAD_STACK_MIN : (stack + 65535) & ~(size_t)65535;
        pthread_attr_setstacksize(&attr, s);
    }
    pthread_t pt;
    pthread_mutex_lock(&t->lock);
    r = pthread_create(&pt, &attr, trampoline, t);
    pthread_attr_destroy(&attr);
    if (r) {
        pthread_mutex_unlock(&t->lock);
        nspa_close(mine);
        nspa_close(theirs);
        free(t);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    /* the id is known once the thread has registered (Windows returns it at once) */
    while (!t->started)
        pthread_cond_wait(&t->cond, &t->lock);
    uint32_t id = t->tid;
    pthread_mutex_unlock(&t->lock);
    /* The thread cannot finish (and free t) before 'handed' is set. The registry is
     * not touched under t->lock: the lock order is registry_lock, then t->lock. */
    registry_add(t);
    pthread_mutex_lock(&t->lock);
    t->handed = 1;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    if (tid) *tid = id;
    return (HANDLE)(uintptr_t)theirs;
}

NSPA_EXPORT void WINAPI ExitThread(DWORD code)
{
    thread_finish(current(), code);
    pthread_exit(NULL);
}

NSPA_HIDDEN uint32_t nspa__thread_access(void *h, uint32_t need)
{
    if (h == GetCurrentThread()) return 0;
    int r = nspa__handle_check(nspa__win32_h(h), NSPA_TYPE_THREAD, need);
    return r ? win32_error_from_errno(r, WIN32_ERR_OBJECT) : 0;   /* another type: ERROR_INVALID_HANDLE */
}

#define THREAD_QUERY_ANY (THREAD_QUERY_INFORMATION | THREAD_QUERY_LIMITED_INFORMATION)

NSPA_EXPORT BOOL WINAPI GetExitCodeThread(HANDLE h, LPDWORD code)
{
    uint32_t tid, ec;
    int sig;
    if (h == GetCurrentThread()) {
        if (code) *code = STILL_ACTIVE;
        return TRUE;
    }
    DWORD e = nspa__thread_access(h, THREAD_QUERY_ANY);
    int r = e ? 0 : nspa__thread_obj_info(nspa__win32_h(h), &tid, &ec, &sig);
    if (e || r) {
        SetLastError(e ? e : win32_error_from_errno(r, WIN32_ERR_OBJECT));   /* not a thread handle */
        return FALSE;
    }
    if (!code) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    *code = sig ? ec : STILL_ACTIVE;
    return TRUE;
}

NSPA_EXPORT DWORD WINAPI GetThreadId(HANDLE h)
{
    uint32_t tid, ec;
    int sig;
    if (h == GetCurrentThread()) return nspa_thread_id();
    DWORD e = nspa__thread_access(h, THREAD_QUERY_ANY);
    int r = e ? 0 : nspa__thread_obj_info(nspa__win32_h(h), &tid, &ec, &sig);
    if (e || r) {
        SetLastError(e ? e : win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return 0;
    }
    return tid;
}

NSPA_EXPORT DWORD WINAPI ResumeThread(HANDLE h)
{
    uint32_t tid, ec;
    int sig;
    DWORD e = nspa__thread_access(h, THREAD_SUSPEND_RESUME);
    int r = e ? 0 : nspa__thread_obj_info(nspa__win32_h(h), &tid, &ec, &sig);
    if (e || r) {
        SetLastError(e ? e : win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return (DWORD)-1;
    }
    struct w32_thread *t = registry_find_locked(tid);
    DWORD prev = 0;
    if (!t) {
        nspa__proc_resume(tid, &prev);       /* a CREATE_SUSPENDED child's main thread */
        return prev;
    }
    pthread_mutex_lock(&t->lock);
    prev = (DWORD)t->suspended;
    t->suspended = 0;
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    pthread_mutex_unlock(&registry_lock);
    return prev;
}

NSPA_EXPORT DWORD WINAPI GetCurrentThreadId(void) { return nspa_thread_id(); }
NSPA_EXPORT DWORD WINAPI GetCurrentProcessId(void) { return (DWORD)getpid(); }

NSPA_HIDDEN nspa_obj_t nspa__win32_current_thread_obj(void)
{
    struct w32_thread *t = current();
    if (!t->thread_obj) {
        nspa_obj_t h = 0;
        if (nspa__create_thread_obj(&h)) return 0;
        nspa__thread_obj_set_tid(h, t->tid);
        t->thread_obj = h;
    }
    return t->thread_obj;
}

NSPA_HIDDEN int nspa__win32_thread_handle_by_tid(uint32_t tid, nspa_obj_t *out)
{
    if (tid == nspa_thread_id()) return nspa__win32_current_thread_handle(out);
    struct w32_thread *t = registry_find_locked(tid);
    if (!t) return -ESRCH;
    int r = t->thread_obj ? nspa_dup(t->thread_obj, out) : -ESRCH;
    pthread_mutex_unlock(&registry_lock);
    return r;
}

NSPA_HIDDEN int nspa__win32_current_thread_handle(nspa_obj_t *out)
{
    nspa_obj_t h = nspa__win32_current_thread_obj();
    return h ? nspa_dup(h, out) : -ENOMEM;
}

/* ---- APCs ------------------------------------------------------------------------ */

static nspa_obj_t apc_event_locked(struct w32_thread *t)
{
    if (!t->apc_event) {
        struct nspa_event_args a = { 0, 0 };
        if (nspa_create_event(&a, NULL, &t->apc_event) < 0) t->apc_event = 0;
    }
    return t->apc_event;
}

NSPA_HIDDEN nspa_obj_t nspa__win32_apc_event(void)
{
    struct w32_thread *t = current();
    pthread_mutex_lock(&t->lock);
    nspa_obj_t e = apc_event_locked(t);
    pthread_mutex_unlock(&t->lock);
    return e;
}

static void apc_free_list(struct apc *a)
{
    while (a) {
        struct apc *n = a->next;
        free(a);
        a = n;
    }
}

/* Queued APCs that will never run (their thread ended): each goes back to its owner. */
static void apc_drop_list(struct apc *a)
{
    while (a) {
        struct apc *n = a->next;
        if (a->drop) a->drop(a);
        else if (a->release) a->release(a);
        else free(a);
        a = n;
    }
}

NSPA_HIDDEN int nspa__win32_run_apcs(void)
{
    struct w32_thread *t = cur;
    if (!t) return 0;
    apc_free_list(atomic_exchange(&t->special_done, NULL));
    if (!__atomic_load_n(&t->apc_head, __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&t->lock);
    struct apc *list = t->apc_head;
    t->apc_head = t->apc_tail = NULL;
    pthread_mutex_unlock(&t->lock);
    int n = 0;
    while (list) {
        struct apc *a = list;
        list = a->next;
        /* the record goes back before the routine runs (it may queue it again) */
        void (*fn)(uintptr_t, uintptr_t, uintptr_t) = a->fn;
        uintptr_t a1 = a->a1, a2 = a->a2, a3 = a->a3;
        if (a->release) a->release(a);
        else free(a);
        fn(a1, a2, a3);
        n++;
    }
    return n;
}

/* Special user APCs of the calling thread, in queue order. Runs in the signal handler
 * (or directly, for the queuer's own thread): no lock, no free (the nodes go to
 * special_done). */
static void run_special(struct w32_thread *t)
{
    struct apc *l = atomic_exchange(&t->special_head, NULL), *fifo = NULL;
    while (l) {                      /* the stack is newest first */
        struct apc *n = l->next;
        l->next = fifo;
        fifo = l;
        l = n;
    }
    while (fifo) {
        struct apc *a = fifo;
        fifo = a->next;
        a->fn(a->a1, a->a2, a->a3);
        struct apc *d = atomic_load(&t->special_done);
        do a->next = d;
        while (!atomic_compare_exchange_weak(&t->special_done, &d, a));
    }
}

/* The signal that delivers special user APCs to another thread: chosen from the top of
 * the real-time range (applications usually take SIGRTMIN + n); if the program already
 * handles it, special APCs to other threads are refused rather than stolen. */
#define APC_SIGNAL (SIGRTMAX - 1)
static pthread_once_t apc_sig_once = PTHREAD_ONCE_INIT;
static int apc_sig_ok;

static void apc_sig_handler(int sig)
{
    (void)sig;
    int saved = errno;
    if (cur) run_special(cur);
    errno = saved;
}

static void apc_sig_init(void)
{
    struct sigaction old, sa;
    if (sigaction(APC_SIGNAL, NULL, &old) || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN))
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = apc_sig_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    apc_sig_ok = sigaction(APC_SIGNAL, &sa, NULL) == 0;
}

static void CALLBACK user_apc_call(ULONG_PTR fn, ULONG_PTR data, ULONG_PTR unused)
{
    (void)unused;
    ((PAPCFUNC)fn)(data);
}

/* Append @a to @t's queue and set its alert. Called with the registry lock (from
 * registry_find_locked), which it releases. */
static void apc_enqueue(struct w32_thread *t, struct apc *a)
{
    pthread_mutex_lock(&t->lock);
    if (t->apc_tail) t->apc_tail->next = a;
    else __atomic_store_n(&t->apc_head, a, __ATOMIC_RELEASE);
    t->apc_tail = a;
    nspa_obj_t ev = apc_event_locked(t);
    pthread_mutex_unlock(&t->lock);
    /* set the alert while the registry still pins the thread: once it is out, the
     * thread may close its event and the handle value be reused */
    if (ev) nspa_event_set(ev, NULL);
    pthread_mutex_unlock(&registry_lock);
}

/* Queue an APC for @h. Returns 0, -EBADF (not a thread), -ESRCH (the thread has ended),
 * -ENOMEM, -ENOTSUP (special APCs cannot be delivered). A NULL @fn is accepted and
 * queues nothing (NtQueueApcThread's answer). */
NSPA_HIDDEN int nspa__win32_queue_apc(HANDLE h, PNTAPCFUNC fn, ULONG_PTR a1, ULONG_PTR a2, ULONG_PTR a3,
                                      int special)
{
    uint32_t tid, ec;
    int sig;
    if (h == GetCurrentThread()) tid = current()->tid;
    else if (nspa__thread_obj_info(nspa__win32_h(h), &tid, &ec, &sig)) return -EBADF;
    else if (nspa__thread_access(h, THREAD_SET_CONTEXT)) return -EACCES;
    struct apc *a = NULL;
    if (fn) {
        a = malloc(sizeof(*a));
        if (!a) return -ENOMEM;
        *a = (struct apc){ .fn = fn, .a1 = a1, .a2 = a2, .a3 = a3 };
    }
    if (special && tid != nspa_thread_id()) {
        pthread_once(&apc_sig_once, apc_sig_init);
        if (!apc_sig_ok) {
            free(a);
            return -ENOTSUP;
        }
    }
    struct w32_thread *t = registry_find_locked(tid);
    if (!t) {
        free(a);
        return -ESRCH;
    }
    if (!a) {
        pthread_mutex_unlock(&registry_lock);
        return 0;
    }
    if (special) {
        struct apc *hd = atomic_load(&t->special_head);
        do a->next = hd;
        while (!atomic_compare_exchange_weak(&t->special_head, &hd, a));
        /* the registry pins the thread: it cannot be past its end while we hold it */
        if (t == cur) {
            pthread_mutex_unlock(&registry_lock);
            run_special(t);          /* our own: before returning, as Windows does */
            return 0;
        }
        pthread_kill(t->pt, APC_SIGNAL);
        pthread_mutex_unlock(&registry_lock);
        return 0;
    }
    apc_enqueue(t, a);
    return 0;
}

NSPA_HIDDEN int nspa__win32_queue_apc_rec(uint32_t tid, struct nspa_apc *a)
{
    a->next = NULL;
    struct w32_thread *t = registry_find_locked(tid);
    if (!t) return -ESRCH;
    apc_enqueue(t, a);
    return 0;
}

/* an ended thread (-ESRCH): NtQueueApcThread's STATUS_UNSUCCESSFUL, i.e. ERROR_GEN_FAILURE;
 * no THREAD_SET_CONTEXT (-EACCES): ERROR_ACCESS_DENIED */
static DWORD apc_error(int r) { return win32_error_from_errno(r, WIN32_ERR_OBJECT | WIN32_ERR_APC); }

NSPA_EXPORT DWORD WINAPI QueueUserAPC(PAPCFUNC fn, HANDLE h, ULONG_PTR data)
{
    if (!fn) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    int r = nspa__win32_queue_apc(h, user_apc_call, (ULONG_PTR)fn, data, 0, 0);
    if (r) {
        SetLastError(apc_error(r));
        return 0;
    }
    return 1;
}

NSPA_EXPORT BOOL WINAPI QueueUserAPC2(PAPCFUNC fn, HANDLE h, ULONG_PTR data, QUEUE_USER_APC_FLAGS flags)
{
    if (!fn || (flags & ~QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    int r = nspa__win32_queue_apc(h, user_apc_call, (ULONG_PTR)fn, data, 0,
                                  (flags & QUEUE_USER_APC_FLAGS_SPECIAL_USER_APC) != 0);
    if (r) {
        SetLastError(apc_error(r));
        return FALSE;
    }
    return TRUE;
}

/* ---- sleeping -------------------------------------------------------------------- */

/* Over NtDelayExecution: INFINITE is a NULL interval, else a relative one; 0 yields
 * once. Alertable: WAIT_IO_COMPLETION when APCs ran (STATUS_USER_APC), else 0. */
NSPA_EXPORT DWORD WINAPI SleepEx(DWORD ms, BOOL alertable)
{
    LARGE_INTEGER t = { .QuadPart = -(LONGLONG)ms * 10000 };
    NTSTATUS s = NtDelayExecution(alertable ? TRUE : FALSE, ms == INFINITE ? NULL : &t);
    return s == STATUS_USER_APC ? WAIT_IO_COMPLETION : 0;
}

NSPA_EXPORT void WINAPI Sleep(DWORD ms) { SleepEx(ms, FALSE); }

/* sched_yield() gives no "nothing else was ready" answer: TRUE, as when a switch was made */
NSPA_EXPORT BOOL WINAPI SwitchToThread(void) { return NtYieldExecution() == STATUS_SUCCESS; }

/* ---- clocks ---------------------------------------------------------------------- */

/* The performance counter ticks at 10 MHz (100 ns), like Windows on most machines;
 * it is CLOCK_MONOTONIC, read through the vDSO (no system call). */
NSPA_EXPORT BOOL WINAPI QueryPerformanceCounter(LARGE_INTEGER *c)
{
    NTSTATUS s = NtQueryPerformanceCounter(c, NULL);
    if (likely(s == STATUS_SUCCESS)) return TRUE;
    SetLastError(RtlNtStatusToDosError(s));      /* NULL: ERROR_NOACCESS */
    return FALSE;
}

NSPA_EXPORT BOOL WINAPI QueryPerformanceFrequency(LARGE_INTEGER *f)
{
    if (!f) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    f->QuadPart = 10000000;
    return TRUE;
}

NSPA_EXPORT ULONGLONG WINAPI GetTickCount64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (ULONGLONG)ts.tv_sec * 1000ull + (ULONGLONG)ts.tv_nsec / 1000000ull;
}

NSPA_EXPORT DWORD WINAPI GetTickCount(void) { return (DWORD)GetTickCount64(); }
