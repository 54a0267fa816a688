/* The uppercase table covers every UTF-16 unit (0..0xFFFF) and matches the Unicode Character
 * Database: each unit's RtlUpcaseUnicodeChar / nspa_upcase is its simple uppercase mapping
 * (field 12 of UnicodeData.txt) or itself. The expectations come from the UCD, not from the
 * table: tests/unicode_upcase_expect.txt (written by tools/gen_upcase.py straight from the
 * UCD's fields) and, when the unicode-data package is installed, UnicodeData.txt itself,
 * parsed here independently. */
#include <stdio.h>
#include <stdlib.h>
#include "nspa/unicode.h"
#include "unicode/ref/unicode_ref.h"
#include "nspa_test.h"

static uint16_t want[65536];

static int parse_ucd(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    static char line[1024];
    int maps = 0;
    for (unsigned c = 0; c < 65536; c++) want[c] = (uint16_t)c;
    while (fgets(line, sizeof line, f)) {
        /* code;name;gc;ccc;bidi;decomp;dec;digit;num;mirrored;old;comment;upper;lower;title */
        char *fields[15] = {0};
        int nf = 0;
        char *p = line;
        fields[nf++] = p;
        for (; *p && nf < 15; p++) if (*p == ';') { *p = 0; fields[nf++] = p + 1; }
        if (nf < 13) continue;
        unsigned long cp = strtoul(fields[0], NULL, 16);
        if (cp > 0xFFFF || !*fields[12]) continue;
        unsigned long up = strtoul(fields[12], NULL, 16);
        CHECK(up <= 0xFFFF);
        if (up != cp) { want[cp] = (uint16_t)up; maps++; }
    }
    fclose(f);
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
    CHECK_EQ(want[0x131], 'I');
    CHECK_EQ(want[0xD800], 0xD800);
    CHECK_EQ(want[0xFFFF], 0xFFFF);
    /* ASCII-window rule: only a..z change within ASCII; the units that fold INTO ASCII are
     * exactly U+0131 and U+017F */
    for (unsigned c = 0; c < 0x80; c++) CHECK_EQ(nspa_upcase((uint16_t)c), (c >= 'a' && c <= 'z') ? c - 32 : c);
    unsigned into = 0;
    for (unsigned c = 0x80; c < 65536; c++) if (nspa_upcase((uint16_t)c) < 0x80) into++;
    CHECK_EQ(into, 2);

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
