/* NSPA Unicode: path selection (once at start-up, by CPU feature or NSPA_UNICODE_ISA) and
 * the public nspa_* entry points over the selected path. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "unicode/unicode_internal.h"

uint32_t nspa_x65599_pw[65];
uint32_t nspa_x65599_pdesc[64];

const struct nspa_unicode_ops *nspa_unicode_cur_ops = &nspa_unicode_scalar_ops;
static atomic_int cur_isa = NSPA_UNICODE_ISA_SCALAR;

static int isa_supported(enum nspa_unicode_isa isa)
{
    switch (isa) {
    case NSPA_UNICODE_ISA_SCALAR: return 1;
#ifdef __x86_64__
    case NSPA_UNICODE_ISA_SSE2:   return 1; /* the x86_64 baseline */
    case NSPA_UNICODE_ISA_AVX2:   return __builtin_cpu_supports("avx2");
    case NSPA_UNICODE_ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi2") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#endif
    default: return 0;
    }
}

static const struct nspa_unicode_ops *ops_for(enum nspa_unicode_isa isa)
{
    switch (isa) {
#ifdef __x86_64__
    case NSPA_UNICODE_ISA_SSE2:   return &nspa_unicode_sse2_ops;
    case NSPA_UNICODE_ISA_AVX2:   return &nspa_unicode_avx2_ops;
    case NSPA_UNICODE_ISA_AVX512: return &nspa_unicode_avx512_ops;
#endif
    default:                      return &nspa_unicode_scalar_ops;
    }
}

NSPA_EXPORT enum nspa_unicode_isa nspa_unicode_best_isa(void)
{
    for (int i = NSPA_UNICODE_ISA_AVX512; i > NSPA_UNICODE_ISA_SCALAR; i--)
        if (isa_supported((enum nspa_unicode_isa)i)) return (enum nspa_unicode_isa)i;
    return NSPA_UNICODE_ISA_SCALAR;
}

NSPA_EXPORT int nspa_unicode_set_isa(enum nspa_unicode_isa isa)
{
    if ((unsigned)isa > NSPA_UNICODE_ISA_AVX512 || !isa_supported(isa)) return -1;
    __atomic_store_n(&nspa_unicode_cur_ops, ops_for(isa), __ATOMIC_RELEASE);
    atomic_store(&cur_isa, (int)isa);
    return 0;
}

NSPA_EXPORT enum nspa_unicode_isa nspa_unicode_get_isa(void)
{
    return (enum nspa_unicode_isa)atomic_load(&cur_isa);
}

NSPA_EXPORT const char *nspa_unicode_isa_name(enum nspa_unicode_isa isa)
{
    static const char *const names[] = { "scalar", "sse2", "avx2", "avx512" };
    return (unsigned)isa <= NSPA_UNICODE_ISA_AVX512 ? names[isa] : "?";
}

NSPA_EXPORT const char *nspa_unicode_version(void) { return NSPA_UPCASE_UNICODE_VERSION; }

__attribute__((constructor)) static void nspa_unicode_init(void)
{
    uint32_t p = 1;
    for (int k = 0; k <= 64; k++) { nspa_x65599_pw[k] = p; p *= NSPA_X65599; }
    for (int j = 0; j < 64; j++) nspa_x65599_pdesc[j] = nspa_x65599_pw[63 - j];

#ifdef __x86_64__
    __builtin_cpu_init();
#endif
    enum nspa_unicode_isa isa = nspa_unicode_best_isa();
    const char *env = getenv("NSPA_UNICODE_ISA");
    if (env && *env) {
        for (int i = 0; i <= NSPA_UNICODE_ISA_AVX512; i++)
            if (!strcmp(env, nspa_unicode_isa_name((enum nspa_unicode_isa)i)) &&
                isa_supported((enum nspa_unicode_isa)i))
                isa = (enum nspa_unicode_isa)i;
    }
    nspa_unicode_set_isa(isa);
}

NSPA_EXPORT size_t nspa_utf8_to_utf16(const char *src, size_t srclen, uint16_t *dst,
                                      size_t dstlen, unsigned *status)
{
    unsigned st = 0;
    size_t r = srclen ? nspa_unicode_ops_get()->utf8_to_utf16((const uint8_t *)src, srclen,
                                                              dst, dstlen, &st) : 0;
    if (status) *status = st;
    return r;
}

NSPA_EXPORT size_t nspa_utf16_to_utf8(const uint16_t *src, size_t srclen, char *dst,
                                      size_t dstlen, unsigned *status)
{
    unsigned st = 0;
    size_t r = srclen ? nspa_unicode_ops_get()->utf16_to_utf8(src, srclen, (uint8_t *)dst,
                                                              dstlen, &st) : 0;
    if (status) *status = st;
    return r;
}

NSPA_EXPORT uint16_t nspa_upcase(uint16_t c) { return nspa_up(c); }

NSPA_EXPORT long nspa_compare_utf16(const uint16_t *a, size_t na, const uint16_t *b,
                                    size_t nb, int ignore_case)
{
    return nspa_compare_body(a, na, b, nb, ignore_case);
}

NSPA_EXPORT int nspa_equal_utf16(const uint16_t *a, size_t na, const uint16_t *b, size_t nb,
                                 int ignore_case)
{
    if (na != nb) return 0;
    return !na || !nspa_unicode_ops_get()->compare(a, b, na, ignore_case != 0);
}

NSPA_EXPORT uint32_t nspa_hash_utf16(const uint16_t *s, size_t n, int ignore_case)
{
    return n ? nspa_unicode_ops_get()->hash(s, n, ignore_case != 0, 0) : 0;
}
