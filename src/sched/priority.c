/*
 * Windows priorities on Linux: NT bands, the RT-mode mapping of rt-suite.md, the
 * process's priority class and threads' NT priorities. See include/nspa/sched.h and
 * docs/rt.md.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "nspa/rt.h"
#include "nspa/sched.h"
#include "sched/sched_internal.h"
#include "common/platform.h"
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "nspa/sync.h"

static uint32_t priority_class = NSPA_NORMAL_PRIORITY_CLASS;
static int rt_denied, rt_memlocked, memlock_tried;

NSPA_HIDDEN void rt_note_denied(void)
{
    if (!__atomic_exchange_n(&rt_denied, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "nspa: real-time scheduling refused (no CAP_SYS_NICE, RLIMIT_RTPRIO too "
                        "low): threads stay where Linux allows; priority calls still succeed\n");
}

NSPA_EXPORT int nspa_rt_denied(void) { return __atomic_load_n(&rt_denied, __ATOMIC_RELAXED); }
NSPA_EXPORT int nspa_rt_memlocked(void) { return __atomic_load_n(&rt_memlocked, __ATOMIC_RELAXED); }

static int class_base(uint32_t cls)
{
    switch (cls) {
    case NSPA_IDLE_PRIORITY_CLASS: return 4;
    case NSPA_BELOW_NORMAL_PRIORITY_CLASS: return 6;
    case NSPA_NORMAL_PRIORITY_CLASS: return 8;
    case NSPA_ABOVE_NORMAL_PRIORITY_CLASS: return 10;
    case NSPA_HIGH_PRIORITY_CLASS: return 13;
    case NSPA_REALTIME_PRIORITY_CLASS: return 24;
    }
    return -1;
}

NSPA_EXPORT int nspa_nt_band(uint32_t cls, int p)
{
    int base = class_base(cls);
    if (base < 0) return -EINVAL;
    int rt = cls == NSPA_REALTIME_PRIORITY_CLASS;
    if (p == NSPA_THREAD_PRIORITY_IDLE) return rt ? 16 : 1;
    if (p == NSPA_THREAD_PRIORITY_TIME_CRITICAL) return rt ? 31 : 15;
    if (p >= -2 && p <= 2) return base + p;
    if (rt && p >= -7 && p <= 6) return base + p;
    return -EINVAL;
}

NSPA_EXPORT int nspa_band_sched(int band, int *policy, int *prio, int *nice)
{
    if (band < 1 || band > 31) return -EINVAL;
    int pol = SCHED_OTHER, pr = 0, rt = 0;
    int base = nspa_rt_prio();
    if (base && band >= 16) {
        const char *p = getenv("NSPA_RT_POLICY");
        pol = (band == 31 || !p || (p[0] != 'R' && p[0] != 'r')) ? SCHED_FIFO : SCHED_RR;
        pr = base - (31 - band);
        if (pr < 1) pr = 1;
        if (pr > 98) pr = 98;
        rt = 1;
    }
    if (policy) *policy = pol;
    if (prio) *prio = pr;
    if (nice) *nice = 0;
    return rt;
}

/* Apply band @band to thread @tid (RT mode only). */
static void apply_band(uint32_t tid, int band)
{
    int pol, pr, nice;
    if (!nspa_rt_enabled()) return;
    int rt = nspa_band_sched(band, &pol, &pr, &nice);
    if (rt < 0) return;
    int r = nspa_thread_set_sched(tid, pol, pr, nice);
    if (r == -EPERM) {
        rt_note_denied();
        return;
    }
    if (rt && r == 0 && !__atomic_exchange_n(&memlock_tried, 1, __ATOMIC_RELAXED)) {
        /* RT mode: keep memory resident. MCL_ONFAULT: lock pages as they are touched,
         * so the sparse namespace region is not populated whole. */
        if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
            __atomic_store_n(&rt_memlocked, 1, __ATOMIC_RELAXED);
    }
    if (tid == nspa_thread_id()) nspa_thread_rt_refresh();
}

