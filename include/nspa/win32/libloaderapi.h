/* NSPA Win32 layer: modules (libloaderapi.h) — native shared objects through dlopen.
 * "kernel32.dll", "kernelbase.dll", "ntdll.dll", "ws2_32.dll", "avrt.dll", "winmm.dll",
 * "user32.dll" and NULL name libnspa itself: GetProcAddress finds exactly what NSPA
 * implements (docs/process.md). */
#ifndef NSPA_WIN32_LIBLOADERAPI_H
#define NSPA_WIN32_LIBLOADERAPI_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef INT_PTR (WINAPI *FARPROC)(void);
typedef INT_PTR (WINAPI *NEARPROC)(void);
typedef INT_PTR (WINAPI *PROC)(void);

#define DONT_RESOLVE_DLL_REFERENCES          0x00000001u
#define LOAD_LIBRARY_AS_DATAFILE             0x00000002u
#define LOAD_WITH_ALTERED_SEARCH_PATH        0x00000008u
#define LOAD_LIBRARY_AS_IMAGE_RESOURCE       0x00000020u
#define LOAD_LIBRARY_AS_DATAFILE_EXCLUSIVE   0x00000040u
#define LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR     0x00000100u
#define LOAD_LIBRARY_SEARCH_APPLICATION_DIR  0x00000200u
#define LOAD_LIBRARY_SEARCH_USER_DIRS        0x00000400u
#define LOAD_LIBRARY_SEARCH_SYSTEM32         0x00000800u
#define LOAD_LIBRARY_SEARCH_DEFAULT_DIRS     0x00001000u

#define GET_MODULE_HANDLE_EX_FLAG_PIN                 0x00000001u
#define GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT  0x00000002u
#define GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS        0x00000004u

HMODULE WINAPI LoadLibraryA(LPCSTR name);
HMODULE WINAPI LoadLibraryW(LPCWSTR name);
HMODULE WINAPI LoadLibraryExA(LPCSTR name, HANDLE file, DWORD flags);
HMODULE WINAPI LoadLibraryExW(LPCWSTR name, HANDLE file, DWORD flags);
BOOL    WINAPI FreeLibrary(HMODULE module);
FARPROC WINAPI GetProcAddress(HMODULE module, LPCSTR name);
HMODULE WINAPI GetModuleHandleA(LPCSTR name);
HMODULE WINAPI GetModuleHandleW(LPCWSTR name);
BOOL    WINAPI GetModuleHandleExA(DWORD flags, LPCSTR name, HMODULE *module);
BOOL    WINAPI GetModuleHandleExW(DWORD flags, LPCWSTR name, HMODULE *module);
DWORD   WINAPI GetModuleFileNameA(HMODULE module, LPSTR buf, DWORD size);
DWORD   WINAPI GetModuleFileNameW(HMODULE module, LPWSTR buf, DWORD size);

#ifdef UNICODE
#define LoadLibrary LoadLibraryW
#define LoadLibraryEx LoadLibraryExW
#define GetModuleHandle GetModuleHandleW
#define GetModuleHandleEx GetModuleHandleExW
#define GetModuleFileName GetModuleFileNameW
#else
#define LoadLibrary LoadLibraryA
#define LoadLibraryEx LoadLibraryExA
#define GetModuleHandle GetModuleHandleA
#define GetModuleHandleEx GetModuleHandleExA
#define GetModuleFileName GetModuleFileNameA
#endif

#ifdef __cplusplus
}
#endif
#endif
