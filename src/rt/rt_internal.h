/* Internal: the thread-local RT cache, inlined into the lock hot paths. */
#ifndef NSPA_RT_INTERNAL_H
#define NSPA_RT_INTERNAL_H
#include "nspa/rt.h"
#include "common/export.h"

/* -1 = not yet known, 0 = SCHED_OTHER/BATCH/IDLE, 1..99 = SCHED_FIFO/RR priority */
extern __thread int nspa_rt_thread_state __attribute__((tls_model("initial-exec"))) NSPA_HIDDEN;

NSPA_HIDDEN void nspa_rt_thread_load(void);

/* 1 when the calling thread runs SCHED_FIFO/RR. No system call after the first. */
static inline int nspa_rt_self_is_rt(void)
{
    int s = nspa_rt_thread_state;
    if (unlikely(s < 0)) {
        nspa_rt_thread_load();
        s = nspa_rt_thread_state;
    }
    return s > 0;
}
#endif
