/* The sync benches' error exit, shared by sync_bench.c (NSPA, mingw/Wine and WinPR
 * builds) and scale_bench.c: a failed Win32 call prints an ERROR line that run.sh and
 * scale.sh report, and ends the run; and the thread start and join both use. The including file defines g_bench and g_impl. */
#ifndef NSPA_BENCH_CHECK_H
#define NSPA_BENCH_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static void fail(const char *call)
{
    printf("ERROR bench=%s impl=%s call=%s err=%lu\n", g_bench, g_impl, call,
           (unsigned long)GetLastError());
    fflush(stdout);
    exit(2);
}

#define CHECK_HANDLE(h, call) do { if (!(h)) fail(call); } while (0)
#define CHECK_BOOL(b, call)   do { if (!(b)) fail(call); } while (0)
#define CHECK_WAIT(r, want, call) do { if ((r) != (want)) fail(call); } while (0)

/* a bench thread, and its end */
static HANDLE new_thread(LPTHREAD_START_ROUTINE fn, void *arg)
{
    DWORD tid;
    HANDLE h = CreateThread(NULL, 0, fn, arg, 0, &tid);
    CHECK_HANDLE(h, "CreateThread");
    return h;
}

static void join(HANDLE h)
{
    CHECK_WAIT(WaitForSingleObject(h, INFINITE), WAIT_OBJECT_0, "WaitForSingleObject(thread)");
    CHECK_BOOL(CloseHandle(h), "CloseHandle(thread)");
}
#endif
