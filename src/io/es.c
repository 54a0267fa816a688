/*
 * WSAEventSelect / WSAEnumNetworkEvents: not yet (docs/io.md).
 */
#include <errno.h>
#include "io/io_internal.h"
#include "io/io_api.h"

NSPA_HIDDEN void io_es_note(struct io_file *f, int ev, int err) { (void)f; (void)ev; (void)err; }
NSPA_HIDDEN void io_es_reenable(struct io_file *f, int ev) { (void)f; (void)ev; }
NSPA_HIDDEN void io_es_poll(struct io_file *f) { (void)f; }
NSPA_HIDDEN int io_ws_event_select(uint32_t s, uint32_t ev, uint32_t mask) { return -EOPNOTSUPP; }
NSPA_HIDDEN int io_ws_enum_events(uint32_t s, uint32_t *events, int *errs) { return -EOPNOTSUPP; }
