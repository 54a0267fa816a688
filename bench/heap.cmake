# nspa-bench heap: the random workload against glibc/mimalloc/jemalloc/tcmalloc (LD_PRELOAD)
nspa_add_bench(heap_random_malloc SOURCES bench/heap/heap_random.c)
nspa_add_bench(heap_random_nspa SOURCES bench/heap/heap_random.c WIN32)
target_compile_definitions(heap_random_nspa PRIVATE USE_NSPA=1)
