/* x86_64 paths: SSE2 (the baseline), AVX2 and AVX-512 (F+BW+VL). Each function carries its
 * own target attribute, so the library builds for plain x86-64 and the dispatcher in
 * unicode.c picks a path once at start-up. Vector windows cover ASCII (conversions, the
 * case-insensitive compare and hash) or any unit (case-sensitive compare and hash); every
 * other unit goes through the same scalar steps as the scalar path. */
#ifdef __x86_64__
#include <immintrin.h>
#include <string.h>
#include "unicode/unicode_internal.h"

static inline void scalar_widen(const uint8_t *s, uint16_t *d, size_t k)
{
    for (size_t j = 0; j < k; j++) d[j] = s[j];
}
static inline void scalar_narrow(const uint16_t *s, uint8_t *d, size_t k)
{
    for (size_t j = 0; j < k; j++) d[j] = (uint8_t)s[j];
}

/* ------------------------------------------------------------------ SSE2 */
#define TGT
#define FN(x) x##_sse2
#define U8W 16
#define U16W 16
static inline uint64_t u8_mask_sse2(const uint8_t *s)
{
    return (uint32_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)s));
}
static inline void u8_widen_sse2(const uint8_t *s, uint16_t *d)
{
    __m128i v = _mm_loadu_si128((const __m128i *)s), z = _mm_setzero_si128();
    _mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi8(v, z));
    _mm_storeu_si128((__m128i *)(d + 8), _mm_unpackhi_epi8(v, z));
}
static inline uint64_t u16_mask_sse2(const uint16_t *s)
{
    const __m128i hi = _mm_set1_epi16((short)0xFF80), z = _mm_setzero_si128();
    __m128i a = _mm_cmpeq_epi16(_mm_and_si128(_mm_loadu_si128((const __m128i *)s), hi), z);
    __m128i b = _mm_cmpeq_epi16(_mm_and_si128(_mm_loadu_si128((const __m128i *)(s + 8)), hi), z);
    return (~(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(a, b))) & 0xFFFFu;
}
static inline void u16_narrow_sse2(const uint16_t *s, uint8_t *d)
{
    __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 8));
    _mm_storeu_si128((__m128i *)d, _mm_packus_epi16(a, b));
}
#define u8_mask u8_mask_sse2
#define u8_widen u8_widen_sse2
#define u8_widen_prefix scalar_widen
#define u16_mask u16_mask_sse2
#define u16_narrow u16_narrow_sse2
#define u16_narrow_prefix scalar_narrow
#include "unicode_conv.inc"
#undef TGT
#undef FN
#undef U8W
#undef U16W
#undef u8_mask
#undef u8_widen
#undef u8_widen_prefix
#undef u16_mask
#undef u16_narrow
#undef u16_narrow_prefix

/* ASCII fold of 8 units known to be < 0x80: 'a'..'z' -> 'A'..'Z' */
static inline __m128i fold_sse2(__m128i v)
{
    __m128i lo = _mm_cmpgt_epi16(v, _mm_set1_epi16('a' - 1));
    __m128i hi = _mm_cmpgt_epi16(_mm_set1_epi16('z' + 1), v);
    return _mm_sub_epi16(v, _mm_and_si128(_mm_and_si128(lo, hi), _mm_set1_epi16(0x20)));
}
static inline int nonascii_sse2(__m128i v)
{
    return _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xFF80)),
                                             _mm_setzero_si128())) != 0xFFFF;
}

/* compare one 8-unit window at j: 0 equal, else (result + 1) via *r; -1: not ASCII */
static inline int cmp8_sse2(const uint16_t *a, const uint16_t *b, size_t j, int ci, long *r)
{
    __m128i va = _mm_loadu_si128((const __m128i *)(a + j));
    __m128i vb = _mm_loadu_si128((const __m128i *)(b + j));
    if (ci) {
        if (nonascii_sse2(_mm_or_si128(va, vb))) return -1;
        va = fold_sse2(va); vb = fold_sse2(vb);
    }
    unsigned eq = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi16(va, vb));
    if (eq == 0xFFFF) return 0;
    size_t k = j + (size_t)(__builtin_ctz(~eq) >> 1);
    *r = ci ? (long)nspa_up(a[k]) - (long)nspa_up(b[k]) : (long)a[k] - (long)b[k];
    return 1;
}

