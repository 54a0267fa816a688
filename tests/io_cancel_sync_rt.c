/* The real-time rules of synchronous blocking I/O and CancelSynchronousIo (src/io/block.c):
 *  1. no allocation: a thread's blocking ReadFile on a pipe (after its first one, which
 *     claims its record), its wake by data, and CancelSynchronousIo of another thread's
 *     blocked read allocate nothing (this executable's malloc family counts);
 *  2. exhaustion is an error code: with no descriptor left for the thread's wake eventfd
 *     (RLIMIT_NOFILE, in a forked child), a blocking ReadFile fails at once with
 *     ERROR_NOT_ENOUGH_MEMORY instead of blocking where no cancel could reach it.
 * Labelled no-asan / no-tsan: sanitizers replace malloc. */
#include <windows.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nspa_test.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
#define INTERPOSE __attribute__((visibility("default")))

static atomic_int counting;              /* global: the cancelled thread's and ours */
static atomic_long n_alloc;

INTERPOSE void *malloc(size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
    return __libc_malloc(n);
}
INTERPOSE void *calloc(size_t a, size_t b)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
    return __libc_calloc(a, b);
}
INTERPOSE void *realloc(void *p, size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
    return __libc_realloc(p, n);
}
INTERPOSE void *memalign(size_t al, size_t n)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed)) atomic_fetch_add(&n_alloc, 1);
    return __libc_memalign(al, n);
}

static HANDLE rd, wr;
static volatile LONG phase;
static DWORD results[3];

static DWORD WINAPI reader(LPVOID unused)
{
    char b[16];
    DWORD n;
    /* warm-up: the thread's first blocking call claims its record (and eventfd) */
    results[0] = ReadFile(rd, b, sizeof(b), &n, NULL) ? n : 1000 + GetLastError();
    InterlockedExchange(&phase, 1);
    while (InterlockedCompareExchange(&phase, 0, 0) != 2) Sleep(1);
    atomic_store(&counting, 1);
    /* measured: a blocking read woken by data, then one ended by CancelSynchronousIo */
    results[1] = ReadFile(rd, b, sizeof(b), &n, NULL) ? n : 1000 + GetLastError();
    InterlockedExchange(&phase, 3);
    results[2] = ReadFile(rd, b, sizeof(b), &n, NULL) ? n : 1000 + GetLastError();
    return 0;
}

static void test_no_alloc(void)
{
    REQUIRE(CreatePipe(&rd, &wr, NULL, 0));
    HANDLE th = CreateThread(NULL, 0, reader, NULL, 0, NULL);
    REQUIRE(th);
    DWORD n;
    Sleep(20);
    CHECK(WriteFile(wr, "warm", 4, &n, NULL));
    while (InterlockedCompareExchange(&phase, 0, 0) != 1) Sleep(1);
    /* the cancel's first call may set up its own state: once outside the count */
    SetLastError(0);
    CHECK(!CancelSynchronousIo(th) && GetLastError() == ERROR_NOT_FOUND);
    InterlockedExchange(&phase, 2);
    Sleep(20);                                  /* the reader blocks (counted) */
    CHECK(WriteFile(wr, "data", 4, &n, NULL));  /* the wake */
    while (InterlockedCompareExchange(&phase, 0, 0) != 3) Sleep(1);
    int tries = 0;
    while (!CancelSynchronousIo(th) && ++tries < 5000) Sleep(1);
    CHECK(tries < 5000);
    CHECK_EQ(WaitForSingleObject(th, 10000), WAIT_OBJECT_0);
    atomic_store(&counting, 0);
    CHECK_EQ(results[0], 4);
    CHECK_EQ(results[1], 4);
    CHECK_EQ(results[2], 1000 + ERROR_OPERATION_ABORTED);
    long a = atomic_load(&n_alloc);
    if (a) printf("allocations on the blocking / wake / cancel paths: %ld\n", a);
    CHECK_EQ(a, 0);
    CloseHandle(th);
    CloseHandle(rd);
    CloseHandle(wr);
}

static void test_exhaustion(void)
{
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, NULL, 0));
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        /* no descriptor left for an eventfd: the first blocking call cannot get one */
        int top = 0;
        for (int fd = 0; fd < 4096; fd++)
            if (fcntl(fd, F_GETFD) >= 0) top = fd;
        struct rlimit rl = { (rlim_t)top + 1, (rlim_t)top + 1 };
        if (setrlimit(RLIMIT_NOFILE, &rl)) _exit(5);
        while (dup(0) >= 0)
            ;                                   /* fill the holes below the limit */
        char b[4];
        DWORD n = 5;
        SetLastError(0);
        BOOL ok = ReadFile(r, b, sizeof(b), &n, NULL);   /* no data: would block */
        _exit(!ok && GetLastError() == ERROR_NOT_ENOUGH_MEMORY ? 0 : 1 + (int)ok);
    }
    int st = 0;
    for (int i = 0; i < 1000 && waitpid(pid, &st, WNOHANG) == 0; i++) Sleep(10);
    if (waitpid(pid, &st, WNOHANG) == 0) {
        kill(pid, SIGKILL);                     /* it blocked: the rule is broken */
        waitpid(pid, &st, 0);
        CHECK(!"a blocking read without a wake record blocked");
    } else {
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CloseHandle(r);
    CloseHandle(w);
}

int main(void)
{
    test_no_alloc();
    test_exhaustion();
    return nspa_test_done();
}
