/*
 * Win32 waitable timers over nspa/timer.h: CreateWaitableTimer(Ex)A/W,
 * OpenWaitableTimerA/W, SetWaitableTimer(Ex), CancelWaitableTimer.
 *
 * Due times: negative = relative, in 100 ns (CLOCK_MONOTONIC: does not follow changes
 * of the wall clock); positive = absolute FILETIME, UTC (CLOCK_REALTIME: follows them);
 * a time in the past fires at once. The period is in ms (negative: invalid).
 * A completion routine is queued as an APC to the thread that set the timer, at each
 * expiry, with the expiry's FILETIME; it runs when that thread waits alertably.
 */
#include <errno.h>
#include <stdlib.h>
#include "nspa/timer.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "common/platform.h"
#include "win32/win32_private.h"
#include "time/time_internal.h"

static inline nspa_obj_t H(HANDLE h) { return (nspa_obj_t)(uintptr_t)h; }

/* over NtCreateTimer / NtOpenTimer, with kernel32's name rules (src/win32/synch.c).
 * @sa's bInheritHandle (OBJ_INHERIT) marks the handle inheritable: an unnamed timer
 * grows into the namespace region when a child inherits it (docs/process.md), and this
 * process's timer service goes on firing it there; Open's bInheritHandle likewise. */
