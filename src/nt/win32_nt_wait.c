/*
 * The NT native waits, APCs and clocks: NtWaitForSingleObject, NtWaitForMultipleObjects,
 * NtSignalAndWaitForSingleObject, NtQueueApcThread, NtTestAlert, NtDelayExecution,
 * NtYieldExecution, NtQuerySystemTime, NtQueryPerformanceCounter.
 *
 * A wait is one nspa_wait_any/all (include/nspa/sync.h) with the caller's thread id as
 * mutex owner. An alertable wait passes the thread's APC event as the alert, checked
 * after the objects (a signaled object wins over queued APCs, as in NT); when it ends
 * the wait, the queued APCs run and the wait returns STATUS_USER_APC. The APC event can
 * be stale (set for APCs an earlier wait already ran): then the wait goes on to its
 * absolute deadline.
 */
#include <sched.h>
#include <time.h>
#include "nt/nt_internal.h"

NSPA_HIDDEN uint64_t nt_deadline(const LARGE_INTEGER *t, uint32_t *flags)
{
    *flags = 0;
    if (!t) return NSPA_TIMEOUT_INFINITE;
    LONGLONG q = t->QuadPart;
    if (q == 0) return 0;
    if (q < 0) {
        uint64_t rel = (uint64_t)-(q + 1) + 1;           /* no overflow at INT64_MIN */
        if (rel > (UINT64_MAX - nspa_time_ns()) / 100) return NSPA_TIMEOUT_INFINITE;
        return nspa_time_ns() + rel * 100;
    }
    /* absolute: 100 ns since 1601 on the system clock */
    *flags = NSPA_WAIT_REALTIME;
    if ((uint64_t)q <= NT_EPOCH_DIFF) return 1;          /* long past: poll */
    uint64_t since1970 = (uint64_t)q - NT_EPOCH_DIFF;
    if (since1970 > (UINT64_MAX - 1) / 100) return NSPA_TIMEOUT_INFINITE;
    return since1970 * 100;
}

/* One wait; @objs already resolved. */
static NTSTATUS nt_wait(nspa_obj_t *objs, uint32_t n, int all, BOOLEAN alertable, const LARGE_INTEGER *timeout)
{
    uint32_t flags;
    struct nspa_wait_args a = {
        .timeout = nt_deadline(timeout, &flags), .objs = objs, .count = n, .flags = flags,
        .owner = nspa_thread_id(),
    };
    if (alertable) a.alert = nspa__win32_apc_event();
    int r;
    for (;;) {
        r = all ? nspa_wait_all(&a) : nspa_wait_any(&a);
        if ((r == 0 || r == -EOWNERDEAD) && alertable && a.index == n) {
            if (nspa__win32_run_apcs()) return STATUS_USER_APC;
            continue;
        }
        break;
    }
    if (r == 0) return STATUS_WAIT_0 + (all ? 0 : a.index);
    if (r == -EOWNERDEAD) return STATUS_ABANDONED_WAIT_0 + a.index;
    if (r == -ETIMEDOUT) return STATUS_TIMEOUT;
    if (r == -EINVAL) {
        /* a non-waitable handle, or duplicates in a wait-all: tell them apart */
        for (uint32_t i = 0; i < n; i++)
            if (nspa_obj_type(objs[i]) < 0) return STATUS_OBJECT_TYPE_MISMATCH;
        return STATUS_INVALID_PARAMETER_MIX;
    }
    return nt_status(r, NULL);
}

NSPA_EXPORT NTSTATUS NTAPI NtWaitForSingleObject(HANDLE h, BOOLEAN alertable, const LARGE_INTEGER *timeout)
{
    /* pseudo handles are waitable here (never signaled while the caller runs) */
    nspa_obj_t o = nt_is_pseudo(h) ? nspa__win32_pseudo_obj(h) : nt_h(h);
    return nt_wait(&o, 1, 0, alertable, timeout);
}

NSPA_EXPORT NTSTATUS NTAPI NtWaitForMultipleObjects(ULONG count, const HANDLE *handles, WAIT_TYPE type,
                                                    BOOLEAN alertable, const LARGE_INTEGER *timeout)
{
    if (!count || count > MAXIMUM_WAIT_OBJECTS) return STATUS_INVALID_PARAMETER_1;
    if (type != WaitAll && type != WaitAny) return STATUS_INVALID_PARAMETER_3;
    if (!handles) return STATUS_ACCESS_VIOLATION;
    nspa_obj_t objs[MAXIMUM_WAIT_OBJECTS];
    for (ULONG i = 0; i < count; i++) {
        /* unlike NtWaitForSingleObject, pseudo handles are not objects here (Windows) */
        if (nt_is_pseudo(handles[i])) return STATUS_INVALID_HANDLE;
        objs[i] = nt_h(handles[i]);
    }
    return nt_wait(objs, count, type == WaitAll, alertable, timeout);
}