static long compare_sse2(const uint16_t *a, const uint16_t *b, size_t n, int ci)
{
    if (n < 8) return nspa_cmp_tail(a, b, 0, n, ci);
    for (size_t i = 0;;) {
        size_t j = i + 8 <= n ? i : n - 8;   /* the last window overlaps the previous one */
        long r;
        int c = cmp8_sse2(a, b, j, ci, &r);
        if (c > 0) return r;
        if (c < 0 && (r = nspa_cmp_tail(a, b, j, j + 8, ci))) return r;
        if (j + 8 >= n) return 0;
        i = j + 8;
    }
}

static inline __m128i mullo32_sse2(__m128i a, __m128i b)
{
    __m128i p02 = _mm_mul_epu32(a, b);
    __m128i p13 = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(p02, _MM_SHUFFLE(0, 0, 2, 0)),
                              _mm_shuffle_epi32(p13, _MM_SHUFFLE(0, 0, 2, 0)));
}
static inline uint32_t hsum32_sse2(__m128i v)
{
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(v);
}

static uint32_t hash_sse2(const uint16_t *s, size_t n, int ci, uint32_t h)
{
    const __m128i plo = _mm_loadu_si128((const __m128i *)(nspa_x65599_pdesc + 56));
    const __m128i phi = _mm_loadu_si128((const __m128i *)(nspa_x65599_pdesc + 60));
    const uint32_t p8 = nspa_x65599_pw[8];
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        if (ci) {
            if (nonascii_sse2(v)) { h = nspa_hash_tail(s, i, i + 8, 1, h); continue; }
            v = fold_sse2(v);
        }
        __m128i z = _mm_setzero_si128();
        __m128i d = _mm_add_epi32(mullo32_sse2(_mm_unpacklo_epi16(v, z), plo),
                                  mullo32_sse2(_mm_unpackhi_epi16(v, z), phi));
        h = h * p8 + hsum32_sse2(d);
    }
    return nspa_hash_tail(s, i, n, ci, h);
}

const struct nspa_unicode_ops nspa_unicode_sse2_ops = {
    u8_to_u16_sse2, u16_to_u8_sse2, compare_sse2, hash_sse2,
};

/* ------------------------------------------------------------------ AVX2 */
#define TGT __attribute__((target("avx2")))
#define FN(x) x##_avx2
#define U8W 32
#define U16W 32
static TGT inline uint64_t u8_mask_avx2(const uint8_t *s)
{
    return (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)s));
}
static TGT inline void u8_widen_avx2(const uint8_t *s, uint16_t *d)
{
    __m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)(s + 16));
    _mm256_storeu_si256((__m256i *)d, _mm256_cvtepu8_epi16(a));
    _mm256_storeu_si256((__m256i *)(d + 16), _mm256_cvtepu8_epi16(b));
}
static TGT inline uint64_t u16_mask_avx2(const uint16_t *s)
{
    const __m256i hi = _mm256_set1_epi16((short)0xFF80), z = _mm256_setzero_si256();
    __m256i a = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)s), hi), z);
    __m256i b = _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(s + 16)), hi), z);
    __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), 0xD8);
    return (uint32_t)~(uint32_t)_mm256_movemask_epi8(p);
}
static TGT inline void u16_narrow_avx2(const uint16_t *s, uint8_t *d)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 16));
    _mm256_storeu_si256((__m256i *)d, _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8));
}
static TGT inline void u8_widen_prefix_avx2(const uint8_t *s, uint16_t *d, size_t k)
{
    if (k >= 16) { u8_widen_sse2(s, d); s += 16; d += 16; k -= 16; }
    scalar_widen(s, d, k);
}
static TGT inline void u16_narrow_prefix_avx2(const uint16_t *s, uint8_t *d, size_t k)
{
    if (k >= 16) { u16_narrow_sse2(s, d); s += 16; d += 16; k -= 16; }
    scalar_narrow(s, d, k);
}
#define u8_mask u8_mask_avx2
#define u8_widen u8_widen_avx2
#define u8_widen_prefix u8_widen_prefix_avx2
#define u16_mask u16_mask_avx2
#define u16_narrow u16_narrow_avx2
#define u16_narrow_prefix u16_narrow_prefix_avx2
#include "unicode_conv.inc"
#undef FN
#undef U8W
#undef U16W
#undef u8_mask
#undef u8_widen
#undef u8_widen_prefix
#undef u16_mask
#undef u16_narrow
#undef u16_narrow_prefix

