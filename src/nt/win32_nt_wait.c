/*
 * The NT native waits, APCs and clocks: NtWaitForSingleObject, NtWaitForMultipleObjects,
 * NtSignalAndWaitForSingleObject, NtQueueApcThread, NtTestAlert, NtDelayExecution,
 * NtYieldExecution, NtQuerySystemTime, NtQueryPerformanceCounter.
 *
 * A wait is the Win32 waits' own (nspa__win32_wait, src/win32/synch.c): one
 * nspa_wait_any/all with the caller's thread id as mutex owner and, when alertable,
 * the thread's APC event as the alert; when APCs ran the wait returns STATUS_USER_APC.
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

/* The status of a failed wait (not a timeout). -EINVAL means a handle of a kind that
 * cannot be waited on (STATUS_OBJECT_TYPE_MISMATCH, as NT says for a non-waitable
 * object), or, in a wait-all, one object twice (STATUS_INVALID_PARAMETER_MIX); told
 * apart by the objects' identities. Shared with the Win32 waits (synch.c). */
NSPA_HIDDEN NTSTATUS nspa__nt_wait_error(int r, const nspa_obj_t *objs, uint32_t n, int all)
{
    if (r != -EINVAL) return nt_status(r, NULL);
    for (uint32_t i = 0; i < n; i++)
        if (nspa_obj_type(objs[i]) < 0) return STATUS_INVALID_HANDLE;
    if (all)
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (nspa__obj_key(objs[i]) == nspa__obj_key(objs[j])) return STATUS_INVALID_PARAMETER_MIX;
    return STATUS_OBJECT_TYPE_MISMATCH;
}

/* One wait; @objs already resolved. */
static NTSTATUS nt_wait(nspa_obj_t *objs, uint32_t n, int all, BOOLEAN alertable, const LARGE_INTEGER *timeout)
{
    uint32_t flags, index = 0;
    uint64_t deadline = nt_deadline(timeout, &flags);
    int r = nspa__win32_wait(objs, n, all, deadline, flags, alertable, &index);
    if (r == NSPA__WAIT_APC) return STATUS_USER_APC;
    if (r == 0) return STATUS_WAIT_0 + (all ? 0 : index);
    if (r == -EOWNERDEAD) return STATUS_ABANDONED_WAIT_0 + index;
    if (r == -ETIMEDOUT) return STATUS_TIMEOUT;
    return nspa__nt_wait_error(r, objs, n, all);
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
    if (nt_is_pseudo(signal)) return STATUS_OBJECT_TYPE_MISMATCH;   /* a thread or process */
    int r = nspa__win32_signal_object(nt_h(signal));
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
    case -EACCES: return STATUS_ACCESS_DENIED;        /* no THREAD_SET_CONTEXT */
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
        /* a wait for nothing but the APC event */
        uint32_t index;
        int r = nspa__win32_wait(NULL, 0, 0, deadline, flags, 1, &index);
        if (r == NSPA__WAIT_APC) return STATUS_USER_APC;
        if (r != -ETIMEDOUT) return nt_status(r, NULL);
        if (interval && interval->QuadPart == 0) sched_yield();   /* nothing ran: the zero delay's yield */
        return STATUS_SUCCESS;
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
