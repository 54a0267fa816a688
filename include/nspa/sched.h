/*
 * nspa/sched.h — Windows priorities on Linux, and the thread setting that priority
 * inheritance restores.
 *
 * NT priorities are a band 1..31: the process's priority class gives a base (IDLE 4,
 * BELOW_NORMAL 6, NORMAL 8, ABOVE_NORMAL 10, HIGH 13, REALTIME 24) and the thread's
 * priority (-2..2, or IDLE/TIME_CRITICAL which saturate to 1/15, or 16/31 in the
 * REALTIME class) moves it. In RT mode (NSPA_RT_PRIO=1..98, NSPA_RT_POLICY=FF|RR|TS,
 * see nspa/rt.h) bands 16..31 run real-time: Linux priority NSPA_RT_PRIO - (31 - band)
 * clamped to 1..98, band 31 always SCHED_FIFO, the others NSPA_RT_POLICY; bands 1..15
 * run SCHED_OTHER at nice 0. Without RT mode nothing is promoted: the values are kept
 * and reported, the Linux scheduling is left alone. (docs/rt.md)
 *
 * Where the process may not use real-time scheduling (no CAP_SYS_NICE, RLIMIT_RTPRIO
 * too low) the calls still succeed, as on Windows; the thread stays where Linux allows,
 * NSPA says so once on stderr, and nspa_rt_denied() reports it.
 */
#ifndef NSPA_SCHED_H
#define NSPA_SCHED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* priority classes (the Win32 values) */
#define NSPA_IDLE_PRIORITY_CLASS          0x00000040u
#define NSPA_BELOW_NORMAL_PRIORITY_CLASS  0x00004000u
#define NSPA_NORMAL_PRIORITY_CLASS        0x00000020u
#define NSPA_ABOVE_NORMAL_PRIORITY_CLASS  0x00008000u
#define NSPA_HIGH_PRIORITY_CLASS          0x00000080u
#define NSPA_REALTIME_PRIORITY_CLASS      0x00000100u

/* thread priorities */
#define NSPA_THREAD_PRIORITY_IDLE          (-15)
#define NSPA_THREAD_PRIORITY_LOWEST        (-2)
#define NSPA_THREAD_PRIORITY_BELOW_NORMAL  (-1)
#define NSPA_THREAD_PRIORITY_NORMAL        0
#define NSPA_THREAD_PRIORITY_ABOVE_NORMAL  1
#define NSPA_THREAD_PRIORITY_HIGHEST       2
#define NSPA_THREAD_PRIORITY_TIME_CRITICAL 15

/*
 * nspa_nt_band - the NT priority band (1..31) of a thread priority in a class.
 *   Returns the band, or -EINVAL for an unknown class or a priority not allowed in it
 *   (-7..-3 and 3..6 are allowed in the REALTIME class only).
 */
int nspa_nt_band(uint32_t priority_class, int thread_priority);

/*
 * nspa_band_sched - the Linux setting NSPA gives a band in the current mode.
 *   Fills *policy (SCHED_OTHER/FIFO/RR), *prio (0 or 1..98) and *nice. Returns 1 if the
 *   band is promoted to real time, 0 if not, -EINVAL for a band outside 1..31.
 */
int nspa_band_sched(int band, int *policy, int *prio, int *nice);

/*
 * nspa_set_priority_class / nspa_get_priority_class - the process's priority class.
 *   Setting it re-applies the calling thread's priority in the new class; other threads
 *   keep their setting until they set their priority again, and threads created later
 *   start in it (docs/rt.md explains this choice). Returns 0 or -EINVAL.
 */
int nspa_set_priority_class(uint32_t priority_class);
uint32_t nspa_get_priority_class(void);

/*
 * nspa_set_thread_priority - set thread @tid's NT priority (0 = the calling thread).
 *   @tid must be a thread of this process known to NSPA. In RT mode the band's Linux
 *   setting is applied (through nspa_thread_set_sched(), so priority inheritance
 *   restores it exactly). Returns 0; -EINVAL for a priority not allowed; -ESRCH for an
 *   unknown thread. A refused real-time setting is not an error (see above).
 * nspa_get_thread_priority - the NT priority last set for @tid (NORMAL if never set).
 *   Returns 0 or -ESRCH.
 */
int nspa_set_thread_priority(uint32_t tid, int thread_priority);
int nspa_get_thread_priority(uint32_t tid, int *thread_priority);

/*
 * nspa_thread_set_sched - set thread @tid's own Linux scheduling (0 = the caller).
 *   Unlike sched_setattr() this is priority-inheritance aware: while the thread is
 *   boosted by the waiters of a mutex it owns, the setting is remembered and applied
 *   when the boost ends (or at once if it is higher). Returns 0 or a negative errno
 *   from the kernel (-EPERM without the right to that setting).
 */
int nspa_thread_set_sched(uint32_t tid, int policy, int prio, int nice);

/*
 * nspa_rt_denied - 1 if a real-time setting (a priority or a PI boost) was refused by
 *   the kernel in this process (no CAP_SYS_NICE, RLIMIT_RTPRIO too low), else 0.
 * nspa_rt_memlocked - 1 if RT mode locked the process's memory (mlockall with
 *   MCL_ONFAULT) on its first real-time promotion, 0 if not (not RT mode, or refused).
 */
int nspa_rt_denied(void);
int nspa_rt_memlocked(void);

#ifdef __cplusplus
}
#endif
#endif
