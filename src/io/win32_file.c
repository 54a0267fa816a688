/*
 * kernel32's file calls over file.c. Paths (docs/io.md, "Paths"): '\' and '/' both
 * separate; a drive letter ("C:") is dropped, so "C:\tmp\x" and "\tmp\x" are the Linux
 * "/tmp/x"; "\\?\" is dropped; relative paths stay relative to the current directory.
 * W names are UTF-16 converted to UTF-8.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "nspa/sync.h"
#include "nspa/unicode.h"
#include "common/export.h"
#include "io/io_api.h"
#include "win32/win32_error.h"
#include "unicode/wstr.h"
#include "io/win32_io.h"

#define PATH_CAP 4096

static inline BOOL fail(DWORD e)
{
    SetLastError(e);
    return FALSE;
}

static inline uint32_t H32(HANDLE h) { return (uint32_t)(uintptr_t)h; }

/* the file calls' errors (win32_error.h) */
static inline DWORD err_of(int r) { return win32_error_from_errno(r, WIN32_ERR_FILE); }

/* Windows path -> Linux path (see the header comment). 0, or an error code: argument
 * checks (no path: ERROR_PATH_NOT_FOUND, as CreateFile and DeleteFile say for NULL). */
NSPA_HIDDEN uint32_t io_w32_path(const char *w, char *out, size_t cap)
{
    if (!w) return ERROR_PATH_NOT_FOUND;
    if (!strncmp(w, "\\\\?\\", 4)) w += 4;
    if (((w[0] >= 'A' && w[0] <= 'Z') || (w[0] >= 'a' && w[0] <= 'z')) && w[1] == ':') w += 2;
    size_t n = strlen(w);
    if (n + 1 > cap) return ERROR_FILENAME_EXCED_RANGE;
    for (size_t i = 0; i <= n; i++) out[i] = w[i] == '\\' ? '/' : w[i];
    return 0;
}

NSPA_HIDDEN uint32_t io_w32_utf8(const uint16_t *w, char *out, size_t cap)
{
    if (!w) return ERROR_PATH_NOT_FOUND;
    size_t n = nspa__wlen(w);
    if (n * 3 + 1 > cap) return ERROR_FILENAME_EXCED_RANGE;
    size_t l = nspa_utf16_to_utf8(w, n, out, cap - 1, NULL);
    out[l] = 0;
    return 0;
}

NSPA_EXPORT HANDLE WINAPI CreateFileA(LPCSTR name, DWORD access, DWORD share, LPSECURITY_ATTRIBUTES sa,
                                      DWORD disposition, DWORD flags, HANDLE tmpl)
{
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) {
        SetLastError(e);
        return INVALID_HANDLE_VALUE;
    }
    uint32_t h;
    int r = io_file_open(p, access, share, disposition, flags, &h);
    if (r < 0) {
        SetLastError(err_of(r));
        return INVALID_HANDLE_VALUE;
    }
    if (sa && sa->bInheritHandle) SetHandleInformation((HANDLE)(uintptr_t)h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
    SetLastError(r == 1 ? ERROR_ALREADY_EXISTS : 0);
    return (HANDLE)(uintptr_t)h;
}

NSPA_EXPORT HANDLE WINAPI CreateFileW(LPCWSTR name, DWORD access, DWORD share, LPSECURITY_ATTRIBUTES sa,
                                      DWORD disposition, DWORD flags, HANDLE tmpl)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    if (e) {
        SetLastError(e);
        return INVALID_HANDLE_VALUE;
    }
    return CreateFileA(u, access, share, sa, disposition, flags, tmpl);
}