static TGT inline __m256i fold_avx2(__m256i v)
{
    __m256i lo = _mm256_cmpgt_epi16(v, _mm256_set1_epi16('a' - 1));
    __m256i hi = _mm256_cmpgt_epi16(_mm256_set1_epi16('z' + 1), v);
    return _mm256_sub_epi16(v, _mm256_and_si256(_mm256_and_si256(lo, hi), _mm256_set1_epi16(0x20)));
}
static TGT inline int nonascii_avx2(__m256i v)
{
    return !_mm256_testz_si256(v, _mm256_set1_epi16((short)0xFF80));
}

static TGT long compare_avx2(const uint16_t *a, const uint16_t *b, size_t n, int ci)
{
    if (n < 16) return compare_sse2(a, b, n, ci);
    for (size_t i = 0;;) {
        size_t j = i + 16 <= n ? i : n - 16;
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + j));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + j));
        if (ci) {
            if (nonascii_avx2(_mm256_or_si256(va, vb))) {
                long r = nspa_cmp_tail(a, b, j, j + 16, 1);
                if (r) return r;
                goto next;
            }
            va = fold_avx2(va); vb = fold_avx2(vb);
        }
        {
            unsigned eq = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(va, vb));
            if (eq != 0xFFFFFFFFu) {
                size_t k = j + (size_t)(__builtin_ctz(~eq) >> 1);
                return ci ? (long)nspa_up(a[k]) - (long)nspa_up(b[k]) : (long)a[k] - (long)b[k];
            }
        }
    next:
        if (j + 16 >= n) return 0;
        i = j + 16;
    }
}

static TGT inline uint32_t hsum32_avx2(__m256i v)
{
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(x);
}

/* 16 units (lanes below 'from' zeroed) -> sum c_j * P^(15 - j) */
static TGT inline int hash16_avx2(const uint16_t *s, int ci, __m256i keep, uint32_t *dot)
{
    __m256i v = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)s), keep);
    if (ci) {
        if (nonascii_avx2(v)) return 0;
        v = fold_avx2(v);
    }
    const __m256i plo = _mm256_loadu_si256((const __m256i *)(nspa_x65599_pdesc + 48));
    const __m256i phi = _mm256_loadu_si256((const __m256i *)(nspa_x65599_pdesc + 56));
    __m256i d = _mm256_add_epi32(
        _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(v)), plo),
        _mm256_mullo_epi32(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(v, 1)), phi));
    *dot = hsum32_avx2(d);
    return 1;
}

static const uint16_t keep_tbl[32] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
    0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
};

static TGT uint32_t hash_avx2(const uint16_t *s, size_t n, int ci, uint32_t h)
{
    if (n < 16) return hash_sse2(s, n, ci, h);
    const __m256i all = _mm256_set1_epi16(-1);
    const uint32_t p16 = nspa_x65599_pw[16];
    size_t i = 0;
    uint32_t dot;
    for (; n - i >= 16; i += 16) {
        if (hash16_avx2(s + i, ci, all, &dot)) h = h * p16 + dot;
        else h = nspa_hash_tail(s, i, i + 16, 1, h);
    }
    size_t r = n - i;
    if (!r) return h;
    /* the last r units: the window ending at n, lanes before them zeroed */
    __m256i keep = _mm256_loadu_si256((const __m256i *)(keep_tbl + r));
    if (hash16_avx2(s + n - 16, ci, keep, &dot)) return h * nspa_x65599_pw[r] + dot;
    return nspa_hash_tail(s, i, n, ci, h);
}

const struct nspa_unicode_ops nspa_unicode_avx2_ops = {
    u8_to_u16_avx2, u16_to_u8_avx2, compare_avx2, hash_avx2,
};
#undef TGT

/* ------------------------------------------------------------------ AVX-512 (F, BW, VL, VBMI2)
 * ASCII windows as the other paths; non-ASCII 64-byte UTF-8 blocks are validated with
 * vector lookups and decoded with vpcompressw when they hold only BMP characters; UTF-16
 * windows without surrogates are encoded with vpcompressb. */
