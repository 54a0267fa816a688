/*
 * Win32 sync objects, handles and waits.
 *
 * The object calls are kernel32's shape: argument translation (a name as the NT path
 * in OBJECT_ATTRIBUTES, on the stack; BOOLs; ms timeouts as LARGE_INTEGERs), one Nt*
 * call of the NT native layer (src/nt/), and RtlNtStatusToDosError into the last error
 * (docs/nt.md). The waits are NtWaitFor* too (one wait function for both layers,
 * nspa__win32_wait); WaitForSingleObject keeps a short path for the common case.
 * HANDLE values are nspa handles (multiples of 4), so the mapping costs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uchar.h>
#include "nspa/sync.h"
#include "nspa/unicode.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"
#include "win32/process_private.h"
#include "io/io_api.h"

static inline nspa_obj_t H(HANDLE h) { return nspa__win32_h(h); }

/* The Win32 end of an Nt* call: TRUE, or FALSE with the status's Win32 error. */
static inline BOOL nt_ok(NTSTATUS s)
{
    if (likely(s == STATUS_SUCCESS)) return TRUE;
    SetLastError(RtlNtStatusToDosError(s));
    return FALSE;
}

static inline BOOL fail(DWORD err)
{
    SetLastError(err);
    return FALSE;
}

static inline HANDLE fail_h(DWORD err)
{
    SetLastError(err);
    return NULL;
}

/* ---- names: kernel32's object names as the NT paths it gives NtCreate* / NtOpen* ----
 *
 * kernel32 names an object "X" in its session's \Sessions\<n>\BaseNamedObjects
 * directory, where "Local\" and "Global\" are links (docs/nt.md: "X" and "Local\X" are
 * one object, "Global\X" another). The path is built on the caller's stack (struct
 * nspa_obj_name): no allocation. A names are UTF-8 here (kernel32: the ANSI code page),
 * converted with Windows' replacement rules. A name longer than MAX_PATH units fails
 * with ERROR_FILENAME_EXCED_RANGE, as kernel32 converts A names into a MAX_PATH buffer
 * (W names get the same limit). Any other backslash names a directory NSPA does not
 * have: ERROR_PATH_NOT_FOUND, as on Windows. */

static const char16_t session_dir[] = u"\\Sessions\\1\\BaseNamedObjects\\";
_Static_assert(NSPA__OBJ_DIR_UNITS == sizeof(session_dir) / 2 - 1, "nspa_obj_name's prefix size");

NSPA_HIDDEN DWORD nspa__win32_obj_attr(struct nspa_obj_name *n, LPCWSTR w, LPCSTR a, ULONG attributes, int open)
{
    size_t len = 0;
    WCHAR *dst = n->buf + NSPA__OBJ_DIR_UNITS;
    InitializeObjectAttributes(&n->attr, NULL, attributes, NULL, NULL);
    if (w) {
        for (; w[len]; len++)
            if (len >= MAX_PATH) return ERROR_FILENAME_EXCED_RANGE;
        memcpy(dst, w, len * sizeof(WCHAR));
    } else if (a) {
        unsigned st = 0;
        len = nspa_utf8_to_utf16(a, strlen(a), dst, MAX_PATH, &st);
        if (st & NSPA_UNICODE_TRUNCATED) return ERROR_FILENAME_EXCED_RANGE;
    } else {
        return 0;                          /* unnamed */
    }
    if (!len && !open) return 0;           /* Create*("") makes an unnamed object */
    memcpy(n->buf, session_dir, NSPA__OBJ_DIR_UNITS * sizeof(WCHAR));
    n->str.Length = n->str.MaximumLength = (USHORT)((NSPA__OBJ_DIR_UNITS + len) * sizeof(WCHAR));
    n->str.Buffer = n->buf;
    n->attr.ObjectName = &n->str;
    return 0;
}

/* kernel32's attributes for a create: an existing name is opened; the handle is
 * inheritable as SECURITY_ATTRIBUTES.bInheritHandle says (the descriptor is ignored:
 * NSPA has no access checks). */
static ULONG create_attributes(const SECURITY_ATTRIBUTES *sa)
{
    return OBJ_OPENIF | (sa && sa->bInheritHandle ? OBJ_INHERIT : 0);
}

