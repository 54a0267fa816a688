# Unicode: conversions, compare, hash (docs/unicode.md)
set(NSPA_UNICODE_REF ${PROJECT_SOURCE_DIR}/src/unicode/ref/unicode_ref.c)
nspa_add_test(unicode_win10_vectors SOURCES tests/unicode_win10_vectors.c WIN32)
nspa_add_test(unicode_rtl SOURCES tests/unicode_rtl.c WIN32)
nspa_add_test(unicode_case_windows SOURCES tests/unicode_case_windows.c WIN32)
nspa_add_test(unicode_upcase_table SOURCES tests/unicode_upcase_table.c ${NSPA_UNICODE_REF})
nspa_add_test(unicode_isa SOURCES tests/unicode_isa.c)
nspa_add_test(unicode_difftest SOURCES tests/unicode_difftest.c ${NSPA_UNICODE_REF} TIMEOUT 200)
foreach(t unicode_upcase_table unicode_difftest)
  target_compile_definitions(${t} PRIVATE NSPA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endforeach()

# The libFuzzer target (clang only, plain tree, built on request because it needs
# libclang-rt-*-dev): cmake --build <tree> --target unicode_fuzz;
# <tree>/unicode_fuzz [corpus] -max_len=4096.
# With gcc the same entry point runs under a small driver for 3 s (unicode_fuzz_replay).
if(CMAKE_C_COMPILER_ID MATCHES "Clang" AND NSPA_SANITIZE STREQUAL "")
  add_executable(unicode_fuzz EXCLUDE_FROM_ALL tests/fuzz/unicode_fuzz.c ${NSPA_UNICODE_REF})
  target_compile_options(unicode_fuzz PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(unicode_fuzz PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(unicode_fuzz PRIVATE nspa)
  target_include_directories(unicode_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(unicode_fuzz PRIVATE NSPA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
nspa_add_test(unicode_fuzz_replay SOURCES tests/fuzz/unicode_fuzz.c tests/fuzz/unicode_fuzz_driver.c ${NSPA_UNICODE_REF})
target_compile_definitions(unicode_fuzz_replay PRIVATE NSPA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
