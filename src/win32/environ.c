/*
 * The environment and the current directory: Get/SetEnvironmentVariableA/W,
 * GetEnvironmentStringsA/W, FreeEnvironmentStringsA/W, ExpandEnvironmentStringsA/W,
 * Get/SetCurrentDirectoryA/W.
 *
 * The environment is the C library's (what getenv sees and children inherit); names
 * are matched without regard to ASCII case, as on Windows (an exact match first). The
 * A calls take UTF-8 (the ANSI code page is UTF-8). Every call here takes env_lock, so
 * that the Win32 calls never race each other over environ (setenv is not thread-safe).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "nspa/unicode.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/process_private.h"
#include "win32/win32_error.h"

extern char **environ;
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

/* the entry of @name in environ ("NAME=value"), exact match first; env_lock held */
static const char *env_find(const char *name)
{
    size_t n = strlen(name);
    const char *ci = NULL;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e;
        if (!ci && strncasecmp(*e, name, n) == 0 && (*e)[n] == '=') ci = *e;
    }
    return ci;
}

/* Windows' answer for a string of @len units into a buffer of @cap: the length copied
 * (without the NUL), or the size needed (with it). */
static DWORD copy_out_a(const char *v, char *buf, DWORD cap)
{
    size_t len = strlen(v);
    if (!buf || len + 1 > cap) return (DWORD)len + 1;
    memcpy(buf, v, len + 1);
    return (DWORD)len;
}

static DWORD copy_out_w(const char *v, WCHAR *buf, DWORD cap)
{
    size_t len = nspa_utf8_to_utf16(v, strlen(v), NULL, 0, NULL);
    if (!buf || len + 1 > cap) return (DWORD)len + 1;
    nspa_utf8_to_utf16(v, strlen(v), buf, len, NULL);
    buf[len] = 0;
    return (DWORD)len;
}

static int bad_name(const char *name)
{
    return !name || !*name || strchr(name + 1, '=') != NULL;
}

static DWORD get_env(const char *name, void *buf, DWORD size, int wide)
{
    if (bad_name(name)) {
        SetLastError(ERROR_ENVVAR_NOT_FOUND);
        return 0;
    }
    pthread_mutex_lock(&env_lock);
    const char *e = env_find(name);
    DWORD r = 0;
    if (!e) SetLastError(ERROR_ENVVAR_NOT_FOUND);
    else {
        const char *v = e + strlen(name) + 1;
        r = wide ? copy_out_w(v, buf, size) : copy_out_a(v, buf, size);
        if (r == 0) SetLastError(ERROR_SUCCESS);   /* set, but empty */
    }
    pthread_mutex_unlock(&env_lock);
    return r;
}

NSPA_EXPORT DWORD WINAPI GetEnvironmentVariableA(LPCSTR name, LPSTR buf, DWORD size)
{
    return get_env(name, buf, size, 0);
}

NSPA_EXPORT DWORD WINAPI GetEnvironmentVariableW(LPCWSTR name, LPWSTR buf, DWORD size)
{
    char *n = name ? nspa__w_to_utf8(name) : NULL;
    DWORD r = get_env(n, buf, size, 1);
    free(n);
    return r;
}

