/* NSPA Win32 layer: code page conversion and ordinal string comparison (winnls.h / stringapiset.h).
 *
 * Code pages: CP_UTF8 exactly as Windows (Vista and later). NSPA's ANSI and OEM code pages
 * are UTF-8 too: CP_ACP, CP_OEMCP and CP_THREAD_ACP are taken as CP_UTF8 (as on a Windows
 * system with the "Beta: Use Unicode UTF-8 for worldwide language support" option), with
 * the flag rules of CP_UTF8. Any other code page fails with ERROR_INVALID_PARAMETER. */
#ifndef NSPA_WIN32_WINNLS_H
#define NSPA_WIN32_WINNLS_H

#include "windef.h"
#include "winerror.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CP_ACP         0
#define CP_OEMCP       1
#define CP_MACCP       2
#define CP_THREAD_ACP  3
#define CP_SYMBOL      42
#define CP_UTF7        65000
#define CP_UTF8        65001

/* MultiByteToWideChar flags */
#define MB_PRECOMPOSED       0x00000001
#define MB_COMPOSITE         0x00000002
#define MB_USEGLYPHCHARS     0x00000004
#define MB_ERR_INVALID_CHARS 0x00000008

/* WideCharToMultiByte flags */
#define WC_COMPOSITECHECK    0x00000200
#define WC_DISCARDNS         0x00000010
#define WC_SEPCHARS          0x00000020
#define WC_DEFAULTCHAR       0x00000040
#define WC_ERR_INVALID_CHARS 0x00000080
#define WC_NO_BEST_FIT_CHARS 0x00000400

/* CompareString* results */
#define CSTR_LESS_THAN    1
#define CSTR_EQUAL        2
#define CSTR_GREATER_THAN 3

/* MultiByteToWideChar - convert a multibyte (UTF-8) string to UTF-16.
 *   CodePage    CP_UTF8 (or CP_ACP/CP_OEMCP/CP_THREAD_ACP, taken as CP_UTF8).
 *   dwFlags     0 or MB_ERR_INVALID_CHARS; anything else: ERROR_INVALID_FLAGS.
 *   lpMultiByteStr, cbMultiByte  the input; cbMultiByte < 0 means NUL-terminated, and the
 *               NUL is converted and counted.
 *   lpWideCharStr, cchWideChar   the output; cchWideChar 0 asks for the length.
 * Returns the WCHARs written (or needed), or 0 with GetLastError():
 *   ERROR_INVALID_PARAMETER    NULL input, cbMultiByte 0, cchWideChar < 0, NULL output with
 *                              cchWideChar > 0, input and output at the same address,
 *                              unsupported code page;
 *   ERROR_INVALID_FLAGS        flags other than MB_ERR_INVALID_CHARS;
 *   ERROR_INSUFFICIENT_BUFFER  the output does not fit (the whole characters that fit are
 *                              written); wins over the next one;
 *   ERROR_NO_UNICODE_TRANSLATION  MB_ERR_INVALID_CHARS and invalid input (the converted
 *                              output, with U+FFFD, is still written).
 * Invalid input becomes U+FFFD (see nspa_utf8_to_utf16() for which bytes one U+FFFD
 * stands for). Thread-safe. */
int WINAPI MultiByteToWideChar(UINT CodePage, DWORD dwFlags, LPCSTR lpMultiByteStr,
                               int cbMultiByte, LPWSTR lpWideCharStr, int cchWideChar);

/* WideCharToMultiByte - convert UTF-16 to a multibyte (UTF-8) string.
 *   dwFlags     0 or WC_ERR_INVALID_CHARS; anything else: ERROR_INVALID_FLAGS.
 *   lpDefaultChar, lpUsedDefaultChar  must be NULL for UTF-8 (else ERROR_INVALID_PARAMETER).
 *   cchWideChar < 0: NUL-terminated input, the NUL converted and counted; cbMultiByte 0:
 *   length query.
 * A lone or reversed surrogate becomes EF BF BD; with WC_ERR_INVALID_CHARS the call fails
 * with ERROR_NO_UNICODE_TRANSLATION. Errors and precedence as MultiByteToWideChar.
 * Thread-safe. */
int WINAPI WideCharToMultiByte(UINT CodePage, DWORD dwFlags, LPCWSTR lpWideCharStr,
                               int cchWideChar, LPSTR lpMultiByteStr, int cbMultiByte,
                               LPCSTR lpDefaultChar, LPBOOL lpUsedDefaultChar);

/* CompareStringOrdinal - ordinal comparison of two UTF-16 strings.
 *   cchCount1/2 < 0: NUL-terminated (the NUL is not compared).
 *   bIgnoreCase: compare after RtlUpcaseUnicodeChar (Windows' uppercase table).
 * Returns CSTR_LESS_THAN, CSTR_EQUAL or CSTR_GREATER_THAN, or 0 with
 * ERROR_INVALID_PARAMETER when a string pointer is NULL. Thread-safe. */
int WINAPI CompareStringOrdinal(LPCWSTR lpString1, int cchCount1, LPCWSTR lpString2,
                                int cchCount2, BOOL bIgnoreCase);

#ifdef __cplusplus
}
#endif
#endif
