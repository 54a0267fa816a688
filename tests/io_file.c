/* Files: CreateFile dispositions and share modes, synchronous and overlapped
 * ReadFile/WriteFile (OVERLAPPED offsets, EOF, events, ports), ReadFileEx/WriteFileEx
 * routines, the file pointer, size, SetEndOfFile, FlushFileBuffers, GetFileType,
 * DeleteFile (its share rule), temporary names, the standard handles, NO_BUFFERING
 * alignment, paths, the not-found errors, SetFilePointer / GetFileSize,
 * FILE_FLAG_DELETE_ON_CLOSE. */
#include "io_util.h"

static char path[MAX_PATH];

/* 1 if @p names a file now (an open that shares everything and asks for no access) */
static int name_exists(const char *p)
{
    HANDLE h = CreateFileA(p, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    CloseHandle(h);
    return 1;
}

static void dispositions(void)
{
    char dir[MAX_PATH];
    DWORD n = GetTempPathA(sizeof(dir), dir);
    CHECK(n > 0 && n < sizeof(dir));
    CHECK(dir[n - 1] == '/');
    CHECK_EQ(GetTempPathA(1, dir), n + 1);
    GetTempPathA(sizeof(dir), dir);
    UINT u = GetTempFileNameA(dir, "nsp", 0, path);
    CHECK(u != 0);
    CHECK(strstr(path, "nsp") != NULL);
    /* GetTempFileName made the file: CREATE_NEW fails */
    HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
    CHECK(h == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_FILE_EXISTS);
    h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL, OPEN_ALWAYS, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK_EQ(GetFileType(h), FILE_TYPE_DISK);
    /* share modes: a second writer is refused (we share read only), a reader is let in
     * only if it shares our write */
    HANDLE h2 = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(h2 == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    h2 = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(h2 == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    h2 = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(h2 != INVALID_HANDLE_VALUE);
    CloseHandle(h2);

    DWORD w = 0;
    CHECK(WriteFile(h, "0123456789", 10, &w, NULL));
    CHECK_EQ(w, 10);
    LARGE_INTEGER sz, pos, d;
    CHECK(GetFileSizeEx(h, &sz));
    CHECK_EQ(sz.QuadPart, 10);
    /* a refused open changes nothing: CREATE_ALWAYS and TRUNCATE_EXISTING by a writer
     * we do not share with fail before they truncate (NT checks the share access
     * first) */
    h2 = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, CREATE_ALWAYS, 0, NULL);
    CHECK(h2 == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    h2 = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, TRUNCATE_EXISTING, 0, NULL);
    CHECK(h2 == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    CHECK(GetFileSizeEx(h, &sz));
    CHECK_EQ(sz.QuadPart, 10);
    d.QuadPart = 2;
    CHECK(SetFilePointerEx(h, d, &pos, FILE_BEGIN));
    CHECK_EQ(pos.QuadPart, 2);
    char buf[32];
    DWORD r = 0;
    CHECK(ReadFile(h, buf, 3, &r, NULL));
    CHECK_EQ(r, 3);
    CHECK(!memcmp(buf, "234", 3));
    d.QuadPart = -1;
    CHECK(SetFilePointerEx(h, d, &pos, FILE_END));
    CHECK_EQ(pos.QuadPart, 9);
    d.QuadPart = -100;
    CHECK(!SetFilePointerEx(h, d, &pos, FILE_CURRENT));
    CHECK_EQ(GetLastError(), ERROR_NEGATIVE_SEEK);
    /* at the end: TRUE with 0 bytes (synchronous) */
    d.QuadPart = 0;
    SetFilePointerEx(h, d, NULL, FILE_END);
    CHECK(ReadFile(h, buf, 4, &r, NULL));
    CHECK_EQ(r, 0);
    d.QuadPart = 4;
    SetFilePointerEx(h, d, NULL, FILE_BEGIN);
    CHECK(SetEndOfFile(h));
    GetFileSizeEx(h, &sz);
    CHECK_EQ(sz.QuadPart, 4);
    CHECK(FlushFileBuffers(h));
    CloseHandle(h);
    /* TRUNCATE_EXISTING needs write access */
    h = CreateFileA(path, GENERIC_READ, 0, NULL, TRUNCATE_EXISTING, 0, NULL);
    CHECK(h == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    h = CreateFileA(path, GENERIC_WRITE, 0, NULL, TRUNCATE_EXISTING, 0, NULL);
    CHECK(h != INVALID_HANDLE_VALUE);
    GetFileSizeEx(h, &sz);
    CHECK_EQ(sz.QuadPart, 0);
    /* reading a write-only handle */
    CHECK(!ReadFile(h, buf, 1, &r, NULL));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CloseHandle(h);
    CHECK(CreateFileA("/nonexistent-dir/x", GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK(GetLastError() == ERROR_PATH_NOT_FOUND || GetLastError() == ERROR_FILE_NOT_FOUND);
    CHECK(CreateFileA(path, GENERIC_READ, 0, NULL, 9, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
}

static int routine_calls;
static DWORD routine_bytes;
static void WINAPI file_done(DWORD err, DWORD bytes, LPOVERLAPPED ov)
{
    routine_calls++;
    routine_bytes = bytes;
}

static void overlapped(void)
{
    HANDLE h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_FLAG_OVERLAPPED, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    static char data[65536];
    for (unsigned i = 0; i < sizeof(data); i++) data[i] = (char)(i * 13);
    OVERLAPPED ov;
    memset(&ov, 0, sizeof(ov));
    ov.hEvent = CreateEventA(NULL, TRUE, FALSE, NULL);
    DWORD n = 0;
    BOOL ok = WriteFile(h, data, sizeof(data), NULL, &ov);
    CHECK(ok || GetLastError() == ERROR_IO_PENDING);
    CHECK(GetOverlappedResult(h, &ov, &n, TRUE));
    CHECK_EQ(n, sizeof(data));
    CHECK_EQ(WaitForSingleObject(ov.hEvent, 0), WAIT_OBJECT_0);
    /* a read at an offset */
    char buf[100];
    ov.Offset = 1000;
    ok = ReadFile(h, buf, sizeof(buf), NULL, &ov);
    CHECK(ok || GetLastError() == ERROR_IO_PENDING);
    CHECK(GetOverlappedResult(h, &ov, &n, TRUE));
    CHECK_EQ(n, 100);
    CHECK(!memcmp(buf, data + 1000, 100));
    /* an overlapped handle needs an OVERLAPPED */
    CHECK(!ReadFile(h, buf, 1, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* past the end: ERROR_HANDLE_EOF */
    ov.Offset = sizeof(data) + 10;
    CHECK(!ReadFile(h, buf, 10, NULL, &ov));
    CHECK_EQ(GetLastError(), ERROR_HANDLE_EOF);
    /* on a completion port */
    HANDLE p = CreateIoCompletionPort(h, NULL, 77, 0);
    REQUIRE(p != NULL);
    ov.Offset = 0;
    ok = ReadFile(h, buf, 50, NULL, &ov);
    CHECK(ok || GetLastError() == ERROR_IO_PENDING);
    ULONG_PTR key;
    LPOVERLAPPED o;
    CHECK(GetQueuedCompletionStatus(p, &n, &key, &o, 5000));
    CHECK_EQ(key, 77);
    CHECK_EQ(n, 50);
    CHECK(o == &ov);
    /* 32 reads in flight */
    OVERLAPPED many[32];
    static char mb[32][4096];
    for (int i = 0; i < 32; i++) {
        memset(&many[i], 0, sizeof(many[i]));
        many[i].Offset = (DWORD)(i * 2048);
        ok = ReadFile(h, mb[i], 2048, NULL, &many[i]);
        CHECK(ok || GetLastError() == ERROR_IO_PENDING);
    }
    int got = 0;
    while (got < 32 && GetQueuedCompletionStatus(p, &n, &key, &o, 5000)) {
        int i = (int)(o - many);
        CHECK(i >= 0 && i < 32);
        if (i >= 0 && i < 32) CHECK(!memcmp(mb[i], data + i * 2048, 2048));
        got++;
    }
    CHECK_EQ(got, 32);
    CloseHandle(p);
    CloseHandle(ov.hEvent);
    CloseHandle(h);

    /* ReadFileEx / WriteFileEx: the routine runs in an alertable wait */
    h = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, FILE_FLAG_OVERLAPPED, NULL);
    memset(&ov, 0, sizeof(ov));
    CHECK(ReadFileEx(h, buf, 20, &ov, file_done));
    CHECK_EQ(SleepEx(5000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(routine_calls, 1);
    CHECK_EQ(routine_bytes, 20);
    memset(&ov, 0, sizeof(ov));
    ov.Offset = 5;
    CHECK(WriteFileEx(h, "xyz", 3, &ov, file_done));
    CHECK_EQ(SleepEx(5000, TRUE), WAIT_IO_COMPLETION);
    CHECK_EQ(routine_calls, 2);
    CHECK_EQ(routine_bytes, 3);
    CloseHandle(h);
    /* ReadFileEx on a handle that is not overlapped */
    h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(!ReadFileEx(h, buf, 20, &ov, file_done));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CloseHandle(h);
}

static void no_buffering(void)
{
    HANDLE h = CreateFileA(path, GENERIC_READ, 0, NULL, OPEN_EXISTING, FILE_FLAG_NO_BUFFERING, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    static char al[4096] __attribute__((aligned(4096)));
    DWORD n;
    CHECK(!ReadFile(h, al + 1, 512, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(!ReadFile(h, al, 100, &n, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    CHECK(ReadFile(h, al, 4096, &n, NULL));
    CHECK_EQ(n, 4096);
    CloseHandle(h);
}

static void paths_and_std(void)
{
    /* Windows separators and a drive letter map onto the Linux tree */
    char win[MAX_PATH + 4];
    snprintf(win, sizeof(win), "C:%s", path);
    for (char *c = win; *c; c++)
        if (*c == '/') *c = '\\';
    HANDLE h = CreateFileA(win, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(h != INVALID_HANDLE_VALUE);
    CloseHandle(h);
    WCHAR wp[MAX_PATH];
    for (int i = 0;; i++) {
        wp[i] = (WCHAR)(unsigned char)path[i];
        if (!path[i]) break;
    }
    h = CreateFileW(wp, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(h != INVALID_HANDLE_VALUE);
    CloseHandle(h);
    CHECK(DeleteFileW(wp));
    CHECK(!DeleteFileA(path));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    CHECK(out != INVALID_HANDLE_VALUE && out != NULL);
    CHECK(out == GetStdHandle(STD_OUTPUT_HANDLE));
    DWORD w;
    fflush(stdout);
    CHECK(WriteFile(out, "std ok\n", 7, &w, NULL));
    CHECK_EQ(w, 7);
    DWORD t = GetFileType(out);
    CHECK(t == FILE_TYPE_CHAR || t == FILE_TYPE_PIPE || t == FILE_TYPE_DISK);
    CHECK(GetStdHandle(5) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetFileType((HANDLE)0x123454), FILE_TYPE_UNKNOWN);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    WCHAR tw[MAX_PATH], tn[MAX_PATH];
    CHECK(GetTempPathW(MAX_PATH, tw) > 0);
    CHECK(GetTempFileNameW(tw, L"nsw", 0x1234, tn) == 0x1234);
}

/* NT's not-found errors (the last name missing: ERROR_FILE_NOT_FOUND; a directory on
 * the way: ERROR_PATH_NOT_FOUND; "": ERROR_PATH_NOT_FOUND) and DeleteFile's share rule
 * (an open that does not share delete refuses it; one that does lets it go, and the
 * file is gone once it closes) */
static void names_and_delete(void)
{
    char dir[MAX_PATH], p[MAX_PATH + 64], q[MAX_PATH + 64];
    GetTempPathA(sizeof(dir), dir);
    snprintf(p, sizeof(p), "%snspa-no-such-dir-%u\\x", dir, (unsigned)GetCurrentProcessId());
    snprintf(q, sizeof(q), "%snspa-no-such-file-%u", dir, (unsigned)GetCurrentProcessId());
    CHECK(CreateFileA(p, GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(CreateFileA(p, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(CreateFileA(q, GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(CreateFileA("", GENERIC_READ, 0, NULL, OPEN_EXISTING, 0, NULL) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(!DeleteFileA(p));
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(!DeleteFileA(q));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(!DeleteFileA(""));
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);

    char f[MAX_PATH];
    REQUIRE(GetTempFileNameA(dir, "nsd", 0, f) != 0);
    HANDLE h = CreateFileA(f, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(!DeleteFileA(f));                    /* not shared for delete */
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    CloseHandle(h);
    h = CreateFileA(f, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(DeleteFileA(f));                     /* shared for delete */
    char b[4];
    DWORD n = 1;
    CHECK(ReadFile(h, b, sizeof(b), &n, NULL));   /* the open handle keeps the file */
    CHECK_EQ(n, 0);
    CloseHandle(h);
    CHECK(!DeleteFileA(f));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
}

/* NT's data rights: FILE_APPEND_DATA alone writes at the end wherever the pointer is;
 * FILE_READ_ATTRIBUTES | SYNCHRONIZE reads and writes no data (and opens a file nobody
 * may write) */
static void append_and_attribute_rights(void)
{
    char dir[MAX_PATH], f[MAX_PATH];
    GetTempPathA(sizeof(dir), dir);
    REQUIRE(GetTempFileNameA(dir, "nsa", 0, f) != 0);
    HANDLE h = CreateFileA(f, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    DWORD w;
    CHECK(WriteFile(h, "0123456789", 10, &w, NULL));
    CloseHandle(h);
    h = CreateFileA(f, FILE_APPEND_DATA | SYNCHRONIZE, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK_EQ(SetFilePointer(h, 0, NULL, FILE_BEGIN), 0);
    CHECK(WriteFile(h, "AB", 2, &w, NULL));
    CloseHandle(h);
    h = CreateFileA(f, FILE_READ_ATTRIBUTES | SYNCHRONIZE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0,
                    NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    char b[16];
    DWORD n = 0;
    CHECK(!ReadFile(h, b, sizeof(b), &n, NULL));     /* no data right */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(!WriteFile(h, "x", 1, &w, NULL));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK_EQ(GetFileSize(h, NULL), 12);
    /* it took no data right, so a writer that shares nothing but reading still gets in */
    HANDLE x = CreateFileA(f, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(x != INVALID_HANDLE_VALUE);
    CHECK(ReadFile(x, b, sizeof(b), &n, NULL));
    CHECK_EQ(n, 12);
    CHECK(!memcmp(b, "0123456789AB", 12));          /* appended, not written at 0 */
    CloseHandle(x);
    CloseHandle(h);
    CHECK(DeleteFileA(f));
}

/* NT's FILE_WRITE_TO_END_OF_FILE: an OVERLAPPED offset of all ones appends, on an
 * overlapped handle and on a synchronous one (whose pointer then ends past it) */
static void write_to_end(void)
{
    char dir[MAX_PATH], f[MAX_PATH];
    GetTempPathA(sizeof(dir), dir);
    REQUIRE(GetTempFileNameA(dir, "nse", 0, f) != 0);
    HANDLE h = CreateFileA(f, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_FLAG_OVERLAPPED, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    OVERLAPPED o;
    memset(&o, 0, sizeof(o));
    o.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    DWORD n = 0;
    BOOL ok = WriteFile(h, "0123456789", 10, NULL, &o);
    if (!ok) CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    CHECK(GetOverlappedResult(h, &o, &n, TRUE));
    o.Offset = o.OffsetHigh = 0xFFFFFFFF;
    ok = WriteFile(h, "XY", 2, NULL, &o);
    if (!ok) CHECK_EQ(GetLastError(), ERROR_IO_PENDING);
    CHECK(GetOverlappedResult(h, &o, &n, TRUE));
    CHECK_EQ(n, 2);
    CloseHandle(o.hEvent);
    CloseHandle(h);
    h = CreateFileA(f, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    memset(&o, 0, sizeof(o));
    o.Offset = o.OffsetHigh = 0xFFFFFFFF;
    CHECK(WriteFile(h, "ZZ", 2, &n, &o));
    CHECK_EQ(SetFilePointer(h, 0, NULL, FILE_CURRENT), 14);
    char b[16];
    CHECK_EQ(SetFilePointer(h, 0, NULL, FILE_BEGIN), 0);
    CHECK(ReadFile(h, b, sizeof(b), &n, NULL));
    CHECK_EQ(n, 14);
    CHECK(!memcmp(b, "0123456789XYZZ", 14));
    CloseHandle(h);
    CHECK(DeleteFileA(f));
}

/* the 32-bit pointer and size calls, and FILE_FLAG_DELETE_ON_CLOSE */
static void pointer32_and_delete_on_close(void)
{
    char dir[MAX_PATH], f[MAX_PATH];
    GetTempPathA(sizeof(dir), dir);
    REQUIRE(GetTempFileNameA(dir, "nsp", 0, f) != 0);
    HANDLE h = CreateFileA(f, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    DWORD w;
    CHECK(WriteFile(h, "0123456789", 10, &w, NULL));
    DWORD high = 7;
    CHECK_EQ(GetFileSize(h, &high), 10);
    CHECK_EQ(high, 0);
    CHECK_EQ(GetFileSize(h, NULL), 10);
    CHECK_EQ(SetFilePointer(h, -3, NULL, FILE_END), 7);        /* a signed 32-bit distance */
    LONG hi = 1;                                                /* 4 GiB + 16 */
    CHECK_EQ(SetFilePointer(h, 16, &hi, FILE_BEGIN), 16);
    CHECK_EQ(hi, 1);
    hi = 0;
    CHECK_EQ(SetFilePointer(h, 0, &hi, FILE_CURRENT), 16);
    CHECK_EQ(hi, 1);
    CHECK_EQ(SetFilePointer(h, -20, NULL, FILE_BEGIN), INVALID_SET_FILE_POINTER);
    CHECK_EQ(GetLastError(), ERROR_NEGATIVE_SEEK);
    CHECK_EQ(GetFileSize((HANDLE)0x7654, NULL), INVALID_FILE_SIZE);
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(h);

    /* DELETE_ON_CLOSE: asks for DELETE access, so another open must share delete; the
     * name goes when its handle closes, though another handle keeps the file open */
    h = CreateFileA(f, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                    FILE_FLAG_DELETE_ON_CLOSE, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    HANDLE o = CreateFileA(f, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    CHECK(o == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    o = CreateFileA(f, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0,
                    NULL);
    REQUIRE(o != INVALID_HANDLE_VALUE);
    HANDLE d;
    CHECK(DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &d, 0, FALSE, DUPLICATE_SAME_ACCESS));
    CloseHandle(h);
    CHECK_EQ(name_exists(f), 1);   /* a duplicate still holds it */
    CloseHandle(d);
    CHECK_EQ(name_exists(f), 0);   /* gone with its last handle */
    char b[16];
    DWORD n = 0;
    CHECK(ReadFile(o, b, sizeof(b), &n, NULL)); /* the other open keeps the data */
    CHECK_EQ(n, 10);
    CloseHandle(o);
    /* a name that means another file by the close is left alone */
    h = CreateFileA(f, GENERIC_WRITE, FILE_SHARE_DELETE, NULL, CREATE_NEW, FILE_FLAG_DELETE_ON_CLOSE, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(DeleteFileA(f));
    HANDLE other = CreateFileA(f, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
    REQUIRE(other != INVALID_HANDLE_VALUE);
    CloseHandle(h);
    CHECK_EQ(name_exists(f), 1);
    CloseHandle(other);
    CHECK(DeleteFileA(f));
}

int main(void)
{
    io_test_start();
    dispositions();
    overlapped();
    no_buffering();
    paths_and_std();
    names_and_delete();
    pointer32_and_delete_on_close();
    append_and_attribute_rights();
    write_to_end();
    WSACleanup();
    return nspa_test_done();
}
