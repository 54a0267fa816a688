/* Differential test: every implementation path (scalar, SSE2, AVX2, AVX-512 where the CPU
 * has it) against the scalar reference (src/unicode/ref), on random, valid, nearly valid and
 * adversarial input, every length 0..300, every alignment of source and destination, full
 * and short output buffers and length queries; compare (both cases) and hash on pairs that
 * share long prefixes.
 *
 *   unicode_difftest [--seconds S] [--inputs N] [--seed X]
 * make test runs it time-bounded (default 12 s after the exhaustive length x alignment
 * sweep); bench/unicode/difftest.sh runs it for 10^8 inputs. Prints the inputs checked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nspa/unicode.h"
#include "unicode/ref/unicode_ref.h"
#include "nspa_test.h"

#define MAXLEN 300
#define PAD 64

static uint64_t rng_state;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline unsigned rn(unsigned n) { return (unsigned)(rnd() % n); }

static enum nspa_unicode_isa isas[4];
static int nisa;
static unsigned long long inputs, failures;

/* ---------------------------------------------------------------- generators */
static size_t put_cp(uint8_t *p, uint32_t cp)
{
    if (cp < 0x80) { p[0] = (uint8_t)cp; return 1; }
    if (cp < 0x800) { p[0] = 0xC0 | (cp >> 6); p[1] = 0x80 | (cp & 0x3F); return 2; }
    if (cp < 0x10000) { p[0] = 0xE0 | (cp >> 12); p[1] = 0x80 | ((cp >> 6) & 0x3F); p[2] = 0x80 | (cp & 0x3F); return 3; }
    p[0] = 0xF0 | (cp >> 18); p[1] = 0x80 | ((cp >> 12) & 0x3F); p[2] = 0x80 | ((cp >> 6) & 0x3F); p[3] = 0x80 | (cp & 0x3F); return 4;
}

static uint32_t rand_cp(void)
{
    switch (rn(8)) {
    case 0: case 1: case 2: return rn(0x80);
    case 3: return 0x80 + rn(0x780);
    case 4: { uint32_t c = 0x800 + rn(0xF800); return (c >= 0xD800 && c <= 0xDFFF) ? 0x4E2D : c; }
    case 5: return 0x10000 + rn(0x100000);
    case 6: { static const uint32_t sp[] = { 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF,
                                             0xD7FF, 0xE000, 0xFFFD, 0x131, 0x17F, 0x212A, 0xFF41 };
              return sp[rn(sizeof sp / sizeof sp[0])]; }
    default: return 'a' + rn(26);
    }
}

/* adversarial UTF-8 fragments */
static const char *const frag8[] = {
    "\xC0", "\xC1", "\xC0\x80", "\xC1\xBF", "\xC2", "\xDF", "\xE0", "\xE0\x80", "\xE0\x80\x80",
    "\xE0\x9F\xBF", "\xE0\xA0", "\xED\xA0\x80", "\xED\xBF\xBF", "\xED\x9F\xBF", "\xEF\xBF\xBF",
    "\xEF\xBF", "\xF0", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF", "\xF0\x90\x80\x80", "\xF4\x8F\xBF\xBF",
    "\xF4\x90\x80\x80", "\xF4\x90", "\xF5\x80\x80\x80", "\xF8\xA3\xA3\xA3\xA3", "\xFC\x80", "\xFE",
    "\xFF", "\x80", "\xBF", "\x82\xA0\x82\xA2", "\xE6", "\xE6\x97", "\xF0\x9F\x98", "\xF0\x9F\x98\x80",
    "\xE0\x20\xC0", "\xC0\xC0\x80", "\x00", "\xC2\x80", "\xE2\x82\xAC",
};

