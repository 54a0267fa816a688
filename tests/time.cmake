# Time and work (src/time, docs/time.md): waitable timers and the timer service
nspa_add_test(time_waitable SOURCES tests/time_waitable.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_timerqueue SOURCES tests/time_timerqueue.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(time_threadpool SOURCES tests/time_threadpool.c WIN32 THREADED TIMEOUT 60)
