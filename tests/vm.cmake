# Virtual memory, exceptions, file mappings, large pages (issue 15)
nspa_add_test(vm_alloc SOURCES tests/vm_alloc.c WIN32 TIMEOUT 60)
nspa_add_test(vm_except SOURCES tests/vm_except.c WIN32 THREADED TIMEOUT 60)
nspa_add_test(vm_guard SOURCES tests/vm_guard.c WIN32 THREADED TIMEOUT 60)
