/* NSPA Win32 layer: the NT run-time library's string functions (winternl.h / ntifs.h). */
#ifndef NSPA_WIN32_WINTERNL_H
#define NSPA_WIN32_WINTERNL_H

#include "windef.h"
#include "ntstatus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef char CCHAR;
typedef const char *PCCH, *PCSZ;

/* A counted UTF-16 string: Length and MaximumLength are in BYTES, Buffer need not be
 * NUL-terminated. */
typedef struct _UNICODE_STRING {
    USHORT Length;
    USHORT MaximumLength;
    PWSTR  Buffer;
} UNICODE_STRING, *PUNICODE_STRING;
typedef const UNICODE_STRING *PCUNICODE_STRING;

#define HASH_STRING_ALGORITHM_DEFAULT 0
#define HASH_STRING_ALGORITHM_X65599  1
#define HASH_STRING_ALGORITHM_INVALID 0xffffffff

/* RtlInitUnicodeString - point 'dst' at the NUL-terminated 'src' (NULL gives an empty
 * string); Length = its byte length, MaximumLength = Length + 2. Thread-safe. */
VOID NTAPI RtlInitUnicodeString(PUNICODE_STRING DestinationString, PCWSTR SourceString);

/* RtlUTF8ToUnicodeN - convert UTF8StringByteCount bytes of UTF-8 to UTF-16.
 *   UnicodeStringDestination NULL: length query, *UnicodeStringActualByteCount receives the
 *   bytes needed. Otherwise up to UnicodeStringMaxByteCount / 2 WCHARs are written (whole
 *   characters) and *UnicodeStringActualByteCount receives the bytes written.
 * Returns STATUS_SUCCESS; STATUS_SOME_NOT_MAPPED when invalid input was replaced by
 * U+FFFD; STATUS_BUFFER_TOO_SMALL when the output did not fit (wins over
 * SOME_NOT_MAPPED); STATUS_INVALID_PARAMETER_4 for a NULL source and
 * STATUS_INVALID_PARAMETER for a NULL byte-count pointer (Windows' codes; both are
 * "invalid parameter" statuses). Thread-safe. */
NTSTATUS NTAPI RtlUTF8ToUnicodeN(PWSTR UnicodeStringDestination, ULONG UnicodeStringMaxByteCount,
                                 PULONG UnicodeStringActualByteCount, PCCH UTF8StringSource,
                                 ULONG UTF8StringByteCount);

/* RtlUnicodeToUTF8N - convert UnicodeStringByteCount bytes of UTF-16 to UTF-8.
 * As RtlUTF8ToUnicodeN, plus STATUS_INVALID_PARAMETER_5 for an odd byte count when
 * converting (a length query ignores the odd byte, as Windows does). Lone surrogates
 * become EF BF BD and give STATUS_SOME_NOT_MAPPED. Thread-safe. */
NTSTATUS NTAPI RtlUnicodeToUTF8N(PCHAR UTF8StringDestination, ULONG UTF8StringMaxByteCount,
                                 PULONG UTF8StringActualByteCount, PCWSTR UnicodeStringSource,
                                 ULONG UnicodeStringByteCount);

/* RtlUpcaseUnicodeChar - Windows' uppercase of one UTF-16 unit (no locale, no surrogate
 * pairing): the Unicode Character Database's simple uppercase mapping when it
 * round-trips (Windows' table: U+00B5, U+0131, U+017F ... map to themselves). */
WCHAR NTAPI RtlUpcaseUnicodeChar(WCHAR SourceCharacter);

/* RtlCompareUnicodeStrings - ordinal compare of (String1, Length1) and (String2, Length2)
 * (lengths in WCHARs), upcased when CaseInSensitive. Returns the signed difference of the
 * first mismatching units, else Length1 - Length2. Thread-safe. */
LONG NTAPI RtlCompareUnicodeStrings(const WCHAR *String1, SIZE_T Length1, const WCHAR *String2,
                                    SIZE_T Length2, BOOLEAN CaseInSensitive);

/* RtlCompareUnicodeString - the same on UNICODE_STRINGs (Length / 2 units each). */
LONG NTAPI RtlCompareUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                   BOOLEAN CaseInSensitive);

/* RtlEqualUnicodeString - TRUE when both have the same Length and compare equal. */
BOOLEAN NTAPI RtlEqualUnicodeString(PCUNICODE_STRING String1, PCUNICODE_STRING String2,
                                    BOOLEAN CaseInSensitive);

/* RtlHashUnicodeString - X65599 hash of String (h = h * 65599 + unit, upcased when
 * CaseInSensitive, modulo 2^32) into *HashValue. HashAlgorithm must be
 * HASH_STRING_ALGORITHM_DEFAULT or HASH_STRING_ALGORITHM_X65599; otherwise, or for a NULL
 * String or HashValue, STATUS_INVALID_PARAMETER. Thread-safe. */
NTSTATUS NTAPI RtlHashUnicodeString(PCUNICODE_STRING String, BOOLEAN CaseInSensitive,
                                    ULONG HashAlgorithm, PULONG HashValue);

#ifdef __cplusplus
}
#endif
#endif
