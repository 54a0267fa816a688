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
nspa_add_io_test(io_thread_ring SOURCES tests/io_thread_ring.c THREADED TIMEOUT 60)
# a grant to a waiter still on its CPU sends no wake: a thread ring must look at its word
nspa_add_io_test(io_ring_spin_wake SOURCES tests/io_ring_spin_wake.c THREADED TIMEOUT 60)
nspa_add_io_test(io_wait_poll SOURCES tests/io_wait_poll.c THREADED TIMEOUT 60)
# a thread ring's completion queue overflows; needs ~1200 descriptors (SKIP without)
nspa_add_io_test(io_cq_overflow SOURCES tests/io_cq_overflow.c THREADED TIMEOUT 90)
set_tests_properties(io_cq_overflow io_cq_overflow_epoll PROPERTIES SKIP_RETURN_CODE 77)
nspa_add_io_test(io_ring_handover SOURCES tests/io_ring_handover.c THREADED TIMEOUT 90)
nspa_add_io_test(io_port_wakes SOURCES tests/io_port_wakes.c THREADED TIMEOUT 90)
nspa_add_io_test(io_wsabuf_many SOURCES tests/io_wsabuf_many.c THREADED TIMEOUT 60)
nspa_add_io_test(io_ring_alarm SOURCES tests/io_ring_alarm.c THREADED TIMEOUT 60)
# Winsock answers where Linux answers differently (socket arguments, listen, send EPIPE, connect)
nspa_add_io_test(io_ws_rules SOURCES tests/io_ws_rules.c THREADED TIMEOUT 60)
# names and directories: attributes, CreateDirectory / RemoveDirectory, MoveFile(Ex), FindFirstFile
nspa_add_io_test(io_dir SOURCES tests/io_dir.c THREADED TIMEOUT 60)
# select over more sockets than the default FD_SETSIZE (the program defines its own)
nspa_add_io_test(io_select_big SOURCES tests/io_select_big.c THREADED TIMEOUT 60)
# ReadFile / WriteFile (and the Ex forms) on a SOCKET
nspa_add_io_test(io_socket_file SOURCES tests/io_socket_file.c THREADED TIMEOUT 60)
# Winsock BSD-era names: inet_addr / inet_ntoa, gethostname, gethostbyname / gethostbyaddr, getservbyname, getnameinfo
nspa_add_io_test(io_names SOURCES tests/io_names.c THREADED TIMEOUT 60)
# a port a pool of workers waits on: its operations go to the process ring
nspa_add_io_test(io_port_pool SOURCES tests/io_port_pool.c THREADED TIMEOUT 60)
