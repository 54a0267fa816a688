/* A thread ring's completion queue overflows (docs/io.md, "Thread rings"): a thread
 * ring has TRING_CQ (1024) completion entries; when more operations finish before
 * anyone reaps, the kernel keeps the rest on its overflow list and sets
 * IORING_SQ_CQ_OVERFLOW, and only an io_uring_enter(GETEVENTS) moves them in. A busy
 * owner's completions are reaped by the engine thread through the ring's eventfd; that
 * reaper must flush the overflow too, or the rest are lost until the owner's next sleep
 * (never, if it does not sleep in the library).
 *
 * NOVER (1100) UDP sockets, each with a pending overlapped receive issued by one
 * thread (its ring: one receive per socket at a time), all on one completion port. The
 * owner then naps outside the library (nanosleep) until the end. The engine thread is
 * held at its reap (test point tring_kick, 800 ms) while a datagram goes to every
 * socket: the owner's task work completes all NOVER receives into its 1024-entry queue,
 * so the kernel's overflow list fills (seen in the ring's fdinfo, "CqOverflowList").
 * Then every packet must reach the port, once each, with its byte. With the epoll
 * engine (no rings) the same load runs through the engine thread; the overflow is
 * io_uring's only. Needs NOVER + 100 descriptors (RLIMIT_NOFILE raised to it, else the
 * test reports SKIP). */
#include "io_util.h"
#include <dirent.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <time.h>

#define NOVER 1100

static SOCKET socks[NOVER];
static WSAOVERLAPPED ovs[NOVER];
static char bufs[NOVER][4];
static atomic_int armed, done_flag;

static DWORD WINAPI owner(LPVOID port)
{
    (void)port;
    for (int i = 0; i < NOVER; i++) {
        WSABUF b = { sizeof(bufs[i]), bufs[i] };
        DWORD flags = 0, n = 0;
        int r = WSARecv(socks[i], &b, 1, &n, &flags, &ovs[i], NULL);
        CHECK(r == SOCKET_ERROR && WSAGetLastError() == WSA_IO_PENDING);
    }
    atomic_store(&armed, 1);
    /* busy elsewhere: never a wait of the library, so never its own reaper */
    struct timespec ts = { 0, 5000000 };
    while (!atomic_load(&done_flag)) nanosleep(&ts, NULL);
    return 0;
}

/* entries on the kernel's CQ overflow lists of this process's rings, now */
static int overflowed_now(void)
{
    DIR *d = opendir("/proc/self/fdinfo");
    int n = 0;
    struct dirent *e;
    char path[300], line[256];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int in_list = 0;
        while (fgets(line, sizeof(line), f)) {
            if (!strncmp(line, "CqOverflowList:", 15)) in_list = 1;
            else if (in_list && strstr(line, "user_data=")) n++;
            else if (in_list && line[0] != ' ') in_list = 0;
        }
        fclose(f);
    }
    if (d) closedir(d);
    return n;
}

int main(void)
{
    /* read at the first test point: before any I/O */
    setenv("NSPA_TEST_PAUSE_AT", "tring_kick:800", 1);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < NOVER + 100) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < NOVER + 100) {
        printf("SKIP: RLIMIT_NOFILE %llu < %d descriptors\n", (unsigned long long)rl.rlim_cur, NOVER + 100);
        return 77;   /* ctest SKIP_RETURN_CODE: reported as skipped, not passed */
    }
    io_test_start();
    int rings = !strcmp(nspa_io_engine(), "io_uring") && io_kernel_has_futex_ops();
    HANDLE port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 0);
    REQUIRE(port != NULL);
    struct sockaddr_in addr[NOVER];
    for (int i = 0; i < NOVER; i++) {
        socks[i] = WSASocketW(AF_INET, SOCK_DGRAM, IPPROTO_UDP, NULL, 0, WSA_FLAG_OVERLAPPED);
        REQUIRE(socks[i] != INVALID_SOCKET);
        addr[i] = io_loopback4(0);
        REQUIRE(bind(socks[i], (struct sockaddr *)&addr[i], sizeof(addr[i])) == 0);
        int len = sizeof(addr[i]);
        REQUIRE(getsockname(socks[i], (struct sockaddr *)&addr[i], &len) == 0);
        REQUIRE(CreateIoCompletionPort((HANDLE)socks[i], port, (ULONG_PTR)i + 1, 0) == port);
    }
    HANDLE t = CreateThread(NULL, 0, owner, port, 0, NULL);
    while (!atomic_load(&armed)) Sleep(1);
    SOCKET tx = socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
    REQUIRE(tx != INVALID_SOCKET);
    for (int i = 0; i < NOVER; i++)
        CHECK_EQ(sendto(tx, "z", 1, 0, (struct sockaddr *)&addr[i], sizeof(addr[i])), 1);
    /* while the reaper is held: the overflow list fills */
    int most = 0;
    for (int k = 0; k < 100 && most < NOVER - 1024; k++) {
        int n = overflowed_now();
        if (n > most) most = n;
        Sleep(5);
    }
    printf("engine %s, thread rings %s: %d completions seen on the overflow list\n", nspa_io_engine(),
           rings ? "yes" : "no", most);
    if (rings) CHECK(most > 0);
    /* every receive completes, once, with its byte */
    static unsigned char seen[NOVER];
    int got = 0;
    DWORD start = GetTickCount();
    while (got < NOVER && GetTickCount() - start < 20000) {
        OVERLAPPED_ENTRY e[64];
        ULONG n = 0;
        if (!GetQueuedCompletionStatusEx(port, e, 64, &n, 1000, FALSE)) continue;
        for (ULONG j = 0; j < n; j++) {
            ULONG_PTR k = e[j].lpCompletionKey;
            CHECK(k >= 1 && k <= NOVER);
            if (k < 1 || k > NOVER) continue;
            CHECK(e[j].lpOverlapped == (LPOVERLAPPED)&ovs[k - 1]);
            CHECK_EQ(e[j].dwNumberOfBytesTransferred, 1u);
            CHECK_EQ(seen[k - 1], 0);
            seen[k - 1]++;
            got++;
        }
    }
    printf("%d of %d receives completed in %lu ms\n", got, NOVER, (unsigned long)(GetTickCount() - start));
    CHECK_EQ(got, NOVER);
    for (int i = 0; i < NOVER; i++) CHECK(bufs[i][0] == 'z' || !seen[i]);
    atomic_store(&done_flag, 1);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    for (int i = 0; i < NOVER; i++) closesocket(socks[i]);
    closesocket(tx);
    CloseHandle(port);
    WSACleanup();
    return nspa_test_done();
}
