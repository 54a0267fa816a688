# nspa-bench io (issue 13): bench/io/run.sh drives it; docs/io.md has the figures.
# nspa_io_bench: the Win32 source built natively against NSPA (the same file is built with
# mingw-w64 for stock Wine by run.sh). nspa_io_limits: the Linux peers (blocking sockets,
# raw liburing ping-pong and echo server, the echo load). The Boost.Asio server is built
# by run.sh with g++ (libasio-dev).
nspa_add_bench(nspa_io_bench SOURCES ${PROJECT_SOURCE_DIR}/bench/io/io_bench.c WIN32)
nspa_add_bench(nspa_io_limits SOURCES ${PROJECT_SOURCE_DIR}/bench/io/limits.c LIBS ${NSPA_LIBURING})
