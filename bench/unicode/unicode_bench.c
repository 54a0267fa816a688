/* nspa-bench unicode: UTF-8 <-> UTF-16 on 1 MiB buffers (ASCII, mixed-language text, CJK,
 * emoji) and on short names (8..64 units), case-insensitive compare and X65599 hash of
 * 50-unit ASCII names. NSPA (the Win32 entry points, length query + convert as callers do
 * it, on the start-up path and on every forced path) side by side with glibc iconv, ICU
 * (preflight + convert) and NSPA's scalar reference, interleaved in one process.
 *
 *   unicode_bench [rounds] [ms-per-sample] [groups: conv,names,names_ci (default all); "ci"
 *                 runs only the compare/hash group]
 * Prints RESULT lines for tools/benchfmt.py. */
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <windows.h>
#include "nspa/unicode.h"
#include "unicode/ref/unicode_ref.h"
#ifdef NSPA_HAVE_ICU
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utypes.h>
#endif

#define MIB (1u << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rs = 88172645463325252ull;
static unsigned rn(unsigned n) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (unsigned)(rs % n); }

/* ------------------------------------------------------------------ data */
static const char *const words[] = {
    "the", "system", "registry", "value", "file", "name", "object", "handle", "process", "thread",
    "windows", "linux", "kernel", "buffer", "string", "convert", "compare", "hash", "event", "mutex",
    "Program", "Files", "Microsoft", "Config", "Default", "User", "Local", "Settings", "Temp", "data",
};
static const char *const mixed[] = {
    "The quick brown fox jumps over the lazy dog while the committee reviews the budget. ",
    "Le c\u0153ur a ses raisons que la raison ne conna\u00eet point; l'\u00e9t\u00e9 dernier, nous \u00e9tions \u00e0 Gen\u00e8ve. ",
    "Die Gr\u00f6\u00dfe des \u00dcbergangs h\u00e4ngt von der Stra\u00dfenbreite und dem Wetter ab, sagte der Pr\u00fcfer. ",
    "El ni\u00f1o pidi\u00f3 una canci\u00f3n m\u00e1s antes de dormir, y la se\u00f1ora sonri\u00f3. ",
    "\u0421\u044a\u0435\u0448\u044c \u0436\u0435 \u0435\u0449\u0451 \u044d\u0442\u0438\u0445 \u043c\u044f\u0433\u043a\u0438\u0445 \u0444\u0440\u0430\u043d\u0446\u0443\u0437\u0441\u043a\u0438\u0445 \u0431\u0443\u043b\u043e\u043a, \u0434\u0430 \u0432\u044b\u043f\u0435\u0439 \u0447\u0430\u044e. ",
    "\u0397 \u03b3\u03c1\u03ae\u03b3\u03bf\u03c1\u03b7 \u03ba\u03b1\u03c6\u03ad \u03b1\u03bb\u03b5\u03c0\u03bf\u03cd \u03c0\u03b7\u03b4\u03ac \u03c0\u03ac\u03bd\u03c9 \u03b1\u03c0\u03cc \u03c4\u03bf \u03c3\u03ba\u03c5\u03bb\u03af. ",
    "\u6211\u4eec\u5728\u5317\u4eac\u7684\u4f1a\u8bae\u4e0a\u8ba8\u8bba\u4e86\u65b0\u7684\u6587\u4ef6\u7cfb\u7edf\u8bbe\u8ba1\u3002",
    "\u6771\u4eac\u306e\u5929\u6c17\u306f\u6674\u308c\u3067\u3059\u304c\u3001\u660e\u65e5\u306f\u96e8\u304c\u964d\u308b\u304b\u3082\u3057\u308c\u307e\u305b\u3093\u3002",
    "\ub2e4\ub78c\uc950 \ud5cc \ucc47\ubc14\ud034\uc5d0 \ud0c0\uace0\ud30c. ",
    "\u0635\u0641 \u062e\u0644\u0642 \u062e\u0648\u062f \u0643\u0645\u062b\u0644 \u0627\u0644\u0634\u0645\u0633. ",
    "Configuration saved to C:\\Users\\Public\\Documents\\report-2026.txt (42 KiB). ",
};
static const char *const cjk[] = {
    "\u6211\u4eec\u5728\u5317\u4eac\u7684\u4f1a\u8bae\u4e0a\u8ba8\u8bba\u4e86\u65b0\u7684\u6587\u4ef6\u7cfb\u7edf\u8bbe\u8ba1\u3002",
    "\u6771\u4eac\u306e\u5929\u6c17\u306f\u6674\u308c\u3067\u3059\u304c\u3001\u660e\u65e5\u306f\u96e8\u304c\u964d\u308b\u304b\u3082\u3057\u308c\u307e\u305b\u3093\u3002",
    "\u767b\u9332\u3055\u308c\u305f\u30d5\u30a1\u30a4\u30eb\u540d\u3068\u30ec\u30b8\u30b9\u30c8\u30ea\u306e\u5024\u3092\u6bd4\u8f03\u3057\u307e\u3059\u3002",
    "\ub2e4\ub78c\uc950 \ud5cc \ucc47\ubc14\ud034\uc5d0 \ud0c0\uace0\ud30c\u3002",
};
static const char *const emoji[] = {
    "\U0001F600", "\U0001F389", "\U0001F355", "\U0001F680", "\U0001F44D\U0001F3FD", " ", "ok ",
    "\U0001F1EB\U0001F1F7", "\u2764\ufe0f", "\U0001F9D1\u200D\U0001F4BB", "\u6587", "!",
};

