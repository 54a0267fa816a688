/* PAGE_GUARD: one-shot STATUS_GUARD_PAGE_VIOLATION with Windows' parameters; two
 * threads touching one guard page: exactly one gets the exception, the other resumes.
 * MEM_WRITE_WATCH: GetWriteWatch / ResetWriteWatch. */
#include <windows.h>
#include <pthread.h>
#include <unistd.h>
#include "nspa/vm.h"
#include "nspa_test.h"

static volatile LONG guard_hits;
static ULONG_PTR info0, info1;

static LONG CALLBACK veh(EXCEPTION_POINTERS *ep)
{
    if (ep->ExceptionRecord->ExceptionCode != (DWORD)STATUS_GUARD_PAGE_VIOLATION) return EXCEPTION_CONTINUE_SEARCH;
    InterlockedIncrement(&guard_hits);
    info0 = ep->ExceptionRecord->ExceptionInformation[0];
    info1 = ep->ExceptionRecord->ExceptionInformation[1];
    return EXCEPTION_CONTINUE_EXECUTION;
}

#define ROUNDS 200
static volatile char *page;
static pthread_barrier_t bar;
static void *toucher(void *arg)
{
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&bar);
        page[(intptr_t)arg * 64] = 1;          /* both write the guard page at once */
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);            /* main re-arms the guard */
    }
    return NULL;
}

int main(void)
{
    void *h = AddVectoredExceptionHandler(1, veh);
    volatile char *p = VirtualAlloc(NULL, 8192, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    REQUIRE(p != NULL);
    DWORD old;
    CHECK(VirtualProtect((void *)p, 4096, PAGE_READWRITE | PAGE_GUARD, &old));
    MEMORY_BASIC_INFORMATION mi;
    VirtualQuery((void *)p, &mi, sizeof mi);
    CHECK_EQ(mi.Protect, PAGE_READWRITE | PAGE_GUARD);
    p[5] = 1;
    CHECK_EQ(guard_hits, 1);
    CHECK_EQ(info0, 1);
    CHECK(info1 == (ULONG_PTR)(p + 5));
    p[6] = 2;                                   /* one-shot: gone */
    CHECK_EQ(guard_hits, 1);
    VirtualQuery((void *)p, &mi, sizeof mi);
    CHECK_EQ(mi.Protect, PAGE_READWRITE);
    CHECK(p[5] == 1 && p[6] == 2);
    /* a read touches it too */
    CHECK(VirtualProtect((void *)(p + 4096), 4096, PAGE_READONLY | PAGE_GUARD, &old));
    volatile char c = p[4096 + 7];
    (void)c;
    CHECK_EQ(guard_hits, 2);
    CHECK_EQ(info0, 0);

    /* two threads, one guard page, 200 rounds: exactly one exception per round */
    page = p;
    pthread_barrier_init(&bar, NULL, 3);
    pthread_t t[2];
    for (intptr_t i = 0; i < 2; i++) pthread_create(&t[i], NULL, toucher, (void *)i);
    guard_hits = 0;
    long bad_rounds = 0;
    for (int i = 0; i < ROUNDS; i++) {
        LONG before = guard_hits;
        VirtualProtect((void *)p, 4096, PAGE_READWRITE | PAGE_GUARD, &old);
        pthread_barrier_wait(&bar);
        pthread_barrier_wait(&bar);
        if (guard_hits - before != 1) bad_rounds++;
        pthread_barrier_wait(&bar);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK_EQ(bad_rounds, 0);
    CHECK_EQ(guard_hits, ROUNDS);
    CHECK(VirtualFree((void *)p, 0, MEM_RELEASE));

    /* write watch */
    volatile char *w = VirtualAlloc(NULL, 4 * 4096, MEM_RESERVE | MEM_COMMIT | MEM_WRITE_WATCH, PAGE_READWRITE);
    REQUIRE(w != NULL);
    void *addrs[8];
    ULONG_PTR n = 8;
    ULONG gran = 0;
    CHECK_EQ(GetWriteWatch(0, (void *)w, 4 * 4096, addrs, &n, &gran), 0);
    CHECK_EQ(n, 0);
    CHECK_EQ(gran, 4096);
    w[4096 + 1] = 1;
    w[3 * 4096] = 1;
    volatile char rd = w[2 * 4096];            /* reads do not count */
    (void)rd;
    n = 8;
    CHECK_EQ(GetWriteWatch(WRITE_WATCH_FLAG_RESET, (void *)w, 4 * 4096, addrs, &n, &gran), 0);
    CHECK_EQ(n, 2);
    CHECK(addrs[0] == (void *)(w + 4096) && addrs[1] == (void *)(w + 3 * 4096));
    n = 8;
    GetWriteWatch(0, (void *)w, 4 * 4096, addrs, &n, &gran);
    CHECK_EQ(n, 0);
    w[4096 + 2] = 3;                            /* counted again after the reset */
    CHECK(w[4096 + 1] == 1 && w[4096 + 2] == 3);
    n = 8;
    GetWriteWatch(0, (void *)w, 4 * 4096, addrs, &n, &gran);
    CHECK_EQ(n, 1);
    CHECK_EQ(ResetWriteWatch((void *)w, 4 * 4096), 0);
    n = 8;
    GetWriteWatch(0, (void *)w, 4 * 4096, addrs, &n, &gran);
    CHECK_EQ(n, 0);
    /* an empty buffer is a bad parameter */
    n = 0;
    CHECK(GetWriteWatch(0, (void *)w, 4 * 4096, addrs, &n, &gran) != 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* the kernel writing into a watched page: read() fails with EFAULT on the
     * write-protected page unless the page is opened first (the I/O layer's hook) */
    {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        CHECK(write(fds[1], "abc", 3) == 3);
        CHECK(read(fds[0], (void *)(w + 2 * 4096), 3) == -1);     /* EFAULT: not yet dirty */
        nspa_vm_before_kernel_write((void *)(w + 2 * 4096), 3);
        CHECK(read(fds[0], (void *)(w + 2 * 4096), 3) == 3);
        n = 8;
        GetWriteWatch(WRITE_WATCH_FLAG_RESET, (void *)w, 4 * 4096, addrs, &n, &gran);
        CHECK_EQ(n, 1);
        CHECK(addrs[0] == (void *)(w + 2 * 4096));
        close(fds[0]);
        close(fds[1]);
    }
    /* not a write-watch region */
    char *plain = VirtualAlloc(NULL, 4096, MEM_COMMIT, PAGE_READWRITE);
    n = 8;
    CHECK(GetWriteWatch(0, plain, 4096, addrs, &n, &gran) != 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* MEM_WRITE_WATCH without MEM_RESERVE */
    CHECK(VirtualAlloc(plain, 4096, MEM_COMMIT | MEM_WRITE_WATCH, PAGE_READWRITE) == NULL);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    VirtualFree((void *)w, 0, MEM_RELEASE);
    VirtualFree(plain, 0, MEM_RELEASE);
    CHECK(RemoveVectoredExceptionHandler(h));
    return nspa_test_done();
}
