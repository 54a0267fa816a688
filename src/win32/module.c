/*
 * Modules: LoadLibrary, GetProcAddress, GetModuleHandle(Ex), GetModuleFileName,
 * FreeLibrary over dlopen/dlsym (docs/process.md).
 *
 * An HMODULE is a dlopen handle. The Windows system DLLs whose calls NSPA implements
 * ("kernel32", "kernelbase", "ntdll", "ws2_32", "avrt", "winmm", "user32", with or
 * without ".dll", any case) name libnspa itself, and GetProcAddress on them answers
 * with libnspa's own exports only (a symbol that dlsym finds in a library libnspa
 * depends on, or an nspa_* call, is not a Win32 export): code that probes for an API
 * finds what NSPA implements and NULL otherwise. Other names are native shared
 * objects: "foo.dll" is looked for as given, then as "libfoo.so" and "foo.so".
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/process_private.h"

static const char *const system_dlls[] = { "kernel32", "kernelbase", "ntdll", "ws2_32", "avrt", "winmm", "user32",
                                           NULL };

/* "C:\Windows\System32\KERNEL32.DLL" -> is it one of ours? */
static int is_system_dll(const char *name)
{
    const char *b = name;
    for (const char *p = name; *p; p++)
        if (*p == '\\' || *p == '/') b = p + 1;
    size_t n = strlen(b);
    if (n > 4 && strcasecmp(b + n - 4, ".dll") == 0) n -= 4;
    for (int i = 0; system_dlls[i]; i++)
        if (strlen(system_dlls[i]) == n && strncasecmp(b, system_dlls[i], n) == 0) return 1;
    return 0;
}

/* libnspa's own dlopen handle and load address */
static void *self_handle(void **base)
{
    Dl_info di;
    if (!dladdr((void *)&is_system_dll, &di) || !di.dli_fname) return NULL;
    if (base) *base = di.dli_fbase;
    void *h = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) h = dlopen(NULL, RTLD_NOW);      /* linked statically into the program */
    return h;
}

static void *open_native(const char *name, int flags)
{
    char path[4096];
    size_t n = strlen(name);
    if (n >= sizeof(path)) return NULL;
    for (size_t i = 0; i <= n; i++) path[i] = name[i] == '\\' ? '/' : name[i];
    void *h = dlopen(path, flags);
    if (h || n <= 4 || strcasecmp(path + n - 4, ".dll")) return h;
    path[n - 4] = 0;
    char alt[4200];
    char *slash = strrchr(path, '/');
    if (slash) {
        *slash = 0;
        snprintf(alt, sizeof(alt), "%s/lib%s.so", path, slash + 1);
        if ((h = dlopen(alt, flags))) return h;
        snprintf(alt, sizeof(alt), "%s/%s.so", path, slash + 1);
    } else {
        snprintf(alt, sizeof(alt), "lib%s.so", path);
        if ((h = dlopen(alt, flags))) return h;
        snprintf(alt, sizeof(alt), "%s.so", path);
    }
    return dlopen(alt, flags);
}

static HMODULE load(const char *name, DWORD flags)
{
    if (!name || !*name) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    void *h = is_system_dll(name) ? self_handle(NULL)
                                  : open_native(name, (flags & DONT_RESOLVE_DLL_REFERENCES) ? RTLD_LAZY : RTLD_NOW);
    if (!h) SetLastError(ERROR_MOD_NOT_FOUND);
    return h;
}

NSPA_EXPORT HMODULE WINAPI LoadLibraryExA(LPCSTR name, HANDLE file, DWORD flags)
{
    if (file) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    return load(name, flags);
}

NSPA_EXPORT HMODULE WINAPI LoadLibraryA(LPCSTR name) { return LoadLibraryExA(name, NULL, 0); }

NSPA_EXPORT HMODULE WINAPI LoadLibraryExW(LPCWSTR name, HANDLE file, DWORD flags)
{
    if (!name) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    char *n = nspa__w_to_utf8(name);
    if (!n) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    HMODULE h = LoadLibraryExA(n, file, flags);
    free(n);
    return h;
}

NSPA_EXPORT HMODULE WINAPI LoadLibraryW(LPCWSTR name) { return LoadLibraryExW(name, NULL, 0); }

