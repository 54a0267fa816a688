/* NSPA Win32 layer: psapi.h — QueryWorkingSetEx (docs/vm.md). */
#ifndef NSPA_WIN32_PSAPI_H
#define NSPA_WIN32_PSAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef union _PSAPI_WORKING_SET_EX_BLOCK {
    ULONG_PTR Flags;
    union {
        struct {
            ULONG_PTR Valid : 1;
            ULONG_PTR ShareCount : 3;
            ULONG_PTR Win32Protection : 11;
            ULONG_PTR Shared : 1;
            ULONG_PTR Node : 6;
            ULONG_PTR Locked : 1;
            ULONG_PTR LargePage : 1;
            ULONG_PTR Reserved : 7;
            ULONG_PTR Bad : 1;
            ULONG_PTR ReservedUlong : 32;
        };
        struct {
            ULONG_PTR Valid : 1;
            ULONG_PTR Reserved0 : 14;
            ULONG_PTR Shared : 1;
            ULONG_PTR Reserved1 : 15;
            ULONG_PTR Bad : 1;
            ULONG_PTR ReservedUlong : 32;
        } Invalid;
    };
} PSAPI_WORKING_SET_EX_BLOCK, *PPSAPI_WORKING_SET_EX_BLOCK;

typedef struct _PSAPI_WORKING_SET_EX_INFORMATION {
    PVOID VirtualAddress;
    PSAPI_WORKING_SET_EX_BLOCK VirtualAttributes;
} PSAPI_WORKING_SET_EX_INFORMATION, *PPSAPI_WORKING_SET_EX_INFORMATION;

BOOL WINAPI QueryWorkingSetEx(HANDLE process, PVOID info, DWORD cb);
BOOL WINAPI K32QueryWorkingSetEx(HANDLE process, PVOID info, DWORD cb);

#ifdef __cplusplus
}
#endif
#endif
