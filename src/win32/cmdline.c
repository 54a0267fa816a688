/*
 * Command lines: Windows' splitting rules (CommandLineToArgvW, the C runtime's), the
 * quoting that makes a command line from an argv, GetCommandLineA/W, and the UTF-16
 * helpers of the process code.
 *
 * A process's command line: what its NSPA parent gave CreateProcess (passed in the
 * environment variable NSPA_CMDLINE, taken out of the environment before main), else
 * its argv quoted by the Windows rules (docs/process.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nspa/unicode.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/process_private.h"

/* ---- UTF-16 helpers ------------------------------------------------------------------ */

/* ---- splitting (Wine's CommandLineToArgvW, which follows the C runtime) ---------------- */

/* One pass over @cmd: with @argv NULL it counts; else fills argv[] with pointers into
 * @buf (which has room for strlen(cmd) + argc bytes). Returns argc. */
static int split_pass(const char *cmd, char **argv, char *buf)
{
    const char *s = cmd;
    char *d = buf;
    int argc = 0;
    /* argv[0]: up to the next quote, or up to the first blank; no escapes */
    if (argv) argv[0] = d;
    if (*s == '"') {
        s++;
        while (*s && *s != '"') { if (argv) *d = *s; d++; s++; }
        if (*s) s++;
    } else {
        while (*s && *s != ' ' && *s != '\t') { if (argv) *d = *s; d++; s++; }
    }
    if (argv) *d = 0;
    d++;
    argc++;
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return argc;
    /* the others: 2n backslashes + quote = n backslashes and a quote toggles quoting;
     * 2n+1 backslashes + quote = n backslashes and a literal quote; three quotes in a
     * row make a literal one */
    int qcount = 0, bcount = 0;
    char *start = d;
    if (argv) argv[argc] = d;
    while (*s) {
        if ((*s == ' ' || *s == '\t') && qcount == 0) {
            if (argv) *d = 0;
            d++;
            argc++;
            while (*s == ' ' || *s == '\t') s++;
            if (!*s) return argc;
            start = d;
            if (argv) argv[argc] = d;
            bcount = 0;
            continue;
        }
        if (*s == '\\') {
            if (argv) *d = '\\';
            d++;
            bcount++;
            s++;
        } else if (*s == '"') {
            if ((bcount & 1) == 0) {
                d -= bcount / 2;
                qcount++;
            } else {
                d = d - bcount / 2 - 1;
                if (argv) *d = '"';
                d++;
            }
            s++;
            bcount = 0;
            while (*s == '"') {
                if (++qcount == 3) {
                    if (argv) *d = '"';
                    d++;
                    qcount = 0;
                }
                s++;
            }
            if (qcount == 2) qcount = 0;
        } else {
            if (argv) *d = *s;
            d++;
            bcount = 0;
            s++;
        }
    }
    (void)start;
    if (argv) *d = 0;
    argc++;
    return argc;
}

NSPA_HIDDEN char **nspa__split_cmdline(const char *cmd, int *argc)
{
    int n = split_pass(cmd, NULL, NULL);
    size_t len = strlen(cmd) + (size_t)n + 1;
    char **argv = malloc(sizeof(char *) * (size_t)(n + 1) + len);
    if (!argv) return NULL;
    char *buf = (char *)(argv + n + 1);
    split_pass(cmd, argv, buf);
    argv[n] = NULL;
    if (argc) *argc = n;
    return argv;
}

NSPA_HIDDEN void nspa__free_argv(char **argv) { free(argv); }

/* ---- quoting: argv to a command line -------------------------------------------------- */

static size_t quote_arg(const char *a, char *out)
{
    size_t o = 0;
    int plain = *a != 0;
    for (const char *p = a; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '"' || *p == '\n' || *p == '\v') plain = 0;
    if (plain) {
        size_t n = strlen(a);
        if (out) memcpy(out, a, n);
        return n;
    }
    if (out) out[o] = '"';
    o++;
    for (const char *p = a;; p++) {
        size_t bs = 0;
        while (*p == '\\') { bs++; p++; }
        size_t times = !*p ? bs * 2 : *p == '"' ? bs * 2 + 1 : bs;
        for (size_t i = 0; i < times; i++) { if (out) out[o] = '\\'; o++; }
        if (!*p) break;
        if (out) out[o] = *p;
        o++;
    }
    if (out) out[o] = '"';
    return o + 1;
}

static char *join_argv(char **argv, int argc)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += quote_arg(argv[i], NULL) + 1;
    char *s = malloc(len);
    if (!s) return NULL;
    size_t o = 0;
    for (int i = 0; i < argc; i++) {
        if (i) s[o++] = ' ';
        o += quote_arg(argv[i], s + o);
    }
    s[o] = 0;
    return s;
}