static size_t fill(char *buf, size_t cap, const char *const *pool, size_t npool, int spaces)
{
    size_t o = 0;
    for (;;) {
        const char *w = pool[rn((unsigned)npool)];
        size_t l = strlen(w);
        if (o + l + 1 > cap) break;
        memcpy(buf + o, w, l); o += l;
        if (spaces) buf[o++] = rn(12) ? ' ' : '\n';
    }
    while (o < cap && o % 4) buf[o++] = ' ';
    return o;
}

struct dataset {
    const char *name;
    char *u8; size_t n8;
    uint16_t *u16; size_t n16;
};

/* ------------------------------------------------------------------ implementations */
static char *out8;
static uint16_t *out16;
static iconv_t cd_8to16, cd_16to8;
static volatile size_t sink;

static size_t conv_nspa_8to16(const struct dataset *d)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, d->u8, (int)d->n8, NULL, 0);
    return (size_t)MultiByteToWideChar(CP_UTF8, 0, d->u8, (int)d->n8, (WCHAR *)out16, n);
}
static size_t conv_nspa_16to8(const struct dataset *d)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, (const WCHAR *)d->u16, (int)d->n16, NULL, 0, NULL, NULL);
    return (size_t)WideCharToMultiByte(CP_UTF8, 0, (const WCHAR *)d->u16, (int)d->n16, out8, n, NULL, NULL);
}
static size_t conv_ref_8to16(const struct dataset *d)
{
    size_t n = ref_utf8_to_utf16((const uint8_t *)d->u8, d->n8, NULL, 0, NULL);
    return ref_utf8_to_utf16((const uint8_t *)d->u8, d->n8, out16, n, NULL);
}
static size_t conv_ref_16to8(const struct dataset *d)
{
    size_t n = ref_utf16_to_utf8(d->u16, d->n16, NULL, 0, NULL);
    return ref_utf16_to_utf8(d->u16, d->n16, (uint8_t *)out8, n, NULL);
}
/* iconv has no length query: callers size the output for the worst case */
static size_t conv_iconv_8to16(const struct dataset *d)
{
    char *in = d->u8, *out = (char *)out16;
    size_t inl = d->n8, outl = d->n8 * 2 + 16;
    iconv(cd_8to16, NULL, NULL, NULL, NULL);
    if (iconv(cd_8to16, &in, &inl, &out, &outl) == (size_t)-1) { perror("iconv"); exit(1); }
    return (size_t)(out - (char *)out16) / 2;
}
static size_t conv_iconv_16to8(const struct dataset *d)
{
    char *in = (char *)d->u16, *out = out8;
    size_t inl = d->n16 * 2, outl = d->n16 * 3 + 16;
    iconv(cd_16to8, NULL, NULL, NULL, NULL);
    if (iconv(cd_16to8, &in, &inl, &out, &outl) == (size_t)-1) { perror("iconv"); exit(1); }
    return (size_t)(out - out8);
}
#ifdef NSPA_HAVE_ICU
static size_t conv_icu_8to16(const struct dataset *d)
{
    UErrorCode e = U_ZERO_ERROR;
    int32_t n = 0;
    u_strFromUTF8(NULL, 0, &n, d->u8, (int32_t)d->n8, &e);   /* preflight */
    e = U_ZERO_ERROR;
    u_strFromUTF8((UChar *)out16, n, &n, d->u8, (int32_t)d->n8, &e);
    if (U_FAILURE(e) && e != U_STRING_NOT_TERMINATED_WARNING) { fprintf(stderr, "icu %d\n", e); exit(1); }
    return (size_t)n;
}
static size_t conv_icu_16to8(const struct dataset *d)
{
    UErrorCode e = U_ZERO_ERROR;
    int32_t n = 0;
    u_strToUTF8(NULL, 0, &n, (const UChar *)d->u16, (int32_t)d->n16, &e);
    e = U_ZERO_ERROR;
    u_strToUTF8(out8, n, &n, (const UChar *)d->u16, (int32_t)d->n16, &e);
    if (U_FAILURE(e) && e != U_STRING_NOT_TERMINATED_WARNING) { fprintf(stderr, "icu %d\n", e); exit(1); }
    return (size_t)n;
}
#endif

