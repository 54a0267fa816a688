/* The kernel writing into program memory for an I/O call (issue 15 x issue 13: the I/O
 * layer calls nspa_vm_before_kernel_write): a ReadFile / recv / WSARecv into a
 * MEM_WRITE_WATCH buffer succeeds and the whole buffer counts as written (Windows counts
 * the buffer when the read is issued); a buffer with a guard page makes the call fail
 * (ERROR_NOACCESS / WSAEFAULT) without an exception, the guard is gone (one-shot) and the
 * same call then succeeds — Windows' rule for a guard page met in a system service. */
#include <windows.h>
#include <winsock2.h>
#include <unistd.h>
#include "nspa_test.h"

static volatile LONG exceptions;

static LONG CALLBACK count_handler(EXCEPTION_POINTERS *ep)
{
    InterlockedIncrement(&exceptions);
    return EXCEPTION_CONTINUE_SEARCH;
}

static char path[4200];

static HANDLE data_file(void)
{
    HANDLE f = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_ALWAYS, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    static char block[3 * 4096];
    for (size_t i = 0; i < sizeof(block); i++) block[i] = (char)('a' + i % 26);
    DWORD n;
    REQUIRE(WriteFile(f, block, sizeof(block), &n, NULL) && n == sizeof(block));
    SetFilePointerEx(f, (LARGE_INTEGER){ 0 }, NULL, FILE_BEGIN);
    return f;
}

/* a loopback TCP connection: listener, overlapped client, accepted server side */
static void tcp_pair(SOCKET *l, SOCKET *c, SOCKET *s)
{
    *l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    struct sockaddr_in a = { 0 };
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int al = sizeof(a);
    REQUIRE(bind(*l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(*l, 1) == 0 &&
            getsockname(*l, (struct sockaddr *)&a, &al) == 0);
    *c = WSASocketA(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_OVERLAPPED);
    REQUIRE(connect(*c, (struct sockaddr *)&a, sizeof(a)) == 0);
    *s = accept(*l, NULL, NULL);
    REQUIRE(*s != INVALID_SOCKET);
}

static void test_write_watch(void)
{
    const SIZE_T size = 16 * 4096;
    char *base = VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT | MEM_WRITE_WATCH, PAGE_READWRITE);
    REQUIRE(base);
    void *addrs[32];
    ULONG_PTR count = 32;
    ULONG gran;
    CHECK(ResetWriteWatch(base, size) == 0);
    /* a pipe read of 100 bytes into the 16-page buffer */
    HANDLE r, w;
    REQUIRE(CreatePipe(&r, &w, NULL, 0));
    DWORD n;
    CHECK(WriteFile(w, "0123456789", 10, &n, NULL));
    CHECK(ReadFile(r, base + 5, (DWORD)(size - 5), &n, NULL) && n == 10);
    CHECK(!memcmp(base + 5, "0123456789", 10));
    CHECK(GetWriteWatch(WRITE_WATCH_FLAG_RESET, base, size, addrs, &count, &gran) == 0);
    CHECK_EQ(count, 16);                        /* the whole buffer, as Windows counts */
    /* a file read into one page */
    HANDLE f = data_file();
    count = 32;
    CHECK(ReadFile(f, base + 3 * 4096, 4096, &n, NULL) && n == 4096);
    CHECK(base[3 * 4096] == 'a');
    CHECK(GetWriteWatch(WRITE_WATCH_FLAG_RESET, base, size, addrs, &count, &gran) == 0);
    CHECK(count == 1 && addrs[0] == base + 3 * 4096);
    CloseHandle(f);
    /* a socket receive, blocking and overlapped */
    SOCKET l, c, s;
    tcp_pair(&l, &c, &s);
    CHECK_EQ(send(s, "sock", 4, 0), 4);
    CHECK_EQ(recv(c, base + 7 * 4096, 4096, 0), 4);
    count = 32;
    CHECK(GetWriteWatch(WRITE_WATCH_FLAG_RESET, base, size, addrs, &count, &gran) == 0);
    CHECK(count == 1 && addrs[0] == base + 7 * 4096);
    WSABUF wb = { 2 * 4096, base + 9 * 4096 };
    WSAOVERLAPPED ov = { 0 };
    ov.hEvent = WSACreateEvent();
    DWORD got = 0, flags = 0;
    int rr = WSARecv(c, &wb, 1, &got, &flags, &ov, NULL);
    CHECK(rr == 0 || WSAGetLastError() == WSA_IO_PENDING);
    CHECK_EQ(send(s, "later", 5, 0), 5);
    CHECK(WSAGetOverlappedResult(c, &ov, &got, TRUE, &flags) && got == 5);
    CHECK(!memcmp(base + 9 * 4096, "later", 5));
    count = 32;
    CHECK(GetWriteWatch(0, base, size, addrs, &count, &gran) == 0);
    CHECK_EQ(count, 2);                         /* both pages of the buffer */
    WSACloseEvent(ov.hEvent);
    closesocket(s);
    closesocket(c);
    closesocket(l);
    CloseHandle(r);
    CloseHandle(w);
    VirtualFree(base, 0, MEM_RELEASE);
}

static void test_guard(void)
{
    char *p = VirtualAlloc(NULL, 2 * 4096, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    REQUIRE(p);
    DWORD old;
    CHECK(VirtualProtect(p + 4096, 4096, PAGE_READWRITE | PAGE_GUARD, &old));
    HANDLE f = data_file();
    DWORD n = 77;
    LONG before = exceptions;
    SetLastError(0);
    CHECK(!ReadFile(f, p, 2 * 4096, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_NOACCESS);
    CHECK_EQ(n, 0);
    CHECK_EQ(exceptions, before);               /* no exception reaches the program */
    MEMORY_BASIC_INFORMATION mbi;
    CHECK(VirtualQuery(p + 4096, &mbi, sizeof(mbi)) && mbi.Protect == PAGE_READWRITE);   /* one-shot */
    CHECK(ReadFile(f, p, 2 * 4096, &n, NULL) && n == 2 * 4096);   /* now it gets through */
    CHECK(p[4096] == (char)('a' + 4096 % 26));
    CloseHandle(f);
    /* a receive */
    CHECK(VirtualProtect(p + 4096, 4096, PAGE_READWRITE | PAGE_GUARD, &old));
    SOCKET l, c, s;
    tcp_pair(&l, &c, &s);
    CHECK_EQ(send(s, "guard", 5, 0), 5);
    CHECK_EQ(recv(c, p + 4096, 100, 0), SOCKET_ERROR);
    CHECK_EQ(WSAGetLastError(), WSAEFAULT);
    CHECK_EQ(recv(c, p + 4096, 100, 0), 5);
    CHECK(!memcmp(p + 4096, "guard", 5));
    CHECK_EQ(exceptions, before);
    closesocket(s);
    closesocket(c);
    closesocket(l);
    VirtualFree(p, 0, MEM_RELEASE);
}

int main(void)
{
    WSADATA d;
    REQUIRE(WSAStartup(MAKEWORD(2, 2), &d) == 0);
    snprintf(path, sizeof(path), "/tmp/nspa-vm-kw-%d", (int)getpid());
    PVOID h = AddVectoredExceptionHandler(1, count_handler);
    REQUIRE(h);
    test_write_watch();
    test_guard();
    RemoveVectoredExceptionHandler(h);
    DeleteFileA(path);
    WSACleanup();
    return nspa_test_done();
}
