/*
 * kernel32's name and directory calls over dir.c: GetFileAttributes(Ex), CreateDirectory,
 * RemoveDirectory, MoveFile(Ex), FindFirstFile / FindNextFile / FindClose. Paths as the
 * file calls take them (win32_file.c, docs/io.md "Paths"); W names are UTF-16 <-> UTF-8.
 */
#include <errno.h>
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/win32/ntstatus.h"
#include "nspa/unicode.h"
#include "common/export.h"
#include "io/io_api.h"
#include "io/win32_io.h"
#include "win32/win32_error.h"

#define PATH_CAP 4096

static inline BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

static inline DWORD err_of(int r, unsigned call) { return win32_error_from_errno(r, WIN32_ERR_FILE | call); }

static void ft_set(FILETIME *ft, uint64_t v)
{
    ft->dwLowDateTime = (DWORD)v;
    ft->dwHighDateTime = (DWORD)(v >> 32);
}

/* ---- attributes ------------------------------------------------------------------- */

NSPA_EXPORT DWORD WINAPI GetFileAttributesA(LPCSTR name)
{
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) {
        SetLastError(e);
        return INVALID_FILE_ATTRIBUTES;
    }
    struct io_stat st;
    int r = io_path_stat(p, &st);
    if (r) {
        SetLastError(err_of(r, 0));
        return INVALID_FILE_ATTRIBUTES;
    }
    return st.attrs;
}

NSPA_EXPORT DWORD WINAPI GetFileAttributesW(LPCWSTR name)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    if (e) {
        SetLastError(e);
        return INVALID_FILE_ATTRIBUTES;
    }
    return GetFileAttributesA(u);
}

NSPA_EXPORT BOOL WINAPI GetFileAttributesExA(LPCSTR name, GET_FILEEX_INFO_LEVELS level, LPVOID info)
{
    if (level != GetFileExInfoStandard) return fail(ERROR_INVALID_PARAMETER);
    if (!info) return fail(ERROR_NOACCESS);
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail(e);
    struct io_stat st;
    int r = io_path_stat(p, &st);
    if (r) return fail(err_of(r, 0));
    WIN32_FILE_ATTRIBUTE_DATA *d = info;
    d->dwFileAttributes = st.attrs;
    ft_set(&d->ftCreationTime, st.ctime);
    ft_set(&d->ftLastAccessTime, st.atime);
    ft_set(&d->ftLastWriteTime, st.mtime);
    d->nFileSizeHigh = (DWORD)(st.size >> 32);
    d->nFileSizeLow = (DWORD)st.size;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetFileAttributesExW(LPCWSTR name, GET_FILEEX_INFO_LEVELS level, LPVOID info)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    return e ? fail(e) : GetFileAttributesExA(u, level, info);
}

