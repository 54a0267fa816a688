# NT heap (src/heap): one test per feature
nspa_add_test(heap_basic SOURCES tests/heap_basic.c WIN32)
nspa_add_test(heap_realloc SOURCES tests/heap_realloc.c WIN32)
nspa_add_test(heap_badfree SOURCES tests/heap_badfree.c WIN32 THREADED)
nspa_add_test(heap_fixed SOURCES tests/heap_fixed.c WIN32)
nspa_add_test(heap_walk SOURCES tests/heap_walk.c WIN32)
nspa_add_test(heap_lock SOURCES tests/heap_lock.c WIN32 THREADED)
nspa_add_test(heap_info SOURCES tests/heap_info.c WIN32)
nspa_add_test(heap_stress SOURCES tests/heap_stress.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(heap_threadexit SOURCES tests/heap_threadexit.c WIN32 THREADED)
nspa_add_test(heap_remote SOURCES tests/heap_remote.c WIN32 THREADED)
nspa_add_test(heap_nspa_api SOURCES tests/heap_nspa_api.c WIN32)
# exhaustion at initialisation (RLIMIT_AS): an error, not an abort. Sanitizers' shadow
# memory does not fit under an address-space limit
nspa_add_test(heap_init_nomem SOURCES tests/heap_init_nomem.c WIN32 NO_ASAN NO_TSAN)
# memory use against glibc malloc: ASan replaces malloc, so not there
nspa_add_test(heap_rss SOURCES tests/heap_rss.c WIN32 NO_ASAN SERIAL TIMEOUT 60)
# LD_PRELOAD shim under a real program (python3). Not under ASan or TSan: both replace
# malloc themselves, and a sanitizer-built shim preloaded into an uninstrumented
# python3 has no sanitizer runtime initialised before it (it crashed there)
nspa_add_test(heap_preload SOURCES tests/heap_preload.c NO_ASAN NO_TSAN TIMEOUT 90)
target_compile_definitions(heap_preload PRIVATE NSPA_MALLOC_PATH="$<TARGET_FILE:nspa-malloc>")
add_dependencies(heap_preload nspa-malloc)
# memory that comes back through HeapAlloc (busy, blocked, gone owner); also under TSan
nspa_add_test(heap_notice SOURCES tests/heap_notice.c WIN32 THREADED TIMEOUT 60)
# producer/consumer through the shim against glibc: peak RSS and memory that comes back
# (owner blocked, owner gone). Not under ASan or TSan, which replace malloc themselves
nspa_add_test(heap_producer_consumer SOURCES tests/heap_producer_consumer.c NO_ASAN NO_TSAN SERIAL TIMEOUT 90)
target_compile_definitions(heap_producer_consumer PRIVATE NSPA_MALLOC_PATH="$<TARGET_FILE:nspa-malloc>")
add_dependencies(heap_producer_consumer nspa-malloc)
# real-time waits: a SCHED_FIFO thread waiting for a lower-priority one inside the heap
# sleeps and boosts it (three threads on one CPU); SKIP (77) without SCHED_FIFO
nspa_add_test(heap_rt_wait SOURCES tests/heap_rt_wait.c WIN32 THREADED SERIAL TIMEOUT 90)
set_tests_properties(heap_rt_wait PROPERTIES SKIP_RETURN_CODE 77)
# idle memory goes back after an epoch (own, gone thread, handed over), a thread whose
# use swings stops decommitting and faulting it in again; also under TSan
nspa_add_test(heap_purge SOURCES tests/heap_purge.c WIN32 THREADED)
# a thread that takes over an exited thread's live blocks reuses its segments; also TSan
nspa_add_test(heap_adopt SOURCES tests/heap_adopt.c WIN32 THREADED)
nspa_add_test(heap_orphan_keep SOURCES tests/heap_orphan_keep.c WIN32 THREADED)
# interior pointers at every offset of every class, local and remote frees
nspa_add_test(heap_interior SOURCES tests/heap_interior.c WIN32 THREADED)
