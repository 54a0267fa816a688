/* A port a pool of workers waits on sends its files' operations to the process ring
 * (docs/io.md, "Thread rings": io_op_ring_ok). A port only one thread has waited on
 * keeps the thread rings (the latency path: a thread reaps its own completions). Seen
 * from outside as whether a fresh thread's first pending receive makes it a ring (an
 * io_uring descriptor more in /proc/self/fd). Also: every packet still arrives, once. */
#include "io_util.h"
#include <dirent.h>

/* io_uring descriptors of this process now (their fdinfo has the rings' heads) */
static int rings_now(void)
{
    DIR *d = opendir("/proc/self/fdinfo");
    int n = 0;
    struct dirent *e;
    char path[300], line[256];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (fgets(line, sizeof(line), f))
            if (!strncmp(line, "SqHead:", 7)) {
                n++;
                break;
            }
        fclose(f);
    }
    if (d) closedir(d);
    return n;
}

struct job { HANDLE port, posted, done; SOCKET s; char buf[8]; WSAOVERLAPPED ov; int rings_before, rings_after; };

/* a fresh thread: one pending receive on @s (whose port is the job's); it stays until
 * the packet is taken (a thread's pending operations end with it: docs/io.md) */
static DWORD WINAPI post_one(LPVOID p)
{
    struct job *j = p;
    j->rings_before = rings_now();
    CHECK_EQ(io_post_recv(j->s, &j->ov, j->buf, sizeof(j->buf)), WSA_IO_PENDING);
    j->rings_after = rings_now();
    SetEvent(j->posted);
    WaitForSingleObject(j->done, 10000);
    return 0;
}

static DWORD WINAPI wait_zero(LPVOID port)
{
    DWORD n;
    ULONG_PTR k;
    LPOVERLAPPED o;
    GetQueuedCompletionStatus((HANDLE)port, &n, &k, &o, 0);   /* a waiter, once */
    return 0;
}

static void run(int pool)
{
    SOCKET c, s;
    io_tcp_pair(&c, &s);
    struct job j;
    memset(&j, 0, sizeof(j));
    j.port = CreateIoCompletionPort((HANDLE)s, NULL, 7, 0);
    REQUIRE(j.port);
    j.s = s;
    int waiters = pool ? 2 : 1;
    for (int i = 0; i < waiters; i++) {
        HANDLE t = CreateThread(NULL, 0, wait_zero, j.port, 0, NULL);
        CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
        CloseHandle(t);
    }
    j.posted = CreateEventW(NULL, TRUE, FALSE, NULL);
    j.done = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, post_one, &j, 0, NULL);
    CHECK_EQ(WaitForSingleObject(j.posted, 5000), WAIT_OBJECT_0);
    int grew = j.rings_after - j.rings_before;
    printf("%s: a fresh thread's first receive made %d ring(s)\n", pool ? "pool" : "one waiter", grew);
    /* the pool's: no ring (with one waiter the thread gets one, new or left by an
     * ended thread: the count need not grow, so only the pool's case is checked) */
    if (pool && !strcmp(nspa_io_engine(), "io_uring") && io_kernel_has_futex_ops()) CHECK_EQ(grew, 0);
    CHECK_EQ(send(c, "ping", 4, 0), 4);
    DWORD n = 0;
    ULONG_PTR k = 0;
    LPOVERLAPPED o = NULL;
    CHECK(GetQueuedCompletionStatus(j.port, &n, &k, &o, 5000));
    CHECK(o == &j.ov && n == 4 && k == 7);
    CHECK(!GetQueuedCompletionStatus(j.port, &n, &k, &o, 50));   /* once */
    CHECK_EQ(GetLastError(), WAIT_TIMEOUT);
    SetEvent(j.done);
    CHECK_EQ(WaitForSingleObject(t, 5000), WAIT_OBJECT_0);
    CloseHandle(t);
    CloseHandle(j.posted);
    CloseHandle(j.done);
    closesocket(c);
    closesocket(s);
    CloseHandle(j.port);
}

int main(void)
{
    io_test_start();
    run(1);
    run(0);
    WSACleanup();
    return nspa_test_done();
}
