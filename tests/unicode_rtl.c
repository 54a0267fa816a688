/* The NT layer: RtlUTF8ToUnicodeN, RtlUnicodeToUTF8N (statuses, byte counts, precedence),
 * RtlUpcaseUnicodeChar, RtlCompareUnicodeString(s), RtlEqualUnicodeString,
 * RtlHashUnicodeString and CompareStringOrdinal, on every implementation path. */
#include <windows.h>
#include "nspa/unicode.h"
#include "nspa_test.h"

static void utf8_to_unicode(void)
{
    WCHAR w[16];
    ULONG n = 12345;
    /* length query: bytes needed */
    CHECK_EQ(RtlUTF8ToUnicodeN(NULL, 0, &n, "abc\xC3\xA9", 5), STATUS_SUCCESS);
    CHECK_EQ(n, 8);
    CHECK_EQ(RtlUTF8ToUnicodeN(NULL, 0, &n, "a\xC0" "b", 3), STATUS_SOME_NOT_MAPPED);
    CHECK_EQ(n, 6);
    CHECK_EQ(RtlUTF8ToUnicodeN(NULL, 0, &n, "\xF0\x9F\x98\x80", 4), STATUS_SUCCESS);
    CHECK_EQ(n, 4);
    /* conversion */
    for (int k = 0; k < 16; k++) w[k] = 0x7F7F;
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, &n, "abc\xC3\xA9", 5), STATUS_SUCCESS);
    CHECK_EQ(n, 8);
    CHECK(w[0] == 'a' && w[2] == 'c' && w[3] == 0xE9 && w[4] == 0x7F7F);
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, &n, "a\xED\xA0\x80" "b", 5), STATUS_SOME_NOT_MAPPED);
    CHECK_EQ(n, 6);
    CHECK(w[0] == 'a' && w[1] == 0xFFFD && w[2] == 'b');
    /* too small: what fits is written, BUFFER_TOO_SMALL wins over SOME_NOT_MAPPED */
    for (int k = 0; k < 16; k++) w[k] = 0x7F7F;
    CHECK_EQ(RtlUTF8ToUnicodeN(w, 4, &n, "\xC0xyz", 4), STATUS_BUFFER_TOO_SMALL);
    CHECK_EQ(n, 4);
    CHECK(w[0] == 0xFFFD && w[1] == 'x' && w[2] == 0x7F7F);
    CHECK_EQ(RtlUTF8ToUnicodeN(w, 5, &n, "xyz", 3), STATUS_BUFFER_TOO_SMALL);  /* odd max: 2 units */
    CHECK_EQ(n, 4);
    CHECK_EQ(RtlUTF8ToUnicodeN(w, 2, &n, "\xF0\x9F\x98\x80", 4), STATUS_BUFFER_TOO_SMALL);
    CHECK_EQ(n, 0);
    /* NUL bytes are characters; an empty source is fine */
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, &n, "a\0b", 3), STATUS_SUCCESS);
    CHECK_EQ(n, 6);
    CHECK_EQ(w[1], 0);
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, &n, "", 0), STATUS_SUCCESS);
    CHECK_EQ(n, 0);
    /* bad arguments */
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, &n, NULL, 3), STATUS_INVALID_PARAMETER_4);
    CHECK_EQ(RtlUTF8ToUnicodeN(w, sizeof w, NULL, "abc", 3), STATUS_INVALID_PARAMETER);
    CHECK_EQ(RtlUTF8ToUnicodeN(NULL, 0, NULL, NULL, 0), STATUS_INVALID_PARAMETER_4);
    CHECK(!NT_SUCCESS(STATUS_INVALID_PARAMETER_4));
}

