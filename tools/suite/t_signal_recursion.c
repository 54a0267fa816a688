/* signal-recursion <threads> <iterations>: REALTIME class, thread 0 TIME_CRITICAL, the
 * others NORMAL; each iteration: VirtualAlloc 2 pages, PAGE_GUARD on page 0, write page 0
 * (a guard-page exception caught by a vectored handler, which continues), write it
 * again (no exception: the guard is one-shot), write page 1, VirtualFree.
 * Pass (stricter than the seed's): the handler counted exactly threads x iterations
 * guard violations, each at the address written, no other exception, every value read
 * back. */
#include "suite.h"

#define MAXT 16
static volatile LONG guards, others, wrong_addr;
static long iters;
static DWORD page;
static HANDLE go;
static struct sr_thread { long errors; double elapsed_us; } th[MAXT];

static LONG CALLBACK sr_handler(EXCEPTION_POINTERS *ep)
{
    if (ep->ExceptionRecord->ExceptionCode == (DWORD)STATUS_GUARD_PAGE_VIOLATION) {
        InterlockedIncrement(&guards);
        if (ep->ExceptionRecord->NumberParameters < 2 || ep->ExceptionRecord->ExceptionInformation[0] != 1)
            InterlockedIncrement(&wrong_addr);
        return EXCEPTION_CONTINUE_EXECUTION;
    }
    InterlockedIncrement(&others);
    return EXCEPTION_CONTINUE_SEARCH;
}

static DWORD WINAPI sr_main(LPVOID arg)
{
    struct sr_thread *t = arg;
    WaitForSingleObject(go, INFINITE);
    double t0 = suite_now_us();
    for (long i = 0; i < iters; i++) {
        volatile char *p = VirtualAlloc(NULL, 2 * page, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        DWORD old;
        if (!p) { t->errors++; continue; }
        if (!VirtualProtect((void *)p, page, PAGE_READWRITE | PAGE_GUARD, &old)) t->errors++;
        p[0] = 1;                   /* guard page violation */
        p[0] = 2;                   /* the guard is gone */
        p[page] = 3;
        if (p[0] != 2 || p[page] != 3) t->errors++;
        if (!VirtualFree((void *)p, 0, MEM_RELEASE)) t->errors++;
    }
    t->elapsed_us = suite_now_us() - t0;
    return 0;
}

int t_signal_recursion(int argc, char **argv)
{
    int n = (int)suite_arg(argc, argv, 1, 4);
    iters = (long)suite_arg(argc, argv, 2, 500);
    if (n < 1 || n > MAXT || iters < 1) return suite_fail("bad arguments");
    page = 4096;                    /* the x86_64 page size on Windows and Linux */
    void *h = AddVectoredExceptionHandler(1, sr_handler);
    if (!h) return suite_fail("AddVectoredExceptionHandler failed (%lu)", (unsigned long)GetLastError());
    go = CreateEventA(NULL, TRUE, FALSE, NULL);
    suite_enter_rt(THREAD_PRIORITY_TIME_CRITICAL);
    HANDLE t[MAXT];
    for (int i = 0; i < n; i++)
        t[i] = suite_thread(sr_main, &th[i], i == 0 ? THREAD_PRIORITY_TIME_CRITICAL : THREAD_PRIORITY_NORMAL);
    Sleep(20);
    double t0 = suite_now_us();
    SetEvent(go);
    for (int i = 0; i < n; i++) suite_join(t[i]);
    double el = suite_now_us() - t0;
    suite_leave_rt();
    RemoveVectoredExceptionHandler(h);
    CloseHandle(go);
    long errors = 0;
    for (int i = 0; i < n; i++) errors += th[i].errors;
    long want = (long)n * iters;
    suite_fig("elapsed", el / 1000, "ms", "lower", "Total elapsed");
    suite_fig("faults", guards, "count", "info", "Guard faults caught (VEH)");
    suite_fig("per_iter", th[0].elapsed_us / iters, "us", "lower", "RT thread: one iteration (alloc, guard, 3 writes, free)");
    suite_fig("errors", errors + others + wrong_addr, "count", "lower", "Errors");
    if (guards != want) return suite_fail("the handler counted %ld guard violations, expected exactly %ld", (long)guards, want);
    if (errors || others || wrong_addr)
        return suite_fail("%ld call errors, %ld other exceptions, %ld wrong parameters", errors, (long)others, (long)wrong_addr);
    return suite_pass();
}
