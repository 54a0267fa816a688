/* NSPA Win32 layer: the process environment (processenv.h) — the command line,
 * environment variables, the current directory. A strings are UTF-8. */
#ifndef NSPA_WIN32_PROCESSENV_H
#define NSPA_WIN32_PROCESSENV_H

#include "windef.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef CHAR *LPCH, *PCH;
typedef WCHAR *LPWCH, *PWCH;

LPSTR  WINAPI GetCommandLineA(void);
LPWSTR WINAPI GetCommandLineW(void);
DWORD WINAPI GetEnvironmentVariableA(LPCSTR name, LPSTR buf, DWORD size);
DWORD WINAPI GetEnvironmentVariableW(LPCWSTR name, LPWSTR buf, DWORD size);
BOOL  WINAPI SetEnvironmentVariableA(LPCSTR name, LPCSTR value);
BOOL  WINAPI SetEnvironmentVariableW(LPCWSTR name, LPCWSTR value);
LPCH  WINAPI GetEnvironmentStringsA(void);
LPWCH WINAPI GetEnvironmentStringsW(void);
BOOL  WINAPI FreeEnvironmentStringsA(LPCH block);
BOOL  WINAPI FreeEnvironmentStringsW(LPWCH block);
DWORD WINAPI ExpandEnvironmentStringsA(LPCSTR src, LPSTR dst, DWORD size);
DWORD WINAPI ExpandEnvironmentStringsW(LPCWSTR src, LPWSTR dst, DWORD size);
DWORD WINAPI GetCurrentDirectoryA(DWORD size, LPSTR buf);
DWORD WINAPI GetCurrentDirectoryW(DWORD size, LPWSTR buf);
BOOL  WINAPI SetCurrentDirectoryA(LPCSTR path);
BOOL  WINAPI SetCurrentDirectoryW(LPCWSTR path);
BOOL  WINAPI SetStdHandle(DWORD which, HANDLE h);

#ifdef UNICODE
#define GetCommandLine GetCommandLineW
#define GetEnvironmentVariable GetEnvironmentVariableW
#define SetEnvironmentVariable SetEnvironmentVariableW
#define GetEnvironmentStrings GetEnvironmentStringsW
#define FreeEnvironmentStrings FreeEnvironmentStringsW
#define ExpandEnvironmentStrings ExpandEnvironmentStringsW
#define GetCurrentDirectory GetCurrentDirectoryW
#define SetCurrentDirectory SetCurrentDirectoryW
#else
#define GetCommandLine GetCommandLineA
#define GetEnvironmentVariable GetEnvironmentVariableA
#define SetEnvironmentVariable SetEnvironmentVariableA
#define GetEnvironmentStrings GetEnvironmentStringsA
#define FreeEnvironmentStrings FreeEnvironmentStringsA
#define ExpandEnvironmentStrings ExpandEnvironmentStringsA
#define GetCurrentDirectory GetCurrentDirectoryA
#define SetCurrentDirectory SetCurrentDirectoryA
#endif

#ifdef __cplusplus
}
#endif
#endif
