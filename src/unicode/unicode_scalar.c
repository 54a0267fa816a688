/* The scalar path (every architecture): the shared scalar steps, with 8-byte words to skip
 * over ASCII runs. */
#include <string.h>
#include "unicode/unicode_internal.h"

static inline uint64_t load64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static size_t sc_u8_to_u16(const uint8_t *s, size_t n, uint16_t *d, size_t cap, unsigned *st)
{
    size_t i = 0, o = 0;
    if (!d) {
        /* count: ASCII words count 8, the rest goes through the step */
        while (i < n) {
            while (n - i >= 8 && !(load64(s + i) & 0x8080808080808080ull)) { i += 8; o += 8; }
            if (i >= n) break;
            uint32_t cp;
            i = nspa_u8_step(s, i, n, &cp, st);
            o += 1 + (cp >= 0x10000);
        }
        return o;
    }
    while (i < n) {
        while (n - i >= 8 && cap - o >= 8 && !(load64(s + i) & 0x8080808080808080ull)) {
            for (int k = 0; k < 8; k++) d[o + k] = s[i + k];
            i += 8; o += 8;
        }
        if (i >= n) break;
        if (s[i] < 0x80) {
            if (o >= cap) { *st |= NSPA_UNICODE_TRUNCATED; return o; }
            d[o++] = s[i++];
            continue;
        }
        uint32_t cp;
        unsigned s2 = 0;
        size_t ni = nspa_u8_step(s, i, n, &cp, &s2);
        if (cp < 0x10000) {
            if (o >= cap) { *st |= NSPA_UNICODE_TRUNCATED; return o; }
            d[o++] = (uint16_t)cp;
        } else {
            if (o >= cap || cap - o < 2) { *st |= NSPA_UNICODE_TRUNCATED; return o; }
            d[o++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
            d[o++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        }
        *st |= s2;
        i = ni;
    }
    return o;
}

static size_t sc_u16_to_u8(const uint16_t *s, size_t n, uint8_t *d, size_t cap, unsigned *st)
{
    size_t i = 0, o = 0;
    while (i < n) {
        /* ASCII run, 4 units per word */
        while (n - i >= 4 && (!d || cap - o >= 4) &&
               !(load64(s + i) & 0xFF80FF80FF80FF80ull)) {
            if (d) for (int k = 0; k < 4; k++) d[o + k] = (uint8_t)s[i + k];
            i += 4; o += 4;
        }
        if (i >= n) break;
        /* one character (or the rest when it does not fit) */
        unsigned st2 = 0;
        uint32_t cp;
        size_t ni = nspa_u16_step(s, i, n, &cp, &st2);
        size_t need = 1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000);
        if (d) {
            if (o >= cap || cap - o < need) { *st |= NSPA_UNICODE_TRUNCATED; return o; }
            nspa_u16_to_u8_tail(s, i, ni, d, o, cap, &st2);
        }
        *st |= st2;
        o += need;
        i = ni;
    }
    return o;
}

static long sc_compare(const uint16_t *a, const uint16_t *b, size_t n, int ci)
{
    return nspa_cmp_tail(a, b, 0, n, ci);
}

static uint32_t sc_hash(const uint16_t *s, size_t n, int ci, uint32_t h)
{
    return nspa_hash_tail(s, 0, n, ci, h);
}

const struct nspa_unicode_ops nspa_unicode_scalar_ops = {
    sc_u8_to_u16, sc_u16_to_u8, sc_compare, sc_hash,
};
