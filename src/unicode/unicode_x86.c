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

/* ------------------------------------------------------------------ AVX-512 (F, BW, VL) */
#define TGT __attribute__((target("avx512f,avx512bw,avx512vl,avx2,bmi,bmi2")))
#define FN(x) x##_avx512
#define U8W 64
#define U16W 64
static TGT inline uint64_t u8_mask_avx512(const uint8_t *s)
{
    return _mm512_movepi8_mask(_mm512_loadu_si512((const void *)s));
}
static TGT inline void u8_widen_avx512(const uint8_t *s, uint16_t *d)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
    _mm512_storeu_si512((void *)d, _mm512_cvtepu8_epi16(a));
    _mm512_storeu_si512((void *)(d + 32), _mm512_cvtepu8_epi16(b));
}
static TGT inline void u8_widen_prefix_avx512(const uint8_t *s, uint16_t *d, size_t k)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)s), b = _mm256_loadu_si256((const __m256i *)(s + 32));
    uint64_t m = (1ull << k) - 1;   /* k < 64 */
    _mm512_mask_storeu_epi16((void *)d, (__mmask32)m, _mm512_cvtepu8_epi16(a));
    _mm512_mask_storeu_epi16((void *)(d + 32), (__mmask32)(m >> 32), _mm512_cvtepu8_epi16(b));
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
static TGT inline void u16_narrow_prefix_avx512(const uint16_t *s, uint8_t *d, size_t k)
{
    uint64_t m = (1ull << k) - 1;
    _mm256_mask_storeu_epi8((void *)d, (__mmask32)m,
                            _mm512_cvtepi16_epi8(_mm512_loadu_si512((const void *)s)));
    _mm256_mask_storeu_epi8((void *)(d + 32), (__mmask32)(m >> 32),
                            _mm512_cvtepi16_epi8(_mm512_loadu_si512((const void *)(s + 32))));
}
#define u8_mask u8_mask_avx512
#define u8_widen u8_widen_avx512
#define u8_widen_prefix u8_widen_prefix_avx512
#define u16_mask u16_mask_avx512
#define u16_narrow u16_narrow_avx512
#define u16_narrow_prefix u16_narrow_prefix_avx512
#include "unicode_conv.inc"

static TGT inline __m512i fold_avx512(__m512i v)
{
    __mmask32 m = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16('a')) &
                  _mm512_cmple_epu16_mask(v, _mm512_set1_epi16('z'));
    return _mm512_mask_sub_epi16(v, m, v, _mm512_set1_epi16(0x20));
}

static TGT long compare_avx512(const uint16_t *a, const uint16_t *b, size_t n, int ci)
{
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    for (size_t i = 0; i < n; i += 32) {
        size_t len = n - i < 32 ? n - i : 32;
        __mmask32 lm = (__mmask32)(len == 32 ? 0xFFFFFFFFu : ((1u << len) - 1));
        __m512i va = _mm512_maskz_loadu_epi16(lm, a + i);
        __m512i vb = _mm512_maskz_loadu_epi16(lm, b + i);
        if (ci) {
            if (_mm512_test_epi16_mask(_mm512_or_si512(va, vb), hi)) {
                long r = nspa_cmp_tail(a, b, i, i + len, 1);
                if (r) return r;
                continue;
            }
            va = fold_avx512(va); vb = fold_avx512(vb);
        }
        __mmask32 ne = _mm512_cmpneq_epi16_mask(va, vb);
        if (ne) {
            size_t k = i + (size_t)__builtin_ctz(ne);
            return ci ? (long)nspa_up(a[k]) - (long)nspa_up(b[k]) : (long)a[k] - (long)b[k];
        }
    }
    return 0;
}

/* powers for a window of len units at lanes 0..len-1: P^(len - 1 - t) = pdesc[64 - len + t] */
static TGT uint32_t hash_avx512(const uint16_t *s, size_t n, int ci, uint32_t h)
{
    const __m512i hi = _mm512_set1_epi16((short)0xFF80);
    for (size_t i = 0; i < n; i += 32) {
        size_t len = n - i < 32 ? n - i : 32;
        __mmask32 lm = (__mmask32)(len == 32 ? 0xFFFFFFFFu : ((1u << len) - 1));
        __m512i v = _mm512_maskz_loadu_epi16(lm, s + i);
        if (ci) {
            if (_mm512_test_epi16_mask(v, hi)) { h = nspa_hash_tail(s, i, i + len, 1, h); continue; }
            v = fold_avx512(v);
        }
        const uint32_t *pp = nspa_x65599_pdesc + 64 - len;
        __mmask16 m0 = (__mmask16)lm, m1 = (__mmask16)(lm >> 16);
        __m512i p0 = _mm512_maskz_loadu_epi32(m0, pp);
        __m512i p1 = _mm512_maskz_loadu_epi32(m1, pp + 16);
        __m512i d = _mm512_add_epi32(
            _mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)), p0),
            _mm512_mullo_epi32(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)), p1));
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