static void unicode_to_utf8(void)
{
    static const WCHAR s[] = { 'a', 0xE9, 0x20AC, 0xD83D, 0xDE00, 0xDC00 };
    char b[32];
    ULONG n = 999;
    CHECK_EQ(RtlUnicodeToUTF8N(NULL, 0, &n, s, 5 * 2), STATUS_SUCCESS);
    CHECK_EQ(n, 10);
    CHECK_EQ(RtlUnicodeToUTF8N(NULL, 0, &n, s, sizeof s), STATUS_SOME_NOT_MAPPED);
    CHECK_EQ(n, 13);
    memset(b, 0x7F, sizeof b);
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, &n, s, sizeof s), STATUS_SOME_NOT_MAPPED);
    CHECK_EQ(n, 13);
    CHECK(!memcmp(b, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBD\x7F", 14));
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, &n, s, 5 * 2), STATUS_SUCCESS);
    /* too small: whole characters only */
    memset(b, 0x7F, sizeof b);
    CHECK_EQ(RtlUnicodeToUTF8N(b, 4, &n, s, sizeof s), STATUS_BUFFER_TOO_SMALL);
    CHECK_EQ(n, 3);
    CHECK_EQ((unsigned char)b[3], 0x7F);
    /* odd byte counts: invalid when converting, the odd byte ignored in a length query */
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, &n, s, 3), STATUS_INVALID_PARAMETER_5);
    CHECK_EQ(RtlUnicodeToUTF8N(NULL, 0, &n, s, 3), STATUS_SUCCESS);
    CHECK_EQ(n, 1);
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, &n, NULL, 2), STATUS_INVALID_PARAMETER_4);
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, NULL, s, 2), STATUS_INVALID_PARAMETER);
    CHECK_EQ(RtlUnicodeToUTF8N(b, sizeof b, &n, s, 0), STATUS_SUCCESS);
    CHECK_EQ(n, 0);
}

static UNICODE_STRING us(const WCHAR *s, size_t n)
{
    UNICODE_STRING u = { (USHORT)(n * 2), (USHORT)(n * 2), (PWSTR)s };
    return u;
}

