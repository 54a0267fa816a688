/* Internal: the per-ISA operation table and the scalar steps every path shares for the
 * characters its vector windows do not cover. */
#ifndef NSPA_UNICODE_INTERNAL_H
#define NSPA_UNICODE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "nspa/unicode.h"
#include "common/export.h"
#include "unicode/upcase_table.h"

#define NSPA_X65599 65599u

struct nspa_unicode_ops {
    size_t (*utf8_to_utf16)(const uint8_t *s, size_t n, uint16_t *d, size_t cap, unsigned *st);
    size_t (*utf16_to_utf8)(const uint16_t *s, size_t n, uint8_t *d, size_t cap, unsigned *st);
    long (*compare)(const uint16_t *a, const uint16_t *b, size_t n, int ci); /* over min length */
    uint32_t (*hash)(const uint16_t *s, size_t n, int ci, uint32_t h);
};

NSPA_HIDDEN extern const struct nspa_unicode_ops nspa_unicode_scalar_ops;
#ifdef __x86_64__
NSPA_HIDDEN extern const struct nspa_unicode_ops nspa_unicode_sse2_ops;
NSPA_HIDDEN extern const struct nspa_unicode_ops nspa_unicode_avx2_ops;
NSPA_HIDDEN extern const struct nspa_unicode_ops nspa_unicode_avx512_ops;
#endif
NSPA_HIDDEN extern const struct nspa_unicode_ops *nspa_unicode_cur_ops; /* __atomic_* access only */

static inline __attribute__((always_inline)) const struct nspa_unicode_ops *nspa_unicode_ops_get(void)
{
    return __atomic_load_n(&nspa_unicode_cur_ops, __ATOMIC_RELAXED);
}

/* the bodies of nspa_compare_utf16 / nspa_hash_utf16, for the Win32 entry points */
static inline __attribute__((always_inline))
long nspa_compare_body(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, int ci)
{
    size_t n = na < nb ? na : nb;
    long r = n ? nspa_unicode_ops_get()->compare(a, b, n, ci != 0) : 0;
    if (r) return r;
    return na >= nb ? (long)(na - nb) : -(long)(nb - na);
}

/* powers of 65599 modulo 2^32: pw[k] = P^k (k <= 64); pdesc[j] = P^(63 - j) for j < 64 */
NSPA_HIDDEN extern uint32_t nspa_x65599_pw[65];
NSPA_HIDDEN extern uint32_t nspa_x65599_pdesc[64];

static inline __attribute__((always_inline)) uint16_t nspa_up(uint16_t c)
{
    return (uint16_t)(c + nspa_upcase_l2[nspa_upcase_l1[c >> 8] + (c & 0xFF)]);
}

/* One UTF-8 character starting at s[i] (i < n); returns the index after it, *cp is the
 * code point or 0xFFFD with *st |= REPLACED. */
