/* File mappings of CreateFile handles (issue 15, item 2): CreateFileMappingA/W over a file,
 * MapViewOfFile(Ex) at offsets, FlushViewOfFile writing back, a size beyond the file
 * growing it (PAGE_READWRITE), ERROR_FILE_INVALID for an empty file with size 0,
 * PAGE_READONLY beyond the file ERROR_NOT_ENOUGH_MEMORY, a GENERIC_READ-only handle
 * (PAGE_READWRITE: ERROR_ACCESS_DENIED; PAGE_READONLY and PAGE_WRITECOPY work), a
 * GENERIC_WRITE-only handle, and a named file mapping opened by a child process. */
#include <windows.h>
#include <unistd.h>
#include "nspa_test.h"

static char self[4096], path[4200];

static int child_main(int argc, char **argv)
{
    if (!strcmp(argv[1], "child-map") && argc == 3) {
        HANDLE m = OpenFileMappingA(FILE_MAP_WRITE, FALSE, argv[2]);
        if (!m) return 10;
        char *p = MapViewOfFile(m, FILE_MAP_WRITE, 0, 65536, 0);   /* the second granule */
        if (!p) return 11;
        if (memcmp(p, "second", 6)) return 12;
        memcpy(p + 100, "child was here", 14);
        if (!FlushViewOfFile(p, 0)) return 13;
        UnmapViewOfFile(p);
        CloseHandle(m);
        return 0;
    }
    return 99;
}

static HANDLE open_file(DWORD access, DWORD disp)
{
    HANDLE f = CreateFileA(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, disp, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    return f;
}

static void put(HANDLE f, LONGLONG at, const char *s)
{
    DWORD n;
    CHECK(SetFilePointerEx(f, (LARGE_INTEGER){ .QuadPart = at }, NULL, FILE_BEGIN));
    CHECK(WriteFile(f, s, (DWORD)strlen(s), &n, NULL) && n == strlen(s));
}

static void get(HANDLE f, LONGLONG at, char *buf, DWORD len)
{
    DWORD n;
    CHECK(SetFilePointerEx(f, (LARGE_INTEGER){ .QuadPart = at }, NULL, FILE_BEGIN));
    CHECK(ReadFile(f, buf, len, &n, NULL) && n == len);
}

static LONGLONG size_of(HANDLE f)
{
    LARGE_INTEGER s = { .QuadPart = -1 };
    CHECK(GetFileSizeEx(f, &s));
    return s.QuadPart;
}

static void test_read_write(void)
{
    HANDLE f = open_file(GENERIC_READ | GENERIC_WRITE, CREATE_ALWAYS);
    put(f, 0, "first granule");
    put(f, 65536, "second");
    put(f, 65536 + 4000, "end");
    /* size 0: the file's size */
    HANDLE m = CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 0, NULL);
    REQUIRE(m);
    CHECK_EQ(GetLastError(), 0);
    char *v = MapViewOfFile(m, FILE_MAP_WRITE, 0, 0, 0);
    REQUIRE(v);
    CHECK(!memcmp(v, "first granule", 13));
    CHECK(!memcmp(v + 65536, "second", 6));
    memcpy(v + 6, "GRANULE", 7);
    CHECK(FlushViewOfFile(v + 6, 7));
    char buf[16];
    get(f, 0, buf, 13);
    CHECK(!memcmp(buf, "first GRANULE", 13));
    /* a write through the file shows in the view (one page cache) */
    put(f, 65536 + 10, "via file");
    CHECK(!memcmp(v + 65536 + 10, "via file", 8));
    /* a view at an offset, and one at a chosen address */
    char *w = MapViewOfFile(m, FILE_MAP_READ, 0, 65536, 4003);
    REQUIRE(w);
    CHECK(!memcmp(w, "second", 6) && !memcmp(w + 4000, "end", 3));
    SetLastError(0);
    CHECK(!MapViewOfFile(m, FILE_MAP_READ, 0, 4096, 0));
    CHECK_EQ(GetLastError(), ERROR_MAPPED_ALIGNMENT);
    CHECK(!MapViewOfFile(m, FILE_MAP_READ, 0, 3 * 65536, 0));       /* past the section */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    void *want = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_NOACCESS);
    REQUIRE(want);
    VirtualFree(want, 0, MEM_RELEASE);
    char *x = MapViewOfFileEx(m, FILE_MAP_READ, 0, 65536, 64, want);
    CHECK(x == want);
    if (x) CHECK(!memcmp(x, "second", 6));
    MEMORY_BASIC_INFORMATION mbi;
    CHECK(VirtualQuery(w, &mbi, sizeof(mbi)) && mbi.Type == MEM_MAPPED && mbi.Protect == PAGE_READONLY);
    UnmapViewOfFile(x);
    UnmapViewOfFile(w);
    UnmapViewOfFile(v);
    CloseHandle(m);
    /* beyond the file: PAGE_READWRITE grows it (the W call) */
    m = CreateFileMappingW(f, NULL, PAGE_READWRITE, 0, 3 * 65536 + 100, NULL);
    REQUIRE(m);
    CHECK_EQ(size_of(f), 3 * 65536 + 100);
    v = MapViewOfFile(m, FILE_MAP_WRITE, 0, 2 * 65536, 0);
    REQUIRE(v);
    CHECK(v[0] == 0 && v[65536 + 99] == 0);
    memcpy(v + 65536 + 90, "tail", 4);
    CHECK(FlushViewOfFile(v, 0));
    /* the file handle may go: the mapping keeps the file */
    CloseHandle(f);
    UnmapViewOfFile(v);
    CloseHandle(m);
    f = open_file(GENERIC_READ, OPEN_EXISTING);
    get(f, 3 * 65536 + 90, buf, 4);
    CHECK(!memcmp(buf, "tail", 4));
    CloseHandle(f);
}