static void compare_hash(void)
{
    /* upcase: ASCII, Latin-1, the non-ASCII letters that would fold into ASCII (Windows'
     * table leaves them: their mappings do not round-trip), others */
    CHECK_EQ(RtlUpcaseUnicodeChar('a'), 'A');
    CHECK_EQ(RtlUpcaseUnicodeChar('z'), 'Z');
    CHECK_EQ(RtlUpcaseUnicodeChar('A'), 'A');
    CHECK_EQ(RtlUpcaseUnicodeChar('@'), '@');
    CHECK_EQ(RtlUpcaseUnicodeChar('{'), '{');
    CHECK_EQ(RtlUpcaseUnicodeChar(0xE9), 0xC9);
    CHECK_EQ(RtlUpcaseUnicodeChar(0xFF), 0x178);
    CHECK_EQ(RtlUpcaseUnicodeChar(0xDF), 0xDF);      /* sharp s has no single-unit uppercase */
    CHECK_EQ(RtlUpcaseUnicodeChar(0x131), 0x131);    /* dotless i: not a case pair */
    CHECK_EQ(RtlUpcaseUnicodeChar(0x17F), 0x17F);    /* long s: not a case pair */
    CHECK_EQ(RtlUpcaseUnicodeChar(0x212A), 0x212A);  /* Kelvin sign is already uppercase */
    CHECK_EQ(RtlUpcaseUnicodeChar(0x3B1), 0x391);
    CHECK_EQ(RtlUpcaseUnicodeChar(0x430), 0x410);
    CHECK_EQ(RtlUpcaseUnicodeChar(0xFF41), 0xFF21);
    CHECK_EQ(RtlUpcaseUnicodeChar(0xD801), 0xD801);  /* no surrogate pairing */

    static const WCHAR abc[] = { 'a', 'b', 'c' }, ABC[] = { 'A', 'B', 'C' }, abd[] = { 'a', 'b', 'd' };
    static const WCHAR ab[] = { 'a', 'b' };
    CHECK_EQ(RtlCompareUnicodeStrings(abc, 3, ABC, 3, TRUE), 0);
    CHECK_EQ(RtlCompareUnicodeStrings(abc, 3, ABC, 3, FALSE), 'a' - 'A');
    CHECK_EQ(RtlCompareUnicodeStrings(abc, 3, abd, 3, FALSE), 'c' - 'd');
    CHECK_EQ(RtlCompareUnicodeStrings(ABC, 3, abd, 3, TRUE), 'C' - 'D');
    CHECK_EQ(RtlCompareUnicodeStrings(abc, 3, ab, 2, FALSE), 1);
    CHECK_EQ(RtlCompareUnicodeStrings(ab, 2, abc, 3, TRUE), -1);
    CHECK_EQ(RtlCompareUnicodeStrings(NULL, 0, NULL, 0, TRUE), 0);
    /* differences are taken after upcasing: 'I' vs dotless i differ even ignoring case */
    static const WCHAR nameI[] = { 'F', 'I', 'L', 'E' }, name_dotless[] = { 'f', 0x131, 'l', 'e' };
    CHECK_EQ(RtlCompareUnicodeStrings(nameI, 4, name_dotless, 4, TRUE), 'I' - 0x131);
    CHECK(RtlCompareUnicodeStrings(nameI, 4, name_dotless, 4, FALSE) < 0);
    static const WCHAR kelvin[] = { 0x212A }, k[] = { 'k' };
    CHECK_EQ(RtlCompareUnicodeStrings(kelvin, 1, k, 1, TRUE), 0x212A - 'K');
    /* a long ASCII name with the difference deep inside, on every path */
    WCHAR l1[100], l2[100];
    for (int i = 0; i < 100; i++) { l1[i] = (WCHAR)('a' + i % 26); l2[i] = (WCHAR)('A' + i % 26); }
    CHECK_EQ(RtlCompareUnicodeStrings(l1, 100, l2, 100, TRUE), 0);
    l2[77] = 0x17F;   /* long s: itself when upcased */
    CHECK_EQ(RtlCompareUnicodeStrings(l1, 100, l2, 100, TRUE), (WCHAR)('A' + 77 % 26) - 0x17F);
    l1[77] = 's';
    CHECK_EQ(RtlCompareUnicodeStrings(l1, 100, l2, 100, TRUE), 'S' - 0x17F);
    l1[77] = 0x17F;
    CHECK_EQ(RtlCompareUnicodeStrings(l1, 100, l2, 100, TRUE), 0);

    UNICODE_STRING u1 = us(abc, 3), u2 = us(ABC, 3), u3 = us(ab, 2);
    CHECK_EQ(RtlCompareUnicodeString(&u1, &u2, TRUE), 0);
    CHECK_EQ(RtlCompareUnicodeString(&u1, &u3, TRUE), 1);
    CHECK_EQ(RtlCompareUnicodeString(&u3, &u1, FALSE), -1);
    CHECK_EQ(RtlEqualUnicodeString(&u1, &u2, TRUE), TRUE);
    CHECK_EQ(RtlEqualUnicodeString(&u1, &u2, FALSE), FALSE);
    CHECK_EQ(RtlEqualUnicodeString(&u1, &u3, TRUE), FALSE);

    /* hash: X65599 by definition, default = X65599 */
    ULONG h = 0;
    CHECK_EQ(RtlHashUnicodeString(&u1, FALSE, HASH_STRING_ALGORITHM_X65599, &h), STATUS_SUCCESS);
    CHECK_EQ(h, (ULONG)(('a' * 65599u + 'b') * 65599u + 'c'));
    CHECK_EQ(RtlHashUnicodeString(&u1, TRUE, HASH_STRING_ALGORITHM_DEFAULT, &h), STATUS_SUCCESS);
    CHECK_EQ(h, (ULONG)(('A' * 65599u + 'B') * 65599u + 'C'));
    ULONG h2 = 1;
    CHECK_EQ(RtlHashUnicodeString(&u2, TRUE, HASH_STRING_ALGORITHM_X65599, &h2), STATUS_SUCCESS);
    CHECK_EQ(h2, h);
    CHECK_EQ(RtlHashUnicodeString(&u1, TRUE, 2, &h), STATUS_INVALID_PARAMETER);
    CHECK_EQ(RtlHashUnicodeString(&u1, TRUE, HASH_STRING_ALGORITHM_INVALID, &h), STATUS_INVALID_PARAMETER);
    CHECK_EQ(RtlHashUnicodeString(NULL, TRUE, 0, &h), STATUS_INVALID_PARAMETER);
    CHECK_EQ(RtlHashUnicodeString(&u1, TRUE, 0, NULL), STATUS_INVALID_PARAMETER);
    UNICODE_STRING empty = us(NULL, 0);
    CHECK_EQ(RtlHashUnicodeString(&empty, TRUE, 0, &h), STATUS_SUCCESS);
    CHECK_EQ(h, 0);
    /* long names: against the definition, case-insensitive with non-ASCII mixed in */
    WCHAR name[200];
    for (int i = 0; i < 200; i++) name[i] = (WCHAR)(i % 37 == 5 ? 0xE9 : 'a' + i % 26);
    for (int len = 0; len <= 200; len++) {
        UNICODE_STRING u = us(name, (size_t)len);
        uint32_t want_cs = 0, want_ci = 0;
        for (int i = 0; i < len; i++) {
            want_cs = want_cs * 65599u + name[i];
            want_ci = want_ci * 65599u + RtlUpcaseUnicodeChar(name[i]);
        }
        RtlHashUnicodeString(&u, FALSE, 1, &h);
        CHECK_EQ(h, want_cs);
        RtlHashUnicodeString(&u, TRUE, 1, &h);
        CHECK_EQ(h, want_ci);
    }

    /* CompareStringOrdinal */
    static const WCHAR s1[] = { 'a', 'b', 'c', 0 }, s2[] = { 'A', 'B', 'C', 0 }, s3[] = { 'a', 'b', 0 };
    SetLastError(0xBEAF);
    CHECK_EQ(CompareStringOrdinal(s1, -1, s2, -1, TRUE), CSTR_EQUAL);
    CHECK_EQ(CompareStringOrdinal(s1, -1, s2, -1, FALSE), CSTR_GREATER_THAN);
    CHECK_EQ(CompareStringOrdinal(s2, -1, s1, -1, FALSE), CSTR_LESS_THAN);
    CHECK_EQ(CompareStringOrdinal(s3, -1, s1, -1, FALSE), CSTR_LESS_THAN);
    CHECK_EQ(CompareStringOrdinal(s1, 2, s3, -1, FALSE), CSTR_EQUAL);
    CHECK_EQ(CompareStringOrdinal(s1, 4, s1, 3, FALSE), CSTR_GREATER_THAN);   /* the NUL counts when inside the length */
    CHECK_EQ(CompareStringOrdinal(s1, 0, s2, 0, FALSE), CSTR_EQUAL);
    CHECK_EQ(GetLastError(), 0xBEAF);
    static const WCHAR e1[] = { 0xE9, 0 }, e2[] = { 0xC9, 0 };
    CHECK_EQ(CompareStringOrdinal(e1, -1, e2, -1, TRUE), CSTR_EQUAL);
    CHECK_EQ(CompareStringOrdinal(e1, -1, e2, -1, FALSE), CSTR_GREATER_THAN);
    CHECK_EQ(CompareStringOrdinal(NULL, -1, s1, -1, FALSE), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(0xBEAF);
    CHECK_EQ(CompareStringOrdinal(s1, -1, NULL, 0, TRUE), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);

    UNICODE_STRING init;
    RtlInitUnicodeString(&init, s1);
    CHECK(init.Length == 6 && init.MaximumLength == 8 && init.Buffer == s1);
    RtlInitUnicodeString(&init, NULL);
    CHECK(init.Length == 0 && init.MaximumLength == 0 && init.Buffer == NULL);
}

int main(void)
{
    for (int isa = NSPA_UNICODE_ISA_SCALAR; isa <= NSPA_UNICODE_ISA_AVX512; isa++) {
        if (nspa_unicode_set_isa((enum nspa_unicode_isa)isa)) continue;
        printf("path %s\n", nspa_unicode_isa_name((enum nspa_unicode_isa)isa));
        utf8_to_unicode();
        unicode_to_utf8();
        compare_hash();
    }
    return nspa_test_done();
}
