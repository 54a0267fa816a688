/* MultiByteToWideChar / WideCharToMultiByte (CP_UTF8) against answers recorded on Windows 10
 * (docs/unicode.md, and the Windows 10 table of the ReactOS api test for
 * MultiByteToWideChar): return value, last error and the exact buffer contents, including
 * the sentinel after the output. Every case runs on every implementation path. */
#include <windows.h>
#include "nspa/unicode.h"
#include "nspa_test.h"

#define SENT 0x7F7F
#define NOERR 0xBEAF

struct mb_case {
    int line;
    int ret;
    DWORD err;
    DWORD flags;
    const char *src;
    int srclen;
    int dstlen;             /* 0: length query with dst NULL */
    WCHAR check[12];        /* expected buffer, sentinel included */
    int checklen;
    int same;               /* src == dst */
};

static const struct mb_case mb[] = {
    /* lengths, NUL handling */
    { __LINE__, 1, NOERR, 0, "a", 1, 0, {0}, 0, 0 },
    { __LINE__, 2, NOERR, 0, "a", 2, 0, {0}, 0, 0 },
    { __LINE__, 2, NOERR, MB_ERR_INVALID_CHARS, "a", 2, 0, {0}, 0, 0 },
    { __LINE__, 2, NOERR, 0, "a", -1, 0, {0}, 0, 0 },
    { __LINE__, 2, NOERR, 0, "a", -2, 0, {0}, 0, 0 },
    { __LINE__, 2, NOERR, MB_ERR_INVALID_CHARS, "a", -3, 0, {0}, 0, 0 },
    { __LINE__, 1, NOERR, 0, "a", 1, 1, {'a', SENT}, 2, 0 },
    { __LINE__, 2, NOERR, 0, "a", 2, 4, {'a', 0, SENT}, 3, 0 },
    { __LINE__, 2, NOERR, MB_ERR_INVALID_CHARS, "a", 2, 4, {'a', 0, SENT}, 3, 0 },
    { __LINE__, 3, NOERR, 0, "a\0b", 3, 4, {'a', 0, 'b', SENT}, 4, 0 },   /* embedded NUL */
    /* short buffer: the characters that fit are written */
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "a", 2, 1, {'a', SENT}, 2, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, MB_ERR_INVALID_CHARS, "a", 2, 1, {'a', SENT}, 2, 0 },
    /* same pointer */
    { __LINE__, 0, ERROR_INVALID_PARAMETER, 0, "", 1, 1, {SENT}, 1, 1 },
    { __LINE__, 0, ERROR_INVALID_PARAMETER, MB_ERR_INVALID_CHARS, "", 1, 1, {SENT}, 1, 1 },
    /* invalid sequences, length query */
    { __LINE__, 2, NOERR, 0, "\xC0", 2, 0, {0}, 0, 0 },
    { __LINE__, 4, NOERR, 0, "\xC0\xC0\x80", 4, 0, {0}, 0, 0 },
    { __LINE__, 3, NOERR, 0, "\xE0\xC0", 3, 0, {0}, 0, 0 },
    { __LINE__, 4, NOERR, 0, "\xE0\x20\xC0", 4, 0, {0}, 0, 0 },
    { __LINE__, 5, NOERR, 0, "\x82\xA0\x82\xA2", -1, 0, {0}, 0, 0 },
    { __LINE__, 6, NOERR, 0, "\x82\xA0\x82\xA2\x82", -1, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xC0", 2, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xC0\xC0\x80", 4, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xE0\xC0", 3, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xE0\x20\xC0", 4, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\x82\xA0\x82\xA2", -1, 0, {0}, 0, 0 },
    /* invalid sequences with a buffer */
    { __LINE__, 2, NOERR, 0, "\xC0", 2, 4, {0xFFFD, 0, SENT}, 3, 0 },
    { __LINE__, 4, NOERR, 0, "\xC0\xC0\x80", 4, 5, {0xFFFD, 0xFFFD, 0xFFFD, 0, SENT}, 5, 0 },
    { __LINE__, 3, NOERR, 0, "\xE0\xC0", 3, 4, {0xFFFD, 0xFFFD, 0, SENT}, 4, 0 },
    { __LINE__, 4, NOERR, 0, "\xE0\x20\xC0", 4, 5, {0xFFFD, 0x0020, 0xFFFD, 0, SENT}, 5, 0 },
    { __LINE__, 5, NOERR, 0, "\x82\xA0\x82\xA2", -1, 5, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0}, 5, 0 },
    { __LINE__, 6, NOERR, 0, "\x82\xA0\x82\xA2\x82", -1, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0, SENT}, 7, 0 },
    /* MB_ERR_INVALID_CHARS: fails, but the output is written */
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xC0", 2, 4, {0xFFFD, 0, SENT}, 3, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xC0\xC0\x80", 4, 5, {0xFFFD, 0xFFFD, 0xFFFD, 0, SENT}, 5, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xE0\x20\xC0", 4, 5, {0xFFFD, 0x0020, 0xFFFD, 0, SENT}, 5, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\x82\xA0\x82\xA2", -1, 6, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0, SENT}, 6, 0 },
    /* short buffer wins over invalid characters */
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "\xC0", 2, 1, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "\xC0\xC0\x80", 4, 1, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, MB_ERR_INVALID_CHARS, "\xE0\xC0", 3, 1, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, MB_ERR_INVALID_CHARS, "\x82\xA0\x82\xA2\x82", -1, 1, {0xFFFD, SENT}, 2, 0 },
    /* Japanese, valid and truncated */
    { __LINE__, 4, NOERR, 0, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 10, 4, {0x65E5, 0x672C, 0x8A9E, 0, SENT}, 5, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 10, 1, {0x65E5, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xE6\x97\xA5", 1, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 0, ERROR_NO_UNICODE_TRANSLATION, MB_ERR_INVALID_CHARS, "\xE6\x97\xA5", 1, 4, {0xFFFD, SENT}, 2, 0 },
    /* 5-, 6-, 7-byte forms and FF: one U+FFFD per byte */
    { __LINE__, 5, NOERR, 0, "\xF8\xA3\xA3\xA3\xA3", 5, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 6, 0 },
    { __LINE__, 6, NOERR, 0, "\xF8\xA3\xA3\xA3\xA3", 6, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0}, 6, 0 },
    { __LINE__, 6, NOERR, 0, "\xFC\xA3\xA3\xA3\xA3\xA3", 6, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 7, 0 },
    { __LINE__, 7, NOERR, 0, "\xFE\xA3\xA3\xA3\xA3\xA3\xA3", 7, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 8, 0 },
    { __LINE__, 8, NOERR, 0, "\xFF\xA3\xA3\xA3\xA3\xA3\xA3\xA3", 8, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 9, 0 },
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "\xFF\xA3\xA3\xA3\xA3\xA3\xA3\xA3", 9, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 9, 0 },
    /* the spec's rule for a lead byte with continuation bytes: overlong, surrogate and
     * > U+10FFFF give one U+FFFD for the whole consumed run; a short run gives one */
    { __LINE__, 1, NOERR, 0, "\xE0\x80\x80", 3, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xED\xA0\x80", 3, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xED\xBF\xBF", 3, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xF4\x90\x80\x80", 4, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xF0\x8F\xBF\xBF", 4, 4, {0xFFFD, SENT}, 2, 0 },
    { __LINE__, 2, NOERR, 0, "\xC0\x80", 2, 4, {0xFFFD, 0xFFFD, SENT}, 3, 0 },
    { __LINE__, 4, NOERR, 0, "\xF5\x80\x80\x80", 4, 8, {0xFFFD, 0xFFFD, 0xFFFD, 0xFFFD, SENT}, 5, 0 },
    { __LINE__, 2, NOERR, 0, "\xE6\x97" "A", 3, 4, {0xFFFD, 'A', SENT}, 3, 0 },
    { __LINE__, 2, NOERR, 0, "\xF0\x9F\x98" "A", 4, 4, {0xFFFD, 'A', SENT}, 3, 0 },
    { __LINE__, 1, NOERR, 0, "\xE6", 1, 4, {0xFFFD, SENT}, 2, 0 },
    /* boundaries that are valid */
    { __LINE__, 1, NOERR, 0, "\xED\x9F\xBF", 3, 4, {0xD7FF, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xEE\x80\x80", 3, 4, {0xE000, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xC2\x80", 2, 4, {0x0080, SENT}, 2, 0 },
    { __LINE__, 1, NOERR, 0, "\xE0\xA0\x80", 3, 4, {0x0800, SENT}, 2, 0 },
    /* surrogate pairs */
    { __LINE__, 2, NOERR, 0, "\xF0\x90\x80\x80", 4, 4, {0xD800, 0xDC00, SENT}, 3, 0 },
    { __LINE__, 2, NOERR, 0, "\xF4\x8F\xBF\xBF", 4, 4, {0xDBFF, 0xDFFF, SENT}, 3, 0 },
    { __LINE__, 2, NOERR, 0, "\xF0\x9F\x98\x80", 4, 0, {0}, 0, 0 },
    /* a pair is not split: one slot left is too small */
    { __LINE__, 0, ERROR_INSUFFICIENT_BUFFER, 0, "a\xF0\x9F\x98\x80", 5, 2, {'a', SENT}, 2, 0 },
    /* flags */
    { __LINE__, 0, ERROR_INVALID_FLAGS, MB_PRECOMPOSED, "a", 1, 4, {SENT}, 1, 0 },
    { __LINE__, 0, ERROR_INVALID_FLAGS, MB_USEGLYPHCHARS, "a", 1, 0, {0}, 0, 0 },
    { __LINE__, 0, ERROR_INVALID_FLAGS, 0x100, "a", 1, 0, {0}, 0, 0 },
    /* bad lengths */
    { __LINE__, 0, ERROR_INVALID_PARAMETER, 0, "a", 0, 4, {SENT}, 1, 0 },
    { __LINE__, 0, ERROR_INVALID_PARAMETER, 0, "a", 0, 0, {0}, 0, 0 },
};