#define TGT __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi,bmi2,popcnt")))
#define FN(x) x##_avx512
#define U8W 64
#define U16W 64
static TGT inline void u8_widen_avx512(const uint8_t *s, uint16_t *d)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
    _mm512_storeu_si512((void *)d, _mm512_cvtepu8_epi16(a));
    _mm512_storeu_si512((void *)(d + 32), _mm512_cvtepu8_epi16(b));
}
static TGT inline uint64_t u16_mask_avx512(const uint16_t *s)
{
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    uint64_t a = _mm512_test_epi16_mask(_mm512_loadu_si512((const void *)s), hi);
    uint64_t b = _mm512_test_epi16_mask(_mm512_loadu_si512((const void *)(s + 32)), hi);
    return a | (b << 32);
}
static TGT inline void u16_narrow_avx512(const uint16_t *s, uint8_t *d)
{
    _mm256_storeu_si256((__m256i *)d, _mm512_cvtepi16_epi8(_mm512_loadu_si512((const void *)s)));
    _mm256_storeu_si256((__m256i *)(d + 32), _mm512_cvtepi16_epi8(_mm512_loadu_si512((const void *)(s + 32))));
}
/* UTF-8 validation of a 64-byte block that starts on a character boundary, by the
 * three-nibble-lookup method (Keiser & Lemire, "Validating UTF-8 in less than one
 * instruction per byte", 2021): each error class is a bit; a byte pair is invalid when
 * the classes of (previous byte high nibble, previous byte low nibble, this byte high
 * nibble) share a bit, and a byte 2 or 3 after a 3- or 4-byte lead must be a continuation. */
#define KL_TOO_SHORT   0x01
#define KL_TOO_LONG    0x02
#define KL_OVERLONG_3  0x04
#define KL_TOO_LARGE   0x08
#define KL_SURROGATE   0x10
#define KL_OVERLONG_2  0x20
#define KL_TOO_LARGE_1000 0x40
#define KL_OVERLONG_4  0x40
#define KL_TWO_CONTS   0x80
#define KL_CARRY (KL_TOO_SHORT | KL_TOO_LONG | KL_TWO_CONTS)

static TGT inline __m512i kl_table(const int8_t t[16])
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}

static const int8_t kl_b1_high[16] = {
    KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG, KL_TOO_LONG,
    (int8_t)KL_TWO_CONTS, (int8_t)KL_TWO_CONTS, (int8_t)KL_TWO_CONTS, (int8_t)KL_TWO_CONTS,
    KL_TOO_SHORT | KL_OVERLONG_2, KL_TOO_SHORT, KL_TOO_SHORT | KL_OVERLONG_3 | KL_SURROGATE,
    KL_TOO_SHORT | KL_TOO_LARGE | KL_TOO_LARGE_1000 | KL_OVERLONG_4,
};
static const int8_t kl_b1_low[16] = {
    (int8_t)(KL_CARRY | KL_OVERLONG_3 | KL_OVERLONG_2 | KL_OVERLONG_4), (int8_t)(KL_CARRY | KL_OVERLONG_2),
    (int8_t)KL_CARRY, (int8_t)KL_CARRY, (int8_t)(KL_CARRY | KL_TOO_LARGE),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000), (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000), (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000), (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000), (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000 | KL_SURROGATE),
    (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000), (int8_t)(KL_CARRY | KL_TOO_LARGE | KL_TOO_LARGE_1000),
};
static const int8_t kl_b2_high[16] = {
    KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT,
    (int8_t)(KL_TOO_LONG | KL_OVERLONG_2 | KL_TWO_CONTS | KL_OVERLONG_3 | KL_TOO_LARGE_1000 | KL_OVERLONG_4),
    (int8_t)(KL_TOO_LONG | KL_OVERLONG_2 | KL_TWO_CONTS | KL_OVERLONG_3 | KL_TOO_LARGE),
    (int8_t)(KL_TOO_LONG | KL_OVERLONG_2 | KL_TWO_CONTS | KL_SURROGATE | KL_TOO_LARGE),
    (int8_t)(KL_TOO_LONG | KL_OVERLONG_2 | KL_TWO_CONTS | KL_SURROGATE | KL_TOO_LARGE),
    KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT, KL_TOO_SHORT,
};

