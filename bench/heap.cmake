# nspa-bench heap: the random workload against glibc/mimalloc/jemalloc/tcmalloc (LD_PRELOAD)
nspa_add_bench(heap_random_malloc SOURCES bench/heap/heap_random.c)
nspa_add_bench(heap_random_nspa SOURCES bench/heap/heap_random.c WIN32)
target_compile_definitions(heap_random_nspa PRIVATE USE_NSPA=1)
# the field's workload shapes (larson, xmalloc, mstress, rptest, cache-scratch), our own code
nspa_add_bench(heap_shapes_malloc SOURCES bench/heap/heap_shapes.c LIBS m)
nspa_add_bench(heap_shapes_nspa SOURCES bench/heap/heap_shapes.c WIN32 LIBS m)
target_compile_definitions(heap_shapes_nspa PRIVATE USE_NSPA=1)
