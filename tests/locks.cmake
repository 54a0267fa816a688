# Locks: CRITICAL_SECTION, SRW, condition variables, INIT_ONCE, WaitOnAddress, RT mode.
nspa_add_test(locks_rt_mode SOURCES tests/locks_rt_mode.c)
nspa_add_test(locks_cs_basic SOURCES tests/locks_cs_basic.c WIN32 THREADED)
nspa_add_test(locks_cs_stress SOURCES tests/locks_cs_stress.c WIN32 THREADED)
