/* NSPA Win32 layer: base types and calling conventions.
 *
 * Native builds: WINAPI/CALLBACK are the platform's own convention (System V on
 * x86_64); Win32 sources compile unchanged because they only spell the macros.
 * WCHAR is 16 bits; build Win32 sources with -fshort-wchar (nspa-win32.pc adds it)
 * so that L"..." literals are UTF-16 as on Windows. */
#ifndef NSPA_WIN32_WINDEF_H
#define NSPA_WIN32_WINDEF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef WINAPI
#define WINAPI
#endif
#define WINAPIV
#define APIENTRY WINAPI
#define CALLBACK
#define NTAPI
#define WINBASEAPI
#define DECLSPEC_ALIGN(x) __attribute__((aligned(x)))
#define DECLSPEC_NORETURN __attribute__((noreturn))
#define FORCEINLINE static inline __attribute__((always_inline))
#ifndef CONST
#define CONST const
#endif
#ifndef VOID
#define VOID void
#endif
#define IN
#define OUT
#define OPTIONAL
#define UNREFERENCED_PARAMETER(p) ((void)(p))

typedef int                 BOOL, *PBOOL, *LPBOOL;
typedef unsigned char       BYTE, *PBYTE, *LPBYTE, BOOLEAN, *PBOOLEAN;
typedef char                CHAR, *PCHAR, *LPSTR, *PSTR;
typedef const char          *LPCSTR, *PCSTR;
typedef unsigned short      WCHAR, *PWCHAR, *LPWSTR, *PWSTR;
typedef const WCHAR         *LPCWSTR, *PCWSTR;
typedef unsigned char       UCHAR, *PUCHAR;
typedef short               SHORT, *PSHORT;
typedef unsigned short      USHORT, WORD, *PUSHORT, *PWORD, *LPWORD;
typedef int                 INT, *PINT, *LPINT;
typedef unsigned int        UINT, *PUINT;
typedef int                 LONG, *PLONG, *LPLONG;   /* LLP64: LONG is 32 bits */
typedef unsigned int        ULONG, DWORD, *PULONG, *PDWORD, *LPDWORD;
typedef int64_t             LONGLONG, LONG64, INT64, *PLONGLONG, *PLONG64;
typedef uint64_t            ULONGLONG, DWORD64, ULONG64, UINT64, DWORDLONG, *PULONGLONG, *PDWORD64;
typedef int32_t             INT32, LONG32;
typedef uint32_t            UINT32, ULONG32, DWORD32;
typedef int16_t             INT16;
typedef uint16_t            UINT16;
typedef int8_t              INT8;
typedef uint8_t             UINT8;
typedef intptr_t            INT_PTR, LONG_PTR, SSIZE_T, *PINT_PTR, *PLONG_PTR;
typedef uintptr_t           UINT_PTR, ULONG_PTR, DWORD_PTR, SIZE_T, *PUINT_PTR, *PULONG_PTR, *PDWORD_PTR, *PSIZE_T;
typedef float               FLOAT;
typedef void                *PVOID, *LPVOID, *HANDLE, **PHANDLE, **LPHANDLE;
typedef const void          *LPCVOID, *PCVOID;
typedef LONG                HRESULT;
typedef LONG                NTSTATUS;
typedef DWORD               LCID;
typedef WORD                LANGID;
typedef HANDLE              HMODULE, HINSTANCE, HWND, HKEY, HLOCAL, HGLOBAL;
typedef char                TCHAR_A_;

typedef union _LARGE_INTEGER {
    struct { DWORD LowPart; LONG HighPart; };
    struct { DWORD LowPart; LONG HighPart; } u;
    LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

typedef union _ULARGE_INTEGER {
    struct { DWORD LowPart; DWORD HighPart; };
    struct { DWORD LowPart; DWORD HighPart; } u;
    ULONGLONG QuadPart;
} ULARGE_INTEGER, *PULARGE_INTEGER;

typedef struct _FILETIME { DWORD dwLowDateTime, dwHighDateTime; } FILETIME, *PFILETIME, *LPFILETIME;

typedef struct _SECURITY_ATTRIBUTES {
    DWORD  nLength;
    LPVOID lpSecurityDescriptor;
    BOOL   bInheritHandle;
} SECURITY_ATTRIBUTES, *PSECURITY_ATTRIBUTES, *LPSECURITY_ATTRIBUTES;

#ifndef TRUE
#define TRUE  1
#define FALSE 0
#endif
#ifndef NULL
#define NULL ((void *)0)
#endif
#define MAX_PATH 260
#define INVALID_HANDLE_VALUE ((HANDLE)(LONG_PTR)-1)

#define MAKEWORD(a, b) ((WORD)(((BYTE)(a)) | ((WORD)((BYTE)(b))) << 8))
#define MAKELONG(a, b) ((LONG)(((WORD)(a)) | ((DWORD)((WORD)(b))) << 16))
#define LOWORD(l) ((WORD)((DWORD_PTR)(l) & 0xffff))
#define HIWORD(l) ((WORD)((DWORD_PTR)(l) >> 16))
#define LOBYTE(w) ((BYTE)((DWORD_PTR)(w) & 0xff))
#define HIBYTE(w) ((BYTE)((DWORD_PTR)(w) >> 8))
#ifndef min
#define min(a, b) (((a) < (b)) ? (a) : (b))
#define max(a, b) (((a) > (b)) ? (a) : (b))
#endif
#define ARRAYSIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifdef UNICODE
#define __TEXT(s) L##s
#else
#define __TEXT(s) s
#endif
#define TEXT(s) __TEXT(s)

#ifdef __cplusplus
}
#endif

/* the SDK's windef.h brings winnt.h (through minwindef.h): Interlocked, access rights,
 * the RTL_* lock types */
#include "winnt.h"
#endif
