/* NSPA Win32 layer: files (fileapi.h): CreateFile, ReadFile/WriteFile (synchronous and
 * overlapped), ReadFileEx/WriteFileEx, the file pointer and size, temporary files, the
 * standard handles. Paths: docs/io.md ("Paths"). */
#ifndef NSPA_WIN32_FILEAPI_H
#define NSPA_WIN32_FILEAPI_H
#include "windef.h"
#include "minwinbase.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GENERIC_READ    0x80000000u
#define GENERIC_WRITE   0x40000000u
#define GENERIC_EXECUTE 0x20000000u
#define GENERIC_ALL     0x10000000u
#define DELETE          0x00010000u
#define FILE_READ_DATA  0x0001u
#define FILE_WRITE_DATA 0x0002u
#define FILE_APPEND_DATA 0x0004u
#define FILE_SHARE_READ   0x1
#define FILE_SHARE_WRITE  0x2
#define FILE_SHARE_DELETE 0x4
#define CREATE_NEW        1
#define CREATE_ALWAYS     2
#define OPEN_EXISTING     3
#define OPEN_ALWAYS       4
#define TRUNCATE_EXISTING 5
#define FILE_ATTRIBUTE_NORMAL     0x80
#define FILE_ATTRIBUTE_TEMPORARY  0x100
#define FILE_FLAG_WRITE_THROUGH   0x80000000u
#define FILE_FLAG_OVERLAPPED      0x40000000u
#define FILE_FLAG_NO_BUFFERING    0x20000000u
#define FILE_FLAG_RANDOM_ACCESS   0x10000000u
#define FILE_FLAG_SEQUENTIAL_SCAN 0x08000000u
#define FILE_FLAG_DELETE_ON_CLOSE 0x04000000u
#define FILE_BEGIN   0
#define FILE_CURRENT 1
#define FILE_END     2
#define FILE_TYPE_UNKNOWN 0
#define FILE_TYPE_DISK    1
#define FILE_TYPE_CHAR    2
#define FILE_TYPE_PIPE    3
#define STD_INPUT_HANDLE  ((DWORD)-10)
#define STD_OUTPUT_HANDLE ((DWORD)-11)
#define STD_ERROR_HANDLE  ((DWORD)-12)
#define INVALID_FILE_SIZE ((DWORD)0xFFFFFFFF)
#define INVALID_SET_FILE_POINTER ((DWORD)0xFFFFFFFF)
#define ERROR_SHARING_VIOLATION 32
#define ERROR_FILE_EXISTS       80
#define ERROR_NEGATIVE_SEEK     131
#define ERROR_DIRECTORY         267
#define ERROR_WRITE_PROTECT     19
#define ERROR_BUFFER_OVERFLOW   111

HANDLE WINAPI CreateFileA(LPCSTR name, DWORD access, DWORD share, LPSECURITY_ATTRIBUTES sa, DWORD disposition,
                          DWORD flags, HANDLE tmpl);
HANDLE WINAPI CreateFileW(LPCWSTR name, DWORD access, DWORD share, LPSECURITY_ATTRIBUTES sa, DWORD disposition,
                          DWORD flags, HANDLE tmpl);
BOOL WINAPI ReadFile(HANDLE file, LPVOID buf, DWORD len, LPDWORD read, LPOVERLAPPED ov);
BOOL WINAPI WriteFile(HANDLE file, LPCVOID buf, DWORD len, LPDWORD written, LPOVERLAPPED ov);
BOOL WINAPI ReadFileEx(HANDLE file, LPVOID buf, DWORD len, LPOVERLAPPED ov, LPOVERLAPPED_COMPLETION_ROUTINE routine);
BOOL WINAPI WriteFileEx(HANDLE file, LPCVOID buf, DWORD len, LPOVERLAPPED ov, LPOVERLAPPED_COMPLETION_ROUTINE routine);
BOOL WINAPI GetFileSizeEx(HANDLE file, PLARGE_INTEGER size);
BOOL WINAPI SetFilePointerEx(HANDLE file, LARGE_INTEGER dist, PLARGE_INTEGER pos, DWORD method);
DWORD WINAPI GetFileSize(HANDLE file, LPDWORD high);
DWORD WINAPI SetFilePointer(HANDLE file, LONG dist, PLONG high, DWORD method);
BOOL WINAPI SetEndOfFile(HANDLE file);
BOOL WINAPI FlushFileBuffers(HANDLE file);
DWORD WINAPI GetFileType(HANDLE file);
BOOL WINAPI DeleteFileA(LPCSTR name);
BOOL WINAPI DeleteFileW(LPCWSTR name);
DWORD WINAPI GetTempPathA(DWORD len, LPSTR buf);
DWORD WINAPI GetTempPathW(DWORD len, LPWSTR buf);
UINT WINAPI GetTempFileNameA(LPCSTR path, LPCSTR prefix, UINT unique, LPSTR out);
UINT WINAPI GetTempFileNameW(LPCWSTR path, LPCWSTR prefix, UINT unique, LPWSTR out);
HANDLE WINAPI GetStdHandle(DWORD which);

#ifdef __cplusplus
}
#endif
#endif
