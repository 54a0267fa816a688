# Virtual memory, exceptions, file mappings, large pages (issue 15)
nspa_add_test(vm_alloc SOURCES tests/vm_alloc.c WIN32 TIMEOUT 60)
