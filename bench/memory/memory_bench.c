/* nspa-bench memory: one Win32 source, built natively against NSPA (impl nspa) and with
 * mingw-w64 for stock Wine (impl wine8); natively it also measures the Linux limits
 * (impl raw): a SIGSEGV handler that mprotects the page, and mmap + munmap.
 *
 *   guard_fault  one round trip: re-arm PAGE_GUARD (VirtualProtect), touch the page, the
 *                vectored handler runs, execution continues.
 *                raw: mprotect(PROT_NONE), touch, the SIGSEGV handler mprotects the page
 *                back to read-write, the touch is retried.
 *   alloc64k     VirtualAlloc(MEM_RESERVE | MEM_COMMIT) of 64 KiB, touch its 16 pages,
 *                VirtualFree(MEM_RELEASE).  raw: mmap + touch + munmap.
 *
 * Usage: memory_bench --impl <name> [--iters N]   prints "RESULT bench=... value=ns/op" */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#endif

static double now_ns(void)
{
    LARGE_INTEGER c, f;
    QueryPerformanceCounter(&c);
    QueryPerformanceFrequency(&f);
    return (double)c.QuadPart * 1e9 / (double)f.QuadPart;
}

static volatile LONG guard_hits;
static LONG CALLBACK on_guard(EXCEPTION_POINTERS *ep)
{
    if (ep->ExceptionRecord->ExceptionCode != (DWORD)STATUS_GUARD_PAGE_VIOLATION) return EXCEPTION_CONTINUE_SEARCH;
    guard_hits++;
    return EXCEPTION_CONTINUE_EXECUTION;
}

static double win_guard(long n)
{
    volatile char *p = VirtualAlloc(NULL, 4096, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    void *h = AddVectoredExceptionHandler(1, on_guard);
    DWORD old;
    if (!p || !h) { fprintf(stderr, "setup failed\n"); exit(1); }
    for (long i = 0; i < n / 10 + 1; i++) { VirtualProtect((void *)p, 4096, PAGE_READWRITE | PAGE_GUARD, &old); p[0]++; }
    guard_hits = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        VirtualProtect((void *)p, 4096, PAGE_READWRITE | PAGE_GUARD, &old);
        p[0]++;
    }
    double t = (now_ns() - t0) / n;
    if (guard_hits != n) { fprintf(stderr, "guard hits %ld, expected %ld\n", (long)guard_hits, n); exit(1); }
    RemoveVectoredExceptionHandler(h);
    VirtualFree((void *)p, 0, MEM_RELEASE);
    return t;
}

static double win_alloc(long n)
{
    double t0 = 0;
    for (long i = -n / 10 - 1; i < n; i++) {
        if (i == 0) t0 = now_ns();
        volatile char *p = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (!p) { fprintf(stderr, "VirtualAlloc failed\n"); exit(1); }
        for (int k = 0; k < 65536; k += 4096) p[k] = 1;
        VirtualFree((void *)p, 0, MEM_RELEASE);
    }
    return (now_ns() - t0) / n;
}

#ifndef _WIN32
static volatile long raw_hits;
static void raw_segv(int sig, siginfo_t *si, void *uc)
{
    raw_hits++;
    mprotect((void *)((unsigned long)si->si_addr & ~4095ul), 4096, PROT_READ | PROT_WRITE);
}

static double raw_guard(long n)
{
    volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = raw_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &old);
    for (long i = 0; i < n / 10 + 1; i++) { mprotect((void *)p, 4096, PROT_NONE); p[0]++; }
    raw_hits = 0;
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        mprotect((void *)p, 4096, PROT_NONE);
        p[0]++;
    }
    double t = (now_ns() - t0) / n;
    sigaction(SIGSEGV, &old, NULL);
    if (raw_hits != n) { fprintf(stderr, "raw hits %ld\n", raw_hits); exit(1); }
    munmap((void *)p, 4096);
    return t;
}

static double raw_alloc(long n)
{
    double t0 = 0;
    for (long i = -n / 10 - 1; i < n; i++) {
        if (i == 0) t0 = now_ns();
        volatile char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) exit(1);
        for (int k = 0; k < 65536; k += 4096) p[k] = 1;
        munmap((void *)p, 65536);
    }
    return (now_ns() - t0) / n;
}
#endif

int main(int argc, char **argv)
{
    const char *impl = "nspa";
    long n = 20000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--impl")) impl = argv[i + 1];
        else if (!strcmp(argv[i], "--iters")) n = atol(argv[i + 1]);
    }
    double g, a;
#ifndef _WIN32
    if (!strcmp(impl, "raw")) {
        g = raw_guard(n);
        a = raw_alloc(n);
    } else
#endif
    {
        g = win_guard(n);
        a = win_alloc(n);
    }
    printf("RESULT bench=guard_fault impl=%s unit=ns value=%.1f better=lower\n", impl, g);
    printf("RESULT bench=alloc64k impl=%s unit=ns value=%.1f better=lower\n", impl, a);
    return 0;
}