/* ---- GetCommandLine -------------------------------------------------------------------- */

static char *cmdline_a;
static WCHAR *cmdline_w;
static pthread_once_t cmdline_once = PTHREAD_ONCE_INIT;
static char *cmdline_env;        /* NSPA_CMDLINE, taken at load time */

__attribute__((constructor)) static void cmdline_take_env(void)
{
    const char *e = getenv("NSPA_CMDLINE");
    if (!e) return;
    cmdline_env = strdup(e);
    unsetenv("NSPA_CMDLINE");     /* not for our own children */
}

static char *argv_of_self(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (ssize_t n; buf; len += (size_t)n) {
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        n = read(fd, buf + len, cap - len - 1);
        if (n <= 0) break;
    }
    close(fd);
    if (!buf) return NULL;
    buf[len] = 0;
    int argc = 0;
    for (size_t i = 0; i < len; i++) argc += buf[i] == 0;
    char **argv = malloc(sizeof(char *) * (size_t)(argc + 1));
    char *s = NULL;
    if (argv) {
        char *p = buf;
        for (int i = 0; i < argc; i++, p += strlen(p) + 1) argv[i] = p;
        s = join_argv(argv, argc);
        free(argv);
    }
    free(buf);
    return s;
}

static void cmdline_init(void)
{
    cmdline_a = cmdline_env ? cmdline_env : argv_of_self();
    if (!cmdline_a) cmdline_a = strdup("");
    if (cmdline_a) cmdline_w = nspa__utf8_to_w(cmdline_a);
}

NSPA_EXPORT LPSTR WINAPI GetCommandLineA(void)
{
    pthread_once(&cmdline_once, cmdline_init);
    return cmdline_a;
}

NSPA_EXPORT LPWSTR WINAPI GetCommandLineW(void)
{
    pthread_once(&cmdline_once, cmdline_init);
    return cmdline_w;
}

/* One block (freed with LocalFree): the pointers, then the UTF-16 strings. An empty
 * command line gives the program's path as the only argument. */
NSPA_EXPORT LPWSTR *WINAPI CommandLineToArgvW(LPCWSTR cmd, int *argc)
{
    if (!argc) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return NULL;
    }
    char *u = NULL;
    if (cmd && *cmd) {
        u = nspa__w_to_utf8(cmd);
    } else {
        char path[4096];
        DWORD n = GetModuleFileNameA(NULL, path, sizeof(path));
        u = n ? malloc(n + 3) : NULL;
        if (u) {
            u[0] = '"';
            memcpy(u + 1, path, n);
            u[n + 1] = '"';
            u[n + 2] = 0;
        }
    }
    int n = 0;
    char **av = u ? nspa__split_cmdline(u, &n) : NULL;
    free(u);
    if (!av) {
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    size_t units = 0;
    for (int i = 0; i < n; i++) units += nspa_utf8_to_utf16(av[i], strlen(av[i]), NULL, 0, NULL) + 1;
    LPWSTR *out = LocalAlloc(LMEM_FIXED, sizeof(LPWSTR) * (size_t)(n + 1) + units * sizeof(WCHAR));
    if (!out) {
        nspa__free_argv(av);
        SetLastError(ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    WCHAR *d = (WCHAR *)(out + n + 1);
    for (int i = 0; i < n; i++) {
        size_t k = nspa_utf8_to_utf16(av[i], strlen(av[i]), d, units, NULL);
        out[i] = d;
        d[k] = 0;
        d += k + 1;
    }
    out[n] = NULL;
    *argc = n;
    nspa__free_argv(av);
    return out;
}

/* LocalAlloc / LocalFree: LMEM_FIXED memory of the process heap (the blocks that
 * CommandLineToArgvW and FormatMessage-style calls hand out). */
NSPA_EXPORT HLOCAL WINAPI LocalAlloc(UINT flags, SIZE_T bytes)
{
    if (flags & ~(UINT)(LMEM_FIXED | LMEM_ZEROINIT)) {
        SetLastError(ERROR_INVALID_PARAMETER);   /* movable memory: not supported */
        return NULL;
    }
    return HeapAlloc(GetProcessHeap(), (flags & LMEM_ZEROINIT) ? HEAP_ZERO_MEMORY : 0, bytes ? bytes : 1);
}

NSPA_EXPORT HLOCAL WINAPI LocalFree(HLOCAL mem)
{
    if (!mem) return NULL;
    if (!HeapFree(GetProcessHeap(), 0, mem)) return mem;
    return NULL;
}
