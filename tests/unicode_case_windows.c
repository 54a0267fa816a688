/* Case-insensitive compare and hash use Windows' uppercase table, which leaves the
 * non-round-trip units alone (U+00B5, U+0131, U+017F, U+01C5 ... U+1FBE): two names that
 * differ only in such a unit and its former uppercase are different names for
 * RtlUpcaseUnicodeChar, RtlCompareUnicodeString(s), RtlEqualUnicodeString,
 * CompareStringOrdinal and the case-insensitive RtlHashUnicodeString, while real case
 * pairs (sigma, the DZ digraph) still compare equal. */
#include <windows.h>
#include <winternl.h>
#include "nspa_test.h"

static const WCHAR self_units[] = {
    0x00B5, 0x0131, 0x017F, 0x01C5, 0x01C8, 0x01CB, 0x01F2, 0x0345, 0x03C2, 0x03D0,
    0x03D1, 0x03D5, 0x03D6, 0x03F0, 0x03F1, 0x03F5, 0x1C80, 0x1C81, 0x1C82, 0x1C83,
    0x1C84, 0x1C85, 0x1C86, 0x1C87, 0x1C88, 0x1E9B, 0x1FBE,
};
/* what the UCD's simple uppercase mapping would make of each (and NSPA did before) */
static const WCHAR ucd_upper[] = {
    0x039C, 0x0049, 0x0053, 0x01C4, 0x01C7, 0x01CA, 0x01F1, 0x0399, 0x03A3, 0x0392,
    0x0398, 0x03A6, 0x03A0, 0x039A, 0x03A1, 0x0395, 0x0412, 0x0414, 0x041E, 0x0421,
    0x0422, 0x0422, 0x042A, 0x0462, 0xA64A, 0x1E60, 0x0399,
};

static ULONG hash_ci(const WCHAR *s, USHORT n)
{
    UNICODE_STRING u = { (USHORT)(n * 2), (USHORT)(n * 2), (PWSTR)s };
    ULONG h = 0;
    CHECK_EQ(RtlHashUnicodeString(&u, TRUE, HASH_STRING_ALGORITHM_X65599, &h), STATUS_SUCCESS);
    return h;
}

static int equal_ci(const WCHAR *a, const WCHAR *b, USHORT n)
{
    UNICODE_STRING ua = { (USHORT)(n * 2), (USHORT)(n * 2), (PWSTR)a };
    UNICODE_STRING ub = { (USHORT)(n * 2), (USHORT)(n * 2), (PWSTR)b };
    int eq = RtlEqualUnicodeString(&ua, &ub, TRUE) != 0;
    CHECK_EQ(eq, RtlCompareUnicodeString(&ua, &ub, TRUE) == 0);
    CHECK_EQ(eq, RtlCompareUnicodeStrings(a, n, b, n, TRUE) == 0);
    CHECK_EQ(eq, CompareStringOrdinal(a, n, b, n, TRUE) == CSTR_EQUAL);
    return eq;
}

int main(void)
{
    for (size_t i = 0; i < sizeof self_units / sizeof self_units[0]; i++) {
        WCHAR c = self_units[i], up = ucd_upper[i];
        CHECK_EQ(RtlUpcaseUnicodeChar(c), c);
        /* "name<c>" and "name<UCD uppercase of c>" are two names */
        WCHAR a[] = { 'n', 'a', 'm', 'e', c }, b[] = { 'N', 'A', 'M', 'E', up };
        CHECK(!equal_ci(a, b, 5));
        CHECK(hash_ci(a, 5) != hash_ci(b, 5));
        /* and a name equals itself in any ASCII case */
        WCHAR a2[] = { 'N', 'a', 'M', 'e', c };
        CHECK(equal_ci(a, a2, 5));
        CHECK_EQ(hash_ci(a, 5), hash_ci(a2, 5));
    }
    /* real case pairs still fold */
    static const WCHAR pairs[][2] = {
        { 0x03C3, 0x03A3 }, { 0x01C6, 0x01C4 }, { 0x00E9, 0x00C9 }, { 0x0446, 0x0426 },
        { 0x00FF, 0x0178 }, { 'z', 'Z' },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        CHECK_EQ(RtlUpcaseUnicodeChar(pairs[i][0]), pairs[i][1]);
        CHECK(equal_ci(&pairs[i][0], &pairs[i][1], 1));
        CHECK_EQ(hash_ci(&pairs[i][0], 1), hash_ci(&pairs[i][1], 1));
    }
    /* ASCII 'i' and dotless i differ; so do 's' and long s */
    WCHAR i1[] = { 'i' }, i2[] = { 0x0131 }, s1[] = { 's' }, s2[] = { 0x017F };
    CHECK(!equal_ci(i1, i2, 1));
    CHECK(!equal_ci(s1, s2, 1));
    return nspa_test_done();
}
