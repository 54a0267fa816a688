/*
 * nspa-bench sync hotcalls: the cost of the uncontended Win32 object calls that
 * real-time code makes in its loops (no other thread anywhere):
 *
 *   setevent     SetEvent on an auto-reset event nobody waits on (left signaled)
 *   setreset     SetEvent + ResetEvent on a manual-reset event
 *   mutex        WaitForSingleObject(m, 0) + ReleaseMutex
 *   semaphore    ReleaseSemaphore(s, 1) + WaitForSingleObject(s, 0)
 *   named        SetEvent + WaitForSingleObject(e, 0) on a named auto-reset event (an
 *                object of the namespace, shared with other processes)
 *
 * Usage: nspa_sync_hotcalls <mode> [iterations=2000000]; prints "<mode> <ns per op>".
 * Built against NSPA's <windows.h>; run.sh or a caller interleaves it against another
 * build of the library to compare (docs/bench.md). Only documented Win32 calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static double now_ns(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart * 1e9 / (double)f.QuadPart;
}

#define FAIL(what) do { fprintf(stderr, "%s failed: %lu\n", what, (unsigned long)GetLastError()); exit(2); } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s setevent|setreset|named|mutex|semaphore [iterations]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    long n = argc > 2 ? atol(argv[2]) : 2000000;
    HANDLE h;
    double t0, t1;
    if (!strcmp(mode, "setevent")) {
        if (!(h = CreateEventA(NULL, FALSE, FALSE, NULL))) FAIL("CreateEvent");
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (!SetEvent(h)) FAIL("SetEvent");
        t1 = now_ns();
    } else if (!strcmp(mode, "setreset")) {
        if (!(h = CreateEventA(NULL, TRUE, FALSE, NULL))) FAIL("CreateEvent");
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (!SetEvent(h) || !ResetEvent(h)) FAIL("SetEvent/ResetEvent");
        t1 = now_ns();
    } else if (!strcmp(mode, "named")) {
        char name[64];
        snprintf(name, sizeof(name), "nspa-hotcalls-%lu", (unsigned long)GetCurrentProcessId());
        if (!(h = CreateEventA(NULL, FALSE, FALSE, name))) FAIL("CreateEvent");
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (!SetEvent(h) || WaitForSingleObject(h, 0) != WAIT_OBJECT_0) FAIL("SetEvent/Wait");
        t1 = now_ns();
    } else if (!strcmp(mode, "mutex")) {
        if (!(h = CreateMutexA(NULL, FALSE, NULL))) FAIL("CreateMutex");
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (WaitForSingleObject(h, 0) != WAIT_OBJECT_0 || !ReleaseMutex(h)) FAIL("Wait/ReleaseMutex");
        t1 = now_ns();
    } else if (!strcmp(mode, "semaphore")) {
        if (!(h = CreateSemaphoreA(NULL, 0, 1, NULL))) FAIL("CreateSemaphore");
        t0 = now_ns();
        for (long i = 0; i < n; i++)
            if (!ReleaseSemaphore(h, 1, NULL) || WaitForSingleObject(h, 0) != WAIT_OBJECT_0)
                FAIL("ReleaseSemaphore/Wait");
        t1 = now_ns();
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    CloseHandle(h);
    printf("%s %.2f\n", mode, (t1 - t0) / (double)n);
    return 0;
}