static BOOL rw(HANDLE h, int wr, void *buf, DWORD len, LPDWORD done, LPOVERLAPPED ov, void *routine)
{
    if (done) *done = 0;
    uint32_t n = 0;
    int r = io_file_rw(H32(h), wr, buf, len, &n, ov, routine);
    /* -EINPROGRESS: ERROR_IO_PENDING; -EPIPE: a pipe's other end gone (pipe.c) */
    if (r) return fail(win32_error_from_errno(r, WIN32_ERR_FILE | (wr ? WIN32_ERR_WRITE : 0)));
    if (done) *done = n;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI ReadFile(HANDLE h, LPVOID buf, DWORD len, LPDWORD read, LPOVERLAPPED ov)
{
    if (!read && !ov) return fail(ERROR_INVALID_USER_BUFFER);
    return rw(h, 0, buf, len, read, ov, NULL);
}

NSPA_EXPORT BOOL WINAPI WriteFile(HANDLE h, LPCVOID buf, DWORD len, LPDWORD written, LPOVERLAPPED ov)
{
    if (!written && !ov) return fail(ERROR_INVALID_USER_BUFFER);
    return rw(h, 1, (void *)buf, len, written, ov, NULL);
}

/* The Ex forms: TRUE when the operation started (its routine runs in an alertable wait
 * of this thread, also when it completed at once). */
NSPA_EXPORT BOOL WINAPI ReadFileEx(HANDLE h, LPVOID buf, DWORD len, LPOVERLAPPED ov, LPOVERLAPPED_COMPLETION_ROUTINE fn)
{
    if (!ov || !fn) return fail(ERROR_INVALID_PARAMETER);
    BOOL ok = rw(h, 0, buf, len, NULL, ov, (void *)fn);
    if (!ok && GetLastError() == ERROR_IO_PENDING) ok = TRUE;
    if (ok) SetLastError(0);
    return ok;
}

NSPA_EXPORT BOOL WINAPI WriteFileEx(HANDLE h, LPCVOID buf, DWORD len, LPOVERLAPPED ov, LPOVERLAPPED_COMPLETION_ROUTINE fn)
{
    if (!ov || !fn) return fail(ERROR_INVALID_PARAMETER);
    BOOL ok = rw(h, 1, (void *)buf, len, NULL, ov, (void *)fn);
    if (!ok && GetLastError() == ERROR_IO_PENDING) ok = TRUE;
    if (ok) SetLastError(0);
    return ok;
}

NSPA_EXPORT BOOL WINAPI GetFileSizeEx(HANDLE h, PLARGE_INTEGER size)
{
    if (!size) return fail(ERROR_NOACCESS);
    int64_t s;
    int r = io_file_size(H32(h), &s);
    if (r) return fail(err_of(r));
    size->QuadPart = s;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetFilePointerEx(HANDLE h, LARGE_INTEGER dist, PLARGE_INTEGER pos, DWORD method)
{
    int64_t p;
    int r = io_file_seek(H32(h), dist.QuadPart, (int)method, &p);
    if (r) return fail(err_of(r));
    if (pos) pos->QuadPart = p;
    return TRUE;
}

/* The 32-bit forms. GetFileSize: the low part, the high part in *@high; INVALID_FILE_SIZE
 * with the error on failure, and with last error 0 when the low part really is
 * 0xFFFFFFFF (how a caller with @high tells them apart). */
NSPA_EXPORT DWORD WINAPI GetFileSize(HANDLE h, LPDWORD high)
{
    int64_t s;
    int r = io_file_size(H32(h), &s);
    if (r) {
        SetLastError(err_of(r));
        return INVALID_FILE_SIZE;
    }
    if (high) *high = (DWORD)((uint64_t)s >> 32);
    if ((DWORD)s == INVALID_FILE_SIZE) SetLastError(0);
    return (DWORD)s;
}

/* SetFilePointer: without @high the distance is a signed 32-bit value; with it, @high
 * holds the distance's high part and gets the new position's. INVALID_SET_FILE_POINTER
 * with the error on failure, with last error 0 when the low part of a good position is
 * 0xFFFFFFFF. */
NSPA_EXPORT DWORD WINAPI SetFilePointer(HANDLE h, LONG dist, PLONG high, DWORD method)
{
    int64_t d = high ? (int64_t)((uint64_t)(uint32_t)*high << 32 | (uint32_t)dist) : (int64_t)dist;
    int64_t p;
    int r = io_file_seek(H32(h), d, (int)method, &p);
    if (r) {
        SetLastError(err_of(r));
        return INVALID_SET_FILE_POINTER;
    }
    if (high) *high = (LONG)((uint64_t)p >> 32);
    if ((DWORD)p == INVALID_SET_FILE_POINTER) SetLastError(0);
    return (DWORD)p;
}

NSPA_EXPORT BOOL WINAPI SetEndOfFile(HANDLE h)
{
    int r = io_file_truncate(H32(h));
    return r ? fail(err_of(r)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI FlushFileBuffers(HANDLE h)
{
    int r = io_file_flush(H32(h));
    return r ? fail(err_of(r)) : TRUE;
}

NSPA_EXPORT DWORD WINAPI GetFileType(HANDLE h)
{
    int t = io_file_type(H32(h));
    if (t < 0) {
        SetLastError(err_of(t));
        return FILE_TYPE_UNKNOWN;
    }
    SetLastError(0);
    return (DWORD)t;
}

NSPA_EXPORT BOOL WINAPI DeleteFileA(LPCSTR name)
{
    char p[PATH_CAP];
    DWORD e = io_w32_path(name, p, sizeof(p));
    if (e) return fail(e);
    int r = io_file_delete(p);              /* a directory, a protected file: ERROR_ACCESS_DENIED */
    return r ? fail(err_of(r)) : TRUE;
}

NSPA_EXPORT BOOL WINAPI DeleteFileW(LPCWSTR name)
{
    char u[PATH_CAP];
    DWORD e = io_w32_utf8(name, u, sizeof(u));
    if (e) return fail(e);
    return DeleteFileA(u);
}

/* $TMPDIR (or /tmp) with a trailing separator; the length without the NUL, or the
 * size needed with it when @len is too small */
NSPA_EXPORT DWORD WINAPI GetTempPathA(DWORD len, LPSTR buf)
{
    const char *t = getenv("TMPDIR");
    if (!t || t[0] != '/') t = "/tmp";
    size_t n = strlen(t);
    int slash = t[n - 1] != '/';
    DWORD need = (DWORD)(n + slash);
    if (len < need + 1 || !buf) return need + 1;
    memcpy(buf, t, n);
    if (slash) buf[n] = '/';
    buf[need] = 0;
    return need;
}

NSPA_EXPORT DWORD WINAPI GetTempPathW(DWORD len, LPWSTR buf)
{
    char a[PATH_CAP];
    DWORD n = GetTempPathA(sizeof(a), a);
    if (n >= sizeof(a)) return 0;
    size_t w = nspa_utf8_to_utf16(a, n, NULL, 0, NULL);
    if (len < w + 1 || !buf) return (DWORD)w + 1;
    nspa_utf8_to_utf16(a, n, buf, w, NULL);
    buf[w] = 0;
    return (DWORD)w;
}

/* "<path>\<up to 3 prefix chars><hex>.TMP"; with @unique 0 a new number is chosen and
 * the file is created (empty) so that the name is ours. */
NSPA_EXPORT UINT WINAPI GetTempFileNameA(LPCSTR path, LPCSTR prefix, UINT unique, LPSTR out)
{
    if (!path || !out) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    char pre[4] = { 0 };
    if (prefix) strncpy(pre, prefix, 3);
    size_t pl = strlen(path);
    const char *sep = pl && (path[pl - 1] == '\\' || path[pl - 1] == '/') ? "" : "\\";
    UINT u = unique & 0xffff;
    if (unique) {
        if ((size_t)snprintf(out, MAX_PATH, "%s%s%s%X.TMP", path, sep, pre, u) >= MAX_PATH) goto toolong;
        return u;
    }
    static UINT counter;
    u = (UINT)(getpid() ^ (UINT)nspa_time_ns()) & 0xffff;
    for (int tries = 0; tries < 0x10000; tries++) {
        u = ((u + __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED)) & 0xffff) ?: 1;
        if ((size_t)snprintf(out, MAX_PATH, "%s%s%s%X.TMP", path, sep, pre, u) >= MAX_PATH) goto toolong;
        HANDLE h = CreateFileA(out, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h != INVALID_HANDLE_VALUE) {
            CloseHandle(h);
            SetLastError(0);
            return u;
        }
        if (GetLastError() != ERROR_FILE_EXISTS) return 0;
    }
    SetLastError(ERROR_FILE_EXISTS);
    return 0;
toolong:
    SetLastError(ERROR_BUFFER_OVERFLOW);
    return 0;
}

NSPA_EXPORT UINT WINAPI GetTempFileNameW(LPCWSTR path, LPCWSTR prefix, UINT unique, LPWSTR out)
{
    char p[PATH_CAP], pre[16] = { 0 }, o[MAX_PATH * 3];
    if (!path || !out || io_w32_utf8(path, p, sizeof(p)) || (prefix && io_w32_utf8(prefix, pre, sizeof(pre)))) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    UINT r = GetTempFileNameA(p, prefix ? pre : NULL, unique, o);
    if (r) {
        size_t l = strlen(o);
        size_t w = nspa_utf8_to_utf16(o, l, out, MAX_PATH - 1, NULL);
        out[w] = 0;
    }
    return r;
}

NSPA_EXPORT HANDLE WINAPI GetStdHandle(DWORD which)
{
    int i = which == STD_INPUT_HANDLE ? 0 : which == STD_OUTPUT_HANDLE ? 1 : which == STD_ERROR_HANDLE ? 2 : -1;
    if (i < 0) {
        SetLastError(ERROR_INVALID_HANDLE);
        return INVALID_HANDLE_VALUE;
    }
    uint32_t h;
    if (io_std_handle(i, &h)) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return INVALID_HANDLE_VALUE;
    }
    return (HANDLE)(intptr_t)(int32_t)h;   /* INVALID_HANDLE_VALUE stays itself */
}
