# The I/O module: io_uring through Debian's liburing (tools/deps.sh installs liburing-dev).
find_library(NSPA_LIBURING uring REQUIRED)
target_link_libraries(nspa PRIVATE ${NSPA_LIBURING})
