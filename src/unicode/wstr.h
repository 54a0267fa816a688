/* NUL-terminated UTF-16 strings for the Win32 layers of every module (wstr.c): their
 * length, and malloc'ed UTF-8 <-> UTF-16 copies (NULL when memory runs out). */
#ifndef NSPA_UNICODE_WSTR_H
#define NSPA_UNICODE_WSTR_H
#include <stddef.h>
#include <stdint.h>
#include "common/export.h"

NSPA_HIDDEN size_t nspa__wlen(const uint16_t *w);
NSPA_HIDDEN char *nspa__w_to_utf8(const uint16_t *w);
NSPA_HIDDEN uint16_t *nspa__utf8_to_w(const char *s);
#endif
