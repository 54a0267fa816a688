/* Win32 tokens and privileges (SeLockMemoryPrivilege only), large pages and working
 * sets over the vm module (large.c). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "nspa/sync.h"
#include "vm/vm_internal.h"
#include "nspa/win32/windows.h"
#include "nspa/win32/memoryapi.h"
#include "nspa/win32/securitybaseapi.h"
#include "nspa/win32/psapi.h"

/* A token handle is a handle-table entry (an unnamed event carries it, so CloseHandle
 * and DuplicateHandle work); this set says which handles are tokens. Every token of the
 * process shares the process's privilege state. */
#define MAX_TOKENS 64
static _Atomic(HANDLE) tokens[MAX_TOKENS];

static int is_token(HANDLE h)
{
    if (!h) return 0;
    for (int i = 0; i < MAX_TOKENS; i++)
        if (atomic_load(&tokens[i]) == h) return nspa_obj_type((nspa_obj_t)(uintptr_t)h) == NSPA_TYPE_EVENT;
    return 0;
}

NSPA_EXPORT BOOL WINAPI OpenProcessToken(HANDLE process, DWORD access, PHANDLE token)
{
    if (!token) { SetLastError(ERROR_NOACCESS); return FALSE; }
    if (process != GetCurrentProcess()) { SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
    HANDLE h = CreateEventA(NULL, TRUE, FALSE, NULL);
    if (!h) return FALSE;
    for (int i = 0; i < MAX_TOKENS; i++) {
        HANDLE cur = atomic_load(&tokens[i]);
        /* a slot whose handle was closed (or reused by another kind) is free again */
        if (cur && cur != h && is_token(cur)) continue;
        if (atomic_compare_exchange_strong(&tokens[i], &cur, h)) { *token = h; return TRUE; }
    }
    CloseHandle(h);
    SetLastError(ERROR_NO_SYSTEM_RESOURCES);
    return FALSE;
}

static int priv_of_name(const char *name)
{
    static const char *const names[] = {
        NULL, NULL, "SeCreateTokenPrivilege", "SeAssignPrimaryTokenPrivilege", "SeLockMemoryPrivilege",
        "SeIncreaseQuotaPrivilege", "SeMachineAccountPrivilege", "SeTcbPrivilege", "SeSecurityPrivilege",
        "SeTakeOwnershipPrivilege", "SeLoadDriverPrivilege", "SeSystemProfilePrivilege", "SeSystemtimePrivilege",
        "SeProfileSingleProcessPrivilege", "SeIncreaseBasePriorityPrivilege", "SeCreatePagefilePrivilege",
        "SeCreatePermanentPrivilege", "SeBackupPrivilege", "SeRestorePrivilege", "SeShutdownPrivilege",
        "SeDebugPrivilege", "SeAuditPrivilege", "SeSystemEnvironmentPrivilege", "SeChangeNotifyPrivilege",
        "SeRemoteShutdownPrivilege", "SeUndockPrivilege", "SeSyncAgentPrivilege", "SeEnableDelegationPrivilege",
        "SeManageVolumePrivilege", "SeImpersonatePrivilege", "SeCreateGlobalPrivilege",
        "SeTrustedCredManAccessPrivilege", "SeRelabelPrivilege", "SeIncreaseWorkingSetPrivilege",
        "SeTimeZonePrivilege", "SeCreateSymbolicLinkPrivilege", "SeDelegateSessionUserImpersonatePrivilege",
    };
    for (int i = 2; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcasecmp(names[i], name)) return i;
    return 0;
}

NSPA_EXPORT BOOL WINAPI LookupPrivilegeValueA(LPCSTR system, LPCSTR name, PLUID luid)
{
    if (!name || !luid) { SetLastError(ERROR_NOACCESS); return FALSE; }
    if (system && *system) { SetLastError(ERROR_NOT_SUPPORTED); return FALSE; }
    int p = priv_of_name(name);
    if (!p) { SetLastError(ERROR_NO_SUCH_PRIVILEGE); return FALSE; }
    luid->LowPart = (DWORD)p;
    luid->HighPart = 0;
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI LookupPrivilegeValueW(LPCWSTR system, LPCWSTR name, PLUID luid)
{
    char a[64];
    size_t i = 0;
    if (!name) { SetLastError(ERROR_NOACCESS); return FALSE; }
    if (system && *system) { SetLastError(ERROR_NOT_SUPPORTED); return FALSE; }
    for (; name[i] && i < sizeof a - 1; i++) a[i] = name[i] < 128 ? (char)name[i] : '?';
    a[i] = 0;
    return LookupPrivilegeValueA(NULL, a, luid);
}

NSPA_EXPORT BOOL WINAPI AdjustTokenPrivileges(HANDLE token, BOOL disable_all, PTOKEN_PRIVILEGES state, DWORD len,
                                              PTOKEN_PRIVILEGES prev, PDWORD ret_len)
{
    if (!is_token(token)) { SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
    if (!disable_all && !state) { SetLastError(ERROR_INVALID_PARAMETER); return FALSE; }
    int was = 0, not_all = 0;
    was = vm_lock_privilege_enabled();
    if (prev) {
        if (len < sizeof *prev) {
            if (ret_len) *ret_len = sizeof *prev;
            SetLastError(ERROR_INSUFFICIENT_BUFFER);
            return FALSE;
        }
        prev->PrivilegeCount = 1;
        prev->Privileges[0].Luid.LowPart = SE_LOCK_MEMORY_PRIVILEGE;
        prev->Privileges[0].Luid.HighPart = 0;
        prev->Privileges[0].Attributes = was ? SE_PRIVILEGE_ENABLED : 0;
    }
    if (ret_len) *ret_len = sizeof *prev;
    if (disable_all) {
        nspa_vm_lock_privilege(0, NULL);
    } else {
        for (DWORD i = 0; i < state->PrivilegeCount; i++) {
            const LUID_AND_ATTRIBUTES *p = &state->Privileges[i];
            int enable = (p->Attributes & SE_PRIVILEGE_ENABLED) != 0;
            if (p->Luid.LowPart == SE_LOCK_MEMORY_PRIVILEGE && p->Luid.HighPart == 0) {
                /* not held by the process: Windows says TRUE with ERROR_NOT_ALL_ASSIGNED */
                if (nspa_vm_lock_privilege(enable, NULL)) not_all = 1;
            } else if (enable) {
                not_all = 1;                  /* NSPA's tokens hold no other privilege */
            }
        }
    }
    SetLastError(not_all ? ERROR_NOT_ALL_ASSIGNED : ERROR_SUCCESS);
    return TRUE;
}

NSPA_EXPORT NTSTATUS NTAPI RtlAdjustPrivilege(ULONG privilege, BOOLEAN enable, BOOLEAN current_thread,
                                              PBOOLEAN enabled)
{
    if (privilege != SE_LOCK_MEMORY_PRIVILEGE) return STATUS_PRIVILEGE_NOT_HELD;
    int was = 0;
    if (nspa_vm_lock_privilege(enable, &was)) return STATUS_PRIVILEGE_NOT_HELD;
    if (enabled) *enabled = (BOOLEAN)was;
    return STATUS_SUCCESS;
}

NSPA_EXPORT SIZE_T WINAPI GetLargePageMinimum(void) { return nspa_vm_large_page_minimum(); }

/* ---- working sets ------------------------------------------------------------------------ */

NSPA_EXPORT BOOL WINAPI QueryWorkingSetEx(HANDLE process, PVOID info, DWORD cb)
{
    if (process != GetCurrentProcess()) { SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
    if (!info) { SetLastError(ERROR_NOACCESS); return FALSE; }
    if (cb < sizeof(PSAPI_WORKING_SET_EX_INFORMATION)) { SetLastError(ERROR_BAD_LENGTH); return FALSE; }
    PSAPI_WORKING_SET_EX_INFORMATION *w = info;
    for (DWORD i = 0; i < cb / sizeof *w; i++) {
        uintptr_t a = (uintptr_t)w[i].VirtualAddress & ~(VM_PAGE - 1);
        PSAPI_WORKING_SET_EX_BLOCK b = { .Flags = 0 };
        size_t kpage = 0;
        int locked = 0;
        if (a < VM_USER_MAX && vm_smaps_info(a, &kpage, &locked) == 0) {
            uintptr_t start = a & ~(kpage > VM_PAGE ? kpage - 1 : VM_PAGE - 1);
            unsigned char vec = 0;
            struct nspa_vm_info vi;
            if (mincore((void *)start, VM_PAGE, &vec) == 0 && (vec & 1) &&
                nspa_vm_query((void *)a, &vi) == 0 && vi.state == MEM_COMMIT) {
                b.Valid = 1;
                b.ShareCount = 1;
                b.Win32Protection = vi.prot & 0x7ff;
                b.Shared = vi.type == MEM_MAPPED;
                b.Locked = locked;
                b.LargePage = kpage > VM_PAGE;    /* the kernel's page size for the mapping */
            }
        }
        w[i].VirtualAttributes = b;
    }
    return TRUE;
}

NSPA_EXPORT BOOL WINAPI K32QueryWorkingSetEx(HANDLE process, PVOID info, DWORD cb)
{
    return QueryWorkingSetEx(process, info, cb);
}

static SIZE_T ws_max;

NSPA_EXPORT BOOL WINAPI SetProcessWorkingSetSizeEx(HANDLE process, SIZE_T min, SIZE_T max, DWORD flags)
{
    if (process != GetCurrentProcess()) { SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
    if ((flags & QUOTA_LIMITS_HARDWS_MIN_ENABLE) && (flags & QUOTA_LIMITS_HARDWS_MIN_DISABLE)) goto inval;
    if ((flags & QUOTA_LIMITS_HARDWS_MAX_ENABLE) && (flags & QUOTA_LIMITS_HARDWS_MAX_DISABLE)) goto inval;
    if (flags & ~0xfu) goto inval;
    if (min == (SIZE_T)-1 && max == (SIZE_T)-1) return TRUE;    /* "trim": nothing to do */
    if (min > max) goto inval;
    /* the minimum working set is what VirtualLock may lock: RLIMIT_MEMLOCK */
    struct rlimit rl;
    if (getrlimit(RLIMIT_MEMLOCK, &rl)) goto inval;
    if (rl.rlim_max != RLIM_INFINITY && min > rl.rlim_max) {
        SetLastError(ERROR_PRIVILEGE_NOT_HELD);
        return FALSE;
    }
    if (rl.rlim_cur != RLIM_INFINITY || !vm_lock_privilege_held()) {
        rl.rlim_cur = min;
        if (setrlimit(RLIMIT_MEMLOCK, &rl)) { SetLastError(ERROR_PRIVILEGE_NOT_HELD); return FALSE; }
    }
    if ((flags & QUOTA_LIMITS_HARDWS_MIN_ENABLE) && mlockall(MCL_CURRENT | MCL_FUTURE)) {
        SetLastError(1453 /* ERROR_WORKING_SET_QUOTA */);
        return FALSE;
    }
    if (flags & QUOTA_LIMITS_HARDWS_MIN_DISABLE) munlockall();
    ws_max = max;
    return TRUE;
inval:
    SetLastError(ERROR_INVALID_PARAMETER);
    return FALSE;
}

NSPA_EXPORT BOOL WINAPI SetProcessWorkingSetSize(HANDLE process, SIZE_T min, SIZE_T max)
{
    return SetProcessWorkingSetSizeEx(process, min, max, 0);
}

NSPA_EXPORT BOOL WINAPI GetProcessWorkingSetSize(HANDLE process, PSIZE_T min, PSIZE_T max)
{
    if (process != GetCurrentProcess()) { SetLastError(ERROR_INVALID_HANDLE); return FALSE; }
    if (!min || !max) { SetLastError(ERROR_NOACCESS); return FALSE; }
    struct rlimit rl;
    getrlimit(RLIMIT_MEMLOCK, &rl);
    *min = rl.rlim_cur == RLIM_INFINITY ? (SIZE_T)-1 : (SIZE_T)rl.rlim_cur;
    *max = ws_max ? ws_max : (rl.rlim_max == RLIM_INFINITY ? (SIZE_T)-1 : (SIZE_T)rl.rlim_max);
    return TRUE;
}
