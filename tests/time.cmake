# Time and work (src/time, docs/time.md): waitable timers and the timer service
nspa_add_test(time_waitable SOURCES tests/time_waitable.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_timerqueue SOURCES tests/time_timerqueue.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_timerqueue_wine SOURCES tests/time_timerqueue_wine.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_threadpool SOURCES tests/time_threadpool.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_mm SOURCES tests/time_mm.c WIN32 THREADED TIMEOUT 60)
# MMCSS in RT mode and outside it; SKIP (77) without SCHED_FIFO permission
nspa_add_test(rt_mmcss SOURCES tests/rt_mmcss.c WIN32 SERIAL TIMEOUT 60)
set_tests_properties(rt_mmcss PROPERTIES SKIP_RETURN_CODE 77)
