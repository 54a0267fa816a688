/* NUL-terminated UTF-16 strings (wstr.h). */
#include <stdlib.h>
#include <string.h>
#include "nspa/unicode.h"
#include "unicode/wstr.h"

NSPA_HIDDEN size_t nspa__wlen(const uint16_t *w)
{
    size_t n = 0;
    while (w[n]) n++;
    return n;
}

NSPA_HIDDEN char *nspa__w_to_utf8(const uint16_t *w)
{
    size_t n = nspa__wlen(w);
    size_t need = nspa_utf16_to_utf8(w, n, NULL, 0, NULL);
    char *s = malloc(need + 1);
    if (!s) return NULL;
    nspa_utf16_to_utf8(w, n, s, need, NULL);
    s[need] = 0;
    return s;
}

NSPA_HIDDEN uint16_t *nspa__utf8_to_w(const char *s)
{
    size_t n = strlen(s);
    size_t need = nspa_utf8_to_utf16(s, n, NULL, 0, NULL);
    uint16_t *w = malloc((need + 1) * sizeof(uint16_t));
    if (!w) return NULL;
    nspa_utf8_to_utf16(s, n, w, need, NULL);
    w[need] = 0;
    return w;
}
