# libnspa-malloc.so: malloc & co. over the NSPA process heap, for LD_PRELOAD.
add_library(nspa-malloc SHARED ${PROJECT_SOURCE_DIR}/src/heap/shim/nspa_malloc.c)
target_link_libraries(nspa-malloc PRIVATE nspa)
target_include_directories(nspa-malloc PRIVATE ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_compile_options(nspa-malloc PRIVATE -fno-builtin)
set_target_properties(nspa-malloc PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)
target_link_options(nspa-malloc PRIVATE -Wl,--no-undefined)
install(TARGETS nspa-malloc LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# HeapAlloc/nspa_heap_alloc (and the other twins) have the same body: identical-code
# folding (across files too, with LTO) would turn one into a jump through the PLT to
# the other. Keep both direct.
file(GLOB NSPA_HEAP_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/heap/*.c)
set_source_files_properties(${NSPA_HEAP_SOURCES} PROPERTIES COMPILE_OPTIONS -fno-ipa-icf)