NSPA_EXPORT BOOL WINAPI SetFileAttributesA(LPCSTR name, DWORD attrs)
{
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail(e);
    int r = io_path_set_attrs(p, attrs);
    return r ? fail(err_of(r, 0)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI SetFileAttributesW(LPCWSTR name, DWORD attrs)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    return e ? fail(e) : SetFileAttributesA(u, attrs);
}

/* ---- a handle's file -------------------------------------------------------------- */

NSPA_EXPORT BOOL WINAPI GetFileInformationByHandle(HANDLE h, LPBY_HANDLE_FILE_INFORMATION info)
{
    if (!info) return fail(ERROR_NOACCESS);
    struct io_file_info fi;
    int r = io_file_info((uint32_t)(uintptr_t)h, &fi);
    if (r) return fail(err_of(r, 0));
    info->dwFileAttributes = fi.st.attrs;
    ft_set(&info->ftCreationTime, fi.st.ctime);
    ft_set(&info->ftLastAccessTime, fi.st.atime);
    ft_set(&info->ftLastWriteTime, fi.st.mtime);
    info->dwVolumeSerialNumber = (DWORD)fi.dev;      /* the device: same file <=> same serial and index */
    info->nFileSizeHigh = (DWORD)(fi.st.size >> 32);
    info->nFileSizeLow = (DWORD)fi.st.size;
    info->nNumberOfLinks = fi.nlink;
    info->nFileIndexHigh = (DWORD)(fi.ino >> 32);
    info->nFileIndexLow = (DWORD)fi.ino;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetFileTime(HANDLE h, LPFILETIME creation, LPFILETIME access, LPFILETIME write)
{
    struct io_file_info fi;
    int r = io_file_info((uint32_t)(uintptr_t)h, &fi);
    if (r) return fail(err_of(r, 0));
    if (creation) ft_set(creation, fi.st.ctime);
    if (access) ft_set(access, fi.st.atime);
    if (write) ft_set(write, fi.st.mtime);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetFileTime(HANDLE h, const FILETIME *creation, const FILETIME *access, const FILETIME *write)
{
    (void)creation;                                  /* Linux keeps no creation time */
    uint64_t a = access ? (uint64_t)access->dwHighDateTime << 32 | access->dwLowDateTime : 0;
    uint64_t w = write ? (uint64_t)write->dwHighDateTime << 32 | write->dwLowDateTime : 0;
    int r = io_file_set_times((uint32_t)(uintptr_t)h, access ? &a : NULL, write ? &w : NULL);
    return r ? fail(err_of(r, 0)) : TRUE;
}

/* CopyFile: the source opened to read (sharing read and delete), the copy made new or
 * over an existing file (@fail_if_exists: ERROR_FILE_EXISTS), then data, mode and
 * times; a copy that fails half-way is removed */
NSPA_EXPORT BOOL WINAPI CopyFileA(LPCSTR from, LPCSTR to, BOOL fail_if_exists)
{
    HANDLE s = CreateFileA(from, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, OPEN_EXISTING, 0, NULL);
    if (s == INVALID_HANDLE_VALUE) return FALSE;
    HANDLE d = CreateFileA(to, GENERIC_WRITE, 0, NULL, fail_if_exists ? CREATE_NEW : CREATE_ALWAYS, 0, NULL);
    if (d == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        CloseHandle(s);
        return fail(e);
    }
    int r = io_file_copy((uint32_t)(uintptr_t)s, (uint32_t)(uintptr_t)d);
    CloseHandle(s);
    CloseHandle(d);
    if (r) {
        DeleteFileA(to);
        return fail(err_of(r, WIN32_ERR_WRITE));
    }
    SetLastError(0);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI CopyFileW(LPCWSTR from, LPCWSTR to, BOOL fail_if_exists)
{
    char a[PATH_CAP], b[PATH_CAP];
    DWORD e = io_w32_utf8(from, a, sizeof(a));
    if (!e) e = io_w32_utf8(to, b, sizeof(b));
    return e ? fail(e) : CopyFileA(a, b, fail_if_exists);
}

/* ---- full paths and free space ------------------------------------------------------ */

/* the length without the NUL when it fits, else the size needed with it; *@part: the
 * last component (NULL when the name ends in a separator) */
static inline DWORD fail0(DWORD e)
{
    SetLastError(e);
    return 0;
}

NSPA_EXPORT DWORD WINAPI GetFullPathNameA(LPCSTR name, DWORD len, LPSTR buf, LPSTR *part)
{
    char p[PATH_CAP], full[PATH_CAP];
    if (name && !*name) return fail0(ERROR_INVALID_NAME);
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail0(e);
    int r = io_full_path(p, full, sizeof(full));
    if (r) return fail0(r == -ENAMETOOLONG ? ERROR_FILENAME_EXCED_RANGE : err_of(r, 0));
    size_t n = strlen(full);
    if (!buf || len < n + 1) return (DWORD)(n + 1);
    memcpy(buf, full, n + 1);
    if (part) {
        char *slash = strrchr(buf, '/');
        *part = slash && slash[1] ? slash + 1 : NULL;
    }
    return (DWORD)n;
}

NSPA_EXPORT DWORD WINAPI GetFullPathNameW(LPCWSTR name, DWORD len, LPWSTR buf, LPWSTR *part)
{
    char u[PATH_CAP], full[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));   /* "" stays "": ERROR_INVALID_NAME there */
    if (e) return fail0(e);
    char *fp = NULL;
    DWORD n = GetFullPathNameA(u, sizeof(full), full, &fp);
    if (!n) return 0;
    size_t w = nspa_utf8_to_utf16(full, n, NULL, 0, NULL);
    if (!buf || len < w + 1) return (DWORD)(w + 1);
    nspa_utf8_to_utf16(full, n, buf, w, NULL);
    buf[w] = 0;
    if (part) *part = fp ? buf + nspa_utf8_to_utf16(full, (size_t)(fp - full), NULL, 0, NULL) : NULL;
    return (DWORD)w;
}

NSPA_EXPORT BOOL WINAPI GetDiskFreeSpaceExA(LPCSTR dir, PULARGE_INTEGER avail, PULARGE_INTEGER total,
                                            PULARGE_INTEGER free_)
{
    char p[PATH_CAP] = ".";
    if (dir) {
        DWORD e = io_w32_path(dir, p, sizeof(p));
        if (e) return fail(e);
    }
    uint64_t a, t, f;
    int r = io_disk_space(p, &a, &t, &f);
    if (r) return fail(err_of(r, 0));
    if (avail) avail->QuadPart = a;
    if (total) total->QuadPart = t;
    if (free_) free_->QuadPart = f;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetDiskFreeSpaceExW(LPCWSTR dir, PULARGE_INTEGER avail, PULARGE_INTEGER total,
                                            PULARGE_INTEGER free_)
{
    char u[PATH_CAP];
    if (!dir) return GetDiskFreeSpaceExA(NULL, avail, total, free_);
    DWORD e = io_w32_utf8(dir, u, sizeof(u));
    return e ? fail(e) : GetDiskFreeSpaceExA(u, avail, total, free_);
}

/* ---- directories ------------------------------------------------------------------ */

NSPA_EXPORT BOOL WINAPI CreateDirectoryA(LPCSTR name, LPSECURITY_ATTRIBUTES sa)
{
    (void)sa;
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail(e);
    int r = io_dir_create(p);
    return r ? fail(err_of(r, WIN32_ERR_NAME)) : TRUE;   /* it exists: ERROR_ALREADY_EXISTS */
}

NSPA_EXPORT BOOL WINAPI CreateDirectoryW(LPCWSTR name, LPSECURITY_ATTRIBUTES sa)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    return e ? fail(e) : CreateDirectoryA(u, sa);
}

NSPA_EXPORT BOOL WINAPI RemoveDirectoryA(LPCSTR name)
{
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail(e);
    int r = io_dir_remove(p);
    if (!r) return TRUE;
    struct io_stat st;
    if (r == -ENOTDIR && io_path_stat(p, &st) == 0)   /* a file, not a directory */
        return fail(win32_error_from_status(STATUS_NOT_A_DIRECTORY, WIN32_ERR_FILE));
    return fail(err_of(r, 0));                       /* not empty: ERROR_DIR_NOT_EMPTY */
}

NSPA_EXPORT BOOL WINAPI RemoveDirectoryW(LPCWSTR name)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    return e ? fail(e) : RemoveDirectoryA(u);
}

/* ---- moving ----------------------------------------------------------------------- */

NSPA_EXPORT BOOL WINAPI MoveFileExA(LPCSTR from, LPCSTR to, DWORD flags)
{
    if (flags & ~(DWORD)(MOVEFILE_REPLACE_EXISTING | MOVEFILE_COPY_ALLOWED | MOVEFILE_WRITE_THROUGH))
        return fail(ERROR_INVALID_PARAMETER);       /* MOVEFILE_DELAY_UNTIL_REBOOT & co.: not here */
    char a[PATH_CAP], b[PATH_CAP];
    DWORD e = io_w32_path(from, a, sizeof(a));
    if (!e) e = io_w32_path(to, b, sizeof(b));
    if (e) return fail(e);
    int r = io_file_move(a, b, flags);
    return r ? fail(err_of(r, WIN32_ERR_NAME)) : TRUE;   /* exists: ERROR_ALREADY_EXISTS */
}

NSPA_EXPORT BOOL WINAPI MoveFileA(LPCSTR from, LPCSTR to)
{
    return MoveFileExA(from, to, MOVEFILE_COPY_ALLOWED);   /* MoveFile may copy across volumes */
}

NSPA_EXPORT BOOL WINAPI MoveFileExW(LPCWSTR from, LPCWSTR to, DWORD flags)
{
    char a[PATH_CAP], b[PATH_CAP];
    DWORD e = io_w32_utf8(from, a, sizeof(a));
    if (!e) e = io_w32_utf8(to, b, sizeof(b));
    return e ? fail(e) : MoveFileExA(a, b, flags);
}

NSPA_EXPORT BOOL WINAPI MoveFileW(LPCWSTR from, LPCWSTR to)
{
    return MoveFileExW(from, to, MOVEFILE_COPY_ALLOWED);
}

/* ---- searches --------------------------------------------------------------------- */

/* the fields WIN32_FIND_DATAA and WIN32_FIND_DATAW share (all but the names) */
#define FIND_FILL(d, e)                                                  \
    do {                                                                 \
        memset((d), 0, sizeof(*(d)));                                    \
        (d)->dwFileAttributes = (e)->st.attrs;                           \
        ft_set(&(d)->ftCreationTime, (e)->st.ctime);                     \
        ft_set(&(d)->ftLastAccessTime, (e)->st.atime);                   \
        ft_set(&(d)->ftLastWriteTime, (e)->st.mtime);                    \
        (d)->nFileSizeHigh = (DWORD)((e)->st.size >> 32);                \
        (d)->nFileSizeLow = (DWORD)(e)->st.size;                         \
    } while (0)

static void fill_a(const struct io_find_ent *e, WIN32_FIND_DATAA *d)
{
    FIND_FILL(d, e);
    strncpy(d->cFileName, e->name, MAX_PATH - 1);
}

static void fill_w(const struct io_find_ent *e, WIN32_FIND_DATAW *d)
{
    FIND_FILL(d, e);
    size_t n = nspa_utf8_to_utf16(e->name, strlen(e->name), d->cFileName, MAX_PATH - 1, NULL);
    d->cFileName[n] = 0;
}

/* the search over @pattern (a Windows path, UTF-8): its first entry in *e; the handle
 * or INVALID_HANDLE_VALUE with the error (no such directory: ERROR_PATH_NOT_FOUND;
 * nothing matches: ERROR_FILE_NOT_FOUND) */
static HANDLE find_first(const char *pattern, const void *data, struct io_find_ent *e)
{
    char p[PATH_CAP];
    DWORD err = io_w32_path(pattern, p, sizeof(p));
    if (!err && !data) err = ERROR_NOACCESS;
    uintptr_t h;
    int r = err ? 0 : io_find_first(p, &h, e);
    if (r) err = err_of(r, 0);
    if (err) {
        SetLastError(err);
        return INVALID_HANDLE_VALUE;
    }
    return (HANDLE)h;
}

NSPA_EXPORT HANDLE WINAPI FindFirstFileA(LPCSTR pattern, LPWIN32_FIND_DATAA data)
{
    struct io_find_ent e;
    HANDLE h = find_first(pattern, data, &e);
    if (h != INVALID_HANDLE_VALUE) fill_a(&e, data);
    return h;
}

NSPA_EXPORT HANDLE WINAPI FindFirstFileW(LPCWSTR pattern, LPWIN32_FIND_DATAW data)
{
    char u[PATH_CAP];
    DWORD err = io_w32_utf8(pattern, u, sizeof(u));
    if (err) {
        SetLastError(err);
        return INVALID_HANDLE_VALUE;
    }
    struct io_find_ent e;
    HANDLE h = find_first(u, data, &e);
    if (h != INVALID_HANDLE_VALUE) fill_w(&e, data);
    return h;
}

/* 0 with the entry, or FALSE's error: ERROR_NO_MORE_FILES at the end, ERROR_INVALID_HANDLE */
static DWORD find_next(HANDLE h, struct io_find_ent *e)
{
    int r = io_find_next((uintptr_t)h, e);
    if (r == -ENODATA) return win32_error_from_status(STATUS_NO_MORE_FILES, WIN32_ERR_FILE);
    return r ? ERROR_INVALID_HANDLE : 0;
}

NSPA_EXPORT BOOL WINAPI FindNextFileA(HANDLE h, LPWIN32_FIND_DATAA data)
{
    if (!data) return fail(ERROR_NOACCESS);
    struct io_find_ent e;
    DWORD err = find_next(h, &e);
    if (err) return fail(err);
    fill_a(&e, data);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI FindNextFileW(HANDLE h, LPWIN32_FIND_DATAW data)
{
    if (!data) return fail(ERROR_NOACCESS);
    struct io_find_ent e;
    DWORD err = find_next(h, &e);
    if (err) return fail(err);
    fill_w(&e, data);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI FindClose(HANDLE h)
{
    return io_find_close((uintptr_t)h) ? fail(ERROR_INVALID_HANDLE) : TRUE;
}
