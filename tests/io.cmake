# Overlapped I/O (src/io, docs/io.md). Every I/O test runs twice: on the io_uring
# engine, and as <name>_epoll with NSPA_IO_ENGINE=epoll (the fallback engine).
function(nspa_add_io_test name)
  nspa_add_test(${name} ${ARGN} WIN32)
  add_test(NAME ${name}_epoll COMMAND ${name})
  get_test_property(${name} TIMEOUT t)
  get_test_property(${name} LABELS l)
  set_tests_properties(${name}_epoll PROPERTIES TIMEOUT ${t} LABELS "${l}"
    ENVIRONMENT "NSPA_IO_ENGINE=epoll;NSPA_NAMESPACE=ctest-${name}-epoll;ASAN_OPTIONS=detect_leaks=1;TSAN_OPTIONS=halt_on_error=1 detect_deadlocks=0 die_after_fork=0;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endfunction()
nspa_add_io_test(io_tcp_basic SOURCES tests/io_tcp_basic.c THREADED TIMEOUT 60)
nspa_add_io_test(io_overlapped SOURCES tests/io_overlapped.c THREADED TIMEOUT 60)
nspa_add_io_test(io_iocp SOURCES tests/io_iocp.c THREADED TIMEOUT 60)
nspa_add_io_test(io_bad_input SOURCES tests/io_bad_input.c THREADED TIMEOUT 60)
nspa_add_io_test(io_stress SOURCES tests/io_stress.c THREADED TIMEOUT 120)
nspa_add_io_test(io_file SOURCES tests/io_file.c THREADED TIMEOUT 60)
nspa_add_io_test(io_event_select SOURCES tests/io_event_select.c THREADED TIMEOUT 60)
nspa_add_io_test(io_cancel_sync SOURCES tests/io_cancel_sync.c THREADED TIMEOUT 60)
nspa_add_test(io_cancel_sync_rt SOURCES tests/io_cancel_sync_rt.c WIN32 THREADED NO_ASAN NO_TSAN TIMEOUT 60)
