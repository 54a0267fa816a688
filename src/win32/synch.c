/*
 * Win32 sync objects and waits over the nspa_ API (include/nspa/sync.h).
 *
 * HANDLE values are nspa handles (multiples of 4), so the mapping costs nothing.
 * Errors map as kernel32 maps NTSTATUS: a bad or closed handle and a handle of the
 * wrong type are ERROR_INVALID_HANDLE; see docs/sync.md for the whole table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"
#include "win32/process_private.h"

DWORD nspa_win32_error(int err)
{
    switch (err) {
    case 0: return ERROR_SUCCESS;
    case -EBADF: return ERROR_INVALID_HANDLE;
    case -EINVAL: return ERROR_INVALID_HANDLE;   /* wrong object type */
    case -EEXIST: return ERROR_INVALID_HANDLE;   /* name taken by another type */
    case -EOVERFLOW: return ERROR_TOO_MANY_POSTS;
    case -EPERM: return ERROR_NOT_OWNER;
    case -ENOMEM: return ERROR_NOT_ENOUGH_MEMORY;
    case -EMFILE: return ERROR_TOO_MANY_OPEN_FILES;
    case -ENOSPC: return ERROR_NO_SYSTEM_RESOURCES;
    case -EACCES: return ERROR_ACCESS_DENIED;
    case -ENOENT: return ERROR_FILE_NOT_FOUND;
    case -EFAULT: return ERROR_NOACCESS;
    case -ETIMEDOUT: return ERROR_TIMEOUT;
    default: return ERROR_INVALID_PARAMETER;
    }
}

static inline nspa_obj_t H(HANDLE h) { return nspa__win32_h(h); }

static inline BOOL fail(DWORD err)
{
    SetLastError(err);
    return FALSE;
}

/* Object names: UTF-16 names become UTF-8 (unpaired surrogates as U+FFFD); "Local\"
 * names the same (session) namespace as no prefix. Returns 0 or an error. */
static DWORD name_from_w(LPCWSTR w, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; w[i]; i++) {
        uint32_t c = w[i];
        if (c >= 0xD800 && c <= 0xDBFF && w[i + 1] >= 0xDC00 && w[i + 1] <= 0xDFFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (w[i + 1] - 0xDC00);
            i++;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            c = 0xFFFD;
        }
        if (i >= MAX_PATH || o + 4 >= cap) return ERROR_FILENAME_EXCED_RANGE;
        if (c < 0x80) out[o++] = (char)c;
        else if (c < 0x800) { out[o++] = (char)(0xC0 | (c >> 6)); out[o++] = (char)(0x80 | (c & 0x3F)); }
        else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | (c >> 12)); out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (c >> 18)); out[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3F)); out[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[o] = 0;
    return 0;
}

/* kernel32 converts an A name into a MAX_PATH buffer of UTF-16 units, and a longer
 * name fails with ERROR_FILENAME_EXCED_RANGE; W names get the same limit above. (A
 * names are UTF-8 here.) Without this check a long A name reached nspa_create_*,
 * whose -EINVAL mapped to ERROR_INVALID_HANDLE. */
static int a_name_too_long(const char *n)
{
    size_t units = 0;
    for (const unsigned char *p = (const unsigned char *)n; *p; p++) {
        if ((*p & 0xC0) != 0x80) units++;   /* a lead byte: one unit ... */
        if (*p >= 0xF0) units++;            /* ... two for a 4-byte sequence */
        if (units > MAX_PATH) return 1;
    }
    return 0;
}

#define CHECK_A_NAME(name) do { if ((name) && a_name_too_long(name)) { \
        SetLastError(ERROR_FILENAME_EXCED_RANGE); return NULL; } } while (0)

static const char *strip_local(const char *n)
{
    return strncmp(n, "Local\\", 6) == 0 ? n + 6 : n;
}

/* Common tail of the Create* calls: map the result, set the last error. */
static HANDLE created(int r, nspa_obj_t h)
{
    if (r < 0) {
        SetLastError(nspa_win32_error(r));
        return NULL;
    }
    SetLastError(r == NSPA_EXISTED ? ERROR_ALREADY_EXISTS : ERROR_SUCCESS);
    return (HANDLE)(uintptr_t)h;
}

