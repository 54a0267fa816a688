# The NT native layer (src/nt/, docs/nt.md): Nt* calls with NTSTATUS over NSPA's objects
nspa_add_test(nt_objects SOURCES tests/nt_objects.c WIN32 TIMEOUT 60)
nspa_add_test(nt_wait SOURCES tests/nt_wait.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(nt_apc SOURCES tests/nt_apc.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(win32_over_nt SOURCES tests/win32_over_nt.c WIN32 TIMEOUT 60)
