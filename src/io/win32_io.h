/* Glue between the I/O module's Win32 files. */
#ifndef NSPA_IO_WIN32_IO_H
#define NSPA_IO_WIN32_IO_H
#include <stddef.h>
#include <stdint.h>
#include "common/export.h"
NSPA_HIDDEN int ws_ready(void);
NSPA_HIDDEN int ws_fail(int wsa);        /* SetLastError(wsa); SOCKET_ERROR */
NSPA_HIDDEN int ws_err(int r);           /* -errno -> WSA error */
/* paths (win32_file.c): a Windows path as the Linux one, a UTF-16 name as UTF-8; 0 or
 * the Win32 error (no name: ERROR_PATH_NOT_FOUND; too long: ERROR_FILENAME_EXCED_RANGE) */
NSPA_HIDDEN uint32_t io_w32_path(const char *w, char *out, size_t cap);
NSPA_HIDDEN uint32_t io_w32_utf8(const uint16_t *w, char *out, size_t cap);
#endif
