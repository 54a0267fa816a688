/* A library for tests/time_tpio.c: loaded with LoadLibrary, unloaded by a thread-pool
 * callback's FreeLibraryWhenCallbackReturns. */
int tplib_twice_plus_two(int x);
__attribute__((visibility("default"))) int tplib_twice_plus_two(int x) { return 2 * x + 2; }
