/* The uppercase table covers every UTF-16 unit (0..0xFFFF) and is Windows' table: each
 * unit's RtlUpcaseUnicodeChar / nspa_upcase is its simple uppercase mapping (field 12 of
 * UnicodeData.txt) when that mapping round-trips (the simple lowercase mapping, field 13,
 * of the result is the unit again), else the unit itself. The expectations come from the
 * UCD, not from the table: tests/unicode_upcase_expect.txt (written by tools/gen_upcase.py
 * from the UCD's fields) and, when the unicode-data package is installed, UnicodeData.txt
 * itself, parsed and filtered here independently; and the 27 units Windows leaves alone
 * are listed by hand. */
#include <stdio.h>
#include <stdlib.h>
#include "nspa/unicode.h"
#include "unicode/ref/unicode_ref.h"
#include "nspa_test.h"

static uint16_t want[65536];
static uint16_t lower_of[65536];

/* the non-round-trip units of Unicode 15.0, which map to themselves on Windows */
static const uint16_t windows_self[] = {
    0x00B5, 0x0131, 0x017F, 0x01C5, 0x01C8, 0x01CB, 0x01F2, 0x0345, 0x03C2, 0x03D0,
    0x03D1, 0x03D5, 0x03D6, 0x03F0, 0x03F1, 0x03F5, 0x1C80, 0x1C81, 0x1C82, 0x1C83,
    0x1C84, 0x1C85, 0x1C86, 0x1C87, 0x1C88, 0x1E9B, 0x1FBE,
};

static int parse_ucd(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char line[1024];
    int maps = 0, dropped = 0;
    for (unsigned c = 0; c < 65536; c++) want[c] = lower_of[c] = (uint16_t)c;
    while (fgets(line, sizeof line, f)) {
        /* code;name;gc;ccc;bidi;decomp;dec;digit;num;mirrored;old;comment;upper;lower;title */
        char *fields[15] = {0};
        int nf = 0;
        char *p = line;
        fields[nf++] = p;
        for (; *p && nf < 15; p++) if (*p == ';') { *p = 0; fields[nf++] = p + 1; }
        if (nf < 14) continue;
        unsigned long cp = strtoul(fields[0], NULL, 16);
        if (cp > 0xFFFF) continue;
        if (*fields[13]) lower_of[cp] = (uint16_t)strtoul(fields[13], NULL, 16);
        if (!*fields[12]) continue;
        unsigned long up = strtoul(fields[12], NULL, 16);
        CHECK(up <= 0xFFFF);
        if (up != cp) want[cp] = (uint16_t)up;
    }
    fclose(f);
    /* Windows keeps a mapping only when it round-trips */
    for (unsigned c = 0; c < 65536; c++) {
        if (want[c] == c) continue;
        if (lower_of[want[c]] != c) {
            want[c] = (uint16_t)c;
            dropped++;
        } else {
            maps++;
        }
    }
    CHECK_EQ(dropped, (int)(sizeof windows_self / sizeof windows_self[0]));
    return maps;
}

static void check_all(const char *what)
{
    unsigned bad = 0, mapped = 0;
    for (unsigned c = 0; c < 65536; c++) {
        uint16_t got = nspa_upcase((uint16_t)c);
        if (got != want[c]) {
            if (bad++ < 10) fprintf(stderr, "%s: upcase(%04X) = %04X, UCD says %04X\n", what, c, got, want[c]);
        }
        if (got != c) mapped++;
    }
    printf("%s: %u units checked, %u mapped, %u differences\n", what, 65536u, mapped, bad);
    CHECK_EQ(bad, 0);
}

int main(void)
{
    /* 1: the checked-in UCD extract */
    int n = ref_upcase_load(NSPA_SOURCE_DIR "/tests/unicode_upcase_expect.txt");
    REQUIRE(n > 1000);
    for (unsigned c = 0; c < 65536; c++) want[c] = ref_upcase((uint16_t)c);
    check_all("unicode_upcase_expect.txt");
    /* landmarks that must hold whatever the Unicode version */
    CHECK_EQ(want['a'], 'A');
    CHECK_EQ(want[0x131], 0x131);
    CHECK_EQ(want[0xD800], 0xD800);
    CHECK_EQ(want[0xFFFF], 0xFFFF);
    /* the units Windows leaves alone, by hand (and the expectations agree) */
    for (size_t i = 0; i < sizeof windows_self / sizeof windows_self[0]; i++) {
        CHECK_EQ(nspa_upcase(windows_self[i]), windows_self[i]);
        CHECK_EQ(want[windows_self[i]], windows_self[i]);
    }
    /* their case partners still map: U+03C3 sigma -> U+03A3, U+01C6 -> U+01C4, U+00FF -> U+0178 */
    CHECK_EQ(nspa_upcase(0x03C3), 0x03A3);
    CHECK_EQ(nspa_upcase(0x01C6), 0x01C4);
    CHECK_EQ(nspa_upcase(0x00FF), 0x0178);
    /* ASCII-window rule: only a..z change within ASCII; no unit folds INTO ASCII (U+0131
     * and U+017F would, but do not round-trip) */
    for (unsigned c = 0; c < 0x80; c++) CHECK_EQ(nspa_upcase((uint16_t)c), (c >= 'a' && c <= 'z') ? c - 32 : c);
    unsigned into = 0;
    for (unsigned c = 0x80; c < 65536; c++) if (nspa_upcase((uint16_t)c) < 0x80) into++;
    CHECK_EQ(into, 0);

    /* 2: UnicodeData.txt itself, when installed */
    int m = parse_ucd("/usr/share/unicode/UnicodeData.txt");
    if (m >= 0) {
        CHECK_EQ(m, n);
        check_all("UnicodeData.txt");
    } else {
        printf("UnicodeData.txt not installed: checked against the extract only\n");
    }
    printf("table from Unicode %s\n", nspa_unicode_version());
    return nspa_test_done();
}
