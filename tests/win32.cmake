# Win32 layer basics
nspa_add_test(win32_lasterror SOURCES tests/win32_lasterror.c WIN32 THREADED)
# Win32 sync objects, waits, handles, threads, APCs, clocks, Interlocked (issue 2)
nspa_add_test(win32_event SOURCES tests/win32_event.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_mutex SOURCES tests/win32_mutex.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_semaphore SOURCES tests/win32_semaphore.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_wait_any SOURCES tests/win32_wait_any.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_wait_all SOURCES tests/win32_wait_all.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_signal_and_wait SOURCES tests/win32_signal_and_wait.c WIN32 THREADED TIMEOUT 60)