/* The end of a Create call: the handle, ERROR_ALREADY_EXISTS when an existing object
 * was opened, else ERROR_SUCCESS; or NULL with the status's error. */
NSPA_HIDDEN HANDLE nspa__win32_created(NTSTATUS s, HANDLE h)
{
    if (!NT_SUCCESS(s)) return fail_h(RtlNtStatusToDosError(s));
    SetLastError(s == STATUS_OBJECT_NAME_EXISTS ? ERROR_ALREADY_EXISTS : ERROR_SUCCESS);
    return h;
}

/* Open*A/W: a name is required (ERROR_INVALID_PARAMETER); bInheritHandle is OBJ_INHERIT. */
NSPA_HIDDEN HANDLE nspa__win32_open(nspa_nt_open_fn op, DWORD access, BOOL inherit, LPCWSTR w, LPCSTR a)
{
    struct nspa_obj_name n;
    HANDLE h = NULL;
    if (!w && !a) return fail_h(ERROR_INVALID_PARAMETER);
    DWORD e = nspa__win32_obj_attr(&n, w, a, inherit ? OBJ_INHERIT : 0, 1);
    if (e) return fail_h(e);
    NTSTATUS s = op(&h, access, &n.attr);
    return s ? fail_h(RtlNtStatusToDosError(s)) : h;
}

/* ---- events ----------------------------------------------------------------------- */

static HANDLE create_event(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, BOOL manual, BOOL initial, DWORD access)
{
    struct nspa_obj_name n;
    HANDLE h = NULL;
    DWORD e = nspa__win32_obj_attr(&n, w, a, create_attributes(sa), 0);
    if (e) return fail_h(e);
    NTSTATUS s = NtCreateEvent(&h, access, &n.attr, manual ? NotificationEvent : SynchronizationEvent,
                               initial ? TRUE : FALSE);
    return nspa__win32_created(s, h);
}

NSPA_EXPORT HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCSTR name)
{
    return create_event(sa, NULL, name, manual, initial, EVENT_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCWSTR name)
{
    return create_event(sa, name, NULL, manual, initial, EVENT_ALL_ACCESS);
}

static HANDLE create_event_ex(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, DWORD flags, DWORD access)
{
    if (flags & ~(CREATE_EVENT_MANUAL_RESET | CREATE_EVENT_INITIAL_SET)) return fail_h(ERROR_INVALID_PARAMETER);
    return create_event(sa, w, a, !!(flags & CREATE_EVENT_MANUAL_RESET), !!(flags & CREATE_EVENT_INITIAL_SET), access);
}

NSPA_EXPORT HANDLE WINAPI CreateEventExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access)
{
    return create_event_ex(sa, NULL, name, flags, access);
}

