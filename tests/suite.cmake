# The real-time suite (tools/suite, docs/suite.md): nspa-rt-test, one Win32 program with
# one sub-command per test (every tools/suite/*.c; adding a test = one t_<name>.c and
# one line in tools/suite/tests.def), and the tests of its runner and report.
file(GLOB NSPA_SUITE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tools/suite/*.c)
add_executable(nspa-rt-test ${NSPA_SUITE_SOURCES})
target_link_libraries(nspa-rt-test PRIVATE nspa)
target_include_directories(nspa-rt-test PRIVATE ${PROJECT_SOURCE_DIR}/include/nspa/win32)
target_compile_definitions(nspa-rt-test PRIVATE _GNU_SOURCE)
target_compile_options(nspa-rt-test PRIVATE -fshort-wchar)
set_target_properties(nspa-rt-test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})

find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  # verdict rules, a hung test killed, comparison arithmetic, report rendering (fake
  # test program; no timing asserted)
  add_test(NAME suite_harness
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/suite_harness.py)
  set_tests_properties(suite_harness PROPERTIES TIMEOUT 60 LABELS "suite")
  # the whole suite with small parameters (release tree only: the sanitizer trees would
  # measure the sanitizers); the rtload tests are left out (they saturate every core)
  if(NSPA_SANITIZE STREQUAL "")
    add_test(NAME suite_smoke
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/suite_smoke.py $<TARGET_FILE:nspa-rt-test>)
    set_tests_properties(suite_smoke PROPERTIES TIMEOUT 120 LABELS "suite" RUN_SERIAL TRUE
                         SKIP_RETURN_CODE 77)
  endif()
endif()
