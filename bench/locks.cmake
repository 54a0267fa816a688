# nspa-bench locks: the Win32 bench source built natively against NSPA (impl nspa, and
# the pthread peer in the same binary); run.sh builds the same source with mingw for Wine.
nspa_add_bench(locks_bench SOURCES bench/locks/locks_bench.c WIN32)
