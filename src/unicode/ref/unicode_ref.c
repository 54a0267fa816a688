/* Scalar reference (see unicode_ref.h). Obviously-correct over fast. */
#include <stdio.h>
#include "unicode_ref.h"

static int is_cont(uint8_t b) { return b >= 0x80 && b <= 0xBF; }

/* Decode one character at s[i]: returns bytes consumed, *cp = code point or -1 (invalid). */
static size_t ref_decode(const uint8_t *s, size_t i, size_t n, long *cp)
{
    uint8_t b = s[i];
    int need;          /* continuation bytes the lead announces */
    long v;
    if (b <= 0x7F) { *cp = b; return 1; }
    if (b >= 0xC2 && b <= 0xDF) { need = 1; v = b & 0x1F; }
    else if (b >= 0xE0 && b <= 0xEF) { need = 2; v = b & 0x0F; }
    else if (b >= 0xF0 && b <= 0xF4) { need = 3; v = b & 0x07; }
    else { *cp = -1; return 1; }                /* 80..BF, C0, C1, F5..FF */
    int got = 0;
    while (got < need && i + 1 + got < n && is_cont(s[i + 1 + got])) {
        v = (v << 6) | (s[i + 1 + got] & 0x3F);
        got++;
    }
    if (got < need) { *cp = -1; return 1 + got; }   /* short: one U+FFFD for the run */
    long min = need == 1 ? 0x80 : need == 2 ? 0x800 : 0x10000;
    if (v < min || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) { *cp = -1; return 1 + got; }
    *cp = v;
    return 1 + got;
}

size_t ref_utf8_to_utf16(const uint8_t *s, size_t n, uint16_t *d, size_t cap, unsigned *status)
{
    size_t i = 0, o = 0;
    unsigned st = 0;
    while (i < n) {
        long cp;
        size_t len = ref_decode(s, i, n, &cp);
        int replaced = cp < 0;
        if (replaced) cp = 0xFFFD;
        size_t units = cp >= 0x10000 ? 2 : 1;
        if (d) {
            if (o + units > cap) { st |= 2; break; }
            if (units == 1) d[o] = (uint16_t)cp;
            else {
                d[o] = (uint16_t)(0xD800 | ((cp - 0x10000) >> 10));
                d[o + 1] = (uint16_t)(0xDC00 | ((cp - 0x10000) & 0x3FF));
            }
        }
        if (replaced) st |= 1;   /* only for what was converted */
        o += units;
        i += len;
    }
    if (status) *status = st;
    return o;
}

size_t ref_utf16_to_utf8(const uint16_t *s, size_t n, uint8_t *d, size_t cap, unsigned *status)
{
    size_t i = 0, o = 0;
    unsigned st = 0;
    while (i < n) {
        long cp = s[i];
        size_t len = 1;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (s[i + 1] - 0xDC00);
            len = 2;
        }
        int replaced = cp >= 0xD800 && cp <= 0xDFFF;
        if (replaced) cp = 0xFFFD;
        uint8_t buf[4];
        size_t k;
        if (cp < 0x80) { buf[0] = (uint8_t)cp; k = 1; }
        else if (cp < 0x800) { buf[0] = 0xC0 | (cp >> 6); buf[1] = 0x80 | (cp & 0x3F); k = 2; }
        else if (cp < 0x10000) {
            buf[0] = 0xE0 | (cp >> 12); buf[1] = 0x80 | ((cp >> 6) & 0x3F);
            buf[2] = 0x80 | (cp & 0x3F); k = 3;
        } else {
            buf[0] = 0xF0 | (cp >> 18); buf[1] = 0x80 | ((cp >> 12) & 0x3F);
            buf[2] = 0x80 | ((cp >> 6) & 0x3F); buf[3] = 0x80 | (cp & 0x3F); k = 4;
        }
        if (d) {
            if (o + k > cap) { st |= 2; break; }
            for (size_t j = 0; j < k; j++) d[o + j] = buf[j];
        }
        if (replaced) st |= 1;
        o += k;
        i += len;
    }
    if (status) *status = st;
    return o;
}

static uint16_t ref_up_tbl[65536];
static int ref_up_loaded;

void ref_upcase_set(uint16_t c, uint16_t up)
{
    if (!ref_up_loaded) {
        for (unsigned k = 0; k < 65536; k++) ref_up_tbl[k] = (uint16_t)k;
        ref_up_loaded = 1;
    }
    ref_up_tbl[c] = up;
}

int ref_upcase_load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[128];
    int count = 0;
    unsigned a, b;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (sscanf(line, "%x %x", &a, &b) == 2 && a <= 0xFFFF && b <= 0xFFFF) {
            ref_upcase_set((uint16_t)a, (uint16_t)b);
            count++;
        }
    }
    fclose(f);
    return count;
}

uint16_t ref_upcase(uint16_t c) { return ref_up_loaded ? ref_up_tbl[c] : c; }

long ref_compare(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, int ci)
{
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        long x = ci ? ref_upcase(a[i]) : a[i];
        long y = ci ? ref_upcase(b[i]) : b[i];
        if (x != y) return x - y;
    }
    return (long)na - (long)nb;
}

uint32_t ref_hash(const uint16_t *s, size_t n, int ci)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n; i++) h = h * 65599u + (ci ? ref_upcase(s[i]) : s[i]);
    return h;
}
