/* VirtualAlloc / VirtualFree / VirtualProtect / VirtualQuery: Windows' reserve, commit,
 * decommit and release rules, 64 KiB granularity, exact MEMORY_BASIC_INFORMATION. */
#include <windows.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (f) { if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0; fclose(f); }
    return res * 4;
}

/* a thread that allocates and frees without pause while main forks */
static volatile int churn_stop;
static void *churn(void *arg)
{
    while (!churn_stop) {
        void *p = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (p) VirtualFree(p, 0, MEM_RELEASE);
    }
    return NULL;
}

int main(void)
{
    MEMORY_BASIC_INFORMATION mi;
    /* reserve 1 GiB: no memory */
    long before = rss_kb();
    char *r = VirtualAlloc(NULL, 1u << 30, MEM_RESERVE, PAGE_READWRITE);
    REQUIRE(r != NULL);
    CHECK(((uintptr_t)r & 0xffff) == 0);
    CHECK(rss_kb() - before < 4096);
    CHECK_EQ(VirtualQuery(r + 5000, &mi, sizeof mi), sizeof mi);
    CHECK(mi.BaseAddress == r + 4096);
    CHECK(mi.AllocationBase == r);
    CHECK_EQ(mi.AllocationProtect, PAGE_READWRITE);
    CHECK_EQ(mi.State, MEM_RESERVE);
    CHECK_EQ(mi.Protect, 0);
    CHECK_EQ(mi.Type, MEM_PRIVATE);
    CHECK_EQ(mi.RegionSize, (1u << 30) - 4096);

    /* commit a middle range: rounded to pages */
    char *c = VirtualAlloc(r + 65536 + 100, 8192, MEM_COMMIT, PAGE_READWRITE);
    CHECK(c == r + 65536);
    CHECK_EQ(VirtualQuery(r, &mi, sizeof mi), sizeof mi);
    CHECK_EQ(mi.State, MEM_RESERVE);
    CHECK_EQ(mi.RegionSize, 65536);
    VirtualQuery(c, &mi, sizeof mi);
    CHECK_EQ(mi.State, MEM_COMMIT);
    CHECK_EQ(mi.Protect, PAGE_READWRITE);
    CHECK_EQ(mi.RegionSize, 12288);       /* 65636 + 8192 spans three pages */
    memset(c, 0x5a, 12288);
    CHECK(c[0] == 0x5a);
    /* recommitting keeps the contents */
    CHECK(VirtualAlloc(c, 4096, MEM_COMMIT, PAGE_READWRITE) == c);
    CHECK(c[10] == 0x5a);

    /* protect: old value, new region */
    DWORD old = 0;
    CHECK(VirtualProtect(c + 4096, 4096, PAGE_READONLY, &old));
    CHECK_EQ(old, PAGE_READWRITE);
    VirtualQuery(c, &mi, sizeof mi);
    CHECK_EQ(mi.RegionSize, 4096);
    VirtualQuery(c + 4096, &mi, sizeof mi);
    CHECK_EQ(mi.Protect, PAGE_READONLY);
    CHECK(VirtualProtect(c, 12288, PAGE_EXECUTE_READWRITE, &old));
    CHECK_EQ(old, PAGE_READWRITE);
    /* protect on reserved pages: ERROR_INVALID_ADDRESS */
    SetLastError(0);
    CHECK(!VirtualProtect(r, 4096, PAGE_READWRITE, &old));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualProtect(c, 4096, PAGE_READWRITE, NULL));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    CHECK(!VirtualProtect(c, 4096, 0x3, &old));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    /* decommit: zero on recommit, reserved in between */
    CHECK(VirtualFree(c, 4096, MEM_DECOMMIT));
    VirtualQuery(c, &mi, sizeof mi);
    CHECK_EQ(mi.State, MEM_RESERVE);
    CHECK(VirtualAlloc(c, 4096, MEM_COMMIT, PAGE_READWRITE) == c);
    CHECK(c[0] == 0 && c[4095] == 0);

    /* release: only at the base, size 0 */
    SetLastError(0);
    CHECK(!VirtualFree(r + 65536, 0, MEM_RELEASE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    CHECK(!VirtualFree(r, 4096, MEM_RELEASE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!VirtualFree(r, 0, MEM_RELEASE | MEM_DECOMMIT));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(VirtualFree(r, 0, MEM_RELEASE));
    VirtualQuery(r, &mi, sizeof mi);
    CHECK(mi.State == MEM_FREE || mi.AllocationBase != r);
    if (mi.State == MEM_FREE) { CHECK(mi.AllocationBase == NULL); CHECK_EQ(mi.Protect, PAGE_NOACCESS); }
    CHECK(!VirtualFree(r, 0, MEM_RELEASE));
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);

    /* commit without address reserves as well; reserve at a given (taken) address */
    char *p = VirtualAlloc(NULL, 100, MEM_COMMIT, PAGE_READWRITE);
    REQUIRE(p != NULL);
    CHECK(((uintptr_t)p & 0xffff) == 0);
    p[99] = 1;
    CHECK(VirtualAlloc(p, 4096, MEM_RESERVE, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    VirtualQuery(p, &mi, sizeof mi);
    CHECK_EQ(mi.RegionSize, 4096);
    CHECK(VirtualFree(p, 0, MEM_RELEASE));
    /* the freed place can be reserved again at that exact address */
    char *q = VirtualAlloc(p, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READONLY);
    CHECK(q == p);
    if (q) CHECK(VirtualFree(q, 0, MEM_RELEASE));

    /* MEM_TOP_DOWN, MEM_RESET */
    char *t = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT | MEM_TOP_DOWN, PAGE_READWRITE);
    CHECK(t != NULL);
    t[0] = 7;
    CHECK(VirtualAlloc(t, 65536, MEM_RESET, PAGE_NOACCESS) == t);
    CHECK(VirtualAlloc(t, 65536, MEM_RESET | MEM_COMMIT, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    VirtualQuery(t, &mi, sizeof mi);
    CHECK_EQ(mi.State, MEM_COMMIT);       /* reset pages stay committed */
    /* reserved pages may be reset too; a range past the allocation may not */
    char *rr = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_READWRITE);
    CHECK(VirtualAlloc(rr + 4096, 4096, MEM_RESET, PAGE_NOACCESS) == rr + 4096);
    CHECK(VirtualAlloc(rr + 61440, 8192, MEM_RESET, PAGE_NOACCESS) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_ADDRESS);
    VirtualFree(rr, 0, MEM_RELEASE);
    CHECK(VirtualFree(t, 0, MEM_RELEASE));

    /* VirtualLock: committed pages only; Unlock of unlocked pages: ERROR_NOT_LOCKED */
    char *l = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_READWRITE);
    VirtualAlloc(l, 4096, MEM_COMMIT, PAGE_READWRITE);
    CHECK(VirtualLock(l, 4096));
    CHECK(VirtualUnlock(l, 4096));
    CHECK(!VirtualUnlock(l, 4096));
    CHECK_EQ(GetLastError(), ERROR_NOT_LOCKED);
    CHECK(!VirtualLock(l, 8192));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    CHECK(VirtualFree(l, 0, MEM_RELEASE));

    /* memory outside NSPA's allocations: the C library's heap is committed private */
    char *m = malloc(100);
    CHECK_EQ(VirtualQuery(m, &mi, sizeof mi), sizeof mi);
    CHECK_EQ(mi.State, MEM_COMMIT);
    CHECK_EQ(mi.Protect, PAGE_READWRITE);
    free(m);
    /* VirtualAlloc2: an alignment requirement */
    MEM_ADDRESS_REQUIREMENTS req = { NULL, NULL, 1u << 22 };
    MEM_EXTENDED_PARAMETER ep = { { MemExtendedParameterAddressRequirements, 0 }, { 0 } };
    ep.Pointer = &req;
    char *al = VirtualAlloc2(NULL, NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE, &ep, 1);
    CHECK(al != NULL && ((uintptr_t)al & ((1u << 22) - 1)) == 0);
    if (al) { al[0] = 1; CHECK(VirtualFree(al, 0, MEM_RELEASE)); }
    req.Alignment = 65536 + 4096;            /* not a power of two */
    CHECK(VirtualAlloc2(NULL, NULL, 65536, MEM_RESERVE, PAGE_READWRITE, &ep, 1) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(FlushInstructionCache(GetCurrentProcess(), NULL, 0));

    /* fork while another thread is inside VirtualAlloc/VirtualFree: the child's first
     * call must not find the writers' lock held by a thread it does not have */
    pthread_t ct;
    pthread_create(&ct, NULL, churn, NULL);
    int forked_ok = 0;
    for (int i = 0; i < 200; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            void *p = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
            _exit(p && VirtualFree(p, 0, MEM_RELEASE) ? 0 : 1);
        }
        /* a child that hangs on the lock is killed after 2 s and counted as failed */
        int st = 0;
        for (int w = 0; w < 200 && waitpid(pid, &st, WNOHANG) == 0; w++) usleep(10000);
        if (waitpid(pid, &st, WNOHANG) == 0) { kill(pid, SIGKILL); waitpid(pid, &st, 0); }
        forked_ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    churn_stop = 1;
    pthread_join(ct, NULL);
    CHECK_EQ(forked_ok, 200);
    return nspa_test_done();
}