static void run_mb(void)
{
    for (size_t i = 0; i < sizeof mb / sizeof mb[0]; i++) {
        const struct mb_case *c = &mb[i];
        WCHAR buf[16];
        for (int k = 0; k < 16; k++) buf[k] = SENT;
        SetLastError(NOERR);
        int r;
        if (!c->dstlen) r = MultiByteToWideChar(CP_UTF8, c->flags, c->src, c->srclen, NULL, 0);
        else if (c->same) r = MultiByteToWideChar(CP_UTF8, c->flags, (const char *)buf, c->srclen, buf, c->dstlen);
        else r = MultiByteToWideChar(CP_UTF8, c->flags, c->src, c->srclen, buf, c->dstlen);
        DWORD e = GetLastError();
        if (r != c->ret || e != c->err)
            fprintf(stderr, "line %d [%s]: ret %d err %u, want %d %u\n", c->line,
                    nspa_unicode_isa_name(nspa_unicode_get_isa()), r, e, c->ret, c->err);
        CHECK_EQ(r, c->ret);
        CHECK_EQ(e, c->err);
        for (int k = 0; k < c->checklen; k++) {
            if (buf[k] != c->check[k])
                fprintf(stderr, "line %d [%s]: buf[%d] = %04x, want %04x\n", c->line,
                        nspa_unicode_isa_name(nspa_unicode_get_isa()), k, buf[k], c->check[k]);
            CHECK_EQ(buf[k], c->check[k]);
        }
    }
    /* NULL source, NULL output with a length, negative output length; other code pages */
    WCHAR w[4];
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_UTF8, 0, NULL, 1, w, 4), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_UTF8, 0, "a", 1, NULL, 4), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_UTF8, 0, "a", 1, w, -1), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_UTF7, 0, "a", 1, w, 4), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* invalid parameters win over invalid flags */
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_UTF8, MB_PRECOMPOSED, NULL, 1, w, 4), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* CP_ACP and CP_OEMCP are UTF-8 in NSPA */
    SetLastError(NOERR);
    CHECK_EQ(MultiByteToWideChar(CP_ACP, 0, "\xC3\xA9", 2, w, 4), 1);
    CHECK_EQ(w[0], 0xE9);
    CHECK_EQ(MultiByteToWideChar(CP_OEMCP, 0, "\xE2\x82\xAC", 3, w, 4), 1);
    CHECK_EQ(w[0], 0x20AC);
    CHECK_EQ(GetLastError(), NOERR);
}

