/*
 * The NT native calls on NSPA's objects: NtCreate/Open/Set/Reset/Pulse/QueryEvent,
 * NtCreate/Open/Release/QueryMutant, NtCreate/Open/Release/QuerySemaphore, NtClose,
 * NtDuplicateObject. Each is one nspa_ call (include/nspa/sync.h) with NT's argument
 * checks and NTSTATUS answers; the objects are the Win32 layer's (a HANDLE is an nspa
 * handle), so Nt* and Win32 calls mix freely.
 *
 * Names: NT names objects by path. kernel32's "X" and "Local\X" are
 * "\Sessions\<n>\BaseNamedObjects\X" (NSPA: the name "X"), its "Global\X" is
 * "\BaseNamedObjects\X" (NSPA: "Global\X"); the Local and Global links work under both.
 * NSPA has no directory objects: a RootDirectory handle is refused, and so is
 * OBJ_CASE_INSENSITIVE (NSPA's names are case-sensitive, as Windows' sync objects are
 * unless a caller asks otherwise; an answer that ignored the flag would be wrong).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "nt/nt_internal.h"
#include "nspa/unicode.h"
#include "nspa/timer.h"
#include "win32/process_private.h"
#include "io/io_api.h"
#include "sync/sync_api.h"

NSPA_HIDDEN NTSTATUS nt_status(int err, HANDLE h)
{
    /* a check of the handle argument, not of the errno: a pseudo handle is a handle of
     * another type to the object calls */
    if (err == -EBADF && nt_is_pseudo(h)) return STATUS_OBJECT_TYPE_MISMATCH;
    return win32_status_from_errno(err, WIN32_ERR_OBJECT);
}

/* ---- names ------------------------------------------------------------------------ */

static int prefix_w(const WCHAR *s, size_t n, const char *p, size_t *used)
{
    size_t i = 0;
    for (; p[i]; i++)
        if (i >= n || s[i] != (WCHAR)(unsigned char)p[i]) return 0;
    *used = i;
    return 1;
}

/* The NSPA name (UTF-8, into @out) of @attr's object name; *named = 0 for an unnamed
 * object. Returns STATUS_SUCCESS or the NT error. */
static NTSTATUS nt_name(const OBJECT_ATTRIBUTES *attr, char *out, size_t cap, int *named)
{
    *named = 0;
    if (!attr) return STATUS_SUCCESS;
    if (attr->Attributes & ~(ULONG)OBJ_VALID_ATTRIBUTES) return STATUS_INVALID_PARAMETER;
    const UNICODE_STRING *u = attr->ObjectName;
    if (!u || !u->Length) return attr->RootDirectory ? STATUS_OBJECT_PATH_SYNTAX_BAD : STATUS_SUCCESS;
    if ((u->Length & 1) || u->Length > u->MaximumLength || !u->Buffer) return STATUS_INVALID_PARAMETER;
    if (attr->Attributes & OBJ_CASE_INSENSITIVE) return STATUS_NOT_SUPPORTED;
    if (attr->RootDirectory) return STATUS_INVALID_HANDLE;   /* no directory objects here */
    const WCHAR *s = u->Buffer;
    size_t n = u->Length / 2, k = 0;
    if (s[0] != '\\') return STATUS_OBJECT_PATH_SYNTAX_BAD;
    int global;
    if (prefix_w(s, n, "\\BaseNamedObjects\\", &k)) {
        global = 1;
    } else if (prefix_w(s, n, "\\Sessions\\", &k)) {
        size_t d = k;
        while (d < n && s[d] >= '0' && s[d] <= '9') d++;
        size_t k2;
        if (d == k || !prefix_w(s + d, n - d, "\\BaseNamedObjects\\", &k2)) return STATUS_OBJECT_PATH_NOT_FOUND;
        k = d + k2;
        global = 0;
    } else {
        return STATUS_OBJECT_PATH_NOT_FOUND;
    }
    s += k;
    n -= k;
    size_t k3;
    if (prefix_w(s, n, "Global\\", &k3)) { s += k3; n -= k3; global = 1; }
    else if (prefix_w(s, n, "Local\\", &k3)) { s += k3; n -= k3; global = 0; }
    if (!n) return STATUS_OBJECT_NAME_INVALID;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\\') return STATUS_OBJECT_PATH_NOT_FOUND;   /* no subdirectories */
    size_t o = 0;
    if (global) {
        memcpy(out, "Global\\", 7);
        o = 7;
    }
    unsigned st = 0;
    size_t len = nspa_utf16_to_utf8(s, n, NULL, 0, &st);
    if (o + len > NSPA_MAX_NAME || o + len + 1 > cap) return STATUS_NAME_TOO_LONG;
    nspa_utf16_to_utf8(s, n, out + o, cap - o - 1, &st);
    out[o + len] = 0;
    *named = 1;
    return STATUS_SUCCESS;
}