struct impl {
    const char *name;
    int isa;                      /* -1: leave the start-up path */
    size_t (*f8to16)(const struct dataset *);
    size_t (*f16to8)(const struct dataset *);
};

static const struct impl impls[] = {
    { "nspa", -1, conv_nspa_8to16, conv_nspa_16to8 },
    { "iconv", -1, conv_iconv_8to16, conv_iconv_16to8 },
#ifdef NSPA_HAVE_ICU
    { "icu", -1, conv_icu_8to16, conv_icu_16to8 },
#endif
    { "ref", -1, conv_ref_8to16, conv_ref_16to8 },
    { "nspa_scalar", NSPA_UNICODE_ISA_SCALAR, conv_nspa_8to16, conv_nspa_16to8 },
    { "nspa_sse2", NSPA_UNICODE_ISA_SSE2, conv_nspa_8to16, conv_nspa_16to8 },
    { "nspa_avx2", NSPA_UNICODE_ISA_AVX2, conv_nspa_8to16, conv_nspa_16to8 },
    { "nspa_avx512", NSPA_UNICODE_ISA_AVX512, conv_nspa_8to16, conv_nspa_16to8 },
};
#define NIMPL (sizeof impls / sizeof impls[0])

static enum nspa_unicode_isa startup_isa;
static double sample_sec = 0.04;

static int use_impl(const struct impl *im)
{
    if (im->isa < 0) { nspa_unicode_set_isa(startup_isa); return 1; }
    return nspa_unicode_set_isa((enum nspa_unicode_isa)im->isa) == 0;
}

/* GB/s of input bytes for one conversion direction */
static double run_conv(const struct impl *im, const struct dataset *d, int dir)
{
    size_t bytes = dir ? d->n16 * 2 : d->n8;
    double t0 = now(), t;
    unsigned long it = 0;
    do {
        sink += dir ? im->f16to8(d) : im->f8to16(d);
        it++;
    } while ((t = now() - t0) < sample_sec);
    return (double)bytes * it / t / 1e9;
}

/* short names: ns per name, length query + convert */
static char *names8[4096];
static int names8_len[4096];
static WCHAR *names16[4096];
static int names16_len[4096];
#define NNAMES 4096

static double run_names(const struct impl *im, int dir)
{
    double t0 = now(), t;
    unsigned long it = 0;
    struct dataset d;
    do {
        for (int i = 0; i < NNAMES; i++) {
            if (!dir) { d.u8 = names8[i]; d.n8 = (size_t)names8_len[i]; sink += im->f8to16(&d); }
            else { d.u16 = names16[i]; d.n16 = (size_t)names16_len[i]; sink += im->f16to8(&d); }
        }
        it += NNAMES;
    } while ((t = now() - t0) < sample_sec);
    return t / it * 1e9;
}

