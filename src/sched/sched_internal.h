/* Internal: the priority code's hooks for the sync core and the Win32 layer. */
#ifndef NSPA_SCHED_INTERNAL_H
#define NSPA_SCHED_INTERNAL_H
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common/export.h"

/* The kernel's struct sched_attr (glibc has no wrapper before 2.41). */
struct nspa_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
};

/* sched_getattr(tid): 0, or -1 with errno (a gone thread: ESRCH). */
static inline int nspa_sched_getattr(uint32_t tid, struct nspa_sched_attr *a)
{
    memset(a, 0, sizeof(*a));
    return (int)syscall(SYS_sched_getattr, (pid_t)tid, a, sizeof(*a), 0);
}
/* bumped whenever the calling thread changes its own NT priority or scheduling through
 * NSPA (SetThreadPriority, MMCSS): the thread pools undo a callback's changes */
extern __thread uint32_t nspa_sched_self_gen __attribute__((tls_model("initial-exec"))) NSPA_HIDDEN;
/* a real-time setting was refused: say so once on stderr, remember it */
NSPA_HIDDEN void rt_note_denied(void);
/* a thread started by NSPA (CreateThread): its initial NT priority in the class */
NSPA_HIDDEN void rt_thread_start(void);
#endif