NSPA_EXPORT BOOL WINAPI FreeLibrary(HMODULE h)
{
    if (!h || dlclose(h)) {
        SetLastError(ERROR_INVALID_HANDLE);
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT FARPROC WINAPI GetProcAddress(HMODULE h, LPCSTR name)
{
    if (!name || !((uintptr_t)name >> 16)) {           /* ordinals: not with ELF */
        SetLastError(ERROR_PROC_NOT_FOUND);
        return NULL;
    }
    void *base = NULL;
    void *self = self_handle(&base);
    void *mod = h ? (void *)h : dlopen(NULL, RTLD_NOW);
    void *p = NULL;
    if (mod) {
        dlerror();
        p = dlsym(mod, name);
    }
    if (p && mod == self && base) {
        /* libnspa's own Win32 exports only */
        Dl_info di;
        if (strncmp(name, "nspa_", 5) == 0 || !dladdr(p, &di) || di.dli_fbase != base) p = NULL;
    }
    if (self) dlclose(self);
    if (!h && mod) dlclose(mod);
    if (!p) SetLastError(ERROR_PROC_NOT_FOUND);
    return (FARPROC)p;
}

/* A module already loaded, without a reference (GetModuleHandle's contract). */
static HMODULE find_loaded(const char *name)
{
    void *h = NULL;
    if (!name) h = dlopen(NULL, RTLD_NOW);
    else if (is_system_dll(name)) h = self_handle(NULL);
    else h = open_native(name, RTLD_NOW | RTLD_NOLOAD);
    if (h) dlclose(h);            /* still loaded: the handle stays valid */
    return h;
}

NSPA_EXPORT HMODULE WINAPI GetModuleHandleA(LPCSTR name)
{
    HMODULE h = find_loaded(name);
    if (!h) SetLastError(ERROR_MOD_NOT_FOUND);
    return h;
}

NSPA_EXPORT HMODULE WINAPI GetModuleHandleW(LPCWSTR name)
{
    char *n = name ? nspa__w_to_utf8(name) : NULL;
    if (name && !n) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    HMODULE h = GetModuleHandleA(n);
    free(n);
    return h;
}

static BOOL module_ex(DWORD flags, const char *name, HMODULE *out)
{
    if (!out || (flags & ~(DWORD)7) ||
        ((flags & GET_MODULE_HANDLE_EX_FLAG_PIN) && (flags & GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT))) {
        if (out) *out = NULL;
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    void *h = NULL;
    if (flags & GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS) {
        Dl_info di;
        if (dladdr(name, &di) && di.dli_fname) {
            /* the program itself has no name dlopen knows: dlopen(NULL) */
            h = dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
            if (!h) h = dlopen(NULL, RTLD_NOW);
        }
    } else {
        h = !name ? dlopen(NULL, RTLD_NOW) : is_system_dll(name) ? self_handle(NULL)
                                                                : open_native(name, RTLD_NOW | RTLD_NOLOAD);
    }
    if (!h) {
        *out = NULL;
        SetLastError(ERROR_MOD_NOT_FOUND);
        return FALSE;
    }
    /* the reference dlopen took is the caller's, unless it asked for none; a pinned
     * module keeps it for ever */
    if (flags & GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT) dlclose(h);
    *out = h;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI GetModuleHandleExA(DWORD flags, LPCSTR name, HMODULE *out)
{
    return module_ex(flags, name, out);
}

NSPA_EXPORT BOOL WINAPI GetModuleHandleExW(DWORD flags, LPCWSTR name, HMODULE *out)
{
    if (flags & GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS) return module_ex(flags, (const char *)name, out);
    char *n = name ? nspa__w_to_utf8(name) : NULL;
    BOOL r = module_ex(flags, n, out);
    free(n);
    return r;
}

/* the path of module @h (the program for NULL) into @path */
static int module_path(HMODULE h, char *path, size_t cap)
{
    struct link_map *lm = NULL;
    if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0]) {
        snprintf(path, cap, "%s", lm->l_name);
        return 0;
    }
    if (h && !lm) return -1;
    ssize_t n = readlink("/proc/self/exe", path, cap - 1);
    if (n <= 0) return -1;
    path[n] = 0;
    return 0;
}

NSPA_EXPORT DWORD WINAPI GetModuleFileNameA(HMODULE h, LPSTR buf, DWORD size)
{
    char path[4096];
    if (module_path(h, path, sizeof(path))) {
        SetLastError(ERROR_MOD_NOT_FOUND);
        return 0;
    }
    size_t n = strlen(path);
    if (!size) {
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        return 0;
    }
    if (n + 1 > size) {               /* truncated, terminated; the size is returned */
        memcpy(buf, path, size - 1);
        buf[size - 1] = 0;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        return size;
    }
    memcpy(buf, path, n + 1);
    SetLastError(ERROR_SUCCESS);
    return (DWORD)n;
}

NSPA_EXPORT DWORD WINAPI GetModuleFileNameW(HMODULE h, LPWSTR buf, DWORD size)
{
    char path[4096];
    if (module_path(h, path, sizeof(path))) {
        SetLastError(ERROR_MOD_NOT_FOUND);
        return 0;
    }
    WCHAR *w = nspa__utf8_to_w(path);
    if (!w) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    size_t n = nspa__wlen(w);
    DWORD r;
    if (!size) {
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        r = 0;
    } else if (n + 1 > size) {
        memcpy(buf, w, (size - 1) * sizeof(WCHAR));
        buf[size - 1] = 0;
        SetLastError(ERROR_INSUFFICIENT_BUFFER);
        r = size;
    } else {
        memcpy(buf, w, (n + 1) * sizeof(WCHAR));
        SetLastError(ERROR_SUCCESS);
        r = (DWORD)n;
    }
    free(w);
    return r;
}
