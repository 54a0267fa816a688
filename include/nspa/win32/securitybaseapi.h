/* NSPA Win32 layer: process tokens and privileges (securitybaseapi.h, processthreadsapi.h,
 * winbase.h's LookupPrivilegeValue). Only SeLockMemoryPrivilege means something: it maps
 * to the Linux right to lock memory (docs/vm.md, "Large pages and privileges"). */
#ifndef NSPA_WIN32_SECURITYBASEAPI_H
#define NSPA_WIN32_SECURITYBASEAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TOKEN_ASSIGN_PRIMARY    0x0001u
#define TOKEN_DUPLICATE         0x0002u
#define TOKEN_IMPERSONATE       0x0004u
#define TOKEN_QUERY             0x0008u
#define TOKEN_QUERY_SOURCE      0x0010u
#define TOKEN_ADJUST_PRIVILEGES 0x0020u
#define TOKEN_ADJUST_GROUPS     0x0040u
#define TOKEN_ADJUST_DEFAULT    0x0080u
#define TOKEN_ADJUST_SESSIONID  0x0100u
#define TOKEN_ALL_ACCESS        0x000F01FFu

#define SE_PRIVILEGE_ENABLED_BY_DEFAULT 0x00000001u
#define SE_PRIVILEGE_ENABLED            0x00000002u
#define SE_PRIVILEGE_REMOVED            0x00000004u
#define SE_PRIVILEGE_USED_FOR_ACCESS    0x80000000u

#define SE_LOCK_MEMORY_PRIVILEGE 4
#define SE_LOCK_MEMORY_NAME      TEXT("SeLockMemoryPrivilege")
#define ERROR_NOT_ALL_ASSIGNED   1300
#define ERROR_NO_SUCH_PRIVILEGE  1313

typedef struct _LUID { DWORD LowPart; LONG HighPart; } LUID, *PLUID;
typedef struct _LUID_AND_ATTRIBUTES { LUID Luid; DWORD Attributes; } LUID_AND_ATTRIBUTES, *PLUID_AND_ATTRIBUTES;
typedef struct _TOKEN_PRIVILEGES {
    DWORD PrivilegeCount;
    LUID_AND_ATTRIBUTES Privileges[1];
} TOKEN_PRIVILEGES, *PTOKEN_PRIVILEGES;

BOOL WINAPI OpenProcessToken(HANDLE process, DWORD access, PHANDLE token);
BOOL WINAPI LookupPrivilegeValueA(LPCSTR system, LPCSTR name, PLUID luid);
BOOL WINAPI LookupPrivilegeValueW(LPCWSTR system, LPCWSTR name, PLUID luid);
BOOL WINAPI AdjustTokenPrivileges(HANDLE token, BOOL disable_all, PTOKEN_PRIVILEGES state, DWORD len,
                                  PTOKEN_PRIVILEGES prev, PDWORD ret_len);
NTSTATUS NTAPI RtlAdjustPrivilege(ULONG privilege, BOOLEAN enable, BOOLEAN current_thread, PBOOLEAN enabled);
#ifdef UNICODE
#define LookupPrivilegeValue LookupPrivilegeValueW
#else
#define LookupPrivilegeValue LookupPrivilegeValueA
#endif

#ifdef __cplusplus
}
#endif
#endif