NSPA_EXPORT HANDLE WINAPI CreateEventExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access)
{
    return create_event_ex(sa, name, NULL, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenEventA(DWORD access, BOOL inherit, LPCSTR name)
{
    return nspa__win32_open(NtOpenEvent, access, inherit, NULL, name);
}

NSPA_EXPORT HANDLE WINAPI OpenEventW(DWORD access, BOOL inherit, LPCWSTR name)
{
    return nspa__win32_open(NtOpenEvent, access, inherit, name, NULL);
}

/* the hot calls: one Nt* call each, no system call when nobody waits */
NSPA_EXPORT BOOL WINAPI SetEvent(HANDLE h) { return nt_ok(NtSetEvent(h, NULL)); }
NSPA_EXPORT BOOL WINAPI ResetEvent(HANDLE h) { return nt_ok(NtResetEvent(h, NULL)); }
NSPA_EXPORT BOOL WINAPI PulseEvent(HANDLE h) { return nt_ok(NtPulseEvent(h, NULL)); }

/* ---- mutexes ---------------------------------------------------------------------- */

static HANDLE create_mutex(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, BOOL owner, DWORD access)
{
    struct nspa_obj_name n;
    HANDLE h = NULL;
    DWORD e = nspa__win32_obj_attr(&n, w, a, create_attributes(sa), 0);
    if (e) return fail_h(e);
    /* an existing named mutex is opened, not acquired (as on Windows) */
    NTSTATUS s = NtCreateMutant(&h, access, &n.attr, owner ? TRUE : FALSE);
    return nspa__win32_created(s, h);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexA(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCSTR name)
{
    return create_mutex(sa, NULL, name, owner, MUTANT_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexW(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCWSTR name)
{
    return create_mutex(sa, name, NULL, owner, MUTANT_ALL_ACCESS);
}

static HANDLE create_mutex_ex(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, DWORD flags, DWORD access)
{
    if (flags & ~CREATE_MUTEX_INITIAL_OWNER) return fail_h(ERROR_INVALID_PARAMETER);
    return create_mutex(sa, w, a, !!(flags & CREATE_MUTEX_INITIAL_OWNER), access);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access)
{
    return create_mutex_ex(sa, NULL, name, flags, access);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access)
{
    return create_mutex_ex(sa, name, NULL, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenMutexA(DWORD access, BOOL inherit, LPCSTR name)
{
    return nspa__win32_open(NtOpenMutant, access, inherit, NULL, name);
}

NSPA_EXPORT HANDLE WINAPI OpenMutexW(DWORD access, BOOL inherit, LPCWSTR name)
{
    return nspa__win32_open(NtOpenMutant, access, inherit, name, NULL);
}

NSPA_EXPORT BOOL WINAPI ReleaseMutex(HANDLE h) { return nt_ok(NtReleaseMutant(h, NULL)); }

/* ---- semaphores ------------------------------------------------------------------- */

static HANDLE create_sem(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, LONG initial, LONG max, DWORD flags,
                         DWORD access)
{
    struct nspa_obj_name n;
    HANDLE h = NULL;
    if (flags) return fail_h(ERROR_INVALID_PARAMETER);
    DWORD e = nspa__win32_obj_attr(&n, w, a, create_attributes(sa), 0);
    if (e) return fail_h(e);
    /* max <= 0, initial < 0 or > max: STATUS_INVALID_PARAMETER */
    NTSTATUS s = NtCreateSemaphore(&h, access, &n.attr, initial, max);
    return nspa__win32_created(s, h);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name)
{
    return create_sem(sa, NULL, name, initial, max, 0, SEMAPHORE_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name)
{
    return create_sem(sa, name, NULL, initial, max, 0, SEMAPHORE_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreExA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name,
                                             DWORD flags, DWORD access)
{
    return create_sem(sa, NULL, name, initial, max, flags, access);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreExW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name,
                                             DWORD flags, DWORD access)
{
    return create_sem(sa, name, NULL, initial, max, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenSemaphoreA(DWORD access, BOOL inherit, LPCSTR name)
{
    return nspa__win32_open(NtOpenSemaphore, access, inherit, NULL, name);
}

NSPA_EXPORT HANDLE WINAPI OpenSemaphoreW(DWORD access, BOOL inherit, LPCWSTR name)
{
    return nspa__win32_open(NtOpenSemaphore, access, inherit, name, NULL);
}

/* A count <= 0 is STATUS_INVALID_PARAMETER there (as a ULONG it is 0 or above
 * INT32_MAX); over the maximum STATUS_SEMAPHORE_LIMIT_EXCEEDED -> ERROR_TOO_MANY_POSTS. */
NSPA_EXPORT BOOL WINAPI ReleaseSemaphore(HANDLE h, LONG count, LPLONG prev)
{
    return nt_ok(NtReleaseSemaphore(h, (ULONG)count, (PULONG)prev));
}

/* ---- handles --------------------------------------------------------------------- */

/* Every kind of handle (objects, files, sockets, ports, timers, threads, processes)
 * closes here; a handle protected from close is STATUS_HANDLE_NOT_CLOSABLE, which
 * kernel32 reports as ERROR_INVALID_HANDLE; the pseudo handles close as a no-op. */
NSPA_EXPORT BOOL WINAPI CloseHandle(HANDLE h) { return nt_ok(NtClose(h)); }

NSPA_EXPORT BOOL WINAPI GetHandleInformation(HANDLE h, LPDWORD flags)
{
    if (!flags) return fail(ERROR_NOACCESS);
    uint32_t f = 0;
    int r = nspa_handle_get_flags(H(h), &f);
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_OBJECT));
    *flags = f;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetHandleInformation(HANDLE h, DWORD mask, DWORD flags)
{
    /* NtSetInformationObject takes the two bits it knows and ignores the rest */
    mask &= HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE;
    int r = nspa_handle_set_flags(H(h), mask, flags & mask);
    return r ? fail(win32_error_from_errno(r, WIN32_ERR_OBJECT)) : TRUE;
}

static int is_pseudo(HANDLE h) { return h == GetCurrentProcess() || h == GetCurrentThread(); }

/* NtDuplicateObject, within the process and across processes (bInheritHandle is
 * OBJ_INHERIT; a protection is not copied; a protected source stays open under
 * DUPLICATE_CLOSE_SOURCE). */
NSPA_EXPORT BOOL WINAPI DuplicateHandle(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst,
                                        DWORD access, BOOL inherit, DWORD options)
{
    /* NSPA keeps kernel32's older check: no place for the copy and no close asked */
    if (src_process == GetCurrentProcess() && dst_process == GetCurrentProcess() && !dst &&
        !(options & DUPLICATE_CLOSE_SOURCE))
        return fail(ERROR_INVALID_PARAMETER);
    return nt_ok(NtDuplicateObject(src_process, src, dst_process, dst, access, inherit ? OBJ_INHERIT : 0,
                                   options & (DUPLICATE_CLOSE_SOURCE | DUPLICATE_SAME_ACCESS)));
}

NSPA_EXPORT HANDLE WINAPI GetCurrentProcess(void) { return (HANDLE)(LONG_PTR)-1; }
NSPA_EXPORT HANDLE WINAPI GetCurrentThread(void) { return (HANDLE)(LONG_PTR)-2; }

/* ---- waits ------------------------------------------------------------------------ */

/* The pseudo handles are never signaled while the caller runs: waiting on them with
 * WaitForSingleObject(Ex) or SignalObjectAndWait waits for the timeout. There they stand
 * for real objects: GetCurrentThread() for the calling thread's thread object,
 * GetCurrentProcess() for this process's process object (process.c).
 * In WaitForMultipleObjects(Ex) they are not objects: WAIT_FAILED with
 * ERROR_INVALID_HANDLE, as on Windows (Wine's test_WaitForMultipleObjects). */

NSPA_HIDDEN nspa_obj_t nspa__win32_pseudo_obj(HANDLE h)
{
    if (h == GetCurrentThread()) return nspa__win32_current_thread_obj();
    return nspa__self_process_obj();      /* never signaled while we run */
}

/* The wait under WaitFor*Objects(Ex) and the Nt* waits: the caller's thread id as the
 * mutex owner. Alertable: the thread's APC event is the alert. It is checked after the
 * objects (a signaled object wins over queued APCs, as in NT, where the wait tests its
 * objects before pending user APCs). QueueUserAPC sets it after queueing, so it is
 * signaled while anything is queued; it can also be stale (set for APCs that an
 * earlier wait already ran): then nothing runs and the wait goes on until its absolute
 * deadline. Returns NSPA__WAIT_APC when APCs ran, else nspa_wait_*'s result with
 * *index. */
NSPA_HIDDEN int nspa__win32_wait(const nspa_obj_t *objs, uint32_t n, int all, uint64_t timeout, uint32_t flags,
                                 int alertable, uint32_t *index)
{
    struct nspa_wait_args a = {
        .timeout = timeout, .objs = objs, .count = n, .flags = flags, .owner = nspa_thread_id(),
    };
    if (alertable) a.alert = nspa__win32_apc_event();
    for (;;) {
        int r = all ? nspa_wait_all(&a) : nspa_wait_any(&a);
        if ((r == 0 || r == -EOWNERDEAD) && alertable && a.index == n) {
            if (nspa__win32_run_apcs()) return NSPA__WAIT_APC;
            continue;
        }
        *index = a.index;
        return r;
    }
}

/* the sync object a handle in a wait array stands for (pseudo handles included), for
 * the waits of other modules (MsgWaitForMultipleObjectsEx) */
NSPA_HIDDEN nspa_obj_t nspa__win32_wait_handle(HANDLE h)
{
    return is_pseudo(h) ? nspa__win32_pseudo_obj(h) : H(h);
}

/* The WAIT_* value of an NT wait's status: STATUS_WAIT_0 + i, STATUS_ABANDONED_WAIT_0 + i,
 * STATUS_USER_APC and STATUS_TIMEOUT are WAIT_OBJECT_0 + i, WAIT_ABANDONED_0 + i,
 * WAIT_IO_COMPLETION and WAIT_TIMEOUT (the same numbers); an error is WAIT_FAILED with
 * its Win32 error. */
static DWORD wait_result(NTSTATUS s)
{
    if (NT_SUCCESS(s)) return (DWORD)s;
    SetLastError(RtlNtStatusToDosError(s));
    return WAIT_FAILED;
}

/* A Win32 timeout in ms as an NT one: INFINITE is NULL, else relative 100 ns units. */
static const LARGE_INTEGER *nt_timeout(DWORD ms, LARGE_INTEGER *t)
{
    if (ms == INFINITE) return NULL;
    t->QuadPart = -(LONGLONG)ms * 10000;
    return t;
}

/* The Win32 waits over the Nt* ones (the WAIT_* values are the statuses' numbers). */
NSPA_EXPORT DWORD WINAPI WaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, BOOL wait_all,
                                                  DWORD ms, BOOL alertable)
{
    LARGE_INTEGER t;
    return wait_result(NtWaitForMultipleObjects(count, handles, wait_all ? WaitAll : WaitAny,
                                                alertable ? TRUE : FALSE, nt_timeout(ms, &t)));
}

NSPA_EXPORT DWORD WINAPI WaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms)
{
    return WaitForMultipleObjectsEx(count, handles, wait_all, ms, FALSE);
}

NSPA_EXPORT DWORD WINAPI WaitForSingleObjectEx(HANDLE h, DWORD ms, BOOL alertable)
{
    LARGE_INTEGER t;
    return wait_result(NtWaitForSingleObject(h, alertable ? TRUE : FALSE, nt_timeout(ms, &t)));
}

NSPA_EXPORT DWORD WINAPI WaitForSingleObject(HANDLE h, DWORD ms)
{
    /* the common case, kept short: no alert, one object, the sync core's one-object
     * wait; its errors get the NT wait's status */
    if (likely(!is_pseudo(h))) {
        nspa_obj_t o = H(h);
        uint64_t deadline = ms == INFINITE ? NSPA_TIMEOUT_INFINITE : ms ? nspa_time_ns() + (uint64_t)ms * 1000000ull : 0;
        int r = nspa__wait_single(o, deadline);
        if (r == 0) return WAIT_OBJECT_0;
        if (r == -EOWNERDEAD) return WAIT_ABANDONED_0;
        if (r == -ETIMEDOUT) return WAIT_TIMEOUT;
        return wait_result(nspa__nt_wait_error(r, &o, 1, 0));
    }
    return WaitForSingleObjectEx(h, ms, FALSE);
}

/* The "signal" half of SignalObjectAndWait / NtSignalAndWaitForSingleObject: set an
 * event, release a mutex (as its owner) or a semaphore (by one). Returns 0, -EBADF (not
 * open), -EINVAL (a kind that cannot be signaled: a thread), or the operation's error. */
NSPA_HIDDEN int nspa__win32_signal_object(nspa_obj_t h)
{
    switch (nspa_obj_type(h)) {
    case NSPA_TYPE_EVENT: return nspa_event_set(h, NULL);
    case NSPA_TYPE_MUTEX: {
        struct nspa_mutex_args a = { nspa_thread_id(), 0 };
        return nspa_mutex_unlock(h, &a);
    }
    case NSPA_TYPE_SEM: {
        uint32_t c = 1;
        return nspa_sem_release(h, &c);
    }
    default:
        return nspa_obj_type(h) < 0 ? -EBADF : -EINVAL;
    }
}

/* Both handles are referenced before anything is signaled: a bad wait handle fails the
 * call with nothing signaled (NtSignalAndWaitForSingleObject) */
NSPA_EXPORT DWORD WINAPI SignalObjectAndWait(HANDLE signal, HANDLE wait, DWORD ms, BOOL alertable)
{
    LARGE_INTEGER t;
    return wait_result(NtSignalAndWaitForSingleObject(signal, wait, alertable ? TRUE : FALSE, nt_timeout(ms, &t)));
}

