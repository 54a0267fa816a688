/* Names and directories (docs/io.md, "Names and directories"): GetFileAttributes(Ex),
 * SetFileAttributes, CreateDirectory, RemoveDirectory, MoveFile(Ex) with NT's share
 * rule, CopyFile, FindFirstFile / FindNextFile / FindClose with Windows' wildcards (no
 * case for ASCII letters; "*.*" is every name), GetFileInformationByHandle and
 * GetFileTime / SetFileTime, with NT's error codes throughout. Uses the generic
 * (TCHAR) names where the A ones are meant. */
#include "io_util.h"
#include "nspa/unicode.h"

static char base[MAX_PATH + 64];

static const char *at(const char *rel)
{
    static char buf[4][2 * MAX_PATH + 64];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, 2 * MAX_PATH + 64, "%s\\%s", base, rel);
    return b;
}

static void put(const char *rel, const char *text)
{
    HANDLE h = CreateFile(at(rel), GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    DWORD w;
    CHECK(WriteFile(h, text, (DWORD)strlen(text), &w, NULL));
    CloseHandle(h);
}

static void directories_and_attributes(void)
{
    char tmp[MAX_PATH];
    GetTempPath(sizeof(tmp), tmp);
    snprintf(base, sizeof(base), "%snspa-dir-%u", tmp, (unsigned)GetCurrentProcessId());
    CHECK(CreateDirectory(base, NULL));
    CHECK(!CreateDirectory(base, NULL));
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK(!CreateDirectory(at("no\\such"), NULL));
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(CreateDirectory(at("sub"), NULL));

    CHECK_EQ(GetFileAttributes(base) & FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_DIRECTORY);
    put("a.txt", "hello");
    CHECK_EQ(GetFileAttributes(at("a.txt")), FILE_ATTRIBUTE_NORMAL);
    CHECK_EQ(GetFileAttributes(at("none")), INVALID_FILE_ATTRIBUTES);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK_EQ(GetFileAttributes(at("none\\x")), INVALID_FILE_ATTRIBUTES);
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    WIN32_FILE_ATTRIBUTE_DATA d;
    CHECK(GetFileAttributesEx(at("a.txt"), GetFileExInfoStandard, &d));
    CHECK_EQ(d.nFileSizeLow, 5);
    CHECK_EQ(d.nFileSizeHigh, 0);
    FILETIME now;
    GetSystemTimeAsFileTime(&now);
    uint64_t n = (uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime;
    uint64_t m = (uint64_t)d.ftLastWriteTime.dwHighDateTime << 32 | d.ftLastWriteTime.dwLowDateTime;
    int64_t age = (int64_t)(n - m);                          /* 100 ns units, 1601 epoch on both */
    CHECK(age > -10000000ll && age < 36000000000ll);        /* written within the hour */
    CHECK(!GetFileAttributesEx(at("a.txt"), GetFileExMaxInfoLevel, &d));
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    CHECK(!RemoveDirectory(base));                          /* not empty */
    CHECK_EQ(GetLastError(), ERROR_DIR_NOT_EMPTY);
    CHECK(!RemoveDirectory(at("a.txt")));                   /* a file */
    CHECK_EQ(GetLastError(), ERROR_DIRECTORY);
    CHECK(!RemoveDirectory(at("gone")));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
}

static void moves(void)
{
    put("b.txt", "bbb");
    CHECK(!MoveFile(at("a.txt"), at("b.txt")));             /* the target exists */
    CHECK_EQ(GetLastError(), ERROR_ALREADY_EXISTS);
    CHECK(MoveFileEx(at("a.txt"), at("b.txt"), MOVEFILE_REPLACE_EXISTING));
    CHECK_EQ(GetFileAttributes(at("a.txt")), INVALID_FILE_ATTRIBUTES);
    WIN32_FILE_ATTRIBUTE_DATA d;
    CHECK(GetFileAttributesEx(at("b.txt"), GetFileExInfoStandard, &d));
    CHECK_EQ(d.nFileSizeLow, 5);                            /* a.txt's "hello" */
    CHECK(!MoveFile(at("gone"), at("c.txt")));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(!MoveFile(at("b.txt"), at("no\\such\\c.txt")));
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(!MoveFileEx(at("b.txt"), at("c.txt"), 4));        /* MOVEFILE_DELAY_UNTIL_REBOOT */
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* NT opens the source for DELETE */
    HANDLE h = CreateFile(at("b.txt"), GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(!MoveFile(at("b.txt"), at("c.txt")));
    CHECK_EQ(GetLastError(), ERROR_SHARING_VIOLATION);
    CloseHandle(h);
    h = CreateFile(at("b.txt"), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(MoveFile(at("b.txt"), at("c.txt")));
    CloseHandle(h);
    CHECK_EQ(GetFileAttributes(at("c.txt")), FILE_ATTRIBUTE_NORMAL);
}

/* the names a search over @pat gives, in a sorted, comma-separated list; -1: it failed */
static int search(const char *pat, char *out, size_t cap)
{
    WIN32_FIND_DATA fd;
    HANDLE h = FindFirstFile(at(pat), &fd);
    if (h == INVALID_HANDLE_VALUE) return -1;
    char names[16][MAX_PATH];
    int n = 0;
    do {
        if (n < 16) strcpy(names[n++], fd.cFileName);
        if (!strcmp(fd.cFileName, "sub")) CHECK(fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
        if (!strcmp(fd.cFileName, "c.txt")) CHECK_EQ(fd.nFileSizeLow, 5);
    } while (FindNextFile(h, &fd));
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_FILES);
    CHECK(!FindNextFile(h, &fd));                           /* still at the end */
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_FILES);
    CHECK(FindClose(h));
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char t[MAX_PATH];
                strcpy(t, names[i]);
                strcpy(names[i], names[j]);
                strcpy(names[j], t);
            }
    out[0] = 0;
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "," : "", names[i]);
    return n;
}

static void searches(void)
{
    put("D.TXT", "d");
    put("e.dat", "e");
    char got[512];
    CHECK_EQ(search("*.txt", got, sizeof(got)), 2);         /* no case for ASCII letters */
    CHECK(!strcmp(got, "D.TXT,c.txt"));
    CHECK_EQ(search("?.dat", got, sizeof(got)), 1);
    CHECK(!strcmp(got, "e.dat"));
    CHECK_EQ(search("*", got, sizeof(got)), 6);
    CHECK(!strcmp(got, ".,..,D.TXT,c.txt,e.dat,sub"));
    CHECK_EQ(search("*.*", got, sizeof(got)), 6);           /* "*.*" is every name, "sub" too */
    CHECK_EQ(search("c.txt", got, sizeof(got)), 1);         /* no wildcard: that name */
    CHECK_EQ(search("*x*", got, sizeof(got)), 2);
    WIN32_FIND_DATAA fd;
    CHECK(FindFirstFileA(at("*.none"), &fd) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(FindFirstFileA(at("gone\\*"), &fd) == INVALID_HANDLE_VALUE);
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
    CHECK(!FindClose((HANDLE)0x1234));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    CHECK(!FindNextFileA((HANDLE)(uintptr_t)&fd, &fd));     /* a pointer that is no search */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);
    HANDLE h = FindFirstFileA(at("*"), &fd);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(FindClose(h));
    CHECK(!FindClose(h));                                   /* closed already */
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);

    /* W names: UTF-16 in and out */
    WCHAR wbase[MAX_PATH], wpat[MAX_PATH + 16];
    size_t bl = nspa_utf8_to_utf16(base, strlen(base), wbase, MAX_PATH - 1, NULL);
    wbase[bl] = 0;
    static const WCHAR leaf[] = { '\\', 0xe9, 't', 0xe9, '.', 't', 'x', 't', 0 };
    memcpy(wpat, wbase, bl * sizeof(WCHAR));
    memcpy(wpat + bl, leaf, sizeof(leaf));
    HANDLE f = CreateFileW(wpat, GENERIC_WRITE, 0, NULL, CREATE_NEW, 0, NULL);
    REQUIRE(f != INVALID_HANDLE_VALUE);
    CloseHandle(f);
    static const WCHAR q[] = { '\\', '?', 't', 0xe9, '.', '*', 0 };
    memcpy(wpat + bl, q, sizeof(q));
    WIN32_FIND_DATAW fw;
    h = FindFirstFileW(wpat, &fw);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    CHECK(!memcmp(fw.cFileName, leaf + 1, sizeof(leaf) - sizeof(WCHAR)));
    CHECK(!FindNextFileW(h, &fw));
    CHECK_EQ(GetLastError(), ERROR_NO_MORE_FILES);
    CHECK(FindClose(h));
    memcpy(wpat + bl, leaf, sizeof(leaf));
    CHECK(DeleteFileW(wpat));
}

