# The installed library: headers, nspa.pc, nspa-win32.pc, CMake package, exported symbols.
add_test(NAME install_pkgconfig COMMAND ${PROJECT_SOURCE_DIR}/tests/install/install_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(install_pkgconfig PROPERTIES TIMEOUT 300 LABELS "no-asan;no-tsan")
