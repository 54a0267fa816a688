/* NSPA Unicode: UTF-8 <-> UTF-16 conversion, case-insensitive compare and hash of UTF-16
 * names, with Windows' exact answers (MultiByteToWideChar/WideCharToMultiByte for CP_UTF8,
 * RtlUpcaseUnicodeChar, RtlCompareUnicodeStrings, RtlHashUnicodeString X65599).
 *
 * These are the (pointer, length) primitives under the Win32 layer (winnls.h, winternl.h).
 * Lengths are counts of elements (bytes for UTF-8, 16-bit units for UTF-16), never
 * NUL-terminated: a NUL is an ordinary character that is converted like any other.
 *
 * Every function is thread-safe and async-signal-safe (no locks, no allocation, no global
 * state besides the read-only tables and the ISA selection below).
 *
 * Implementation: a scalar path everywhere and, on x86_64, SSE2, AVX2 and AVX-512
 * (F+BW+VL+VBMI2) paths,
 * chosen once at start-up by CPU feature; the environment variable
 * NSPA_UNICODE_ISA=scalar|sse2|avx2|avx512 (read at start-up) or nspa_unicode_set_isa()
 * force one. Every path gives bit-identical results. See docs/unicode.md. */
#ifndef NSPA_UNICODE_H
#define NSPA_UNICODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status bits reported through the 'status' out-argument of the conversions. */
#define NSPA_UNICODE_REPLACED  0x1u  /* invalid input was replaced by U+FFFD (UTF-16 0xFFFD,
                                        UTF-8 EF BF BD); with TRUNCATED, only the part
                                        written counts */
#define NSPA_UNICODE_TRUNCATED 0x2u  /* dst was too small: only whole characters that fit
                                        were written */

/* Implementation paths ("ISA"). */
enum nspa_unicode_isa {
    NSPA_UNICODE_ISA_SCALAR = 0,
    NSPA_UNICODE_ISA_SSE2   = 1,
    NSPA_UNICODE_ISA_AVX2   = 2,
    NSPA_UNICODE_ISA_AVX512 = 3,
};

/* nspa_utf8_to_utf16 - convert UTF-8 to UTF-16 with Windows (Vista+) replacement rules.
 *
 *   src, srclen  the UTF-8 input, srclen bytes (src may be NULL only when srclen is 0).
 *   dst, dstlen  the output buffer of dstlen 16-bit units; dst == NULL asks for the length.
 *   status       if not NULL, receives NSPA_UNICODE_* bits (0 = clean, complete).
 *
 * Returns: with dst == NULL, the number of UTF-16 units the whole input converts to.
 * Otherwise the number of units written; when the output does not fit, the whole
 * characters that fit are written (a surrogate pair is never split) and TRUNCATED is set.
 *
 * Replacement (Windows 10 behaviour): a byte that can never start a sequence (80..BF alone,
 * C0, C1, F5..FF) gives one U+FFFD; a lead byte (C2..F4) consumes the following bytes that
 * look like continuation bytes (80..BF), up to the count its sequence needs; a short run,
 * an overlong form, a surrogate (ED A0..BF ..) or a value above U+10FFFF gives one U+FFFD
 * for the whole consumed run. 4-byte sequences become surrogate pairs. */
size_t nspa_utf8_to_utf16(const char *src, size_t srclen, uint16_t *dst, size_t dstlen,
                          unsigned *status);

/* nspa_utf16_to_utf8 - convert UTF-16 to UTF-8.
 *
 *   src, srclen  the UTF-16 input, srclen units.
 *   dst, dstlen  the output buffer of dstlen bytes; dst == NULL asks for the length.
 *   status       as above.
 *
 * Returns: as nspa_utf8_to_utf16 (bytes instead of units). A high surrogate followed by a
 * low surrogate becomes one 4-byte sequence; any other surrogate unit (lone, reversed)
 * becomes EF BF BD and sets REPLACED. Whole characters only are written. */
size_t nspa_utf16_to_utf8(const uint16_t *src, size_t srclen, char *dst, size_t dstlen,
                          unsigned *status);

/* nspa_upcase - Windows' uppercase of one UTF-16 unit (RtlUpcaseUnicodeChar): the simple
 * uppercase mapping of the Unicode Character Database (the version is
 * nspa_unicode_version()) when it round-trips through the simple lowercase mapping, as
 * in Windows' table (so U+00B5, U+0131, U+017F, U+03C2 ... map to themselves); unit by
 * unit, no locale, surrogates unchanged. */
uint16_t nspa_upcase(uint16_t c);

/* nspa_compare_utf16 - ordinal comparison (RtlCompareUnicodeStrings).
 *
 * Compares a[0..na) with b[0..nb), unit by unit, after nspa_upcase() when ignore_case is
 * non-zero. Returns the signed difference of the first mismatching (upcased) units, else
 * (long)na - (long)nb: negative, zero or positive as a sorts before, equal to or after b.
 * a or b may be NULL when its length is 0. */
long nspa_compare_utf16(const uint16_t *a, size_t na, const uint16_t *b, size_t nb,
                        int ignore_case);

/* nspa_equal_utf16 - 1 if the strings have the same length and compare equal (after
 * nspa_upcase() when ignore_case), else 0 (RtlEqualUnicodeString). */
int nspa_equal_utf16(const uint16_t *a, size_t na, const uint16_t *b, size_t nb,
                     int ignore_case);

/* nspa_hash_utf16 - the X65599 hash of RtlHashUnicodeString: h = 0, then for each unit
 * h = h * 65599 + unit (upcased when ignore_case), modulo 2^32. */
uint32_t nspa_hash_utf16(const uint16_t *s, size_t n, int ignore_case);

/* nspa_unicode_set_isa - force one implementation path for the whole process.
 *
 * Returns 0, or -1 when the path does not exist on this CPU or build (the selection is
 * then unchanged). Thread-safe (the switch is one atomic store; calls already running
 * finish on the old path, with the same results). Meant for tests and benchmarks. */
int nspa_unicode_set_isa(enum nspa_unicode_isa isa);

/* nspa_unicode_get_isa - the path in use. nspa_unicode_best_isa - the best one this CPU
 * supports (what start-up picks without NSPA_UNICODE_ISA). */
enum nspa_unicode_isa nspa_unicode_get_isa(void);
enum nspa_unicode_isa nspa_unicode_best_isa(void);

/* nspa_unicode_isa_name - "scalar", "sse2", "avx2", "avx512" (or "?" for other values). */
const char *nspa_unicode_isa_name(enum nspa_unicode_isa isa);

/* nspa_unicode_version - the Unicode version the uppercase table was generated from. */
const char *nspa_unicode_version(void);

#ifdef __cplusplus
}
#endif
#endif
