/* Text helpers of the message module: UTF-16 strings and the A/W conversions (the ANSI
 * code page is UTF-8, as everywhere in NSPA's Win32 layer). */
#include <stdlib.h>
#include <string.h>
#include "nspa/unicode.h"
#include "msg/msg_internal.h"

NSPA_HIDDEN uint16_t *wdup(const uint16_t *s)
{
    size_t n = nspa__wlen(s);
    uint16_t *d = malloc((n + 1) * 2);
    if (d) memcpy(d, s, (n + 1) * 2);
    return d;
}

/* case-insensitive compare as the atom table and class names do (RtlUpcaseUnicodeChar) */
NSPA_HIDDEN int wcmpi(const uint16_t *a, const uint16_t *b)
{
    for (;; a++, b++) {
        uint16_t x = nspa_upcase(*a), y = nspa_upcase(*b);
        if (x != y) return x < y ? -1 : 1;
        if (!x) return 0;
    }
}

NSPA_HIDDEN uint16_t *text_a_to_w(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    unsigned st = 0;
    size_t units = nspa_utf8_to_utf16(s, n, NULL, 0, &st);
    uint16_t *d = malloc((units + 1) * 2);
    if (!d) return NULL;
    nspa_utf8_to_utf16(s, n, d, units, &st);
    d[units] = 0;
    return d;
}

NSPA_HIDDEN char *text_w_to_a(const uint16_t *s)
{
    if (!s) return NULL;
    size_t n = nspa__wlen(s);
    unsigned st = 0;
    size_t bytes = nspa_utf16_to_utf8(s, n, NULL, 0, &st);
    char *d = malloc(bytes + 1);
    if (!d) return NULL;
    nspa_utf16_to_utf8(s, n, d, bytes, &st);
    d[bytes] = 0;
    return d;
}
