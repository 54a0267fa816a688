/* Helpers for the real-time tests: read a thread's scheduling from the kernel. */
#ifndef NSPA_TEST_RT_UTIL_H
#define NSPA_TEST_RT_UTIL_H
#include <sched.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include "sync_util.h"
#include "nspa/sched.h"

struct tsched { int policy, prio, nice; };

static inline struct tsched sched_of(uint32_t tid)
{
    struct { uint32_t size, policy; uint64_t flags; int32_t nice; uint32_t prio;
             uint64_t rt, dl, per; uint32_t umin, umax; } a;
    memset(&a, 0, sizeof(a));
    struct tsched s = { -1, -1, 99 };
    if (syscall(SYS_sched_getattr, (pid_t)tid, &a, sizeof(a), 0) == 0) {
        s.policy = (int)a.policy;
        s.prio = (int)a.prio;
        s.nice = a.nice;
    }
    return s;
}

/* poll until thread @tid runs (policy, prio), at most 3 s; returns 1 if it does */
static inline int wait_sched(uint32_t tid, int policy, int prio)
{
    for (int i = 0; i < 3000; i++) {
        struct tsched s = sched_of(tid);
        if (s.policy == policy && s.prio == prio) return 1;
        sleep_ms(1);
    }
    struct tsched s = sched_of(tid);
    fprintf(stderr, "thread %u runs policy %d prio %d nice %d; expected policy %d prio %d\n",
            tid, s.policy, s.prio, s.nice, policy, prio);
    return 0;
}

static inline int set_fifo(int prio)
{
    struct sched_param sp = { .sched_priority = prio };
    return pthread_setschedparam(pthread_self(), prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static inline int can_rt(void)
{
    struct sched_param sp = { .sched_priority = 1 };
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) return 0;
    sp.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
    return 1;
}
#endif