/* SetFileAttributes, CopyFile, GetFileInformationByHandle, GetFileTime / SetFileTime */
static void attributes_copy_and_times(void)
{
    CHECK(SetFileAttributes(at("c.txt"), FILE_ATTRIBUTE_READONLY));
    CHECK_EQ(GetFileAttributes(at("c.txt")), FILE_ATTRIBUTE_READONLY);
    CHECK(SetFileAttributes(at("c.txt"), FILE_ATTRIBUTE_NORMAL));
    CHECK_EQ(GetFileAttributes(at("c.txt")), FILE_ATTRIBUTE_NORMAL);
    CHECK(!SetFileAttributes(at("gone"), FILE_ATTRIBUTE_NORMAL));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);

    /* a fixed write time (2020-01-01, FILETIME) through a handle that may write */
    HANDLE h = CreateFile(at("c.txt"), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(h != INVALID_HANDLE_VALUE);
    const uint64_t t2020 = 132223104000000000ull;
    FILETIME w = { (DWORD)t2020, (DWORD)(t2020 >> 32) }, got;
    CHECK(SetFileTime(h, NULL, NULL, &w));
    CHECK(GetFileTime(h, NULL, NULL, &got));
    CHECK_EQ(((uint64_t)got.dwHighDateTime << 32 | got.dwLowDateTime), t2020);
    BY_HANDLE_FILE_INFORMATION i1, i2;
    CHECK(GetFileInformationByHandle(h, &i1));
    CHECK_EQ(i1.nFileSizeLow, 5);
    CHECK_EQ(i1.nNumberOfLinks, 1);
    CHECK_EQ(i1.dwFileAttributes, FILE_ATTRIBUTE_NORMAL);
    HANDLE r = CreateFile(at("c.txt"), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    REQUIRE(r != INVALID_HANDLE_VALUE);
    CHECK(GetFileInformationByHandle(r, &i2));        /* the same file: the same identity */
    CHECK(i1.dwVolumeSerialNumber == i2.dwVolumeSerialNumber && i1.nFileIndexLow == i2.nFileIndexLow &&
          i1.nFileIndexHigh == i2.nFileIndexHigh);
    CHECK(!SetFileTime(r, NULL, NULL, &w));           /* a read-only handle */
    CHECK_EQ(GetLastError(), ERROR_ACCESS_DENIED);
    CloseHandle(r);
    CloseHandle(h);
    CHECK(!GetFileTime((HANDLE)0x7777, NULL, NULL, &got));
    CHECK_EQ(GetLastError(), ERROR_INVALID_HANDLE);

    /* CopyFile: data, size and write time; fail_if_exists */
    CHECK(CopyFile(at("c.txt"), at("copy.txt"), TRUE));
    WIN32_FILE_ATTRIBUTE_DATA d;
    CHECK(GetFileAttributesEx(at("copy.txt"), GetFileExInfoStandard, &d));
    CHECK_EQ(d.nFileSizeLow, 5);
    CHECK_EQ(((uint64_t)d.ftLastWriteTime.dwHighDateTime << 32 | d.ftLastWriteTime.dwLowDateTime), t2020);
    CHECK(!CopyFile(at("c.txt"), at("copy.txt"), TRUE));
    CHECK_EQ(GetLastError(), ERROR_FILE_EXISTS);
    CHECK(CopyFile(at("e.dat"), at("copy.txt"), FALSE));   /* over it */
    CHECK(GetFileAttributesEx(at("copy.txt"), GetFileExInfoStandard, &d));
    CHECK_EQ(d.nFileSizeLow, 1);
    CHECK(!CopyFile(at("gone"), at("copy2.txt"), FALSE));
    CHECK_EQ(GetLastError(), ERROR_FILE_NOT_FOUND);
    CHECK(DeleteFile(at("copy.txt")));
}

/* GetFullPathName (against the current directory, "." and ".." by name; Linux form,
 * as GetCurrentDirectory gives) and GetDiskFreeSpaceEx */
static void full_paths_and_space(void)
{
    char cwd[MAX_PATH], want[2 * MAX_PATH], got[2 * MAX_PATH];
    REQUIRE(GetCurrentDirectoryA(sizeof(cwd), cwd) > 0);
    char *part = NULL;
    snprintf(want, sizeof(want), "%s/a/c.txt", strcmp(cwd, "/") ? cwd : "");
    DWORD n = GetFullPathNameA("a\\b\\..\\.\\c.txt", sizeof(got), got, &part);
    CHECK_EQ(n, strlen(want));
    CHECK(!strcmp(got, want));
    CHECK(part && !strcmp(part, "c.txt"));
    CHECK_EQ(GetFullPathNameA("C:\\tmp\\.\\x\\..\\y", sizeof(got), got, &part), 6);
    CHECK(!strcmp(got, "/tmp/y"));
    CHECK_EQ(GetFullPathNameA("\\..\\..", sizeof(got), got, NULL), 1);   /* never above the root */
    CHECK(!strcmp(got, "/"));
    CHECK_EQ(GetFullPathNameA("C:\\tmp\\y", 3, got, NULL), 7);          /* too short: the size needed */
    CHECK_EQ(GetFullPathNameA("C:\\tmp\\dir\\", sizeof(got), got, &part), 9);
    CHECK(!strcmp(got, "/tmp/dir/"));
    CHECK(part == NULL);
    CHECK_EQ(GetFullPathNameA("", sizeof(got), got, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_NAME);
    WCHAR w[MAX_PATH], *wp = NULL;
    static const WCHAR in[] = { '\\', 't', 'm', 'p', '\\', 0xe9, 0 };
    CHECK_EQ(GetFullPathNameW(in, MAX_PATH, w, &wp), 6);
    CHECK(wp && wp[0] == 0xe9 && wp == w + 5);

    ULARGE_INTEGER avail, total, fr;
    CHECK(GetDiskFreeSpaceEx(base, &avail, &total, &fr));
    CHECK(total.QuadPart > 0 && avail.QuadPart <= total.QuadPart && fr.QuadPart <= total.QuadPart);
    CHECK(GetDiskFreeSpaceEx(NULL, &avail, NULL, NULL));      /* the current directory's */
    CHECK(!GetDiskFreeSpaceEx(at("gone\\x"), &avail, &total, &fr));
    CHECK_EQ(GetLastError(), ERROR_PATH_NOT_FOUND);
}

static void cleanup(void)
{
    CHECK(DeleteFile(at("c.txt")));
    CHECK(DeleteFile(at("D.TXT")));
    CHECK(DeleteFile(at("e.dat")));
    CHECK(RemoveDirectory(at("sub")));
    CHECK(RemoveDirectory(base));
    CHECK_EQ(GetFileAttributes(base), INVALID_FILE_ATTRIBUTES);
}

int main(void)
{
    io_test_start();
    directories_and_attributes();
    moves();
    searches();
    attributes_copy_and_times();
    full_paths_and_space();
    cleanup();
    WSACleanup();
    return nspa_test_done();
}
