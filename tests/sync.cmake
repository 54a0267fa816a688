# NT sync objects (include/nspa/sync.h): one test per feature
nspa_add_test(sync_semaphore SOURCES tests/sync_semaphore.c)
nspa_add_test(sync_mutex SOURCES tests/sync_mutex.c)
nspa_add_test(sync_event SOURCES tests/sync_event.c THREADED)
nspa_add_test(sync_wait SOURCES tests/sync_wait.c)
nspa_add_test(sync_wake_order SOURCES tests/sync_wake_order.c THREADED SERIAL TIMEOUT 60)
nspa_add_test(sync_bad_input SOURCES tests/sync_bad_input.c)
nspa_add_test(sync_scale SOURCES tests/sync_scale.c TIMEOUT 120)
nspa_add_test(sync_named SOURCES tests/sync_named.c)
