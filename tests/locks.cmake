# Locks: CRITICAL_SECTION, SRW, condition variables, INIT_ONCE, WaitOnAddress, RT mode.
nspa_add_test(locks_rt_mode SOURCES tests/locks_rt_mode.c)
nspa_add_test(locks_cs_basic SOURCES tests/locks_cs_basic.c WIN32 THREADED)
nspa_add_test(locks_cs_stress SOURCES tests/locks_cs_stress.c WIN32 THREADED)
nspa_add_test(locks_srw_semantics SOURCES tests/locks_srw_semantics.c WIN32 THREADED)
nspa_add_test(locks_srw_stress SOURCES tests/locks_srw_stress.c WIN32 THREADED)
nspa_add_test(locks_cond_semantics SOURCES tests/locks_cond_semantics.c WIN32 THREADED)
nspa_add_test(locks_cond_stress SOURCES tests/locks_cond_stress.c WIN32 THREADED)
nspa_add_test(locks_once SOURCES tests/locks_once.c WIN32 THREADED)
nspa_add_test(locks_waitaddr SOURCES tests/locks_waitaddr.c WIN32 THREADED)
# Real-time tests: they fill every core with SCHED_FIFO threads for a bounded time
# (1.5 s per run) under a SCHED_FIFO 99 watchdog, so they run alone.
nspa_add_test(locks_inversion_cs SOURCES tests/locks_inversion_cs.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_inversion_cond SOURCES tests/locks_inversion_cond.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_cond_pi_order SOURCES tests/locks_cond_pi_order.c WIN32 SERIAL TIMEOUT 60)
