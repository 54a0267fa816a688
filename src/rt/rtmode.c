/* RT mode: NSPA_RT_PRIO / NSPA_RT_POLICY / NSPA_PI, read once; the per-thread
 * real-time cache used by the locks (spin or not). See include/nspa/rt.h. */
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include "common/platform.h"
#include "rt/rt_internal.h"

__thread int nspa_rt_thread_state __attribute__((tls_model("initial-exec"))) = -1;

/* bit 0: loaded, bit 1: RT mode, bit 2: PI on; bits 8..15: NSPA_RT_PRIO */
static _Atomic int rt_config;

static int load_config(void)
{
    int cfg = atomic_load_explicit(&rt_config, memory_order_acquire);
    if (likely(cfg & 1))
        return cfg;
    /* NSPA_RT_PRIO: 1..98; unset, not a number or out of range: no RT mode.
     * NSPA_RT_POLICY=TS (any case) turns it off too. NSPA_PI: on unless "0". */
    int prio = nspa_env_int("NSPA_RT_PRIO", 0, INT_MIN, INT_MAX);
    if (prio < 1 || prio > 98)
        prio = 0;
    int rt = prio && !nspa_env_is("NSPA_RT_POLICY", "TS");
    cfg = 1;
    if (rt) {
        cfg |= 2 | (prio << 8);
        if (nspa_env_flag("NSPA_PI", 1))
            cfg |= 4;
    }
    /* every thread computes the same value; the first store wins, others agree */
    int expected = 0;
    atomic_compare_exchange_strong_explicit(&rt_config, &expected, cfg,
                                            memory_order_acq_rel, memory_order_acquire);
    return atomic_load_explicit(&rt_config, memory_order_acquire);
}

NSPA_EXPORT int nspa_rt_enabled(void) { return (load_config() >> 1) & 1; }
NSPA_EXPORT int nspa_pi_enabled(void) { return (load_config() >> 2) & 1; }
NSPA_EXPORT int nspa_rt_prio(void)
{
    int cfg = load_config();
    return (cfg & 2) ? (cfg >> 8) & 0xff : 0;
}

NSPA_HIDDEN void nspa_rt_thread_load(void)
{
    struct sched_param sp;
    int pol = sched_getscheduler(0);
    int prio = 0;
    pol &= ~SCHED_RESET_ON_FORK;
    if ((pol == SCHED_FIFO || pol == SCHED_RR) && sched_getparam(0, &sp) == 0)
        prio = sp.sched_priority > 0 ? sp.sched_priority : 1;
    nspa_rt_thread_state = prio;
}

NSPA_EXPORT void nspa_thread_rt_refresh(void) { nspa_rt_thread_load(); }
NSPA_EXPORT int nspa_thread_is_rt(void) { return nspa_rt_self_is_rt(); }
NSPA_EXPORT int nspa_thread_rt_priority(void)
{
    nspa_rt_self_is_rt();
    return nspa_rt_thread_state;
}
