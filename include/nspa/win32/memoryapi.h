/* NSPA Win32 layer: memoryapi.h — virtual memory, file mappings, large pages, working
 * sets (docs/vm.md). */
#ifndef NSPA_WIN32_MEMORYAPI_H
#define NSPA_WIN32_MEMORYAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAGE_NOACCESS          0x01u
#define PAGE_READONLY          0x02u
#define PAGE_READWRITE         0x04u
#define PAGE_WRITECOPY         0x08u
#define PAGE_EXECUTE           0x10u
#define PAGE_EXECUTE_READ      0x20u
#define PAGE_EXECUTE_READWRITE 0x40u
#define PAGE_EXECUTE_WRITECOPY 0x80u
#define PAGE_GUARD             0x100u
#define PAGE_NOCACHE           0x200u
#define PAGE_WRITECOMBINE      0x400u

#define MEM_COMMIT             0x00001000u
#define MEM_RESERVE            0x00002000u
#define MEM_REPLACE_PLACEHOLDER 0x00004000u
#define MEM_DECOMMIT           0x00004000u
#define MEM_RELEASE            0x00008000u
#define MEM_FREE               0x00010000u
#define MEM_PRIVATE            0x00020000u
#define MEM_MAPPED             0x00040000u
#define MEM_RESET              0x00080000u
#define MEM_TOP_DOWN           0x00100000u
#define MEM_WRITE_WATCH        0x00200000u
#define MEM_PHYSICAL           0x00400000u
#define MEM_RESET_UNDO         0x01000000u
#define MEM_LARGE_PAGES        0x20000000u
#define MEM_IMAGE              0x01000000u
#define WRITE_WATCH_FLAG_RESET 0x01u

#define SEC_FILE               0x00800000u
#define SEC_IMAGE              0x01000000u
#define SEC_RESERVE            0x04000000u
#define SEC_COMMIT             0x08000000u
#define SEC_NOCACHE            0x10000000u
#define SEC_WRITECOMBINE       0x40000000u
#define SEC_LARGE_PAGES        0x80000000u

#define SECTION_QUERY          0x0001u
#define SECTION_MAP_WRITE      0x0002u
#define SECTION_MAP_READ       0x0004u
#define SECTION_MAP_EXECUTE    0x0008u
#define SECTION_EXTEND_SIZE    0x0010u
#define SECTION_ALL_ACCESS     0x000F001Fu
#define FILE_MAP_COPY          0x00000001u
#define FILE_MAP_WRITE         0x00000002u
#define FILE_MAP_READ          0x00000004u
#define FILE_MAP_ALL_ACCESS    SECTION_ALL_ACCESS
#define FILE_MAP_EXECUTE       0x00000020u
#define FILE_MAP_LARGE_PAGES   0x20000000u

typedef struct _MEMORY_BASIC_INFORMATION {
    PVOID  BaseAddress;
    PVOID  AllocationBase;
    DWORD  AllocationProtect;
    WORD   PartitionId;
    SIZE_T RegionSize;
    DWORD  State;
    DWORD  Protect;
    DWORD  Type;
} MEMORY_BASIC_INFORMATION, *PMEMORY_BASIC_INFORMATION;

/* VirtualAlloc2 / MapViewOfFile3 */
typedef enum MEM_EXTENDED_PARAMETER_TYPE {
    MemExtendedParameterInvalidType = 0,
    MemExtendedParameterAddressRequirements,
    MemExtendedParameterNumaNode,
    MemExtendedParameterPartitionHandle,
    MemExtendedParameterUserPhysicalHandle,
    MemExtendedParameterAttributeFlags,
    MemExtendedParameterImageMachine,
    MemExtendedParameterMax
} MEM_EXTENDED_PARAMETER_TYPE;
#define MEM_EXTENDED_PARAMETER_TYPE_BITS 8
#define MEM_EXTENDED_PARAMETER_NONPAGED       0x02
#define MEM_EXTENDED_PARAMETER_NONPAGED_LARGE 0x08
#define MEM_EXTENDED_PARAMETER_NONPAGED_HUGE  0x10

typedef struct _MEM_ADDRESS_REQUIREMENTS {
    PVOID  LowestStartingAddress;
    PVOID  HighestEndingAddress;
    SIZE_T Alignment;
} MEM_ADDRESS_REQUIREMENTS, *PMEM_ADDRESS_REQUIREMENTS;

