/* Win32 file mappings over nspa_vm_section_* (section.c); a file handle's descriptor
 * comes from the I/O layer (src/io). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"
#include "io/io_api.h"
#include "win32/win32_error.h"

static const char *strip_local(const char *n)
{
    return strncmp(n, "Local\\", 6) == 0 ? n + 6 : n;
}

/* a W name as UTF-8 in buf; 0 or the last error. An argument check (the name, before any
 * call): too long for the namespace, or not convertible. */
static DWORD name_a(LPCWSTR w, char *buf, int cap)
{
    if (!w) return 0;
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, cap, NULL, NULL);
    return n > 0 ? 0 : GetLastError() == ERROR_INSUFFICIENT_BUFFER ? ERROR_FILENAME_EXCED_RANGE : ERROR_INVALID_NAME;
}

/* CreateFileMapping over a file handle: NT's answers before anything is made (argument
 * checks of the file: its kind, its access, its size). *fd: a copy of the file's
 * descriptor (the caller closes it). */
static DWORD file_checks(HANDLE file, DWORD prot, uint64_t size, int *fd)
{
    int can_write = 0;
    int r = io_file_dup_fd((uint32_t)(uintptr_t)file & ~3u, fd, &can_write);
    if (r) return win32_error_from_errno(r, WIN32_ERR_MEMORY);   /* -EACCES: not opened for reading */
    DWORD base = prot & 0xff, e = 0;
    int wants_write = base == PAGE_READWRITE || base == PAGE_EXECUTE_READWRITE;
    struct stat st;
    if (fstat(*fd, &st) < 0 || !S_ISREG(st.st_mode)) e = ERROR_INVALID_HANDLE;   /* pipes, sockets */
    else if (wants_write && !can_write) e = ERROR_ACCESS_DENIED;    /* a GENERIC_READ-only handle */
    else if (!size && !st.st_size) e = ERROR_FILE_INVALID;         /* STATUS_MAPPED_FILE_SIZE_ZERO */
    else if (size > (uint64_t)st.st_size && !wants_write) e = ERROR_NOT_ENOUGH_MEMORY;   /* SECTION_TOO_BIG */
    if (e) {
        close(*fd);
        *fd = -1;
    }
    return e;
}

NSPA_EXPORT HANDLE WINAPI CreateFileMappingA(HANDLE file, LPSECURITY_ATTRIBUTES sa, DWORD prot,
                                             DWORD size_high, DWORD size_low, LPCSTR name)
{
    if (name && !*name) name = NULL;
    nspa_obj_t h = 0;
    uint64_t size = ((uint64_t)size_high << 32) | size_low;
    int fd = -1;
    if (file != INVALID_HANDLE_VALUE) {
        /* a file of the I/O layer (CreateFile): its descriptor, with NT's checks first */
        DWORD e = file_checks(file, prot, size, &fd);
        if (e) {
            SetLastError(e);
            return NULL;
        }
    }
    int r = nspa_vm_section_create(fd, size, prot, name ? strip_local(name) : NULL, &h);
    if (fd >= 0) close(fd);                    /* the section keeps its own copy */
    if (r < 0) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_MEMORY));   /* -EEXIST: a name of another type */
        return NULL;
    }
    if (h && sa && sa->bInheritHandle) nspa_handle_set_flags(h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    SetLastError(r == NSPA_EXISTED ? ERROR_ALREADY_EXISTS : ERROR_SUCCESS);
    return (HANDLE)(uintptr_t)h;
}

NSPA_EXPORT HANDLE WINAPI CreateFileMappingW(HANDLE file, LPSECURITY_ATTRIBUTES sa, DWORD prot,
                                             DWORD size_high, DWORD size_low, LPCWSTR name)
{
    char buf[NSPA_MAX_NAME + 8];
    DWORD e = name_a(name, buf, sizeof buf);
    if (e) { SetLastError(e); return NULL; }
    return CreateFileMappingA(file, sa, prot, size_high, size_low, name ? buf : NULL);
}

