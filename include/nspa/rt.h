/* NSPA real-time mode: the process-wide switch and the per-thread real-time test.
 *
 * This header is deliberately small: it holds what the lock primitives need to decide
 * their behaviour (priority inheritance on or off, spin or not). The thread-priority API
 * (NT priority classes mapped onto SCHED_FIFO/SCHED_RR) builds on it.
 *
 * Environment (read once per process, on first use, then cached):
 *   NSPA_RT_PRIO    1..98: the process runs in RT mode; NT band 31 maps to this
 *                   Linux SCHED_FIFO priority. Unset, empty, 0, >98 or garbage: no RT mode.
 *   NSPA_RT_POLICY  FF (SCHED_FIFO, default), RR (SCHED_RR) or TS (time sharing:
 *                   no promotion, so no RT mode either).
 *   NSPA_PI         0 disables priority inheritance in the lock primitives even in RT
 *                   mode (an experiment switch used to demonstrate priority inversion).
 *                   Anything else, or unset, leaves it on. */
#ifndef NSPA_RT_H
#define NSPA_RT_H

#ifdef __cplusplus
extern "C" {
#endif

/* nspa_rt_enabled - is the process in RT mode?
 *
 * Returns 1 when NSPA_RT_PRIO holds an integer in 1..98 and NSPA_RT_POLICY is not TS
 * (case-insensitive), else 0. The environment is read once, by the first caller, and
 * the answer never changes for the life of the process. Thread-safe; no system call. */
int nspa_rt_enabled(void);

/* nspa_rt_prio - the NSPA_RT_PRIO value (1..98) in RT mode, 0 otherwise. Thread-safe. */
int nspa_rt_prio(void);

/* nspa_pi_enabled - do the lock primitives use priority inheritance?
 *
 * Returns 1 when the process is in RT mode (nspa_rt_enabled()) and NSPA_PI is not "0";
 * else 0. Read once and cached like nspa_rt_enabled(). Thread-safe; no system call. */
int nspa_pi_enabled(void);

/* nspa_thread_is_rt - does the calling thread run a real-time policy?
 *
 * Returns 1 when the calling thread's scheduling policy is SCHED_FIFO or SCHED_RR,
 * else 0. The answer comes from a thread-local cache: the first call in a thread asks
 * the kernel (one sched_getscheduler system call), later calls cost one TLS load.
 * The cache is refreshed by nspa_thread_rt_refresh(); a thread that changes its own
 * policy with pthread_setschedparam()/sched_setscheduler() must call it (NSPA's
 * priority API does so itself). A policy changed from another thread is not seen
 * until the thread refreshes. Used by the locks to skip spinning at RT priority. */
int nspa_thread_is_rt(void);

/* nspa_thread_rt_priority - the calling thread's cached real-time priority (1..99),
 * or 0 when it runs a non-real-time policy. Same cache as nspa_thread_is_rt(). */
int nspa_thread_rt_priority(void);

/* nspa_thread_rt_refresh - re-read the calling thread's scheduling policy and priority
 * into the thread-local cache (two system calls). Thread-safe (touches only the caller's
 * own cache); async-signal-safe. */
void nspa_thread_rt_refresh(void);

#ifdef __cplusplus
}
#endif
#endif