static void test_access(void)
{
    HANDLE f = open_file(GENERIC_READ, OPEN_EXISTING);
    LONGLONG sz = size_of(f);
    SetLastError(0);
    CHECK(!CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 0, NULL));   /* no write access */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CHECK(!CreateFileMappingA(f, NULL, PAGE_READONLY, 0, (DWORD)sz + 65536, NULL));
    CHECK_EQ(GetLastError(), ERROR_NOT_ENOUGH_MEMORY);               /* STATUS_SECTION_TOO_BIG */
    CHECK_EQ(size_of(f), sz);
    HANDLE m = CreateFileMappingA(f, NULL, PAGE_READONLY, 0, 0, NULL);
    REQUIRE(m);
    SetLastError(0);
    CHECK(!MapViewOfFile(m, FILE_MAP_WRITE, 0, 0, 0));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    char *r = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
    CHECK(r && !memcmp(r, "first GRANULE", 13));
    UnmapViewOfFile(r);
    CloseHandle(m);
    /* copy-on-write of a read-only file: private pages */
    m = CreateFileMappingA(f, NULL, PAGE_WRITECOPY, 0, 0, NULL);
    REQUIRE(m);
    char *c = MapViewOfFile(m, FILE_MAP_COPY, 0, 0, 0);
    REQUIRE(c);
    c[0] = 'F';
    char buf[4];
    get(f, 0, buf, 1);
    CHECK(buf[0] == 'f');
    UnmapViewOfFile(c);
    CloseHandle(m);
    CloseHandle(f);
    /* no read access at all */
    f = open_file(GENERIC_WRITE, OPEN_EXISTING);
    SetLastError(0);
    CHECK(!CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 0, NULL));
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CloseHandle(f);
    /* an empty file: size 0 is ERROR_FILE_INVALID; a size grows it */
    f = open_file(GENERIC_READ | GENERIC_WRITE, CREATE_ALWAYS);
    SetLastError(0);
    CHECK(!CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 0, NULL));
    CHECK_EQ(GetLastError(), ERROR_FILE_INVALID);
    CHECK(!CreateFileMappingA(f, NULL, PAGE_READONLY, 0, 0, NULL));
    CHECK_EQ(GetLastError(), ERROR_FILE_INVALID);
    m = CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 4096, NULL);
    CHECK(m != NULL);
    CHECK_EQ(size_of(f), 4096);
    CloseHandle(m);
    CloseHandle(f);
    /* not a file handle */
    HANDLE ev = CreateEventA(NULL, FALSE, FALSE, NULL);
    SetLastError(0);
    CHECK(!CreateFileMappingA(ev, NULL, PAGE_READWRITE, 0, 4096, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CloseHandle(ev);
    CHECK(!CreateFileMappingA((HANDLE)(uintptr_t)0x7ff0, NULL, PAGE_READWRITE, 0, 4096, NULL));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
}

/* a named mapping of a file, opened by name in another process */
static void test_named_across(void)
{
    HANDLE f = open_file(GENERIC_READ | GENERIC_WRITE, CREATE_ALWAYS);
    put(f, 65536, "second");
    char name[64];
    snprintf(name, sizeof(name), "Local\\nspa-fmap-%d", (int)getpid());
    HANDLE m = CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 2 * 65536, name);
    REQUIRE(m);
    HANDLE again = CreateFileMappingA(f, NULL, PAGE_READWRITE, 0, 2 * 65536, name);
    CHECK(again && GetLastError() == ERROR_ALREADY_EXISTS);
    CloseHandle(again);
    char *v = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
    REQUIRE(v);
    char cmd[4400];
    snprintf(cmd, sizeof(cmd), "\"%s\" child-map %s", self, name + 6);
    STARTUPINFOA si = { sizeof(si) };
    PROCESS_INFORMATION pi;
    REQUIRE(CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    DWORD code = 1;
    CHECK_EQ(WaitForSingleObject(pi.hProcess, 20000), WAIT_OBJECT_0);
    GetExitCodeProcess(pi.hProcess, &code);
    CHECK_EQ(code, 0);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    CHECK(!memcmp(v + 65536 + 100, "child was here", 14));   /* its view is our page */
    char buf[16];
    get(f, 65536 + 100, buf, 14);
    CHECK(!memcmp(buf, "child was here", 14));
    UnmapViewOfFile(v);
    CloseHandle(m);
    CloseHandle(f);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strncmp(argv[1], "child-", 6)) return child_main(argc, argv);
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    REQUIRE(n > 0);
    self[n] = 0;
    snprintf(path, sizeof(path), "%s.fmap-%d", self, (int)getpid());
    test_read_write();
    test_access();
    test_named_across();
    DeleteFileA(path);
    return nspa_test_done();
}
