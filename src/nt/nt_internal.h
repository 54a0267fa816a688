/* Internal: what the NT native layer's files share (docs/nt.md). */
#ifndef NSPA_NT_INTERNAL_H
#define NSPA_NT_INTERNAL_H
#include <errno.h>
#include <stdint.h>
#include "nspa/sync.h"
#include "nspa/win32/windows.h"
#include "common/export.h"
#include "win32/win32_private.h"

static inline nspa_obj_t nt_h(HANDLE h) { return nspa__win32_h(h); }   /* tag bits masked */
static inline int nt_is_pseudo(HANDLE h) { return h == (HANDLE)(LONG_PTR)-1 || h == (HANDLE)(LONG_PTR)-2; }

/* The NTSTATUS for an nspa_ error; @h: the handle the call was about (a pseudo handle
 * names a process or thread: not an object of the type asked for). */
NSPA_HIDDEN NTSTATUS nt_status(int err, HANDLE h);

/* A LARGE_INTEGER timeout as an nspa wait's (timeout, flags): NULL infinite, negative
 * relative (CLOCK_MONOTONIC), positive absolute system time (CLOCK_REALTIME), 0 poll. */
NSPA_HIDDEN uint64_t nt_deadline(const LARGE_INTEGER *t, uint32_t *flags);

/* Seconds between 1601-01-01 and 1970-01-01, in 100 ns units. */
#define NT_EPOCH_DIFF 116444736000000000ull
#endif
