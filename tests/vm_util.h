/* Helpers shared by the large-page tests: sysfs numbers and the lock-memory privilege. */
#ifndef NSPA_TEST_VM_UTIL_H
#define NSPA_TEST_VM_UTIL_H
#include <windows.h>
#include <stdio.h>

/* a number from a sysfs file, or -1 */
static inline long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) { if (fscanf(f, "%ld", &v) != 1) v = -1; fclose(f); }
    return v;
}

static inline int write_long(const char *path, long v)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int r = fprintf(f, "%ld\n", v) > 0 ? 0 : -1;
    return fclose(f) ? -1 : r;
}

/* enable or disable SeLockMemoryPrivilege in the process token, as a Windows program does */
static inline BOOL set_lock_privilege(BOOL on)
{
    HANDLE tok;
    TOKEN_PRIVILEGES tp;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok)) return FALSE;
    tp.PrivilegeCount = 1;
    if (!LookupPrivilegeValueA(NULL, "SeLockMemoryPrivilege", &tp.Privileges[0].Luid)) return FALSE;
    tp.Privileges[0].Attributes = on ? SE_PRIVILEGE_ENABLED : 0;
    BOOL ok = AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL) && GetLastError() == ERROR_SUCCESS;
    CloseHandle(tok);
    return ok;
}
#endif