static TGT inline uint64_t lanes64(size_t k) { return k >= 64 ? ~0ull : ((1ull << k) - 1); }

static TGT inline __m512i hinib(__m512i x) { return _mm512_and_si512(_mm512_srli_epi16(x, 4), _mm512_set1_epi8(0x0F)); }

/* error mask of the block v = s[0..64) (s on a character boundary, s[-3..-1] not looked at) */
static TGT inline uint64_t kl_errors(const uint8_t *s, __m512i v)
{
    __m512i p1 = _mm512_maskz_loadu_epi8(~1ull, s - 1);   /* lane 0 masked: nothing read */
    __m512i p2 = _mm512_maskz_loadu_epi8(~3ull, s - 2);
    __m512i p3 = _mm512_maskz_loadu_epi8(~7ull, s - 3);
    __m512i sc = _mm512_and_si512(
        _mm512_and_si512(_mm512_shuffle_epi8(kl_table(kl_b1_high), hinib(p1)),
                         _mm512_shuffle_epi8(kl_table(kl_b1_low), _mm512_and_si512(p1, _mm512_set1_epi8(0x0F)))),
        _mm512_shuffle_epi8(kl_table(kl_b2_high), hinib(v)));
    uint64_t must = _mm512_cmpge_epu8_mask(p2, _mm512_set1_epi8((char)0xE0)) |
                    _mm512_cmpge_epu8_mask(p3, _mm512_set1_epi8((char)0xF0));
    return _mm512_test_epi8_mask(sc, _mm512_set1_epi8(0x7F)) |
           (_mm512_test_epi8_mask(sc, _mm512_set1_epi8((char)0x80)) ^ must);
}

/* length of the block's leading part made of complete characters (64 minus an incomplete
 * character at the end) */
static TGT inline size_t kl_complete(const uint8_t *s)
{
    if (s[63] >= 0xC0) return 63;
    if (s[62] >= 0xE0) return 62;
    if (s[61] >= 0xF0) return 61;
    return 64;
}

/* decode the complete, valid, BMP-only characters of s[0..t) into d; returns units */
static TGT inline size_t u8_block_decode_avx512(const uint8_t *s, size_t avail, __m512i v, uint64_t leads, uint16_t *d)
{
    __m512i n1 = _mm512_maskz_loadu_epi8(lanes64(avail - 1), s + 1);
    __m512i n2 = _mm512_maskz_loadu_epi8(lanes64(avail - 2), s + 2);
    size_t o = 0;
    for (int h = 0; h < 2; h++) {
        __m256i hv = h ? _mm512_extracti64x4_epi64(v, 1) : _mm512_castsi512_si256(v);
        __m256i h1 = h ? _mm512_extracti64x4_epi64(n1, 1) : _mm512_castsi512_si256(n1);
        __m256i h2 = h ? _mm512_extracti64x4_epi64(n2, 1) : _mm512_castsi512_si256(n2);
        __m512i b0 = _mm512_cvtepu8_epi16(hv);
        __m512i c1 = _mm512_and_si512(_mm512_cvtepu8_epi16(h1), _mm512_set1_epi16(0x3F));
        __m512i c2 = _mm512_and_si512(_mm512_cvtepu8_epi16(h2), _mm512_set1_epi16(0x3F));
        __m512i two = _mm512_or_si512(_mm512_slli_epi16(_mm512_and_si512(b0, _mm512_set1_epi16(0x1F)), 6), c1);
        __m512i three = _mm512_or_si512(_mm512_or_si512(_mm512_slli_epi16(b0, 12), _mm512_slli_epi16(c1, 6)), c2);
        __mmask32 is2 = _mm512_cmpge_epu16_mask(b0, _mm512_set1_epi16(0xC0));
        __mmask32 is3 = _mm512_cmpge_epu16_mask(b0, _mm512_set1_epi16(0xE0));
        __m512i cp = _mm512_mask_mov_epi16(_mm512_mask_mov_epi16(b0, is2, two), is3, three);
        __mmask32 lm = (__mmask32)(leads >> (32 * h));
        unsigned cnt = (unsigned)__builtin_popcount(lm);
        _mm512_mask_storeu_epi16(d + o, (__mmask32)(cnt >= 32 ? 0xFFFFFFFFu : ((1u << cnt) - 1)),
                                 _mm512_maskz_compress_epi16(lm, cp));
        o += cnt;
    }
    return o;
}