/* The end of a Create call: @r and @h from the creation. With OBJ_OPENIF an existing
 * object is opened (STATUS_OBJECT_NAME_EXISTS); without, it is a collision. */
/* ---- access masks ----------------------------------------------------------------- */

/* NT's generic mapping of an access mask for an object of @type: GENERIC_READ, _WRITE,
 * _EXECUTE and _ALL become the type's rights (the object types' GENERIC_MAPPING, as
 * Wine's server has them), MAXIMUM_ALLOWED every right; PROCESS_QUERY_INFORMATION
 * brings PROCESS_QUERY_LIMITED_INFORMATION (THREAD_QUERY_ and THREAD_SET_INFORMATION their
 * LIMITED_ bits likewise), as Windows grants.
 * Kinds without a mapping here (files, ports, mappings) keep every bit: the handle
 * mask is not what their calls check. */
NSPA_HIDDEN uint32_t nspa__nt_map_access(int type, uint32_t access)
{
    static const struct { uint32_t r, w, x, all; } map[] = {
        [NSPA_TYPE_EVENT] = { STANDARD_RIGHTS_READ | EVENT_QUERY_STATE, STANDARD_RIGHTS_WRITE | EVENT_MODIFY_STATE,
                              STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE, EVENT_ALL_ACCESS },
        [NSPA_TYPE_MUTEX] = { STANDARD_RIGHTS_READ | MUTANT_QUERY_STATE, STANDARD_RIGHTS_WRITE,
                              STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE, MUTANT_ALL_ACCESS },
        [NSPA_TYPE_SEM] = { STANDARD_RIGHTS_READ | SEMAPHORE_QUERY_STATE, STANDARD_RIGHTS_WRITE | SEMAPHORE_MODIFY_STATE,
                            STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE, SEMAPHORE_ALL_ACCESS },
        [NSPA_TYPE_TIMER] = { STANDARD_RIGHTS_READ | TIMER_QUERY_STATE, STANDARD_RIGHTS_WRITE | TIMER_MODIFY_STATE,
                              STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE, TIMER_ALL_ACCESS },
        [NSPA_TYPE_PROCESS] = { STANDARD_RIGHTS_READ | PROCESS_VM_READ | PROCESS_QUERY_INFORMATION,
                                STANDARD_RIGHTS_WRITE | PROCESS_SUSPEND_RESUME | PROCESS_SET_INFORMATION |
                                    PROCESS_SET_QUOTA | PROCESS_CREATE_PROCESS | PROCESS_DUP_HANDLE |
                                    PROCESS_VM_WRITE | PROCESS_VM_OPERATION | PROCESS_CREATE_THREAD,
                                STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION |
                                    PROCESS_TERMINATE,
                                PROCESS_ALL_ACCESS },
        [NSPA_TYPE_THREAD] = { STANDARD_RIGHTS_READ | THREAD_GET_CONTEXT | THREAD_QUERY_INFORMATION,
                               STANDARD_RIGHTS_WRITE | THREAD_TERMINATE | THREAD_SUSPEND_RESUME |
                                   THREAD_SET_INFORMATION | THREAD_SET_CONTEXT,
                               STANDARD_RIGHTS_EXECUTE | SYNCHRONIZE | THREAD_QUERY_LIMITED_INFORMATION,
                               THREAD_ALL_ACCESS },
    };
    if (type <= 0 || (size_t)type >= sizeof(map) / sizeof(map[0]) || !map[type].all) return 0xFFFFFFFFu;
    uint32_t a = access & ~(uint32_t)(GENERIC_READ | GENERIC_WRITE | GENERIC_EXECUTE | GENERIC_ALL | MAXIMUM_ALLOWED);
    if (access & GENERIC_READ) a |= map[type].r;
    if (access & GENERIC_WRITE) a |= map[type].w;
    if (access & GENERIC_EXECUTE) a |= map[type].x;
    if (access & (GENERIC_ALL | MAXIMUM_ALLOWED)) a |= map[type].all;
    if (type == NSPA_TYPE_PROCESS && (a & PROCESS_QUERY_INFORMATION)) a |= PROCESS_QUERY_LIMITED_INFORMATION;
    if (type == NSPA_TYPE_THREAD && (a & THREAD_QUERY_INFORMATION)) a |= THREAD_QUERY_LIMITED_INFORMATION;
    if (type == NSPA_TYPE_THREAD && (a & THREAD_SET_INFORMATION)) a |= THREAD_SET_LIMITED_INFORMATION;
    return a;
}