NSPA_EXPORT BOOL WINAPI SetEnvironmentVariableA(LPCSTR name, LPCSTR value)
{
    if (!name || !*name || strchr(name, '=')) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    pthread_mutex_lock(&env_lock);
    /* the existing entry's own spelling of the name is replaced (case-insensitive) */
    const char *e = env_find(name);
    char *old = NULL;
    if (e) {
        size_t n = (size_t)(strchr(e, '=') - e);
        old = strndup(e, n);
    }
    int r = 0;
    if (old) r = unsetenv(old);
    if (!r && value) r = setenv(old ? old : name, value, 1);
    pthread_mutex_unlock(&env_lock);
    free(old);
    if (r) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetEnvironmentVariableW(LPCWSTR name, LPCWSTR value)
{
    char *n = name ? nspa__w_to_utf8(name) : NULL;
    char *v = value ? nspa__w_to_utf8(value) : NULL;
    BOOL r = (!name || n) && (!value || v) ? SetEnvironmentVariableA(n, v) : FALSE;
    if (name && !n) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    free(n);
    free(v);
    return r;
}

/* ---- the whole block --------------------------------------------------------------- */

NSPA_EXPORT LPCH WINAPI GetEnvironmentStringsA(void)
{
    pthread_mutex_lock(&env_lock);
    size_t len = 1;
    for (char **e = environ; e && *e; e++) len += strlen(*e) + 1;
    char *b = malloc(len + 1);
    if (b) {
        size_t o = 0;
        for (char **e = environ; e && *e; e++) {
            size_t n = strlen(*e) + 1;
            memcpy(b + o, *e, n);
            o += n;
        }
        b[o++] = 0;
        if (o == 1) b[o] = 0;
    }
    pthread_mutex_unlock(&env_lock);
    if (!b) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return b;
}

NSPA_EXPORT LPWCH WINAPI GetEnvironmentStringsW(void)
{
    pthread_mutex_lock(&env_lock);
    size_t units = 2;
    for (char **e = environ; e && *e; e++) units += nspa_utf8_to_utf16(*e, strlen(*e), NULL, 0, NULL) + 1;
    WCHAR *b = malloc(units * sizeof(WCHAR));
    if (b) {
        size_t o = 0;
        for (char **e = environ; e && *e; e++) {
            o += nspa_utf8_to_utf16(*e, strlen(*e), b + o, units - o, NULL);
            b[o++] = 0;
        }
        b[o++] = 0;
        if (o == 1) b[o] = 0;
    }
    pthread_mutex_unlock(&env_lock);
    if (!b) SetLastError(ERROR_NOT_ENOUGH_MEMORY);
    return b;
}

NSPA_EXPORT BOOL WINAPI FreeEnvironmentStringsA(LPCH block)
{
    free(block);
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI FreeEnvironmentStringsW(LPWCH block)
{
    free(block);
    return TRUE;
}

/* ---- %NAME% expansion ------------------------------------------------------------- */

/* Expand into a malloc'ed UTF-8 string: %NAME% of a defined variable becomes its value,
 * anything else stays as written (an undefined %NAME%, a lone %). */
static char *expand(const char *src)
{
    size_t cap = strlen(src) + 64, o = 0;
    char *out = malloc(cap);
    if (!out) return NULL;
    pthread_mutex_lock(&env_lock);
    for (const char *p = src; *p;) {
        const char *piece = p;
        size_t plen = 1;
        if (*p == '%') {
            const char *end = strchr(p + 1, '%');
            if (end && end > p + 1) {
                char name[512];
                size_t n = (size_t)(end - p - 1);
                const char *e = NULL;
                if (n < sizeof(name)) {
                    memcpy(name, p + 1, n);
                    name[n] = 0;
                    e = env_find(name);
                }
                if (e) {
                    piece = e + n + 1;
                    plen = strlen(piece);
                    p = end + 1;
                } else {
                    plen = (size_t)(end - p);     /* "%NAME" stays; the % closes next */
                    p = end;
                }
            } else {
                p++;
            }
        } else {
            p++;
        }
        if (o + plen + 1 > cap) {
            cap = (o + plen + 1) * 2;
            char *nb = realloc(out, cap);
            if (!nb) {
                free(out);
                out = NULL;
                break;
            }
            out = nb;
        }
        memcpy(out + o, piece, plen);
        o += plen;
    }
    pthread_mutex_unlock(&env_lock);
    if (out) out[o] = 0;
    return out;
}

NSPA_EXPORT DWORD WINAPI ExpandEnvironmentStringsA(LPCSTR src, LPSTR dst, DWORD size)
{
    if (!src) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    char *x = expand(src);
    if (!x) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    /* the size with the NUL, whether it fitted or not */
    DWORD need = (DWORD)strlen(x) + 1;
    if (dst && size >= need) memcpy(dst, x, need);
    free(x);
    return need;
}

NSPA_EXPORT DWORD WINAPI ExpandEnvironmentStringsW(LPCWSTR src, LPWSTR dst, DWORD size)
{
    char *s = src ? nspa__w_to_utf8(src) : NULL;
    if (!s) {
        SetLastError(src ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_PARAMETER);
        return 0;
    }
    char *x = expand(s);
    free(s);
    if (!x) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return 0;
    }
    size_t units = nspa_utf8_to_utf16(x, strlen(x), NULL, 0, NULL);
    if (dst && size >= units + 1) {
        nspa_utf8_to_utf16(x, strlen(x), dst, units, NULL);
        dst[units] = 0;
    }
    free(x);
    return (DWORD)units + 1;
}

/* ---- the current directory --------------------------------------------------------- */

NSPA_EXPORT DWORD WINAPI GetCurrentDirectoryA(DWORD size, LPSTR buf)
{
    char path[4096];
    if (!getcwd(path, sizeof(path))) {
        SetLastError(ERROR_FILENAME_EXCED_RANGE);
        return 0;
    }
    return copy_out_a(path, buf, size);
}

NSPA_EXPORT DWORD WINAPI GetCurrentDirectoryW(DWORD size, LPWSTR buf)
{
    char path[4096];
    if (!getcwd(path, sizeof(path))) {
        SetLastError(ERROR_FILENAME_EXCED_RANGE);
        return 0;
    }
    return copy_out_w(path, buf, size);
}

NSPA_EXPORT BOOL WINAPI SetCurrentDirectoryA(LPCSTR path)
{
    if (!path) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    if (chdir(path) < 0) {
        SetLastError(win32_error_from_errno(errno, WIN32_ERR_PATH));
        return FALSE;
    }
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI SetCurrentDirectoryW(LPCWSTR path)
{
    char *p = path ? nspa__w_to_utf8(path) : NULL;
    if (!p) {
        SetLastError(path ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_PARAMETER);
        return FALSE;
    }
    BOOL r = SetCurrentDirectoryA(p);
    free(p);
    return r;
}