NSPA_EXPORT HANDLE WINAPI OpenFileMappingA(DWORD access, BOOL inherit, LPCSTR name)
{
    if (!name) { SetLastError(ERROR_INVALID_PARAMETER); return NULL; }
    nspa_obj_t h = 0;
    int r = nspa_vm_section_open(strip_local(name), &h);
    if (r < 0) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_MEMORY | WIN32_ERR_OPEN));
        return NULL;
    }
    if (inherit) nspa_handle_set_flags(h, NSPA_HANDLE_INHERIT, NSPA_HANDLE_INHERIT);
    return (HANDLE)(uintptr_t)h;
}

NSPA_EXPORT HANDLE WINAPI OpenFileMappingW(DWORD access, BOOL inherit, LPCWSTR name)
{
    char buf[NSPA_MAX_NAME + 8];
    DWORD e = name_a(name, buf, sizeof buf);
    if (e) { SetLastError(e); return NULL; }
    return OpenFileMappingA(access, inherit, name ? buf : NULL);
}

static LPVOID map_view(HANDLE mapping, DWORD access, ULONG64 offset, SIZE_T size, LPVOID base)
{
    void *p = base;
    int r = nspa_vm_map_view((nspa_obj_t)(uintptr_t)mapping, access, offset, size, &p);
    if (r) {
        SetLastError(win32_error_from_errno(r, WIN32_ERR_MEMORY | WIN32_ERR_VIEW));   /* -EINVAL: misaligned */
        return NULL;
    }
    return p;
}

NSPA_EXPORT LPVOID WINAPI MapViewOfFile(HANDLE mapping, DWORD access, DWORD off_high, DWORD off_low, SIZE_T size)
{
    return map_view(mapping, access, ((ULONG64)off_high << 32) | off_low, size, NULL);
}

NSPA_EXPORT LPVOID WINAPI MapViewOfFileEx(HANDLE mapping, DWORD access, DWORD off_high, DWORD off_low,
                                          SIZE_T size, LPVOID base)
{
    return map_view(mapping, access, ((ULONG64)off_high << 32) | off_low, size, base);
}

NSPA_EXPORT PVOID WINAPI MapViewOfFile3(HANDLE mapping, HANDLE process, PVOID base, ULONG64 offset,
                                        SIZE_T size, ULONG type, ULONG prot,
                                        MEM_EXTENDED_PARAMETER *params, ULONG count)
{
    if (process && process != GetCurrentProcess()) { SetLastError(ERROR_NOT_SUPPORTED); return NULL; }
    if (type & ~(MEM_LARGE_PAGES)) { SetLastError(ERROR_INVALID_PARAMETER); return NULL; }
    DWORD access;
    switch (prot & 0xff) {
    case PAGE_READONLY:          access = FILE_MAP_READ; break;
    case PAGE_READWRITE:         access = FILE_MAP_WRITE; break;
    case PAGE_WRITECOPY:         access = FILE_MAP_COPY; break;
    case PAGE_EXECUTE_READ:      access = FILE_MAP_READ | FILE_MAP_EXECUTE; break;
    case PAGE_EXECUTE_READWRITE: access = FILE_MAP_WRITE | FILE_MAP_EXECUTE; break;
    default: SetLastError(ERROR_INVALID_PARAMETER); return NULL;
    }
    for (ULONG i = 0; i < count; i++)
        if (!params || params[i].Type != MemExtendedParameterNumaNode) {
            SetLastError(params ? ERROR_NOT_SUPPORTED : ERROR_INVALID_PARAMETER);
            return NULL;
        }
    return map_view(mapping, access, offset, size, base);
}

NSPA_EXPORT BOOL WINAPI UnmapViewOfFile(LPCVOID base)
{
    int r = nspa_vm_unmap_view(base);
    return r ? vm_win32_fail(r) : TRUE;
}

NSPA_EXPORT BOOL WINAPI FlushViewOfFile(LPCVOID base, SIZE_T size)
{
    int r = nspa_vm_flush_view(base, size);
    return r ? vm_win32_fail(r) : TRUE;
}