/* handle @h gets @access (mapped for its type) */
static void nt_grant(nspa_obj_t h, uint32_t access)
{
    nspa__handle_set_access(h, nspa__nt_map_access(nspa_obj_type(h), access));
}

static NTSTATUS nt_created(int r, nspa_obj_t h, const OBJECT_ATTRIBUTES *attr, PHANDLE out, ACCESS_MASK access)
{
    if (r < 0) return nt_status(r, NULL);
    nt_grant(h, access);
    if (r == NSPA_EXISTED && !(attr->Attributes & OBJ_OPENIF)) {
        nspa_close(h);
        return STATUS_OBJECT_NAME_COLLISION;
    }
    if (attr && (attr->Attributes & OBJ_INHERIT)) nspa_handle_set_flags(h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    *out = (HANDLE)(uintptr_t)h;
    return r == NSPA_EXISTED ? STATUS_OBJECT_NAME_EXISTS : STATUS_SUCCESS;
}

/* A sync object, @name (when @named) opened if it exists. OBJ_INHERIT: an unnamed
 * object is made in the namespace region at once, so that a child process can inherit
 * it (docs/process.md); without a region it stays a process one. kernel32's Create*
 * calls come here too (src/win32/synch.c). */
static NTSTATUS nt_create(int type, const void *args, const OBJECT_ATTRIBUTES *attr, const char *name,
                          int named, PHANDLE out, ACCESS_MASK access)
{
    int inherit = attr && (attr->Attributes & OBJ_INHERIT);
    nspa_obj_t h = 0;
    int r = nspa__create_obj(type, args, named ? name : NULL, inherit && !named, &h);
    if (r < 0 && inherit && !named && r != -EINVAL && r != -EFAULT) r = nspa__create_obj(type, args, NULL, 0, &h);
    return nt_created(r, h, attr, out, access);
}

#define NT_NAME(attr, buf, named) \
    char buf[NSPA_MAX_NAME + 8]; int named; \
    do { NTSTATUS s_ = nt_name(attr, buf, sizeof(buf), &named); if (s_) return s_; } while (0)

static NTSTATUS open_named(PHANDLE out, const OBJECT_ATTRIBUTES *attr, int type, ACCESS_MASK access)
{
    if (!out) return STATUS_ACCESS_VIOLATION;
    if (!attr) return STATUS_INVALID_PARAMETER;
    NT_NAME(attr, name, named);
    if (!named) return STATUS_OBJECT_PATH_SYNTAX_BAD;
    nspa_obj_t h = 0;
    int r = nspa_open(type, name, &h);
    if (r < 0) return win32_status_from_errno(r, WIN32_ERR_OBJECT | WIN32_ERR_OPEN);   /* -EINVAL: the name */
    if (attr->Attributes & OBJ_INHERIT) nspa_handle_set_flags(h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    nt_grant(h, access);
    *out = (HANDLE)(uintptr_t)h;
    return STATUS_SUCCESS;
}

/* ---- events ----------------------------------------------------------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtCreateEvent(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr,
                                         EVENT_TYPE type, BOOLEAN initial)
{
    if (!out) return STATUS_ACCESS_VIOLATION;
    if (type != NotificationEvent && type != SynchronizationEvent) return STATUS_INVALID_PARAMETER;
    NT_NAME(attr, name, named);
    struct nspa_event_args a = { type == NotificationEvent, initial != 0 };
    return nt_create(NSPA_TYPE_EVENT, &a, attr, name, named, out, access);
}

NSPA_EXPORT NTSTATUS NTAPI NtOpenEvent(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr)
{
    return open_named(out, attr, NSPA_TYPE_EVENT, access);
}

static NTSTATUS event_op(HANDLE h, PLONG prev, int (*op)(nspa_obj_t, uint32_t *))
{
    uint32_t p = 0;
    int r = op(nt_h(h), &p);
    if (r) return nt_status(r, h);
    if (prev) *prev = (LONG)p;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtSetEvent(HANDLE h, PLONG prev) { return event_op(h, prev, nspa_event_set); }
NSPA_EXPORT NTSTATUS NTAPI NtResetEvent(HANDLE h, PLONG prev) { return event_op(h, prev, nspa_event_reset); }
NSPA_EXPORT NTSTATUS NTAPI NtClearEvent(HANDLE h) { return event_op(h, NULL, nspa_event_reset); }
NSPA_EXPORT NTSTATUS NTAPI NtPulseEvent(HANDLE h, PLONG prev) { return event_op(h, prev, nspa_event_pulse); }

/* The common checks of the Query calls: class 0 only, the exact size. */
static NTSTATUS query_check(int cls, PVOID buf, ULONG len, ULONG size, PULONG ret)
{
    if (cls != 0) return STATUS_INVALID_INFO_CLASS;
    if (len != size) return STATUS_INFO_LENGTH_MISMATCH;
    if (!buf) return STATUS_ACCESS_VIOLATION;
    if (ret) *ret = size;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtQueryEvent(HANDLE h, EVENT_INFORMATION_CLASS cls, PVOID buf, ULONG len,
                                        PULONG ret)
{
    struct nspa_event_args a;
    int r = nspa__handle_check(nt_h(h), NSPA_TYPE_EVENT, EVENT_QUERY_STATE);
    if (!r) r = nspa_event_read(nt_h(h), &a);
    if (r) return nt_status(r, h);
    NTSTATUS s = query_check(cls, buf, len, sizeof(EVENT_BASIC_INFORMATION), ret);
    if (s) return s;
    EVENT_BASIC_INFORMATION *info = buf;
    info->EventType = a.manual ? NotificationEvent : SynchronizationEvent;
    info->EventState = (LONG)a.signaled;
    return STATUS_SUCCESS;
}

/* ---- mutants ---------------------------------------------------------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtCreateMutant(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr,
                                          BOOLEAN owner)
{
    if (!out) return STATUS_ACCESS_VIOLATION;
    NT_NAME(attr, name, named);
    struct nspa_mutex_args a = { owner ? nspa_thread_id() : 0, owner ? 1 : 0 };
    /* an existing named mutex is opened, not acquired (as on Windows) */
    return nt_create(NSPA_TYPE_MUTEX, &a, attr, name, named, out, access);
}

NSPA_EXPORT NTSTATUS NTAPI NtOpenMutant(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr)
{
    return open_named(out, attr, NSPA_TYPE_MUTEX, access);
}

/* PreviousCount is the mutant's signal state before the release: 1 - recursion count. */
NSPA_EXPORT NTSTATUS NTAPI NtReleaseMutant(HANDLE h, PLONG prev)
{
    struct nspa_mutex_args a = { nspa_thread_id(), 0 };
    int r = nspa_mutex_unlock(nt_h(h), &a);
    if (r) return nt_status(r, h);
    if (prev) *prev = 1 - (LONG)a.count;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtQueryMutant(HANDLE h, MUTANT_INFORMATION_CLASS cls, PVOID buf, ULONG len,
                                         PULONG ret)
{
    struct nspa_mutex_args a;
    int r = nspa__handle_check(nt_h(h), NSPA_TYPE_MUTEX, MUTANT_QUERY_STATE);
    if (!r) r = nspa_mutex_read(nt_h(h), &a);
    if (r && r != -EOWNERDEAD) return nt_status(r, h);
    NTSTATUS s = query_check(cls, buf, len, sizeof(MUTANT_BASIC_INFORMATION), ret);
    if (s) return s;
    MUTANT_BASIC_INFORMATION *info = buf;
    info->CurrentCount = 1 - (LONG)a.count;
    info->OwnedByCaller = a.owner && a.owner == nspa_thread_id();
    info->AbandonedState = r == -EOWNERDEAD;
    return STATUS_SUCCESS;
}

/* ---- semaphores ------------------------------------------------------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtCreateSemaphore(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr,
                                             LONG initial, LONG max)
{
    if (!out) return STATUS_ACCESS_VIOLATION;
    if (max <= 0 || initial < 0 || initial > max) return STATUS_INVALID_PARAMETER;
    NT_NAME(attr, name, named);
    struct nspa_sem_args a = { (uint32_t)initial, (uint32_t)max };
    return nt_create(NSPA_TYPE_SEM, &a, attr, name, named, out, access);
}

NSPA_EXPORT NTSTATUS NTAPI NtOpenSemaphore(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr)
{
    return open_named(out, attr, NSPA_TYPE_SEM, access);
}

NSPA_EXPORT NTSTATUS NTAPI NtReleaseSemaphore(HANDLE h, ULONG count, PULONG prev)
{
    if (!count || count > INT32_MAX) return STATUS_INVALID_PARAMETER;
    uint32_t c = count;
    int r = nspa_sem_release(nt_h(h), &c);
    if (r) return nt_status(r, h);
    if (prev) *prev = c;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtQuerySemaphore(HANDLE h, SEMAPHORE_INFORMATION_CLASS cls, PVOID buf, ULONG len,
                                            PULONG ret)
{
    struct nspa_sem_args a;
    int r = nspa__handle_check(nt_h(h), NSPA_TYPE_SEM, SEMAPHORE_QUERY_STATE);
    if (!r) r = nspa_sem_read(nt_h(h), &a);
    if (r) return nt_status(r, h);
    NTSTATUS s = query_check(cls, buf, len, sizeof(SEMAPHORE_BASIC_INFORMATION), ret);
    if (s) return s;
    SEMAPHORE_BASIC_INFORMATION *info = buf;
    info->CurrentCount = a.count;
    info->MaximumCount = a.max;
    return STATUS_SUCCESS;
}

/* ---- timers (the objects; setting them is the time module's) -------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtCreateTimer(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr,
                                         TIMER_TYPE type)
{
    if (!out) return STATUS_ACCESS_VIOLATION;
    if (type != NotificationTimer && type != SynchronizationTimer) return STATUS_INVALID_PARAMETER;
    NT_NAME(attr, name, named);
    nspa_obj_t h = 0;
    int r = nspa_create_timer(type == NotificationTimer, named ? name : NULL, &h);
    return nt_created(r, h, attr, out, access);
}

NSPA_EXPORT NTSTATUS NTAPI NtOpenTimer(PHANDLE out, ACCESS_MASK access, const OBJECT_ATTRIBUTES *attr)
{
    return open_named(out, attr, NSPA_TYPE_TIMER, access);
}

/* ---- handles ---------------------------------------------------------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtClose(HANDLE h)
{
    if (nt_is_pseudo(h)) return STATUS_SUCCESS;
    int r = nspa_close(nt_h(h));
    return win32_status_from_errno(r, WIN32_ERR_OBJECT | WIN32_ERR_CLOSE);   /* -EPERM: protected */
}

/* With another process as source or target: through the namespace (src/sync/inherit.c)
 * for objects of the region, and an unshared object of the source's own arena, which it
 * grows when asked (ask.c); files, sockets and pipes through their descriptors (fdmap.c,
 * gift.c). docs/process.md, "Handles across processes". */
static NTSTATUS dup_remote(HANDLE src_process, HANDLE src, HANDLE dst_process, HANDLE *dst, uint32_t access,
                           ULONG attributes, ULONG options)
{
    const uint32_t fam = WIN32_ERR_OBJECT | WIN32_ERR_DUP;
    DWORD spid = 0, dpid = 0, me = (DWORD)getpid();
    int r = nspa__proc_pid_for_dup(src_process, &spid);
    if (!r) r = nspa__proc_pid_for_dup(dst_process, &dpid);
    if (r) return win32_status_from_errno(r, WIN32_ERR_OBJECT);   /* not a process handle / no right */
    if (spid == me && dpid == me) {
        HANDLE self = (HANDLE)(LONG_PTR)-1;
        return NtDuplicateObject(self, src, self, dst, access, attributes, options);
    }
    if (!dst || nt_is_pseudo(src)) return STATUS_INVALID_PARAMETER;
    nspa_obj_t local = nt_h(src), tmp = 0, out = 0;
    uint32_t sacc = 0xFFFFFFFFu;          /* the source handle's access */
    int close = (options & DUPLICATE_CLOSE_SOURCE) != 0;
    if (spid != me) {
        /* DUPLICATE_CLOSE_SOURCE: the source's handle is closed there (inherit.c) */
        r = nspa__dup_from_process((int32_t)spid, nt_h(src), &tmp, close, &sacc);
        /* not a region object: a file, socket or pipe of its own is taken with
         * pidfd_getfd (src/sync/fdmap.c), without the source; to close it there
         * (DUPLICATE_CLOSE_SOURCE) the source sends it and closes it (ask.c) */
        if (r == -EBADF || r == -EOPNOTSUPP) {
            uint32_t t = 0;
            int f = close ? nspa__ask_take((int32_t)spid, nt_h(src), &t) : io_dup_from_process((int32_t)spid, nt_h(src), &t);
            if (f != -EBADF) r = f;
            if (!f) tmp = t;
        }
        /* an object of its arena (unnamed, never shared): it grows it into the region
         * when asked (ask.c), and then it is found as any region object */
        if (r == -EBADF && (r = nspa__ask_grow((int32_t)spid, nt_h(src))) == 0)
            r = nspa__dup_from_process((int32_t)spid, nt_h(src), &tmp, close, &sacc);
        local = tmp;
    } else {
        r = nspa__handle_access(local, &sacc);
    }
    /* the copy's access, wherever it goes: the source's (DUPLICATE_SAME_ACCESS) or the
     * one asked for, mapped for its type (more than the source's is allowed, as in one
     * process: NT checks the object's security, not the handle's) */
    uint32_t acc = (options & DUPLICATE_SAME_ACCESS) ? sacc : nspa__nt_map_access(nspa_obj_type(local), access);
    int inherit = (attributes & OBJ_INHERIT) != 0;
    if (!r && dpid == me) r = nspa_dup(local, &out);
    else if (!r && nspa_obj_type(local) == NSPA_TYPE_FILE)
        r = io_dup_to_process(local, (int32_t)dpid, inherit ? NSPA__ACCESS_INHERIT : 0, &out);
    else if (!r) r = nspa__dup_to_process(local, (int32_t)dpid, acc | (inherit ? NSPA__ACCESS_INHERIT : 0), &out);
    if (tmp) nspa_close(tmp);
    /* -EINVAL: not a handle; -ESRCH: the process is gone; -EOPNOTSUPP, -ENOSYS: cannot
     * be sent or fetched; -EACCES: the kernel refused to fetch another process's file */
    if (r) return win32_status_from_errno(r, fam);
    if (dpid == me && inherit) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    if (dpid == me) nspa__handle_set_access(out, acc);
    if (close && spid == me) nspa_close(nt_h(src));
    *dst = (HANDLE)(uintptr_t)out;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtDuplicateObject(HANDLE src_process, HANDLE src, HANDLE dst_process, PHANDLE dst,
                                             ACCESS_MASK access, ULONG attributes, ULONG options)
{
    HANDLE self = (HANDLE)(LONG_PTR)-1;
    if (options & ~(ULONG)(DUPLICATE_CLOSE_SOURCE | DUPLICATE_SAME_ACCESS)) return STATUS_INVALID_PARAMETER;
    if (src_process != self || (dst && dst_process != self))
        return dup_remote(src_process, src, dst_process, dst, access, attributes, options);
    nspa_obj_t out = 0;
    int r = 0;
    if (src == (HANDLE)(LONG_PTR)-2) {
        r = nspa__win32_current_thread_handle(&out);
    } else if (src == self) {
        nspa_obj_t me = nspa__self_process_obj();      /* this process's process object */
        r = me ? nspa_dup(me, &out) : -ENOMEM;
    } else if (dst) {
        r = nspa_dup(nt_h(src), &out);
    } else if (nspa_obj_type(nt_h(src)) < 0) {
        r = -EBADF;
    }
    /* a bad source (-EBADF, -EINVAL) is STATUS_INVALID_HANDLE whatever the sync core says;
     * a full handle table or no memory keep their own status */
    if (r) return win32_status_from_errno(r, WIN32_ERR_OBJECT | WIN32_ERR_DUP);
    if (dst && (attributes & OBJ_INHERIT)) nspa_handle_set_flags(out, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    /* the copy's access: the source's (DUPLICATE_SAME_ACCESS) or the one asked for, which
     * may be more than the source's (NT checks it against the object, not the handle) */
    uint32_t acc = 0xFFFFFFFFu;
    if (dst && (options & DUPLICATE_SAME_ACCESS) && !nt_is_pseudo(src)) nspa__handle_access(nt_h(src), &acc);
    if (dst && (options & DUPLICATE_SAME_ACCESS)) nspa__handle_set_access(out, acc);
    else if (dst) nt_grant(out, access);
    if ((options & DUPLICATE_CLOSE_SOURCE) && !nt_is_pseudo(src)) nspa_close(nt_h(src));
    if (dst) *dst = (HANDLE)(uintptr_t)out;
    else if (out) nspa_close(out);
    return STATUS_SUCCESS;
}