static void run_wc(void)
{
    char b[32];
    int r;
    /* ASCII, NUL counted with -1, length query */
    static const WCHAR hello[] = { 'h', 'e', 'l', 'l', 'o', 0 };
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, -1, NULL, 0, NULL, NULL), 6);
    memset(b, 0x7F, sizeof b);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, -1, b, 32, NULL, NULL), 6);
    CHECK(!memcmp(b, "hello\0\x7F", 7));
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, 5, b, 32, NULL, NULL), 5);
    CHECK_EQ(GetLastError(), NOERR);
    /* every length class and a pair */
    static const WCHAR mix[] = { 0x41, 0xE9, 0x20AC, 0xD83D, 0xDE00, 0x7FF, 0x800, 0xFFFF };
    static const char mix8[] = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF";
    memset(b, 0x7F, sizeof b);
    r = WideCharToMultiByte(CP_UTF8, 0, mix, 8, b, 32, NULL, NULL);
    CHECK_EQ(r, 18);
    CHECK(!memcmp(b, mix8, 18) && b[18] == 0x7F);
    /* lone, reversed surrogates -> EF BF BD each */
    static const WCHAR lone[] = { 'a', 0xD800, 'b', 0xDC00, 0xD800, 0xDFFF, 0xDBFF };
    memset(b, 0x7F, sizeof b);
    SetLastError(NOERR);
    r = WideCharToMultiByte(CP_UTF8, 0, lone, 7, b, 32, NULL, NULL);
    CHECK_EQ(r, 1 + 3 + 1 + 3 + 4 + 3);
    CHECK(!memcmp(b, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xF0\x90\x8F\xBF\xEF\xBF\xBD", 15));
    CHECK_EQ(GetLastError(), NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, lone, 7, NULL, 0, NULL, NULL), 15);
    /* WC_ERR_INVALID_CHARS */
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, lone, 7, b, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_NO_UNICODE_TRANSLATION);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, lone, 7, NULL, 0, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_NO_UNICODE_TRANSLATION);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, mix, 8, b, 32, NULL, NULL), 18);
    CHECK_EQ(GetLastError(), NOERR);
    /* short buffer: whole characters only, and it wins over invalid characters */
    memset(b, 0x7F, sizeof b);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, mix, 8, b, 5, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    CHECK(!memcmp(b, "A\xC3\xA9\x7F", 4));
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, lone, 7, b, 3, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INSUFFICIENT_BUFFER);
    /* default char arguments must be NULL */
    BOOL used;
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, -1, b, 32, "?", NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, -1, b, 32, NULL, &used), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* flags */
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_NO_BEST_FIT_CHARS, hello, -1, b, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_FLAGS);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, WC_COMPOSITECHECK, hello, -1, b, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_FLAGS);
    /* parameters */
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, NULL, 1, b, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, 0, b, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, 5, NULL, 32, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, hello, 5, b, -1, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    WCHAR same[8] = { 'a', 'b', 0 };
    SetLastError(NOERR);
    CHECK_EQ(WideCharToMultiByte(CP_UTF8, 0, same, 2, (char *)same, 16, NULL, NULL), 0);
    CHECK_EQ(GetLastError(), ERROR_INVALID_PARAMETER);
    /* round trip of every BMP scalar value and a sample of supplementary ones */
    static WCHAR all[0x10000 + 2 * 4096];
    static char u8[4 * sizeof all];
    static WCHAR back[sizeof all / 2];
    int n = 0;
    for (unsigned c = 1; c < 0x10000; c++) if (c < 0xD800 || c > 0xDFFF) all[n++] = (WCHAR)c;
    for (unsigned c = 0x10000; c <= 0x10FFFF; c += 0x10F) {
        all[n++] = (WCHAR)(0xD800 + ((c - 0x10000) >> 10));
        all[n++] = (WCHAR)(0xDC00 + (c & 0x3FF));
    }
    int m = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, all, n, u8, sizeof u8, NULL, NULL);
    CHECK(m > n);
    CHECK_EQ(MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, u8, m, back, n), n);
    CHECK(!memcmp(all, back, n * sizeof(WCHAR)));
}

int main(void)
{
    for (int isa = NSPA_UNICODE_ISA_SCALAR; isa <= NSPA_UNICODE_ISA_AVX512; isa++) {
        if (nspa_unicode_set_isa((enum nspa_unicode_isa)isa)) continue;
        printf("path %s\n", nspa_unicode_isa_name((enum nspa_unicode_isa)isa));
        run_mb();
        run_wc();
    }
    return nspa_test_done();
}