static size_t gen_utf8(uint8_t *p, size_t len)
{
    size_t o = 0;
    unsigned kind = rn(6);
    if (kind == 0) {                       /* random bytes */
        for (; o < len; o++) p[o] = (uint8_t)rnd();
        return o;
    }
    while (o < len) {
        uint8_t tmp[16];
        size_t k;
        unsigned what = rn(16);
        if (kind == 1 || what < 8) {       /* valid character */
            k = put_cp(tmp, rand_cp());
        } else if (what < 11) {            /* ASCII run up to window boundaries */
            k = 1 + rn(15);
            for (size_t j = 0; j < k; j++) tmp[j] = (uint8_t)('A' + rn(58));
        } else if (what < 14 || kind == 3) { /* adversarial fragment */
            const char *f = frag8[rn(sizeof frag8 / sizeof frag8[0])];
            k = strlen(f);
            if (!k) { tmp[0] = 0; k = 1; } else memcpy(tmp, f, k);
        } else {                           /* a single random byte */
            tmp[0] = (uint8_t)rnd(); k = 1;
        }
        if (o + k > len) k = len - o;
        memcpy(p + o, tmp, k);
        o += k;
    }
    if (kind == 4 && len) {                /* nearly valid: mutate a few bytes */
        for (unsigned m = 1 + rn(3); m; m--) {
            size_t at = rn((unsigned)len);
            switch (rn(4)) {
            case 0: p[at] ^= (uint8_t)(1u << rn(8)); break;
            case 1: p[at] = 0x80 | rn(0x40); break;
            case 2: p[at] = 0xC0 | rn(0x40); break;
            default: p[at] = (uint8_t)rn(0x80); break;
            }
        }
    }
    if (kind == 5 && len) {                /* long ASCII with one odd byte near a window edge */
        for (size_t j = 0; j < len; j++) p[j] = (uint8_t)(' ' + rn(95));
        static const size_t edges[] = { 7, 8, 15, 16, 31, 32, 63, 64, 127, 128 };
        size_t at = edges[rn(10)] + rn(3);
        if (at >= len) at = len - 1;
        p[at] = (uint8_t)(0x80 + rn(0x80));
    }
    return len;
}

static const uint16_t special16[] = {
    0x0000, 0x007F, 0x0080, 0x00FF, 0x0100, 0x07FF, 0x0800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00,
    0xDFFF, 0xE000, 0xFFFD, 0xFFFF, 0xFF80, 0x8000, 0x0131, 0x017F, 0x212A, 0x00DF, 0x00FF,
    0x0178, 0xFF41, 0x0040, 0x005B, 0x0060, 0x007B, 0x0061, 0x007A, 0x0041, 0x005A, 0x10D0,
};