static inline __attribute__((always_inline))
size_t nspa_u8_step(const uint8_t *s, size_t i, size_t n, uint32_t *cp, unsigned *st)
{
    uint32_t c = s[i];
    if (c < 0x80) { *cp = c; return i + 1; }
    if (c >= 0xC2 && c <= 0xDF) {
        if (i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
            *cp = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
            return i + 2;
        }
        *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return i + 1;
    }
    if (c >= 0xE0 && c <= 0xEF) {
        if (i + 2 < n && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80) {
            uint32_t v = ((c & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
            if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) { *cp = v; return i + 3; }
            *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return i + 3;
        }
        /* short run: the lead and the continuation bytes that follow it */
        size_t j = i + 1;
        if (j < n && (s[j] & 0xC0) == 0x80) j++;
        *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return j;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (i + 3 < n && (s[i + 1] & 0xC0) == 0x80 && (s[i + 2] & 0xC0) == 0x80 &&
            (s[i + 3] & 0xC0) == 0x80) {
            uint32_t v = ((c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
                         ((uint32_t)(s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
            if (v >= 0x10000 && v <= 0x10FFFF) { *cp = v; return i + 4; }
            *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return i + 4;
        }
        size_t j = i + 1;
        while (j < n && j < i + 3 && (s[j] & 0xC0) == 0x80) j++;
        *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return j;
    }
    *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return i + 1;
}

/* One UTF-16 character starting at s[i] (i < n); returns the index after it. */
static inline __attribute__((always_inline))
size_t nspa_u16_step(const uint16_t *s, size_t i, size_t n, uint32_t *cp, unsigned *st)
{
    uint32_t c = s[i];
    if (c < 0xD800 || c > 0xDFFF) { *cp = c; return i + 1; }
    if (c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
        *cp = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00u);
        return i + 2;
    }
    *cp = 0xFFFD; *st |= NSPA_UNICODE_REPLACED; return i + 1;
}

/* Scalar converters from position (i, o) to the end; the vector paths call these for the
 * part they leave (they also serve as the whole scalar path). */
static inline __attribute__((always_inline))
size_t nspa_u8_to_u16_tail(const uint8_t *s, size_t i, size_t n, uint16_t *d, size_t o,
                           size_t cap, unsigned *st)
{
    uint32_t cp;
    if (!d) {
        while (i < n) {
            i = nspa_u8_step(s, i, n, &cp, st);
            o += 1 + (cp >= 0x10000);
        }
        return o;
    }
    while (i < n) {
        if (s[i] < 0x80) {
            if (o >= cap) goto full;
            d[o++] = s[i++];
            continue;
        }
        unsigned s2 = 0;
        size_t ni = nspa_u8_step(s, i, n, &cp, &s2);
        if (cp < 0x10000) {
            if (o >= cap) goto full;
            d[o++] = (uint16_t)cp;
        } else {
            if (cap - o < 2 || o >= cap) goto full;
            d[o++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
            d[o++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        }
        *st |= s2;
        i = ni;
    }
    return o;
full:
    *st |= NSPA_UNICODE_TRUNCATED;
    return o;
}

static inline __attribute__((always_inline))
size_t nspa_u16_to_u8_tail(const uint16_t *s, size_t i, size_t n, uint8_t *d, size_t o,
                           size_t cap, unsigned *st)
{
    uint32_t cp;
    if (!d) {
        while (i < n) {
            i = nspa_u16_step(s, i, n, &cp, st);
            o += 1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000);
        }
        return o;
    }
    while (i < n) {
        unsigned s2 = 0;
        size_t ni = nspa_u16_step(s, i, n, &cp, &s2);
        if (cp < 0x80) {
            if (o >= cap) goto full;
            d[o++] = (uint8_t)cp;
        } else if (cp < 0x800) {
            if (o >= cap || cap - o < 2) goto full;
            d[o++] = (uint8_t)(0xC0 | (cp >> 6));
            d[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            if (o >= cap || cap - o < 3) goto full;
            d[o++] = (uint8_t)(0xE0 | (cp >> 12));
            d[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
            d[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else {
            if (o >= cap || cap - o < 4) goto full;
            d[o++] = (uint8_t)(0xF0 | (cp >> 18));
            d[o++] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
            d[o++] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
            d[o++] = (uint8_t)(0x80 | (cp & 0x3F));
        }
        *st |= s2;
        i = ni;
    }
    return o;
full:
    *st |= NSPA_UNICODE_TRUNCATED;
    return o;
}

static inline __attribute__((always_inline))
long nspa_cmp_tail(const uint16_t *a, const uint16_t *b, size_t i, size_t n, int ci)
{
    if (ci) {
        for (; i < n; i++) {
            if (a[i] == b[i]) continue;
            long d = (long)nspa_up(a[i]) - (long)nspa_up(b[i]);
            if (d) return d;
        }
    } else {
        for (; i < n; i++) {
            long d = (long)a[i] - (long)b[i];
            if (d) return d;
        }
    }
    return 0;
}

static inline __attribute__((always_inline))
uint32_t nspa_hash_tail(const uint16_t *s, size_t i, size_t n, int ci, uint32_t h)
{
    if (ci) for (; i < n; i++) h = h * NSPA_X65599 + nspa_up(s[i]);
    else    for (; i < n; i++) h = h * NSPA_X65599 + s[i];
    return h;
}

#endif
