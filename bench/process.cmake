# nspa-bench process (issue 14): CreateProcess + wait against posix_spawn + waitid, a
# wait on a process handle against a poll on a pidfd, and stock Wine (bench/process/run.sh).
nspa_add_bench(nspa_process_bench SOURCES ${PROJECT_SOURCE_DIR}/bench/process/process_bench.c WIN32)
nspa_add_bench(nspa_process_limits SOURCES ${PROJECT_SOURCE_DIR}/bench/process/limits.c)
add_executable(nspa_process_child ${PROJECT_SOURCE_DIR}/bench/process/child.c)
set_target_properties(nspa_process_child PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
