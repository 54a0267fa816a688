/* Win32 layer over the nspa_ Unicode primitives: MultiByteToWideChar/WideCharToMultiByte
 * (CP_UTF8), CompareStringOrdinal and the Rtl string functions, with Windows' argument
 * checks, error codes and their precedence. */
#include <string.h>
#include "nspa/win32/windows.h"
#include "nspa/win32/winnls.h"
#include "nspa/win32/winternl.h"
#include "unicode/unicode_internal.h"
#include "unicode/wstr.h"

static int utf8_codepage(UINT cp)
{
    return cp == CP_UTF8 || cp == CP_ACP || cp == CP_OEMCP || cp == CP_THREAD_ACP;
}

NSPA_EXPORT int WINAPI MultiByteToWideChar(UINT CodePage, DWORD dwFlags, LPCSTR src, int srclen,
                                           LPWSTR dst, int dstlen)
{
    if (!src || !srclen || dstlen < 0 || (!dst && dstlen) ||
        (dst && (const void *)src == (const void *)dst) || !utf8_codepage(CodePage)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (dwFlags & ~(DWORD)MB_ERR_INVALID_CHARS) {
        SetLastError(ERROR_INVALID_FLAGS);
        return 0;
    }
    size_t n = srclen < 0 ? strlen(src) + 1 : (size_t)srclen;
    unsigned st = 0;
    size_t r = nspa_unicode_ops_get()->utf8_to_utf16((const uint8_t *)src, n,
                                                     dstlen ? dst : NULL, (size_t)dstlen, &st);
    if (st & NSPA_UNICODE_TRUNCATED) { SetLastError(ERROR_INSUFFICIENT_BUFFER); return 0; }
    if ((st & NSPA_UNICODE_REPLACED) && (dwFlags & MB_ERR_INVALID_CHARS)) {
        SetLastError(ERROR_NO_UNICODE_TRANSLATION);
        return 0;
    }
    if (r > 0x7FFFFFFF) { SetLastError(ERROR_ARITHMETIC_OVERFLOW); return 0; }
    return (int)r;
}

NSPA_EXPORT int WINAPI WideCharToMultiByte(UINT CodePage, DWORD dwFlags, LPCWSTR src, int srclen,
                                           LPSTR dst, int dstlen, LPCSTR defchar, LPBOOL used)
{
    if (!src || !srclen || dstlen < 0 || (!dst && dstlen) ||
        (dst && (const void *)src == (const void *)dst) || !utf8_codepage(CodePage)) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (defchar || used) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    if (dwFlags & ~(DWORD)WC_ERR_INVALID_CHARS) {
        SetLastError(ERROR_INVALID_FLAGS);
        return 0;
    }
    size_t n = srclen < 0 ? nspa__wlen(src) + 1 : (size_t)srclen;
    unsigned st = 0;
    size_t r = nspa_unicode_ops_get()->utf16_to_utf8(src, n, dstlen ? (uint8_t *)dst : NULL,
                                                     (size_t)dstlen, &st);
    if (st & NSPA_UNICODE_TRUNCATED) { SetLastError(ERROR_INSUFFICIENT_BUFFER); return 0; }
    if ((st & NSPA_UNICODE_REPLACED) && (dwFlags & WC_ERR_INVALID_CHARS)) {
        SetLastError(ERROR_NO_UNICODE_TRANSLATION);
        return 0;
    }
    if (r > 0x7FFFFFFF) { SetLastError(ERROR_ARITHMETIC_OVERFLOW); return 0; }
    return (int)r;
}

NSPA_EXPORT int WINAPI CompareStringOrdinal(LPCWSTR s1, int n1, LPCWSTR s2, int n2, BOOL ci)
{
    if (!s1 || !s2) {
        SetLastError(ERROR_INVALID_PARAMETER);
        return 0;
    }
    size_t l1 = n1 < 0 ? nspa__wlen(s1) : (size_t)n1;
    size_t l2 = n2 < 0 ? nspa__wlen(s2) : (size_t)n2;
    long r = nspa_compare_body(s1, l1, s2, l2, ci);
    return r < 0 ? CSTR_LESS_THAN : r > 0 ? CSTR_GREATER_THAN : CSTR_EQUAL;
}

NSPA_EXPORT VOID NTAPI RtlInitUnicodeString(PUNICODE_STRING dst, PCWSTR src)
{
    dst->Buffer = (PWSTR)src;
    if (src) {
        size_t len = nspa__wlen(src) * sizeof(WCHAR);
        if (len > 0xFFFC) len = 0xFFFC;
        dst->Length = (USHORT)len;
        dst->MaximumLength = (USHORT)(len + sizeof(WCHAR));
    } else {
        dst->Length = dst->MaximumLength = 0;
    }
}

NSPA_EXPORT NTSTATUS NTAPI RtlUTF8ToUnicodeN(PWSTR dst, ULONG dstbytes, PULONG reslen,
                                             PCCH src, ULONG srcbytes)
{
    if (!src) return STATUS_INVALID_PARAMETER_4;
    if (!reslen) return STATUS_INVALID_PARAMETER;
    unsigned st = 0;
    size_t r = srcbytes ? nspa_unicode_ops_get()->utf8_to_utf16((const uint8_t *)src, srcbytes,
                                                                dst, dst ? dstbytes / 2 : 0, &st)
                        : 0;
    *reslen = (ULONG)(r * sizeof(WCHAR));
    if (st & NSPA_UNICODE_TRUNCATED) return STATUS_BUFFER_TOO_SMALL;
    return (st & NSPA_UNICODE_REPLACED) ? STATUS_SOME_NOT_MAPPED : STATUS_SUCCESS;
}

NSPA_EXPORT NTSTATUS NTAPI RtlUnicodeToUTF8N(PCHAR dst, ULONG dstbytes, PULONG reslen,
                                             PCWSTR src, ULONG srcbytes)
{
    if (!src) return STATUS_INVALID_PARAMETER_4;
    if (!reslen) return STATUS_INVALID_PARAMETER;
    if (dst && (srcbytes & 1)) return STATUS_INVALID_PARAMETER_5;
    unsigned st = 0;
    size_t n = srcbytes / sizeof(WCHAR);
    size_t r = n ? nspa_unicode_ops_get()->utf16_to_utf8(src, n, (uint8_t *)dst,
                                                         dst ? dstbytes : 0, &st)
                 : 0;
    *reslen = (ULONG)r;
    if (st & NSPA_UNICODE_TRUNCATED) return STATUS_BUFFER_TOO_SMALL;
    return (st & NSPA_UNICODE_REPLACED) ? STATUS_SOME_NOT_MAPPED : STATUS_SUCCESS;
}

NSPA_EXPORT WCHAR NTAPI RtlUpcaseUnicodeChar(WCHAR c) { return nspa_up(c); }

NSPA_EXPORT LONG NTAPI RtlCompareUnicodeStrings(const WCHAR *s1, SIZE_T l1, const WCHAR *s2,
                                                SIZE_T l2, BOOLEAN ci)
{
    return (LONG)nspa_compare_body(s1, l1, s2, l2, ci);
}

NSPA_EXPORT LONG NTAPI RtlCompareUnicodeString(PCUNICODE_STRING s1, PCUNICODE_STRING s2,
                                               BOOLEAN ci)
{
    return (LONG)nspa_compare_body(s1->Buffer, s1->Length / sizeof(WCHAR), s2->Buffer,
                                   s2->Length / sizeof(WCHAR), ci);
}

NSPA_EXPORT BOOLEAN NTAPI RtlEqualUnicodeString(PCUNICODE_STRING s1, PCUNICODE_STRING s2,
                                                BOOLEAN ci)
{
    if (s1->Length != s2->Length) return FALSE;
    size_t n = s1->Length / sizeof(WCHAR);
    return !n || !nspa_unicode_ops_get()->compare(s1->Buffer, s2->Buffer, n, ci != 0);
}

NSPA_EXPORT NTSTATUS NTAPI RtlHashUnicodeString(PCUNICODE_STRING s, BOOLEAN ci, ULONG alg,
                                                PULONG hash)
{
    if (!s || !hash) return STATUS_INVALID_PARAMETER;
    if (alg != HASH_STRING_ALGORITHM_DEFAULT && alg != HASH_STRING_ALGORITHM_X65599)
        return STATUS_INVALID_PARAMETER;
    size_t n = s->Length / sizeof(WCHAR);
    *hash = n ? nspa_unicode_ops_get()->hash(s->Buffer, n, ci != 0, 0) : 0;
    return STATUS_SUCCESS;
}