typedef struct DECLSPEC_ALIGN(8) MEM_EXTENDED_PARAMETER {
    struct {
        DWORD64 Type : MEM_EXTENDED_PARAMETER_TYPE_BITS;
        DWORD64 Reserved : 64 - MEM_EXTENDED_PARAMETER_TYPE_BITS;
    };
    union {
        DWORD64 ULong64;
        PVOID   Pointer;
        SIZE_T  Size;
        HANDLE  Handle;
        DWORD   ULong;
    };
} MEM_EXTENDED_PARAMETER, *PMEM_EXTENDED_PARAMETER;

LPVOID WINAPI VirtualAlloc(LPVOID addr, SIZE_T size, DWORD type, DWORD prot);
LPVOID WINAPI VirtualAllocEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD type, DWORD prot);
PVOID  WINAPI VirtualAlloc2(HANDLE process, PVOID addr, SIZE_T size, ULONG type, ULONG prot,
                            MEM_EXTENDED_PARAMETER *params, ULONG count);
BOOL   WINAPI VirtualFree(LPVOID addr, SIZE_T size, DWORD type);
BOOL   WINAPI VirtualFreeEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD type);
BOOL   WINAPI VirtualProtect(LPVOID addr, SIZE_T size, DWORD prot, PDWORD old);
BOOL   WINAPI VirtualProtectEx(HANDLE process, LPVOID addr, SIZE_T size, DWORD prot, PDWORD old);
SIZE_T WINAPI VirtualQuery(LPCVOID addr, PMEMORY_BASIC_INFORMATION info, SIZE_T len);
SIZE_T WINAPI VirtualQueryEx(HANDLE process, LPCVOID addr, PMEMORY_BASIC_INFORMATION info, SIZE_T len);
BOOL   WINAPI VirtualLock(LPVOID addr, SIZE_T size);
BOOL   WINAPI VirtualUnlock(LPVOID addr, SIZE_T size);
UINT   WINAPI GetWriteWatch(DWORD flags, PVOID base, SIZE_T size, PVOID *addresses,
                            ULONG_PTR *count, ULONG *granularity);
UINT   WINAPI ResetWriteWatch(LPVOID base, SIZE_T size);
BOOL   WINAPI FlushInstructionCache(HANDLE process, LPCVOID addr, SIZE_T size);
SIZE_T WINAPI GetLargePageMinimum(void);

/* file mappings (sections) */
HANDLE WINAPI CreateFileMappingA(HANDLE file, LPSECURITY_ATTRIBUTES sa, DWORD prot,
                                 DWORD size_high, DWORD size_low, LPCSTR name);
HANDLE WINAPI CreateFileMappingW(HANDLE file, LPSECURITY_ATTRIBUTES sa, DWORD prot,
                                 DWORD size_high, DWORD size_low, LPCWSTR name);
HANDLE WINAPI OpenFileMappingA(DWORD access, BOOL inherit, LPCSTR name);
HANDLE WINAPI OpenFileMappingW(DWORD access, BOOL inherit, LPCWSTR name);
LPVOID WINAPI MapViewOfFile(HANDLE mapping, DWORD access, DWORD off_high, DWORD off_low, SIZE_T size);
LPVOID WINAPI MapViewOfFileEx(HANDLE mapping, DWORD access, DWORD off_high, DWORD off_low,
                              SIZE_T size, LPVOID base);
PVOID  WINAPI MapViewOfFile3(HANDLE mapping, HANDLE process, PVOID base, ULONG64 offset,
                             SIZE_T size, ULONG type, ULONG prot,
                             MEM_EXTENDED_PARAMETER *params, ULONG count);
BOOL   WINAPI UnmapViewOfFile(LPCVOID base);
BOOL   WINAPI FlushViewOfFile(LPCVOID base, SIZE_T size);
#ifdef UNICODE
#define CreateFileMapping CreateFileMappingW
#define OpenFileMapping OpenFileMappingW
#else
#define CreateFileMapping CreateFileMappingA
#define OpenFileMapping OpenFileMappingA
#endif

/* working sets */
#define QUOTA_LIMITS_HARDWS_MIN_ENABLE  0x00000001u
#define QUOTA_LIMITS_HARDWS_MIN_DISABLE 0x00000002u
#define QUOTA_LIMITS_HARDWS_MAX_ENABLE  0x00000004u
#define QUOTA_LIMITS_HARDWS_MAX_DISABLE 0x00000008u
BOOL WINAPI SetProcessWorkingSetSize(HANDLE process, SIZE_T min, SIZE_T max);
BOOL WINAPI SetProcessWorkingSetSizeEx(HANDLE process, SIZE_T min, SIZE_T max, DWORD flags);
BOOL WINAPI GetProcessWorkingSetSize(HANDLE process, PSIZE_T min, PSIZE_T max);

#ifdef __cplusplus
}
#endif
#endif