static TGT size_t u8_to_u16_avx512(const uint8_t *s, size_t n, uint16_t *d, size_t cap, unsigned *st)
{
    size_t i = 0, o = 0;
    uint32_t cp;
    const __m512i ones = _mm512_set1_epi8((char)0xC0);
    while (n - i >= 64 && (!d || cap - o >= 64)) {
        /* ASCII: 128 bytes per test while it lasts */
        while (n - i >= 128 && (!d || cap - o >= 128)) {
            __m512i a = _mm512_loadu_si512((const void *)(s + i));
            __m512i b = _mm512_loadu_si512((const void *)(s + i + 64));
            if (_mm512_movepi8_mask(_mm512_or_si512(a, b))) break;
            if (d) {
                _mm512_storeu_si512((void *)(d + o), _mm512_cvtepu8_epi16(_mm512_castsi512_si256(a)));
                _mm512_storeu_si512((void *)(d + o + 32), _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(a, 1)));
                _mm512_storeu_si512((void *)(d + o + 64), _mm512_cvtepu8_epi16(_mm512_castsi512_si256(b)));
                _mm512_storeu_si512((void *)(d + o + 96), _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(b, 1)));
            }
            i += 128; o += 128;
        }
        if (n - i < 64 || (d && cap - o < 64)) break;
        __m512i v = _mm512_loadu_si512((const void *)(s + i));
        uint64_t m = _mm512_movepi8_mask(v);
        if (!m) {
            if (d) u8_widen_avx512(s + i, d + o);
            i += 64; o += 64;
            continue;
        }
        if (!kl_errors(s + i, v)) {
            size_t t = kl_complete(s + i);
            uint64_t pre = lanes64(t);
            /* characters start at the bytes that are not continuation bytes */
            uint64_t leads = ~_mm512_cmpeq_epi8_mask(_mm512_and_si512(v, ones), _mm512_set1_epi8((char)0x80)) & pre;
            uint64_t four = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8((char)0xF0)) & pre;
            if (!d) {
                o += (size_t)__builtin_popcountll(leads) + (size_t)__builtin_popcountll(four);
                i += t;
                continue;
            }
            if (!four) {
                o += u8_block_decode_avx512(s + i, n - i, v, leads, d + o);
                i += t;
                continue;
            }
        }
        /* invalid bytes or supplementary characters in this block: the scalar step over it */
        size_t end = i + 64;
        while (i < end && i < n) {
            unsigned s2 = 0;
            size_t ni = nspa_u8_step(s, i, n, &cp, &s2);
            if (d) {
                if (cp < 0x10000) {
                    if (o >= cap) goto full;
                    d[o++] = (uint16_t)cp;
                } else {
                    if (o >= cap || cap - o < 2) goto full;
                    d[o++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
                    d[o++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
                }
            } else {
                o += 1 + (cp >= 0x10000);
            }
            *st |= s2;
            i = ni;
        }
    }
    return nspa_u8_to_u16_tail(s, i, n, d, o, cap, st);
full:
    *st |= NSPA_UNICODE_TRUNCATED;
    return o;
}

/* 16 BMP non-surrogate units (32-bit lanes) -> their UTF-8 bytes, compressed */
static TGT inline size_t u16_half_encode_avx512(__m256i units, uint8_t *d)
{
    __m512i c = _mm512_cvtepu16_epi32(units);
    const __m512i m3f = _mm512_set1_epi32(0x3F);
    __m512i lo6 = _mm512_or_si512(_mm512_and_si512(c, m3f), _mm512_set1_epi32(0x80));
    __m512i mid6 = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(c, 6), m3f), _mm512_set1_epi32(0x80));
    __m512i two = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi32(c, 6), _mm512_set1_epi32(0xC0)),
                                  _mm512_slli_epi32(lo6, 8));
    __m512i three = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi32(c, 12), _mm512_set1_epi32(0xE0)),
                                    _mm512_or_si512(_mm512_slli_epi32(mid6, 8), _mm512_slli_epi32(lo6, 16)));
    __mmask16 ge80 = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x80));
    __mmask16 ge800 = _mm512_cmpge_epu32_mask(c, _mm512_set1_epi32(0x800));
    __m512i w = _mm512_mask_mov_epi32(_mm512_mask_mov_epi32(c, ge80, two), ge800, three);
    uint64_t keep = 0x1111111111111111ull | _pdep_u64(ge80, 0x2222222222222222ull) |
                    _pdep_u64(ge800, 0x4444444444444444ull);
    size_t cnt = (size_t)__builtin_popcountll(keep);
    _mm512_mask_storeu_epi8(d, lanes64(cnt), _mm512_maskz_compress_epi8(keep, w));
    return cnt;
}

