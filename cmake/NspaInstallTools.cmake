# Installs the tools (nspa-tools in Debian, docs/packaging.md): nspa-rt-test and its
# runner nspa-rt-suite, the benchmark programs under libexec/nspa/bench with nspa-bench
# to run them, and the manual pages (man/*.scd through scdoc, docs/packaging.md).
# the wrappers find the rest relative to themselves (a relocatable installation)
file(RELATIVE_PATH NSPA_BIN_TO_PREFIX ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX})
if(NSPA_BIN_TO_PREFIX STREQUAL "")
  set(NSPA_BIN_TO_PREFIX .)
endif()
configure_file(cmake/nspa-rt-suite.in ${PROJECT_BINARY_DIR}/tools/nspa-rt-suite @ONLY)
configure_file(cmake/nspa-bench.in ${PROJECT_BINARY_DIR}/tools/nspa-bench @ONLY)
install(TARGETS nspa-rt-test RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(PROGRAMS ${PROJECT_BINARY_DIR}/tools/nspa-rt-suite ${PROJECT_BINARY_DIR}/tools/nspa-bench
  DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
install(PROGRAMS tools/suite/run_suite.py tools/suite/report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/nspa/suite
  COMPONENT tools)
get_property(NSPA_BENCH_TARGETS GLOBAL PROPERTY NSPA_BENCH_TARGETS)
install(TARGETS ${NSPA_BENCH_TARGETS} nspa_process_child RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/nspa/bench
  COMPONENT tools)