/* compare / hash of 50-unit ASCII names: pairs equal ignoring case (the whole name is read) */
static WCHAR cmp_a[256][50], cmp_b[256][50];

static double run_cmp(int which)   /* 0 nspa, 1 ref, 2 icu */
{
    double t0 = now(), t;
    unsigned long it = 0;
    long acc = 0;
    do {
        for (int i = 0; i < 256; i++) {
            if (which == 0) acc += CompareStringOrdinal(cmp_a[i], 50, cmp_b[i], 50, TRUE);
            else if (which == 1) acc += ref_compare(cmp_a[i], 50, cmp_b[i], 50, 1);
#ifdef NSPA_HAVE_ICU
            else acc += u_strCaseCompare((const UChar *)cmp_a[i], 50, (const UChar *)cmp_b[i], 50, U_FOLD_CASE_DEFAULT, &(UErrorCode){U_ZERO_ERROR});
#endif
        }
        it += 256;
    } while ((t = now() - t0) < sample_sec);
    sink += (size_t)acc;
    return t / it * 1e9;
}

static double run_hash(int which)  /* 0 nspa, 1 ref */
{
    double t0 = now(), t;
    unsigned long it = 0;
    uint32_t acc = 0;
    do {
        for (int i = 0; i < 256; i++) {
            if (which == 0) {
                UNICODE_STRING u = { 100, 100, cmp_a[i] };
                ULONG h;
                RtlHashUnicodeString(&u, TRUE, HASH_STRING_ALGORITHM_X65599, &h);
                acc += h;
            } else acc += ref_hash(cmp_a[i], 50, 1);
        }
        it += 256;
    } while ((t = now() - t0) < sample_sec);
    sink += acc;
    return t / it * 1e9;
}

