# NT sync objects (include/nspa/sync.h): one test per feature
nspa_add_test(sync_semaphore SOURCES tests/sync_semaphore.c)
nspa_add_test(sync_mutex SOURCES tests/sync_mutex.c)
nspa_add_test(sync_event SOURCES tests/sync_event.c THREADED)
nspa_add_test(sync_wait SOURCES tests/sync_wait.c)
nspa_add_test(sync_wake_order SOURCES tests/sync_wake_order.c THREADED SERIAL TIMEOUT 60)
nspa_add_test(sync_bad_input SOURCES tests/sync_bad_input.c)
nspa_add_test(sync_ntsync_answers SOURCES tests/sync_ntsync_answers.c TIMEOUT 60)
nspa_add_test(sync_scale SOURCES tests/sync_scale.c TIMEOUT 120)
nspa_add_test(sync_named SOURCES tests/sync_named.c)
nspa_add_test(sync_abandon SOURCES tests/sync_abandon.c THREADED)
nspa_add_test(sync_claim_release SOURCES tests/sync_claim_release.c THREADED)
nspa_add_test(sync_kill_stress SOURCES tests/sync_kill_stress.c TIMEOUT 180)
nspa_add_test(sync_grant_kill SOURCES tests/sync_grant_kill.c THREADED)
nspa_add_test(sync_waitall_inline SOURCES tests/sync_waitall_inline.c THREADED)
nspa_add_test(sync_model_stress SOURCES tests/sync_model_stress.c TIMEOUT 120)
nspa_add_test(sync_thread_stress SOURCES tests/sync_thread_stress.c THREADED TIMEOUT 120)
# Rules of the sync core v2 (limits, wakes, leaks, namespace safety, no allocation).
# The limit tests run their parts as child-process phases under a watchdog
# (tests/sync_phase.h): a part that aborts or hangs fails in bounded time, with its
# signal or "HANG" printed, and leaves no process behind. Those with thousands of
# threads or processes are SERIAL (they compete for pids and cores).
nspa_add_test(sync_thread_limit SOURCES tests/sync_thread_limit.c THREADED SERIAL TIMEOUT 120)
nspa_add_test(sync_wake_all SOURCES tests/sync_wake_all.c THREADED SERIAL TIMEOUT 120)
nspa_add_test(sync_proc_churn SOURCES tests/sync_proc_churn.c SERIAL TIMEOUT 240)
# a million named objects: under a sanitizer it would measure the sanitizer
nspa_add_test(sync_named_million SOURCES tests/sync_named_million.c NO_ASAN NO_TSAN TIMEOUT 180)
# as root it plays two other users (victim 61477, attacker 65534 nobody); SKIP (77) otherwise
nspa_add_test(sync_ns_squat SOURCES tests/sync_ns_squat.c WIN32 TIMEOUT 120)
set_tests_properties(sync_ns_squat PROPERTIES SKIP_RETURN_CODE 77)
# interposes malloc: sanitizers replace it
nspa_add_test(sync_first_wait_noalloc SOURCES tests/sync_first_wait_noalloc.c WIN32 THREADED NO_ASAN NO_TSAN TIMEOUT 60)
# who gets a contended mutex, and how long its waiters spin (docs/sync.md, "Waits")
nspa_add_test(sync_mutex_runner SOURCES tests/sync_mutex_runner.c THREADED)
nspa_add_test(sync_mutex_spin SOURCES tests/sync_mutex_spin.c THREADED)
# an event waiter spins, then backs off when its waits are long (CPU-time bounds: not under TSan)
nspa_add_test(sync_event_spin SOURCES tests/sync_event_spin.c WIN32 THREADED NO_TSAN)
nspa_add_test(sync_mutex_woken SOURCES tests/sync_mutex_woken.c THREADED)