static size_t gen_utf16(uint16_t *p, size_t len)
{
    unsigned kind = rn(5);
    size_t o = 0;
    while (o < len) {
        unsigned what = rn(16);
        if (kind == 0) { p[o++] = (uint16_t)rnd(); continue; }
        if (what < 9 || kind == 1) {
            uint32_t cp = rand_cp();
            if (cp >= 0x10000) {
                if (o + 2 > len) { p[o++] = 'x'; continue; }
                p[o++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
                p[o++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
            } else p[o++] = (uint16_t)cp;
        } else if (what < 12) {
            p[o++] = special16[rn(sizeof special16 / sizeof special16[0])];
        } else if (what < 14) {
            p[o++] = (uint16_t)(0xD800 + rn(0x800));      /* lone/reversed surrogate */
        } else {
            p[o++] = (uint16_t)(rn(2) ? 'a' + rn(26) : 'A' + rn(26));
        }
    }
    if (kind == 4 && len) {                /* ASCII text with one odd unit near a window edge */
        for (size_t j = 0; j < len; j++) p[j] = (uint16_t)(' ' + rn(95));
        size_t at = rn((unsigned)len);
        p[at] = special16[rn(sizeof special16 / sizeof special16[0])];
    }
    return len;
}

/* b = a with case flips, maybe one different unit, maybe a different length */
static size_t gen_pair(const uint16_t *a, size_t na, uint16_t *b)
{
    size_t nb = na;
    memcpy(b, a, na * 2);
    for (size_t j = 0; j < na; j++)
        if (rn(4) == 0) {
            uint16_t c = b[j];
            if (c >= 'a' && c <= 'z') b[j] = c - 32; else if (c >= 'A' && c <= 'Z') b[j] = c + 32;
            else if (c == 'I') b[j] = 0x131; else if (c == 'S') b[j] = 0x17F; else if (c == 'k') b[j] = 0x212A;
        }
    if (na && rn(2)) b[rn((unsigned)na)] = special16[rn(sizeof special16 / sizeof special16[0])];
    if (rn(4) == 0 && nb) nb -= rn((unsigned)nb + 1);
    else if (rn(4) == 0 && nb < MAXLEN) b[nb++] = (uint16_t)('a' + rn(26));
    return nb;
}

/* ---------------------------------------------------------------- checks */
#define FAIL(...) do { if (failures++ < 20) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void check_u8(const uint8_t *src, size_t n, size_t dalign)
{
    static uint16_t want[MAXLEN * 2 + 8];
    static uint16_t outbuf[MAXLEN * 2 + 2 * PAD];
    unsigned wst, st;
    size_t wn = ref_utf8_to_utf16(src, n, want, sizeof want / 2, &wst);
    /* output capacity: exact, short (truncation) or roomy; one per input */
    unsigned pick = rn(4);
    size_t cap = pick == 0 && wn ? rn((unsigned)wn) : pick == 1 ? wn + 5 : wn;
    static uint16_t exp_short[MAXLEN * 2 + 8];
    const uint16_t *exp = want;
    unsigned est = wst;
    size_t er = wn;
    if (cap < wn) { er = ref_utf8_to_utf16(src, n, exp_short, cap, &est); exp = exp_short; }
    for (int k = 0; k < nisa; k++) {
        nspa_unicode_set_isa(isas[k]);
        size_t q = nspa_utf8_to_utf16((const char *)src, n, NULL, 0, &st);
        if (q != wn || st != wst)
            FAIL("u8->u16 count isa=%s n=%zu: %zu/%u want %zu/%u", nspa_unicode_isa_name(isas[k]), n, q, st, wn, wst);
        {
            uint16_t *d = outbuf + dalign;
            memset(outbuf, 0xA5, (dalign + cap + 4) * 2);
            size_t r = nspa_utf8_to_utf16((const char *)src, n, d, cap, &st);
            int bad = r != er || st != est || memcmp(d, exp, r * 2);
            for (size_t j = r; j < cap + 4 && !bad; j++) bad = d[j] != 0xA5A5;
            for (size_t j = 0; j < dalign && !bad; j++) bad = outbuf[j] != 0xA5A5;
            if (bad) FAIL("u8->u16 isa=%s n=%zu cap=%zu: %zu/%u want %zu/%u", nspa_unicode_isa_name(isas[k]), n, cap, r, st, er, est);
        }
    }
}

static void check_u16(const uint16_t *src, size_t n, size_t dalign)
{
    static uint8_t want[MAXLEN * 4 + 8];
    static uint8_t outbuf[MAXLEN * 4 + 2 * PAD];
    unsigned wst, st;
    size_t wn = ref_utf16_to_utf8(src, n, want, sizeof want, &wst);
    unsigned pick = rn(4);
    size_t cap = pick == 0 && wn ? rn((unsigned)wn) : pick == 1 ? wn + 5 : wn;
    static uint8_t exp_short[MAXLEN * 4 + 8];
    const uint8_t *exp = want;
    unsigned est = wst;
    size_t er = wn;
    if (cap < wn) { er = ref_utf16_to_utf8(src, n, exp_short, cap, &est); exp = exp_short; }
    for (int k = 0; k < nisa; k++) {
        nspa_unicode_set_isa(isas[k]);
        size_t q = nspa_utf16_to_utf8(src, n, NULL, 0, &st);
        if (q != wn || st != wst)
            FAIL("u16->u8 count isa=%s n=%zu: %zu/%u want %zu/%u", nspa_unicode_isa_name(isas[k]), n, q, st, wn, wst);
        {
            uint8_t *d = outbuf + dalign;
            memset(outbuf, 0xA5, dalign + cap + 4);
            size_t r = nspa_utf16_to_utf8(src, n, (char *)d, cap, &st);
            int bad = r != er || st != est || memcmp(d, exp, r);
            for (size_t j = r; j < cap + 4 && !bad; j++) bad = d[j] != 0xA5;
            for (size_t j = 0; j < dalign && !bad; j++) bad = outbuf[j] != 0xA5;
            if (bad) FAIL("u16->u8 isa=%s n=%zu cap=%zu: %zu/%u want %zu/%u", nspa_unicode_isa_name(isas[k]), n, cap, r, st, er, est);
        }
    }
}

static int sgn(long v) { return (v > 0) - (v < 0); }

static void check_names(const uint16_t *a, size_t na, const uint16_t *b, size_t nb)
{
    for (int ci = 0; ci < 2; ci++) {
        long wc = ref_compare(a, na, b, nb, ci);
        uint32_t wha = ref_hash(a, na, ci);
        for (int k = 0; k < nisa; k++) {
            nspa_unicode_set_isa(isas[k]);
            long c = nspa_compare_utf16(a, na, b, nb, ci);
            long c2 = nspa_compare_utf16(b, nb, a, na, ci);
            int eq = nspa_equal_utf16(a, na, b, nb, ci);
            uint32_t ha = nspa_hash_utf16(a, na, ci);
            if (c != wc || sgn(c2) != -sgn(wc) || eq != (wc == 0 && na == nb) || ha != wha)
                FAIL("names isa=%s ci=%d na=%zu nb=%zu: cmp %ld want %ld, hash %08x want %08x",
                     nspa_unicode_isa_name(isas[k]), ci, na, nb, c, wc, ha, wha);
        }
    }
}

static uint8_t buf8[MAXLEN + 2 * PAD];
static uint16_t buf16a[MAXLEN + 2 * PAD], buf16b[MAXLEN + 2 * PAD];

static void one_input(size_t len, size_t align)
{
    uint8_t *s8 = buf8 + (align % PAD);
    gen_utf8(s8, len);
    check_u8(s8, len, rn(PAD));
    uint16_t *a = buf16a + (align % 32), *b = buf16b + rn(32);
    gen_utf16(a, len);
    check_u16(a, len, rn(PAD));
    size_t nb = gen_pair(a, len, b);
    check_names(a, len, b, nb);
    inputs++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double seconds = 12;
    unsigned long long max_inputs = 0;
    uint64_t seed = 0x6e737061u;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--inputs")) max_inputs = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 0);
    }
    const char *env = getenv("NSPA_DIFFTEST_SECONDS");
    if (env) seconds = atof(env);
    rng_state = seed;
    REQUIRE(ref_upcase_load(NSPA_SOURCE_DIR "/tests/unicode_upcase_expect.txt") > 1000);

    for (int i = 0; i <= NSPA_UNICODE_ISA_AVX512; i++)
        if (nspa_unicode_set_isa((enum nspa_unicode_isa)i) == 0) isas[nisa++] = (enum nspa_unicode_isa)i;
    REQUIRE(nisa >= 1);
    printf("paths:");
    for (int i = 0; i < nisa; i++) printf(" %s", nspa_unicode_isa_name(isas[i]));
    printf("\n");

    /* exhaustive sweep: every length 0..300 at every source alignment (bytes 0..63) */
    for (size_t len = 0; len <= MAXLEN; len++)
        for (size_t al = 0; al < PAD; al++)
            one_input(len, al);
    unsigned long long sweep = inputs;

    /* random: until the time budget or input count */
    double t0 = now();
    for (;;) {
        for (int j = 0; j < 256; j++) one_input(rn(MAXLEN + 1), rn(PAD));
        if (max_inputs ? inputs >= max_inputs : now() - t0 >= seconds) break;
        if (max_inputs && inputs % 1000000 < 256) {   /* progress, so a cut-short run still counts */
            printf("progress: %llu inputs, %llu differences\n", inputs, failures);
            fflush(stdout);
        }
        if (failures > 100) break;
    }
    printf("difftest: %llu inputs (%llu in the length x alignment sweep), %llu differences, seed 0x%llx\n",
           inputs, sweep, failures, (unsigned long long)seed);
    CHECK_EQ(failures, 0);
    return nspa_test_done();
}
