# nspa-bench heap: the random workload against glibc/mimalloc/jemalloc/tcmalloc (LD_PRELOAD)
nspa_add_bench(heap_random_malloc SOURCES bench/heap/heap_random.c)
nspa_add_bench(heap_random_nspa SOURCES bench/heap/heap_random.c WIN32)
target_compile_definitions(heap_random_nspa PRIVATE USE_NSPA=1)
# the field's workload shapes (larson, xmalloc, mstress, rptest, cache-scratch), our own code
nspa_add_bench(heap_shapes_malloc SOURCES bench/heap/heap_shapes.c LIBS m)
nspa_add_bench(heap_shapes_nspa SOURCES bench/heap/heap_shapes.c WIN32 LIBS m)
target_compile_definitions(heap_shapes_nspa PRIVATE USE_NSPA=1)
# Every loop of the benches at a 32-byte boundary: the two builds of one program (malloc,
# HeapAlloc) differ a little in code before each loop, and GCC's default alignment (16,
# or 8 when that costs too many bytes of padding) then left the same loop at different
# offsets in a line. On the AMD EPYC VM a 22-byte loop across a 32-byte boundary wrote
# 10-30% slower (cache-scratch; docs/heap.md "Benchmark").
foreach(t heap_random_malloc heap_random_nspa heap_shapes_malloc heap_shapes_nspa)
  target_compile_options(${t} PRIVATE -falign-loops=32)
endforeach()
