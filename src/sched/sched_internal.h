/* Internal: the priority code's hooks for the sync core and the Win32 layer. */
#ifndef NSPA_SCHED_INTERNAL_H
#define NSPA_SCHED_INTERNAL_H
#include "common/export.h"
/* a real-time setting was refused: say so once on stderr, remember it */
NSPA_HIDDEN void rt_note_denied(void);
/* a thread started by NSPA (CreateThread): its initial NT priority in the class */
NSPA_HIDDEN void rt_thread_start(void);
#endif