#define NAME_W(namew, buf) \
    char buf[NSPA_MAX_NAME + 8]; const char *buf##_p = NULL; \
    if (namew) { DWORD e_ = name_from_w(namew, buf, sizeof(buf)); \
        if (e_) { SetLastError(e_); return NULL; } buf##_p = buf; }

/* Creation with the handle's inheritability (SECURITY_ATTRIBUTES.bInheritHandle): an
 * inheritable unnamed object is made in the namespace region at once, so that a child
 * can inherit it (docs/process.md); without a region it stays a process one. */
static int create_obj(int type, const void *args, const char *name, LPSECURITY_ATTRIBUTES sa, nspa_obj_t *h)
{
    int inherit = sa && sa->bInheritHandle;
    const char *n = name ? strip_local(name) : NULL;
    int r = nspa__create_obj(type, args, n, inherit && !n, h);
    if (r < 0 && inherit && !n && r != -EINVAL && r != -EFAULT) r = nspa__create_obj(type, args, NULL, 0, h);
    if (r >= 0 && inherit) nspa_handle_set_flags(*h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    return r;
}

/* ---- events ----------------------------------------------------------------------- */

static HANDLE create_event(LPSECURITY_ATTRIBUTES sa, LPCSTR name, BOOL manual, BOOL initial)
{
    struct nspa_event_args a = { manual ? 1 : 0, initial ? 1 : 0 };
    nspa_obj_t h = 0;
    if (name && !*name) name = NULL;
    CHECK_A_NAME(name);
    int r = create_obj(NSPA_TYPE_EVENT, &a, name, sa, &h);
    return created(r, h);   /* not created(f(&h), h): argument order is unspecified */
}

NSPA_EXPORT HANDLE WINAPI CreateEventA(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCSTR name)
{
    return create_event(sa, name, manual, initial);
}

NSPA_EXPORT HANDLE WINAPI CreateEventW(LPSECURITY_ATTRIBUTES sa, BOOL manual, BOOL initial, LPCWSTR name)
{
    NAME_W(name, n);
    return create_event(sa, n_p, manual, initial);
}

NSPA_EXPORT HANDLE WINAPI CreateEventExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access)
{
    if (flags & ~(CREATE_EVENT_MANUAL_RESET | CREATE_EVENT_INITIAL_SET)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    return create_event(sa, name, !!(flags & CREATE_EVENT_MANUAL_RESET), !!(flags & CREATE_EVENT_INITIAL_SET));
}

NSPA_EXPORT HANDLE WINAPI CreateEventExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access)
{
    NAME_W(name, n);
    return CreateEventExA(sa, n_p, flags, access);
}

static HANDLE open_named(int type, LPCSTR name)
{
    if (!name) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    CHECK_A_NAME(name);
    nspa_obj_t h = 0;
    int r = nspa_open(type, strip_local(name), &h);
    if (r < 0) {
        SetLastError(r == -EINVAL ? ERROR_INVALID_NAME : nspa_win32_error(r));
        return NULL;
    }
    return (HANDLE)(uintptr_t)h;
}

NSPA_EXPORT HANDLE WINAPI OpenEventA(DWORD access, BOOL inherit, LPCSTR name)
{
    return open_named(NSPA_TYPE_EVENT, name);
}

NSPA_EXPORT HANDLE WINAPI OpenEventW(DWORD access, BOOL inherit, LPCWSTR name)
{
    NAME_W(name, n);
    return open_named(NSPA_TYPE_EVENT, n_p);
}

NSPA_EXPORT BOOL WINAPI SetEvent(HANDLE h)
{
    int r = nspa_event_set(H(h), NULL);
    return r ? fail(nspa_win32_error(r)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI ResetEvent(HANDLE h)
{
    int r = nspa_event_reset(H(h), NULL);
    return r ? fail(nspa_win32_error(r)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI PulseEvent(HANDLE h)
{
    int r = nspa_event_pulse(H(h), NULL);
    return r ? fail(nspa_win32_error(r)) : TRUE;
}

/* ---- mutexes ---------------------------------------------------------------------- */

static HANDLE create_mutex(LPSECURITY_ATTRIBUTES sa, LPCSTR name, BOOL owner)
{
    nspa_obj_t h = 0;
    if (name && !*name) name = NULL;
    CHECK_A_NAME(name);
    struct nspa_mutex_args a = { 0, 0 };
    if (owner) {
        a.owner = nspa_thread_id();
        a.count = 1;
    }
    int r = create_obj(NSPA_TYPE_MUTEX, &a, name, sa, &h);
    /* an existing named mutex is opened, not acquired (as on Windows) */
    return created(r, h);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexA(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCSTR name)
{
    return create_mutex(sa, name, owner);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexW(LPSECURITY_ATTRIBUTES sa, BOOL owner, LPCWSTR name)
{
    NAME_W(name, n);
    return create_mutex(sa, n_p, owner);
}

NSPA_EXPORT HANDLE WINAPI CreateMutexExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access)
{
    if (flags & ~CREATE_MUTEX_INITIAL_OWNER) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    return create_mutex(sa, name, !!(flags & CREATE_MUTEX_INITIAL_OWNER));
}

NSPA_EXPORT HANDLE WINAPI CreateMutexExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access)
{
    NAME_W(name, n);
    return CreateMutexExA(sa, n_p, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenMutexA(DWORD access, BOOL inherit, LPCSTR name)
{
    return open_named(NSPA_TYPE_MUTEX, name);
}

NSPA_EXPORT HANDLE WINAPI OpenMutexW(DWORD access, BOOL inherit, LPCWSTR name)
{
    NAME_W(name, n);
    return open_named(NSPA_TYPE_MUTEX, n_p);
}

NSPA_EXPORT BOOL WINAPI ReleaseMutex(HANDLE h)
{
    struct nspa_mutex_args a = { nspa_thread_id(), 0 };
    int r = nspa_mutex_unlock(H(h), &a);
    return r ? fail(nspa_win32_error(r)) : TRUE;
}

/* ---- semaphores ------------------------------------------------------------------- */

static HANDLE create_sem(LPSECURITY_ATTRIBUTES sa, LPCSTR name, LONG initial, LONG max)
{
    if (max <= 0 || initial < 0 || initial > max) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    nspa_obj_t h = 0;
    if (name && !*name) name = NULL;
    CHECK_A_NAME(name);
    struct nspa_sem_args a = { (uint32_t)initial, (uint32_t)max };
    int r = create_obj(NSPA_TYPE_SEM, &a, name, sa, &h);
    return created(r, h);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name)
{
    return create_sem(sa, name, initial, max);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name)
{
    NAME_W(name, n);
    return create_sem(sa, n_p, initial, max);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreExA(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCSTR name,
                                             DWORD flags, DWORD access)
{
    if (flags) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    return create_sem(sa, name, initial, max);
}

NSPA_EXPORT HANDLE WINAPI CreateSemaphoreExW(LPSECURITY_ATTRIBUTES sa, LONG initial, LONG max, LPCWSTR name,
                                             DWORD flags, DWORD access)
{
    NAME_W(name, n);
    return CreateSemaphoreExA(sa, initial, max, n_p, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenSemaphoreA(DWORD access, BOOL inherit, LPCSTR name)
{
    return open_named(NSPA_TYPE_SEM, name);
}

NSPA_EXPORT HANDLE WINAPI OpenSemaphoreW(DWORD access, BOOL inherit, LPCWSTR name)
{
    NAME_W(name, n);
    return open_named(NSPA_TYPE_SEM, n_p);
}

NSPA_EXPORT BOOL WINAPI ReleaseSemaphore(HANDLE h, LONG count, LPLONG prev)
{
    /* NtReleaseSemaphore rejects a count <= 0 with STATUS_INVALID_PARAMETER; only the
     * nspa_ (ntsync) layer allows 0 */
    if (count <= 0) return fail(ERROR_INVALID_PARAMETER);
    uint32_t c = (uint32_t)count;
    int r = nspa_sem_release(H(h), &c);
    if (r) return fail(nspa_win32_error(r));
    if (prev) *prev = (LONG)c;
    return TRUE;
}

/* ---- handles --------------------------------------------------------------------- */

NSPA_EXPORT BOOL WINAPI CloseHandle(HANDLE h)
{
    if (h == GetCurrentProcess() || h == GetCurrentThread()) return TRUE;
    /* a handle protected from close: NtClose says STATUS_HANDLE_NOT_CLOSABLE, which
     * kernel32 reports as ERROR_INVALID_HANDLE */
    int r = nspa_close(H(h));
    return r ? fail(ERROR_INVALID_HANDLE) : TRUE;
}

NSPA_EXPORT BOOL WINAPI GetHandleInformation(HANDLE h, LPDWORD flags)
{
    if (!flags) return fail(ERROR_NOACCESS);
    uint32_t f = 0;
    int r = nspa_handle_get_flags(H(h), &f);
    if (r) return fail(ERROR_INVALID_HANDLE);
    *flags = f;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetHandleInformation(HANDLE h, DWORD mask, DWORD flags)
{
    /* NtSetInformationObject takes the two bits it knows and ignores the rest */
    mask &= HANDLE_FLAG_INHERIT | HANDLE_FLAG_PROTECT_FROM_CLOSE;
    int r = nspa_handle_set_flags(H(h), mask, flags & mask);
    return r ? fail(ERROR_INVALID_HANDLE) : TRUE;
}

static int is_pseudo(HANDLE h) { return h == GetCurrentProcess() || h == GetCurrentThread(); }

/* DuplicateHandle with another process as source or target: through the namespace
 * (inherit.c), for objects of the region (named, or unnamed ones created inheritable) */
static BOOL dup_remote(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst, BOOL inherit, DWORD options)
{
    DWORD spid = GetProcessId(src_process), dpid = GetProcessId(dst_process), me = GetCurrentProcessId();
    if (!spid || !dpid) return fail(ERROR_INVALID_HANDLE);
    if (spid == me && dpid == me) return DuplicateHandle(GetCurrentProcess(), src, GetCurrentProcess(), dst, 0,
                                                         inherit, options);
    if (!dst || is_pseudo(src)) return fail(ERROR_INVALID_PARAMETER);
    /* closing a handle in another process's table is not possible from here */
    if ((options & DUPLICATE_CLOSE_SOURCE) && spid != me) return fail(ERROR_NOT_SUPPORTED);
    nspa_obj_t local = H(src), tmp = 0, out = 0;
    int r = 0;
    if (spid != me) {
        r = nspa__dup_from_process((int32_t)spid, H(src), &tmp);
        local = tmp;
    }
    if (!r) r = dpid == me ? nspa_dup(local, &out) : nspa__dup_to_process(local, (int32_t)dpid, &out);
    if (tmp) nspa_close(tmp);
    if (r) {
        DWORD e = r == -EOPNOTSUPP ? ERROR_NOT_SUPPORTED : r == -ESRCH ? ERROR_INVALID_HANDLE
                : nspa_win32_error(r == -EINVAL ? -EBADF : r);
        return fail(e);
    }
    if (dpid == me && inherit) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    if ((options & DUPLICATE_CLOSE_SOURCE) && spid == me) nspa_close(H(src));
    *dst = (HANDLE)(uintptr_t)out;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI DuplicateHandle(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst,
                                        DWORD access, BOOL inherit, DWORD options)
{
    if (src_process != GetCurrentProcess() || dst_process != GetCurrentProcess())
        return dup_remote(src_process, src, dst_process, dst, inherit, options);
    nspa_obj_t out = 0;
    int r;
    if (src == GetCurrentThread()) {
        r = nspa__win32_current_thread_handle(&out);
    } else if (src == GetCurrentProcess()) {
        nspa_obj_t self = nspa__self_process_obj();
        r = self ? nspa_dup(self, &out) : -ENOMEM;
    } else {
        if (!dst && !(options & DUPLICATE_CLOSE_SOURCE)) return fail(ERROR_INVALID_PARAMETER);
        r = dst ? nspa_dup(H(src), &out) : 0;
    }
    if (r) return fail(nspa_win32_error(r == -EINVAL ? -EBADF : r));
    /* the new handle's inherit flag is bInheritHandle; a protection is not copied */
    if (dst && inherit) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    /* a protected source stays open (NtDuplicateObject: the copy is made) */
    if (options & DUPLICATE_CLOSE_SOURCE && !is_pseudo(src)) nspa_close(H(src));
    if (dst) *dst = (HANDLE)(uintptr_t)out;
    return TRUE;
}

NSPA_EXPORT HANDLE WINAPI GetCurrentProcess(void) { return (HANDLE)(LONG_PTR)-1; }
NSPA_EXPORT HANDLE WINAPI GetCurrentThread(void) { return (HANDLE)(LONG_PTR)-2; }

/* ---- waits ------------------------------------------------------------------------ */

static uint64_t deadline(DWORD ms)
{
    if (ms == INFINITE) return NSPA_TIMEOUT_INFINITE;
    if (ms == 0) return 0;
    return nspa_time_ns() + (uint64_t)ms * 1000000ull;
}

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

static DWORD wait_objects(DWORD count, const HANDLE *handles, BOOL all, DWORD ms, BOOL alertable,
                          int pseudo_ok)
{
    if (count == 0 || count > MAXIMUM_WAIT_OBJECTS) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return WAIT_FAILED;
    }
    if (!handles) {
        SetLastError(ERROR_NOACCESS);
        return WAIT_FAILED;
    }
    nspa_obj_t objs[MAXIMUM_WAIT_OBJECTS];
    DWORD n = 0;
    for (DWORD i = 0; i < count; i++) {
        if (is_pseudo(handles[i]) && !pseudo_ok) {
            SetLastError(ERROR_INVALID_HANDLE);
            return WAIT_FAILED;
        }
        objs[n++] = is_pseudo(handles[i]) ? nspa__win32_pseudo_obj(handles[i]) : H(handles[i]);
    }
    uint32_t index = 0;
    int r = nspa__win32_wait(objs, n, all, deadline(ms), 0, alertable, &index);
    if (r == NSPA__WAIT_APC) return WAIT_IO_COMPLETION;
    if (r == 0 || r == -EOWNERDEAD)
        return (r ? WAIT_ABANDONED_0 : WAIT_OBJECT_0) + index;
    if (r == -ETIMEDOUT) return WAIT_TIMEOUT;
    SetLastError(r == -EINVAL ? (all ? ERROR_INVALID_PARAMETER : ERROR_INVALID_HANDLE) : nspa_win32_error(r));
    if (r == -EINVAL) {
        /* -EINVAL from a wait: a handle of a non-waitable type, or duplicates in a
         * wait-all; tell them apart */
        for (DWORD i = 0; i < n; i++)
            if (nspa_obj_type(objs[i]) < 0) { SetLastError(ERROR_INVALID_HANDLE); break; }
    }
    return WAIT_FAILED;
}

NSPA_EXPORT DWORD WINAPI WaitForMultipleObjectsEx(DWORD count, const HANDLE *handles, BOOL wait_all,
                                                  DWORD ms, BOOL alertable)
{
    return wait_objects(count, handles, wait_all, ms, alertable, 0);
}

NSPA_EXPORT DWORD WINAPI WaitForMultipleObjects(DWORD count, const HANDLE *handles, BOOL wait_all, DWORD ms)
{
    return wait_objects(count, handles, wait_all, ms, FALSE, 0);
}

NSPA_EXPORT DWORD WINAPI WaitForSingleObjectEx(HANDLE h, DWORD ms, BOOL alertable)
{
    return wait_objects(1, &h, FALSE, ms, alertable, 1);
}

NSPA_EXPORT DWORD WINAPI WaitForSingleObject(HANDLE h, DWORD ms)
{
    /* the common case, kept short: no alert, one object */
    if (!is_pseudo(h)) {
        int r = nspa__wait_single(H(h), deadline(ms));
        if (r == 0) return WAIT_OBJECT_0;
        if (r == -EOWNERDEAD) return WAIT_ABANDONED_0;
        if (r == -ETIMEDOUT) return WAIT_TIMEOUT;
        SetLastError(ERROR_INVALID_HANDLE);
        return WAIT_FAILED;
    }
    return wait_objects(1, &h, FALSE, ms, FALSE, 1);
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

NSPA_EXPORT DWORD WINAPI SignalObjectAndWait(HANDLE signal, HANDLE wait, DWORD ms, BOOL alertable)
{
    int r;
    /* Windows references both objects before it signals: a bad wait handle fails the
     * call with nothing signaled */
    if (!is_pseudo(wait) && nspa_obj_type(H(wait)) < 0) {
        SetLastError(ERROR_INVALID_HANDLE);
        return WAIT_FAILED;
    }
    r = nspa__win32_signal_object(H(signal));
    if (r) {
        SetLastError(nspa_win32_error(r));
        return WAIT_FAILED;
    }
    return wait_objects(1, &wait, FALSE, ms, alertable, 1);
}

/* ---- for the other Win32 files (waitable timers): the same name rules -------------- */

NSPA_HIDDEN DWORD nspa__win32_name_w(LPCWSTR w, char *out, size_t cap) { return name_from_w(w, out, cap); }

NSPA_HIDDEN const char *nspa__win32_name_a(LPCSTR name, DWORD *err)
{
    *err = 0;
    if (!name || !*name) return NULL;
    if (a_name_too_long(name)) {
        *err = ERROR_FILENAME_EXCED_RANGE;
        return NULL;
    }
    return strip_local(name);
}

NSPA_HIDDEN HANDLE nspa__win32_created(int r, nspa_obj_t h) { return created(r, h); }
NSPA_HIDDEN HANDLE nspa__win32_open_named(int type, LPCSTR name) { return open_named(type, name); }
