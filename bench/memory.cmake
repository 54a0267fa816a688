# nspa-bench memory (bench/memory/run.sh): the Win32 source natively against NSPA, with
# the raw Linux limits in the same binary; run.sh builds it with mingw for Wine.
nspa_add_bench(memory_bench SOURCES bench/memory/memory_bench.c WIN32)