NSPA_EXPORT NTSTATUS NTAPI NtSignalAndWaitForSingleObject(HANDLE signal, HANDLE wait, BOOLEAN alertable,
                                                          const LARGE_INTEGER *timeout)
{
    /* both are referenced before anything is signaled */
    nspa_obj_t w = nt_is_pseudo(wait) ? nspa__win32_pseudo_obj(wait) : nt_h(wait);
    if (nspa_obj_type(w) < 0) return STATUS_INVALID_HANDLE;
    int r;
    switch (nspa_obj_type(nt_h(signal))) {
    case NSPA_TYPE_EVENT: r = nspa_event_set(nt_h(signal), NULL); break;
    case NSPA_TYPE_MUTEX: {
        struct nspa_mutex_args a = { nspa_thread_id(), 0 };
        r = nspa_mutex_unlock(nt_h(signal), &a);
        break;
    }
    case NSPA_TYPE_SEM: {
        uint32_t c = 1;
        r = nspa_sem_release(nt_h(signal), &c);
        break;
    }
    default:
        /* a thread (or a pseudo handle) cannot be signaled */
        return nspa_obj_type(nt_h(signal)) < 0 && !nt_is_pseudo(signal) ? STATUS_INVALID_HANDLE
                                                                          : STATUS_OBJECT_TYPE_MISMATCH;
    }
    if (r) return nt_status(r, signal);
    return nt_wait(&w, 1, 0, alertable, timeout);
}

/* ---- APCs ------------------------------------------------------------------------- */

NSPA_EXPORT NTSTATUS NTAPI NtQueueApcThread(HANDLE thread, PNTAPCFUNC fn, ULONG_PTR a1, ULONG_PTR a2,
                                            ULONG_PTR a3)
{
    int r = nspa__win32_queue_apc(thread, fn, a1, a2, a3, 0);
    switch (r) {
    case 0: return STATUS_SUCCESS;
    case -EBADF: return nt_is_pseudo(thread) ? STATUS_OBJECT_TYPE_MISMATCH : STATUS_INVALID_HANDLE;
    case -ESRCH: return STATUS_UNSUCCESSFUL;          /* the thread has ended */
    default: return STATUS_NO_MEMORY;
    }
}

NSPA_EXPORT NTSTATUS NTAPI NtTestAlert(void)
{
    nspa__win32_run_apcs();
    return STATUS_SUCCESS;
}

/* ---- delays and clocks ------------------------------------------------------------ */

NSPA_EXPORT NTSTATUS NTAPI NtDelayExecution(BOOLEAN alertable, const LARGE_INTEGER *interval)
{
    if (interval && interval->QuadPart == 0 && !alertable) {
        sched_yield();                 /* one yield, as NT's zero delay */
        return STATUS_SUCCESS;
    }
    uint32_t flags;
    uint64_t deadline = nt_deadline(interval, &flags);
    if (alertable) {
        for (;;) {
            struct nspa_wait_args a = {
                .timeout = deadline, .count = 0, .flags = flags, .owner = nspa_thread_id(),
                .alert = nspa__win32_apc_event(),
            };
            int r = nspa_wait_any(&a);
            if (r == 0 && a.index == 0) {
                if (nspa__win32_run_apcs()) return STATUS_USER_APC;
                continue;
            }
            return r == -ETIMEDOUT ? STATUS_SUCCESS : nt_status(r, NULL);
        }
    }
    clockid_t clk = flags & NSPA_WAIT_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    if (deadline == NSPA_TIMEOUT_INFINITE) {
        for (;;) {
            struct timespec ts = { 3600, 0 };
            nanosleep(&ts, NULL);
        }
    }
    struct timespec ts = { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) };
    while (clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtYieldExecution(void)
{
    sched_yield();
    return STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI NtQuerySystemTime(PLARGE_INTEGER t)
{
    if (!t) return STATUS_ACCESS_VIOLATION;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    t->QuadPart = (LONGLONG)(NT_EPOCH_DIFF + (uint64_t)ts.tv_sec * 10000000ull + (uint64_t)ts.tv_nsec / 100);
    return STATUS_SUCCESS;
}

/* The counter of QueryPerformanceCounter: CLOCK_MONOTONIC at 10 MHz. */
NSPA_EXPORT NTSTATUS NTAPI NtQueryPerformanceCounter(PLARGE_INTEGER counter, PLARGE_INTEGER freq)
{
    if (!counter) return STATUS_ACCESS_VIOLATION;
    counter->QuadPart = (LONGLONG)(nspa_time_ns() / 100);
    if (freq) freq->QuadPart = 10000000;
    return STATUS_SUCCESS;
}