static HANDLE create_timer(LPSECURITY_ATTRIBUTES sa, LPCWSTR w, LPCSTR a, DWORD flags, DWORD access)
{
    if (flags & ~(CREATE_WAITABLE_TIMER_MANUAL_RESET | CREATE_WAITABLE_TIMER_HIGH_RESOLUTION)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    struct nspa_obj_name n;
    DWORD e = nspa__win32_obj_attr(&n, w, a, OBJ_OPENIF | (sa && sa->bInheritHandle ? OBJ_INHERIT : 0), 0);
    if (e) {
        SetLastError(e);
        return NULL;
    }
    /* every timer is high resolution here: the service sleeps until the exact due time */
    HANDLE h = NULL;
    NTSTATUS s = NtCreateTimer(&h, access, &n.attr,
                               flags & CREATE_WAITABLE_TIMER_MANUAL_RESET ? NotificationTimer : SynchronizationTimer);
    return nspa__win32_created(s, h);
}

NSPA_EXPORT HANDLE WINAPI CreateWaitableTimerA(LPSECURITY_ATTRIBUTES sa, BOOL manual, LPCSTR name)
{
    return create_timer(sa, NULL, name, manual ? CREATE_WAITABLE_TIMER_MANUAL_RESET : 0, TIMER_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateWaitableTimerW(LPSECURITY_ATTRIBUTES sa, BOOL manual, LPCWSTR name)
{
    return create_timer(sa, name, NULL, manual ? CREATE_WAITABLE_TIMER_MANUAL_RESET : 0, TIMER_ALL_ACCESS);
}

NSPA_EXPORT HANDLE WINAPI CreateWaitableTimerExA(LPSECURITY_ATTRIBUTES sa, LPCSTR name, DWORD flags, DWORD access)
{
    return create_timer(sa, NULL, name, flags, access);
}

NSPA_EXPORT HANDLE WINAPI CreateWaitableTimerExW(LPSECURITY_ATTRIBUTES sa, LPCWSTR name, DWORD flags, DWORD access)
{
    return create_timer(sa, name, NULL, flags, access);
}

NSPA_EXPORT HANDLE WINAPI OpenWaitableTimerA(DWORD access, BOOL inherit, LPCSTR name)
{
    return nspa__win32_open(NtOpenTimer, access, inherit, NULL, name);
}

NSPA_EXPORT HANDLE WINAPI OpenWaitableTimerW(DWORD access, BOOL inherit, LPCWSTR name)
{
    return nspa__win32_open(NtOpenTimer, access, inherit, name, NULL);
}

/* ---- completion routines: an APC to the setting thread at each expiry ------------ */

struct timer_apc_ctx {
    PTIMERAPCROUTINE fn;
    LPVOID arg;
    HANDLE thread;                   /* a real handle to the setting thread */
};

struct timer_apc_call {
    PTIMERAPCROUTINE fn;
    LPVOID arg;
    uint64_t ft;
};

static void CALLBACK timer_apc_trampoline(ULONG_PTR p)
{
    struct timer_apc_call *c = (struct timer_apc_call *)p;
    c->fn(c->arg, (DWORD)c->ft, (DWORD)(c->ft >> 32));
    free(c);
}

static void timer_apc_fire(void *ctx, uint64_t real_ns)
{
    struct timer_apc_ctx *x = ctx;
    struct timer_apc_call *c = malloc(sizeof(*c));
    if (!c) return;                  /* this expiry's routine is lost; the signal is not */
    c->fn = x->fn;
    c->arg = x->arg;
    c->ft = real_ns / 100 + FT_UNIX_EPOCH;
    if (!QueueUserAPC(timer_apc_trampoline, x->thread, (ULONG_PTR)c)) free(c);   /* thread gone */
}

static void timer_apc_release(void *ctx)
{
    struct timer_apc_ctx *x = ctx;
    CloseHandle(x->thread);
    free(x);
}

/* ---- set and cancel -------------------------------------------------------------- */

NSPA_EXPORT BOOL WINAPI SetWaitableTimerEx(HANDLE timer, const LARGE_INTEGER *due, LONG period, PTIMERAPCROUTINE fn,
                                           LPVOID arg, PREASON_CONTEXT wake_context, ULONG tolerable_delay)
{
    if (!due) {
        SetLastError(ERROR_NOACCESS);
        return FALSE;
    }
    if (period < 0) {                /* NtSetTimer: STATUS_INVALID_PARAMETER_6 */
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    /* a handle without TIMER_MODIFY_STATE: ERROR_ACCESS_DENIED (NtSetTimer) */
    int r = nspa__handle_check(H(timer), NSPA_TYPE_TIMER, TIMER_MODIFY_STATE);
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return FALSE;
    }
    struct nspa_timer_args a = { .period = (uint64_t)period * 1000000ull };
    LONGLONG d = due->QuadPart;
    if (d < 0) {
        uint64_t rel = (uint64_t)(-(d + 1)) + 1;          /* no overflow at INT64_MIN */
        uint64_t now = nspa_clock_ns(CLOCK_MONOTONIC);
        a.due = rel > (UINT64_MAX - now) / 100 ? UINT64_MAX : now + rel * 100;
    } else {
        a.flags = NSPA_TIMER_REALTIME;
        uint64_t ft = (uint64_t)d;
        a.due = ft <= FT_UNIX_EPOCH ? 0 : (ft - FT_UNIX_EPOCH > UINT64_MAX / 100 ? UINT64_MAX
                                                                                  : (ft - FT_UNIX_EPOCH) * 100);
    }
    struct timer_apc_ctx *x = NULL;
    if (fn) {
        x = malloc(sizeof(*x));
        HANDLE th = NULL;
        if (!x || !DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &th, 0, FALSE,
                                   DUPLICATE_SAME_ACCESS)) {
            free(x);
            SetLastError(ERROR_NOT_ENOUGH_MEMORY);
            return FALSE;
        }
        x->fn = fn;
        x->arg = arg;
        x->thread = th;
        a.fn = timer_apc_fire;
        a.ctx = x;
        a.release = timer_apc_release;
    }
    r = nspa_timer_set(H(timer), &a);
    if (r) {
        if (x) timer_apc_release(x);
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return FALSE;
    }
    SetLastError(ERROR_SUCCESS);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetWaitableTimer(HANDLE timer, const LARGE_INTEGER *due, LONG period, PTIMERAPCROUTINE fn,
                                         LPVOID arg, BOOL resume)
{
    if (!SetWaitableTimerEx(timer, due, period, fn, arg, NULL, 0)) return FALSE;
    /* no suspend/resume here: as Windows on machines without it, succeed and say so */
    if (resume) SetLastError(ERROR_NOT_SUPPORTED);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI CancelWaitableTimer(HANDLE timer)
{
    int r = nspa__handle_check(H(timer), NSPA_TYPE_TIMER, TIMER_MODIFY_STATE);   /* NtCancelTimer */
    if (!r) r = nspa_timer_cancel(H(timer));
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_OBJECT));
        return FALSE;
    }
    return TRUE;
}
