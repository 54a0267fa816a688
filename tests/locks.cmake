# Locks: CRITICAL_SECTION, SRW, condition variables, INIT_ONCE, WaitOnAddress, RT mode.
nspa_add_test(locks_rt_mode SOURCES tests/locks_rt_mode.c)
nspa_add_test(locks_cs_basic SOURCES tests/locks_cs_basic.c WIN32 THREADED)
nspa_add_test(locks_cs_stress SOURCES tests/locks_cs_stress.c WIN32 THREADED)
# the same semantics through the library's out-of-line entry points (no inline fast path)
nspa_add_test(locks_cs_basic_noinline SOURCES tests/locks_cs_basic.c WIN32 THREADED)
target_compile_definitions(locks_cs_basic_noinline PRIVATE NSPA_NO_INLINE_LOCKS)
nspa_add_test(locks_srw_semantics SOURCES tests/locks_srw_semantics.c WIN32 THREADED)
nspa_add_test(locks_srw_stress SOURCES tests/locks_srw_stress.c WIN32 THREADED)
nspa_add_test(locks_srw_layout SOURCES tests/locks_srw_layout.c WIN32 THREADED)
nspa_add_test(locks_srw_unaligned SOURCES tests/locks_srw_unaligned.c WIN32 THREADED)
nspa_add_test(locks_srw_writer_wake SOURCES tests/locks_srw_writer_wake.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(locks_cond_semantics SOURCES tests/locks_cond_semantics.c WIN32 THREADED)
nspa_add_test(locks_cond_stress SOURCES tests/locks_cond_stress.c WIN32 THREADED)
nspa_add_test(locks_cond_unaligned SOURCES tests/locks_cond_unaligned.c WIN32 THREADED)
nspa_add_test(locks_once SOURCES tests/locks_once.c WIN32 THREADED)
nspa_add_test(locks_waitaddr SOURCES tests/locks_waitaddr.c WIN32 THREADED)
# Real-time tests: they fill every core with SCHED_FIFO threads for a bounded time
# (1.5 s per run) under a SCHED_FIFO 99 watchdog, so they run alone.
nspa_add_test(locks_inversion_cs SOURCES tests/locks_inversion_cs.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_inversion_cond SOURCES tests/locks_inversion_cond.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_cond_pi_order SOURCES tests/locks_cond_pi_order.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_inversion_chain SOURCES tests/locks_inversion_chain.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(locks_srw_rt_spin SOURCES tests/locks_srw_rt_spin.c WIN32 THREADED)
nspa_add_test(locks_cs_pi_gate SOURCES tests/locks_cs_pi_gate.c WIN32 SERIAL TIMEOUT 60)
# a run without SCHED_FIFO permission reports SKIP (exit 77), never a pass
set_tests_properties(locks_inversion_cs locks_inversion_cond locks_cond_pi_order locks_inversion_chain
                     locks_srw_rt_spin locks_cs_pi_gate PROPERTIES SKIP_RETURN_CODE 77)
# PI sections' gate: without the periodic re-look a lost wake hangs the stress test
# (ctest timeout) instead of costing 50 ms
set_property(TEST locks_cs_stress locks_cond_stress APPEND PROPERTY ENVIRONMENT NSPA_CS_GATE_RECHECK_MS=0)
# SList and synchronization barriers (issue 16)
nspa_add_test(locks_slist SOURCES tests/locks_slist.c WIN32 THREADED)
nspa_add_test(locks_barrier SOURCES tests/locks_barrier.c WIN32 THREADED)
