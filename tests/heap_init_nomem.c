/* Exhaustion at initialisation is an error, never an abort: with the address space
 * limited (RLIMIT_AS) so that the heap's segment map (64 MiB, reserved NORESERVE) cannot
 * be reserved, the first heap calls fail as allocations fail: GetProcessHeap() and
 * nspa_heap_process() give NULL, HeapCreate gives NULL with ERROR_NOT_ENOUGH_MEMORY,
 * HeapAlloc/nspa_heap_alloc on that NULL give NULL, HeapFree of NULL still succeeds.
 * Once the limit is lifted the next call initialises the heap and everything works.
 * Runs in a fresh child (nothing there has touched the heap). Not under ASan or TSan,
 * whose shadow memory does not fit under an address-space limit. */
#include <windows.h>
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa/heap.h"
#include "nspa_test.h"

static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

static int child(void)
{
    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
    lim = old;
    /* room for ordinary work, not for the 64 MiB segment map */
    lim.rlim_cur = vm_size() + ((rlim_t)24 << 20);
    REQUIRE(setrlimit(RLIMIT_AS, &lim) == 0);
    void *probe = malloc(64 << 20);                /* the limit really binds here */
    CHECK(probe == NULL);

    CHECK(GetProcessHeap() == NULL);
    CHECK(nspa_heap_process() == NULL);
    SetLastError(0);
    CHECK(HeapCreate(0, 0, 0) == NULL);
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);
    CHECK(HeapAlloc(GetProcessHeap(), 0, 16) == NULL);
    CHECK(nspa_heap_alloc(nspa_heap_process(), 0, 100) == NULL);
    CHECK(HeapFree(GetProcessHeap(), 0, NULL));
    CHECK(GetProcessHeap() == NULL);               /* tried again, failed again */

    REQUIRE(setrlimit(RLIMIT_AS, &old) == 0);
    HANDLE ph = GetProcessHeap();
    CHECK(ph != NULL);
    void *p = HeapAlloc(ph, 0, 100);
    CHECK(p != NULL);
    CHECK_EQ(HeapSize(ph, 0, p), 100);
    CHECK(HeapFree(ph, 0, p));
    HANDLE h = HeapCreate(0, 0, 0);
    CHECK(h != NULL);
    void *q = HeapAlloc(h, HEAP_ZERO_MEMORY, 5000);
    CHECK(q != NULL && ((unsigned char *)q)[4999] == 0);
    CHECK(HeapValidate(h, 0, NULL));
    CHECK(HeapDestroy(h));
    return nspa_test_done();
}

int main(void)
{
    fflush(NULL);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        int r = child();
        fflush(NULL);
        _exit(r);
    }
    int st = 0;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));                          /* no abort */
    CHECK_EQ(WIFEXITED(st) ? WEXITSTATUS(st) : -1, 0);
    return nspa_test_done();
}
