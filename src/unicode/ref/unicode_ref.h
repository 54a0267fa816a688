/* The scalar reference: the rules of docs/unicode.md ("Semantics") written as plainly as
 * possible, one element at a time, sharing no code with the library. Tests hold every
 * library path to it; the bench measures it as "NSPA scalar reference". Not part of
 * libnspa: tests and benches compile src/unicode/ref/unicode_ref.c in. */
#ifndef NSPA_UNICODE_REF_H
#define NSPA_UNICODE_REF_H
#include <stddef.h>
#include <stdint.h>

/* Same contract as nspa_utf8_to_utf16 / nspa_utf16_to_utf8 (status: 1 replaced,
 * 2 truncated). */
size_t ref_utf8_to_utf16(const uint8_t *src, size_t n, uint16_t *dst, size_t cap, unsigned *status);
size_t ref_utf16_to_utf8(const uint16_t *src, size_t n, uint8_t *dst, size_t cap, unsigned *status);
/* upcase from the UCD expectations loaded by ref_upcase_load(); identity until loaded */
uint16_t ref_upcase(uint16_t c);
/* load "XXXX YYYY" lines (tests/unicode_upcase_expect.txt); returns mappings read or -1 */
int ref_upcase_load(const char *path);
void ref_upcase_set(uint16_t c, uint16_t up);
long ref_compare(const uint16_t *a, size_t na, const uint16_t *b, size_t nb, int ci);
uint32_t ref_hash(const uint16_t *s, size_t n, int ci);
#endif
