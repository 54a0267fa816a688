# nspa-bench time (issue 16): waitable timers, multimedia timers and thread pools against
# raw clock_nanosleep / pthread peers and stock Wine (bench/time/run.sh; docs/bench.md)
nspa_add_bench(nspa_time_bench SOURCES ${PROJECT_SOURCE_DIR}/bench/time/time_bench.c WIN32)
nspa_add_bench(nspa_time_limits SOURCES ${PROJECT_SOURCE_DIR}/bench/time/limits.c)