static TGT size_t u16_to_u8_avx512(const uint16_t *s, size_t n, uint8_t *d, size_t cap, unsigned *st)
{
    size_t i = 0, o = 0;
    uint32_t cp;
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    while (n - i >= 32 && (!d || cap - o >= 128)) {
        /* ASCII: 128 units per test while it lasts */
        while (n - i >= 128 && (!d || cap - o >= 128)) {
            __m512i a = _mm512_loadu_si512((const void *)(s + i));
            __m512i b = _mm512_loadu_si512((const void *)(s + i + 32));
            __m512i c = _mm512_loadu_si512((const void *)(s + i + 64));
            __m512i e = _mm512_loadu_si512((const void *)(s + i + 96));
            if (_mm512_test_epi16_mask(_mm512_or_si512(_mm512_or_si512(a, b), _mm512_or_si512(c, e)), hi)) break;
            if (d) {
                _mm256_storeu_si256((__m256i *)(d + o), _mm512_cvtepi16_epi8(a));
                _mm256_storeu_si256((__m256i *)(d + o + 32), _mm512_cvtepi16_epi8(b));
                _mm256_storeu_si256((__m256i *)(d + o + 64), _mm512_cvtepi16_epi8(c));
                _mm256_storeu_si256((__m256i *)(d + o + 96), _mm512_cvtepi16_epi8(e));
            }
            i += 128; o += 128;
        }
        if (n - i < 32 || (d && cap - o < 128)) break;
        if (n - i >= 64 && !u16_mask_avx512(s + i)) {
            if (d) u16_narrow_avx512(s + i, d + o);
            i += 64; o += 64;
            continue;
        }
        __m512i v = _mm512_loadu_si512((const void *)(s + i));
        __mmask32 sur = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16((short)0xD800)) &
                        _mm512_cmple_epu16_mask(v, _mm512_set1_epi16((short)0xDFFF));
        if (!sur) {
            if (d) {
                o += u16_half_encode_avx512(_mm512_castsi512_si256(v), d + o);
                o += u16_half_encode_avx512(_mm512_extracti64x4_epi64(v, 1), d + o);
            } else {
                __mmask32 ge80 = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
                __mmask32 ge800 = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800));
                o += 32 + (size_t)__builtin_popcount(ge80) + (size_t)__builtin_popcount(ge800);
            }
            i += 32;
            continue;
        }
        /* surrogates: the scalar step over these 32 units (a pair may cross the end; the
         * room check above covers 32 units of at most 3 bytes and one more pair) */
        size_t end = i + 32;
        while (i < end) {
            unsigned s2 = 0;
            size_t ni = nspa_u16_step(s, i, n, &cp, &s2);
            size_t need = 1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000);
            if (d) {
                uint8_t *p = d + o;
                if (need == 1) p[0] = (uint8_t)cp;
                else if (need == 2) { p[0] = (uint8_t)(0xC0 | (cp >> 6)); p[1] = (uint8_t)(0x80 | (cp & 0x3F)); }
                else if (need == 3) {
                    p[0] = (uint8_t)(0xE0 | (cp >> 12)); p[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
                    p[2] = (uint8_t)(0x80 | (cp & 0x3F));
                } else {
                    p[0] = (uint8_t)(0xF0 | (cp >> 18)); p[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
                    p[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F)); p[3] = (uint8_t)(0x80 | (cp & 0x3F));
                }
            }
            *st |= s2;
            o += need;
            i = ni;
        }
    }
    return nspa_u16_to_u8_tail(s, i, n, d, o, cap, st);
}


