# Time and work (src/time, docs/time.md): waitable timers and the timer service
nspa_add_test(time_waitable SOURCES tests/time_waitable.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_wall_clock SOURCES tests/time_wall_clock.c WIN32 SERIAL TIMEOUT 60)
nspa_add_test(time_timerqueue SOURCES tests/time_timerqueue.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_timerqueue_wine SOURCES tests/time_timerqueue_wine.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_threadpool SOURCES tests/time_threadpool.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_mm SOURCES tests/time_mm.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_mm_catchup SOURCES tests/time_mm_catchup.c WIN32 THREADED TIMEOUT 60)
# MMCSS in RT mode and outside it; SKIP (77) without SCHED_FIFO permission
nspa_add_test(rt_mmcss SOURCES tests/rt_mmcss.c WIN32 SERIAL TIMEOUT 60)
set_tests_properties(rt_mmcss PROPERTIES SKIP_RETURN_CODE 77)
nspa_add_test(time_orphan SOURCES tests/time_orphan.c WIN32 THREADED TIMEOUT 60)
# thread-pool I/O runs on both I/O engines (io.cmake); its library for
# FreeLibraryWhenCallbackReturns is a module of its own
add_library(time_tplib MODULE tests/time_tplib.c)
set_target_properties(time_tplib PROPERTIES PREFIX "lib")
nspa_add_io_test(time_tpio SOURCES tests/time_tpio.c THREADED TIMEOUT 60)
target_compile_definitions(time_tpio PRIVATE NSPA_TPLIB="$<TARGET_FILE:time_tplib>")
add_dependencies(time_tpio time_tplib)
nspa_add_test(time_direct SOURCES tests/time_direct.c WIN32 THREADED TIMEOUT 60)
# Wine's test_iocp_callback (BindIoCompletionCallback on files), on both I/O engines
nspa_add_io_test(time_bind_wine SOURCES tests/time_bind_wine.c THREADED TIMEOUT 60)
# a real-time waiter spins the last NSPA_TIMER_SPIN_US to its timer's due time; SKIP (77) without SCHED_FIFO
nspa_add_test(time_spin SOURCES tests/time_spin.c THREADED TIMEOUT 60)
nspa_add_test(time_direct_behind SOURCES tests/time_direct_behind.c WIN32 THREADED TIMEOUT 60)
set_tests_properties(time_direct_behind PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(time_spin PROPERTIES SKIP_RETURN_CODE 77)
