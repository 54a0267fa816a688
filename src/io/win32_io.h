/* Glue between the I/O module's Win32 files. */
#ifndef NSPA_IO_WIN32_IO_H
#define NSPA_IO_WIN32_IO_H
#include "common/export.h"
NSPA_HIDDEN int ws_ready(void);
NSPA_HIDDEN int ws_fail(int wsa);        /* SetLastError(wsa); SOCKET_ERROR */
NSPA_HIDDEN int ws_err(int r);           /* -errno -> WSA error */
#endif