static TGT inline __m512i fold_avx512(__m512i v)
{
    __mmask32 m = _mm512_cmplt_epu16_mask(_mm512_sub_epi16(v, _mm512_set1_epi16('a')), _mm512_set1_epi16(26));
    return _mm512_mask_sub_epi16(v, m, v, _mm512_set1_epi16(0x20));
}

static TGT inline __mmask32 lanes32(size_t k) { return (__mmask32)(k >= 32 ? 0xFFFFFFFFu : ((1u << k) - 1)); }

/* 64-unit windows (two vectors), the last one masked: a 50-unit name is one window */
static TGT long compare_avx512(const uint16_t *a, const uint16_t *b, size_t n, int ci)
{
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    for (size_t i = 0; i < n; i += 64) {
        size_t len = n - i < 64 ? n - i : 64;
        __mmask32 m0 = lanes32(len), m1 = lanes32(len > 32 ? len - 32 : 0);
        __m512i a0 = _mm512_maskz_loadu_epi16(m0, a + i), a1 = _mm512_maskz_loadu_epi16(m1, a + i + 32);
        __m512i b0 = _mm512_maskz_loadu_epi16(m0, b + i), b1 = _mm512_maskz_loadu_epi16(m1, b + i + 32);
        if (ci) {
            __m512i any = _mm512_or_si512(_mm512_or_si512(a0, a1), _mm512_or_si512(b0, b1));
            if (_mm512_test_epi16_mask(any, hi)) {
                long r = nspa_cmp_tail(a, b, i, i + len, 1);
                if (r) return r;
                continue;
            }
            a0 = fold_avx512(a0); a1 = fold_avx512(a1); b0 = fold_avx512(b0); b1 = fold_avx512(b1);
        }
        uint64_t ne = (uint64_t)_mm512_cmpneq_epi16_mask(a0, b0) |
                      ((uint64_t)_mm512_cmpneq_epi16_mask(a1, b1) << 32);
        if (ne) {
            size_t k = i + (size_t)__builtin_ctzll(ne);
            return ci ? (long)nspa_up(a[k]) - (long)nspa_up(b[k]) : (long)a[k] - (long)b[k];
        }
    }
    return 0;
}

/* 64-unit windows: h = h * P^len + sum c_t * P^(len - 1 - t), powers pdesc[64 - len + t] */
static TGT uint32_t hash_avx512(const uint16_t *s, size_t n, int ci, uint32_t h)
{
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    for (size_t i = 0; i < n; i += 64) {
        size_t len = n - i < 64 ? n - i : 64;
        __mmask32 m0 = lanes32(len), m1 = lanes32(len > 32 ? len - 32 : 0);
        __m512i v0 = _mm512_maskz_loadu_epi16(m0, s + i), v1 = _mm512_maskz_loadu_epi16(m1, s + i + 32);
        if (ci) {
            if (_mm512_test_epi16_mask(_mm512_or_si512(v0, v1), hi)) { h = nspa_hash_tail(s, i, i + len, 1, h); continue; }
            v0 = fold_avx512(v0); v1 = fold_avx512(v1);
        }
        const uint32_t *pp = nspa_x65599_pdesc + 64 - len;
        __m512i p0 = _mm512_maskz_loadu_epi32((__mmask16)m0, pp);
        __m512i p1 = _mm512_maskz_loadu_epi32((__mmask16)(m0 >> 16), pp + 16);
        __m512i p2 = _mm512_maskz_loadu_epi32((__mmask16)m1, pp + 32);
        __m512i p3 = _mm512_maskz_loadu_epi32((__mmask16)(m1 >> 16), pp + 48);
        __m512i d = _mm512_add_epi32(
            _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v0)), p0),
                             _mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v0, 1)), p1)),
            _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v1)), p2),
                             _mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v1, 1)), p3)));
        /* (not _mm512_reduce_add_epi32: GCC's version adds as signed int, which UBSan flags) */
        h = h * nspa_x65599_pw[len] +
            hsum32_avx2(_mm256_add_epi32(_mm512_castsi512_si256(d), _mm512_extracti64x4_epi64(d, 1)));
    }
    return h;
}

const struct nspa_unicode_ops nspa_unicode_avx512_ops = {
    u8_to_u16_avx512, u16_to_u8_avx512, compare_avx512, hash_avx512,
};
#endif /* __x86_64__ */
