# Time and work (src/time, docs/time.md): waitable timers and the timer service
nspa_add_test(time_waitable SOURCES tests/time_waitable.c WIN32 THREADED TIMEOUT 60)
