/* NSPA Win32 layer: system information (sysinfoapi.h) — GetSystemInfo,
 * GetNativeSystemInfo, GetVersionEx (src/win32), the system time (src/time/win32_clock.c). */
#ifndef NSPA_WIN32_SYSINFOAPI_H
#define NSPA_WIN32_SYSINFOAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PROCESSOR_ARCHITECTURE_INTEL   0
#define PROCESSOR_ARCHITECTURE_ARM     5
#define PROCESSOR_ARCHITECTURE_AMD64   9
#define PROCESSOR_ARCHITECTURE_ARM64   12
#define PROCESSOR_INTEL_386            386
#define PROCESSOR_INTEL_486            486
#define PROCESSOR_INTEL_PENTIUM        586
#define PROCESSOR_AMD_X8664            8664
#define VER_PLATFORM_WIN32_NT          2

typedef struct _SYSTEM_INFO {
    union {
        DWORD dwOemId;
        struct {
            WORD wProcessorArchitecture;
            WORD wReserved;
        };
    };
    DWORD     dwPageSize;
    LPVOID    lpMinimumApplicationAddress;
    LPVOID    lpMaximumApplicationAddress;
    DWORD_PTR dwActiveProcessorMask;
    DWORD     dwNumberOfProcessors;
    DWORD     dwProcessorType;
    DWORD     dwAllocationGranularity;
    WORD      wProcessorLevel;
    WORD      wProcessorRevision;
} SYSTEM_INFO, *LPSYSTEM_INFO;

typedef struct _OSVERSIONINFOA {
    DWORD dwOSVersionInfoSize, dwMajorVersion, dwMinorVersion, dwBuildNumber, dwPlatformId;
    CHAR  szCSDVersion[128];
} OSVERSIONINFOA, *POSVERSIONINFOA, *LPOSVERSIONINFOA;

typedef struct _OSVERSIONINFOW {
    DWORD dwOSVersionInfoSize, dwMajorVersion, dwMinorVersion, dwBuildNumber, dwPlatformId;
    WCHAR szCSDVersion[128];
} OSVERSIONINFOW, *POSVERSIONINFOW, *LPOSVERSIONINFOW;

typedef struct _OSVERSIONINFOEXA {
    DWORD dwOSVersionInfoSize, dwMajorVersion, dwMinorVersion, dwBuildNumber, dwPlatformId;
    CHAR  szCSDVersion[128];
    WORD  wServicePackMajor, wServicePackMinor, wSuiteMask;
    BYTE  wProductType, wReserved;
} OSVERSIONINFOEXA, *POSVERSIONINFOEXA, *LPOSVERSIONINFOEXA;

typedef struct _OSVERSIONINFOEXW {
    DWORD dwOSVersionInfoSize, dwMajorVersion, dwMinorVersion, dwBuildNumber, dwPlatformId;
    WCHAR szCSDVersion[128];
    WORD  wServicePackMajor, wServicePackMinor, wSuiteMask;
    BYTE  wProductType, wReserved;
} OSVERSIONINFOEXW, *POSVERSIONINFOEXW, *LPOSVERSIONINFOEXW;

void WINAPI GetSystemInfo(LPSYSTEM_INFO info);
void WINAPI GetNativeSystemInfo(LPSYSTEM_INFO info);
BOOL WINAPI GetVersionExA(LPOSVERSIONINFOA info);
BOOL WINAPI GetVersionExW(LPOSVERSIONINFOW info);
DWORD WINAPI GetVersion(void);

/* UTC as 100 ns units since 1601-01-01 (CLOCK_REALTIME) */
void WINAPI GetSystemTimeAsFileTime(LPFILETIME ft);
void WINAPI GetSystemTimePreciseAsFileTime(LPFILETIME ft);

#ifdef UNICODE
#define GetVersionEx GetVersionExW
#define OSVERSIONINFO OSVERSIONINFOW
#define OSVERSIONINFOEX OSVERSIONINFOEXW
#else
#define GetVersionEx GetVersionExA
#define OSVERSIONINFO OSVERSIONINFOA
#define OSVERSIONINFOEX OSVERSIONINFOEXA
#endif

/* GlobalMemoryStatusEx (src/win32/sysinfo.c): /proc/meminfo and this process's
 * address space; dwLength must be set to the structure's size */
typedef struct _MEMORYSTATUSEX {
    DWORD dwLength;
    DWORD dwMemoryLoad;
    DWORDLONG ullTotalPhys;
    DWORDLONG ullAvailPhys;
    DWORDLONG ullTotalPageFile;
    DWORDLONG ullAvailPageFile;
    DWORDLONG ullTotalVirtual;
    DWORDLONG ullAvailVirtual;
    DWORDLONG ullAvailExtendedVirtual;
} MEMORYSTATUSEX, *LPMEMORYSTATUSEX;
BOOL WINAPI GlobalMemoryStatusEx(LPMEMORYSTATUSEX status);

#ifdef __cplusplus
}
#endif
#endif
