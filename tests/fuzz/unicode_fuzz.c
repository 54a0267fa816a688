/* libFuzzer target: every implementation path against the scalar reference on the fuzzer's
 * bytes (as UTF-8, as UTF-16, and split into two UTF-16 names for compare and hash).
 * Built as a libFuzzer binary when the compiler is clang (tests/unicode.cmake); with gcc the
 * same entry point is driven by tests/fuzz/unicode_fuzz_driver.c. Aborts on a difference. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nspa/unicode.h"
#include "unicode/ref/unicode_ref.h"

#define MAXIN 4096

static enum nspa_unicode_isa isas[4];
static int nisa;

static void init(void)
{
    if (nisa) return;
    if (ref_upcase_load(NSPA_SOURCE_DIR "/tests/unicode_upcase_expect.txt") < 1000) abort();
    for (int i = 0; i <= NSPA_UNICODE_ISA_AVX512; i++)
        if (nspa_unicode_set_isa((enum nspa_unicode_isa)i) == 0) isas[nisa++] = (enum nspa_unicode_isa)i;
}

#define DIFF(what) do { fprintf(stderr, "unicode_fuzz: %s differs on path %s (size %zu)\n", what, \
                                nspa_unicode_isa_name(isas[k]), size); abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint16_t w16[2 * MAXIN + 64], e16[2 * MAXIN + 64], in16[MAXIN + 64];
    static uint8_t w8[4 * MAXIN + 64], e8[4 * MAXIN + 64];
    init();
    if (size < 1 || size > MAXIN) return 0;
    unsigned sel = data[0];
    data++; size--;

    /* UTF-8 -> UTF-16: length query, then into a full, short or roomy buffer */
    unsigned est, st;
    size_t need = ref_utf8_to_utf16(data, size, NULL, 0, &est);
    size_t cap = (sel & 3) == 0 ? need / 2 : (sel & 3) == 1 ? need + 3 : need;
    size_t en = ref_utf8_to_utf16(data, size, e16, cap, &est);
    for (int k = 0; k < nisa; k++) {
        nspa_unicode_set_isa(isas[k]);
        unsigned qs;
        if (nspa_utf8_to_utf16((const char *)data, size, NULL, 0, &qs) != need) DIFF("utf8->utf16 length");
        memset(w16, 0xA5, (cap + 8) * 2);
        size_t r = nspa_utf8_to_utf16((const char *)data, size, w16, cap, &st);
        if (r != en || st != est || memcmp(w16, e16, r * 2)) DIFF("utf8->utf16");
        for (size_t j = r; j < cap + 8; j++) if (w16[j] != 0xA5A5) DIFF("utf8->utf16 (wrote past the output)");
    }

    /* the same bytes as UTF-16 (unaligned input copied to units) */
    size_t n16 = size / 2;
    memcpy(in16, data, n16 * 2);
    need = ref_utf16_to_utf8(in16, n16, NULL, 0, &est);
    cap = (sel & 12) == 0 ? need / 2 : (sel & 12) == 4 ? need + 3 : need;
    en = ref_utf16_to_utf8(in16, n16, e8, cap, &est);
    for (int k = 0; k < nisa; k++) {
        nspa_unicode_set_isa(isas[k]);
        if (nspa_utf16_to_utf8(in16, n16, NULL, 0, NULL) != need) DIFF("utf16->utf8 length");
        memset(w8, 0xA5, cap + 8);
        size_t r = nspa_utf16_to_utf8(in16, n16, (char *)w8, cap, &st);
        if (r != en || st != est || memcmp(w8, e8, r)) DIFF("utf16->utf8");
        for (size_t j = r; j < cap + 8; j++) if (w8[j] != 0xA5) DIFF("utf16->utf8 (wrote past the output)");
    }

    /* two names: the units split at a point chosen by sel; with sel & 16 the second is the
     * first with ASCII case flipped, so that comparisons run deep */
    size_t na = n16 ? (sel * 7u) % (n16 + 1) : 0;
    const uint16_t *a = in16, *b = in16 + na;
    size_t nb = n16 - na;
    static uint16_t flip[MAXIN];
    if (sel & 16) {
        for (size_t j = 0; j < na; j++) {
            uint16_t c = a[j];
            flip[j] = (c >= 'a' && c <= 'z') ? c - 32 : (c >= 'A' && c <= 'Z') ? c + 32 : c;
        }
        b = flip; nb = na;
    }
    for (int ci = 0; ci < 2; ci++) {
        long ec = ref_compare(a, na, b, nb, ci);
        uint32_t eh = ref_hash(a, na, ci);
        for (int k = 0; k < nisa; k++) {
            nspa_unicode_set_isa(isas[k]);
            if (nspa_compare_utf16(a, na, b, nb, ci) != ec) DIFF("compare");
            if (nspa_equal_utf16(a, na, b, nb, ci) != (ec == 0)) DIFF("equal");
            if (nspa_hash_utf16(a, na, ci) != eh) DIFF("hash");
        }
    }
    return 0;
}