/* The NT priorities of this process's threads, by thread id. An entry carries the
 * thread's start time, so that a thread id reused by a later thread does not inherit
 * it. The priority code keeps this itself: it needs nothing of the sync core (no
 * dependency cycle between src/sched and src/sync). */
#define NT_PRIO_SLOTS 4096
static struct { uint32_t tid; int prio; uint64_t start; } nt_prios[NT_PRIO_SLOTS];
static pthread_mutex_t nt_prio_lock = PTHREAD_MUTEX_INITIALIZER;

static int nt_prio_access(uint32_t tid, int *get, const int *set)
{
    uint64_t start = nspa_task_start_time(getpid(), (int)tid);
    if (!start) return -ESRCH;                  /* not a thread of this process */
    pthread_mutex_lock(&nt_prio_lock);
    uint32_t h = (tid * 2654435761u) % NT_PRIO_SLOTS, i, free_i = UINT32_MAX;
    for (i = 0; i < NT_PRIO_SLOTS; i++) {
        uint32_t k = (h + i) % NT_PRIO_SLOTS;
        if (nt_prios[k].tid == tid) break;
        if (!nt_prios[k].tid && free_i == UINT32_MAX) free_i = k;
    }
    /* not found and no free slot: the home slot is reused (a table full of threads
     * that have ended; a live thread evicted reads NORMAL) */
    uint32_t k = i < NT_PRIO_SLOTS ? (h + i) % NT_PRIO_SLOTS : free_i != UINT32_MAX ? free_i : h;
    int known = i < NT_PRIO_SLOTS && nt_prios[k].start == start;
    if (get) *get = known ? nt_prios[k].prio : 0;
    if (set) {
        nt_prios[k].tid = tid;
        nt_prios[k].prio = *set;
        nt_prios[k].start = start;
    }
    pthread_mutex_unlock(&nt_prio_lock);
    return 0;
}

__thread uint32_t nspa_sched_self_gen;

NSPA_EXPORT int nspa_set_thread_priority(uint32_t tid, int p)
{
    if (!tid) tid = nspa_thread_id();
    if (tid == nspa_thread_id()) nspa_sched_self_gen++;
    int band = nspa_nt_band(__atomic_load_n(&priority_class, __ATOMIC_RELAXED), p);
    if (band < 0) return -EINVAL;
    int r = nt_prio_access(tid, NULL, &p);
    if (r) return r;
    apply_band(tid, band);
    return 0;
}

NSPA_EXPORT int nspa_get_thread_priority(uint32_t tid, int *p)
{
    if (!p) return -EFAULT;
    if (!tid) tid = nspa_thread_id();
    return nt_prio_access(tid, p, NULL);
}

NSPA_EXPORT int nspa_set_priority_class(uint32_t cls)
{
    if (class_base(cls) < 0) return -EINVAL;
    __atomic_store_n(&priority_class, cls, __ATOMIC_RELAXED);
    int p = 0;
    uint32_t me = nspa_thread_id();
    nt_prio_access(me, &p, NULL);
    int band = nspa_nt_band(cls, p);
    if (band < 0) {   /* a REALTIME-only priority in a lower class: normal */
        p = 0;
        nt_prio_access(me, NULL, &p);
        band = nspa_nt_band(cls, 0);
    }
    apply_band(me, band);
    return 0;
}

NSPA_EXPORT uint32_t nspa_get_priority_class(void)
{
    return __atomic_load_n(&priority_class, __ATOMIC_RELAXED);
}

/* A thread NSPA starts (CreateThread) begins at NORMAL priority in the process's
 * class, whatever its creator ran at (Windows does not inherit thread priorities). */
NSPA_HIDDEN void rt_thread_start(void)
{
    if (!nspa_rt_enabled()) return;
    apply_band(nspa_thread_id(), nspa_nt_band(nspa_get_priority_class(), 0));
}
