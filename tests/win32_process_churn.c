/* 10,000 CreateProcess-and-wait cycles with inheritable events handed to the children
 * (bInheritHandles = TRUE), each child attaching to the namespace: no growth of file
 * descriptors, of the handle table (the next handle value), of namespace process slots
 * or named objects, or of memory (RSS) across the cycles (issue 14, "Must show").
 * Sanitizer builds run 1,000 cycles. */
#include <windows.h>
#include <dirent.h>
#include <unistd.h>
#include "nspa/sync.h"
#include "nspa_test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CYCLES 1000
#else
#define CYCLES 10000
#endif

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

/* The largest of 64 new handle values: the same while the table's size and the number
 * of open handles stay the same (a leak of handles raises it). */
static uintptr_t next_handle(void)
{
    HANDLE h[64];
    uintptr_t m = 0;
    for (int i = 0; i < 64; i++) {
        h[i] = CreateEventA(NULL, FALSE, FALSE, NULL);
        if ((uintptr_t)h[i] > m) m = (uintptr_t)h[i];
    }
    for (int i = 0; i < 64; i++) CloseHandle(h[i]);
    return m;
}

static int cycle(const char *self, HANDLE ev)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "\"%s\" child %lu", self, (unsigned long)(uintptr_t)ev);
    STARTUPINFOA si = { .cb = sizeof(si) };
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) return -1;
    DWORD w = WaitForSingleObject(pi.hProcess, 30000), code = 0;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return w == WAIT_OBJECT_0 ? (int)code : -2;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        /* attach to the namespace (a process slot), as an NSPA child does */
        return nspa_namespace_path() ? 3 : 4;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
    HANDLE ev = CreateEventA(&sa, TRUE, FALSE, NULL);
    HANDLE named = CreateEventA(&sa, TRUE, FALSE, "nspa-churn-named");
    REQUIRE(ev && named);
    /* warm up: the watcher thread, the caches */
    for (int i = 0; i < 50; i++) CHECK_EQ(cycle(self, ev), 3);
    Sleep(200);
    struct nspa_ns_stats s0, s1;
    REQUIRE(nspa_namespace_stats(&s0) == 0);
    int fd0 = count_fds();
    uintptr_t h0 = next_handle();
    long rss0 = rss_kb();
    int bad = 0;
    for (int i = 0; i < CYCLES; i++)
        if (cycle(self, ev) != 3) bad++;
    CHECK_EQ(bad, 0);
    /* the watcher thread closes its pidfds and handles after the wakes; on a loaded
     * machine it may be behind: give it up to 10 s to catch up */
    int fd1 = count_fds();
    uintptr_t h1 = next_handle();
    for (int i = 0; i < 500 && (fd1 != fd0 || h1 != h0); i++) {
        Sleep(20);
        fd1 = count_fds();
        h1 = next_handle();
    }
    REQUIRE(nspa_namespace_stats(&s1) == 0);
    long rss1 = rss_kb();
    printf("%d cycles: fds %d -> %d, next handle %lu -> %lu, processes %u -> %u, objects %u -> %u, rss %ld -> %ld kB\n",
           CYCLES, fd0, fd1, (unsigned long)h0, (unsigned long)h1, s0.processes, s1.processes, s0.objects,
           s1.objects, rss0, rss1);
    CHECK_EQ(fd1, fd0);
    CHECK_EQ(h1, h0);
    CHECK(s1.processes <= s0.processes);
    CHECK_EQ(s1.objects, s0.objects);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)rss1;                           /* the sanitizers keep freed memory (quarantine) */
#else
    CHECK(rss1 - rss0 < 2048);            /* < 2 MiB over all the cycles */
#endif
    CloseHandle(ev);
    CloseHandle(named);
    return nspa_test_done();
}