static void prepare(struct dataset *d, const char *name, const char *const *pool, size_t np, int spaces)
{
    d->name = name;
    d->u8 = malloc(MIB + 64);
    d->n8 = fill(d->u8, MIB, pool, np, spaces);
    d->u16 = malloc(MIB * 2 + 64);
    d->n16 = nspa_utf8_to_utf16(d->u8, d->n8, d->u16, MIB, NULL);
    /* the reference must agree with the converted data */
    static uint16_t chk[MIB];
    if (ref_utf8_to_utf16((const uint8_t *)d->u8, d->n8, chk, MIB, NULL) != d->n16 || memcmp(chk, d->u16, d->n16 * 2)) {
        fprintf(stderr, "dataset %s: reference mismatch\n", name);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (argc > 2) sample_sec = atof(argv[2]) / 1000.0;
    const char *only = argc > 3 ? argv[3] : "conv,names,names_ci";   /* groups to run */
    int do_conv = strstr(only, "conv") != NULL, do_names = strstr(only, "names") != NULL,
        do_ci = strstr(only, "_ci") != NULL || strstr(only, "ci") == only;
    startup_isa = nspa_unicode_get_isa();
    ref_upcase_load(NSPA_SOURCE_DIR "/tests/unicode_upcase_expect.txt");
    out8 = malloc(MIB * 4 + 64);
    out16 = malloc(MIB * 4 + 64);
    cd_8to16 = iconv_open("UTF-16LE", "UTF-8");
    cd_16to8 = iconv_open("UTF-8", "UTF-16LE");
    if (cd_8to16 == (iconv_t)-1 || cd_16to8 == (iconv_t)-1) { perror("iconv_open"); return 1; }

    static struct dataset ds[4];
    prepare(&ds[0], "ascii", words, sizeof words / sizeof words[0], 1);
    prepare(&ds[1], "mixed", mixed, sizeof mixed / sizeof mixed[0], 0);
    prepare(&ds[2], "cjk", cjk, sizeof cjk / sizeof cjk[0], 0);
    prepare(&ds[3], "emoji", emoji, sizeof emoji / sizeof emoji[0], 0);

    /* names: 8..64 units; 3 of 4 ASCII path components, 1 of 4 mixed */
    for (int i = 0; i < NNAMES; i++) {
        int len = 8 + rn(57);
        char *b = malloc(len * 4 + 8);
        int o = 0;
        const struct dataset *src = (i % 4 == 3) ? &ds[1] : &ds[0];
        size_t at = rn((unsigned)(src->n8 - 512));
        while (at && (src->u8[at] & 0xC0) == 0x80) at++;
        int units = 0;
        while (units < len) {
            unsigned char c = (unsigned char)src->u8[at];
            int l = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
            memcpy(b + o, src->u8 + at, l); o += l; at += l; units += l == 4 ? 2 : 1;
        }
        names8[i] = b; names8_len[i] = o;
        names16[i] = malloc(units * 2 + 8);
        names16_len[i] = (int)nspa_utf8_to_utf16(b, o, names16[i], units, NULL);
    }
    for (int i = 0; i < 256; i++)
        for (int j = 0; j < 50; j++) {
            WCHAR c = (WCHAR)(rn(3) ? 'a' + rn(26) : rn(2) ? '0' + rn(10) : (unsigned)"._-\\ "[rn(5)]);
            cmp_a[i][j] = c;
            cmp_b[i][j] = (c >= 'a' && c <= 'z') ? (WCHAR)(c - 32) : c;
        }

    printf("# unicode bench: start-up path %s, Unicode %s, %d rounds, %.0f ms per sample\n",
           nspa_unicode_isa_name(startup_isa), nspa_unicode_version(), rounds, sample_sec * 1e3);
    for (int r = 0; r < rounds; r++) {
        for (int di = 0; di < 4 && do_conv; di++)
            for (int dir = 0; dir < 2; dir++)
                for (size_t k = 0; k < NIMPL; k++) {
                    if (!use_impl(&impls[k])) continue;
                    double v = run_conv(&impls[k], &ds[di], dir);
                    printf("RESULT bench=%s_%s_1m impl=%s unit=GB/s value=%.3f better=higher\n",
                           dir ? "utf16_to_utf8" : "utf8_to_utf16", ds[di].name, impls[k].name, v);
                }
        for (int dir = 0; dir < 2 && do_names; dir++)
            for (size_t k = 0; k < NIMPL; k++) {
                if (!use_impl(&impls[k])) continue;
                printf("RESULT bench=%s_names impl=%s unit=ns/name value=%.2f better=lower\n",
                       dir ? "utf16_to_utf8" : "utf8_to_utf16", impls[k].name, run_names(&impls[k], dir));
            }
        for (int k = 0; k <= NSPA_UNICODE_ISA_AVX512 + 2 && do_ci; k++) {
            /* k: 0..3 nspa forced paths, 4 ref, 5 icu; "nspa" = the start-up path */
            const char *name;
            double c, h = -1;
            if (k <= NSPA_UNICODE_ISA_AVX512) {
                if (nspa_unicode_set_isa((enum nspa_unicode_isa)k)) continue;
                c = run_cmp(0); h = run_hash(0);
                name = nspa_unicode_isa_name((enum nspa_unicode_isa)k);
                printf("RESULT bench=compare_ci_50 impl=nspa_%s unit=ns/op value=%.2f better=lower\n", name, c);
                printf("RESULT bench=hash_ci_50 impl=nspa_%s unit=ns/op value=%.2f better=lower\n", name, h);
                if (k == (int)startup_isa) {
                    printf("RESULT bench=compare_ci_50 impl=nspa unit=ns/op value=%.2f better=lower\n", c);
                    printf("RESULT bench=hash_ci_50 impl=nspa unit=ns/op value=%.2f better=lower\n", h);
                }
            } else if (k == NSPA_UNICODE_ISA_AVX512 + 1) {
                printf("RESULT bench=compare_ci_50 impl=ref unit=ns/op value=%.2f better=lower\n", run_cmp(1));
                printf("RESULT bench=hash_ci_50 impl=ref unit=ns/op value=%.2f better=lower\n", run_hash(1));
            } else {
#ifdef NSPA_HAVE_ICU
                printf("RESULT bench=compare_ci_50 impl=icu unit=ns/op value=%.2f better=lower\n", run_cmp(2));
#endif
            }
        }
        nspa_unicode_set_isa(startup_isa);
        fflush(stdout);
    }
    return 0;
}
