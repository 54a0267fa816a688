/* Internal: what the lock sources share. */
#ifndef NSPA_LOCKS_INTERNAL_H
#define NSPA_LOCKS_INTERNAL_H
#include <stdint.h>
#include "common/export.h"
#include "nspa/locks.h"

NSPA_HIDDEN int32_t *nspa_cs_registry_word(unsigned id);
NSPA_HIDDEN int nspa_cs_do_init(nspa_cs_t *cs, uint32_t spin, uint32_t flags, int ex);
#endif
