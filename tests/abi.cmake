# The ABI (docs/abi.md): abidiff against the stored baseline abi/libnspa.abi (fails on a
# removed or changed export, passes on additions), and the exported names: all versioned
# by src/libnspa.map, only nspa_* and Win32/NT names. Release tree only: the baseline is
# a release build's, and a sanitizer build exports nothing different. About a second.
if(NSPA_SANITIZE STREQUAL "")
  add_test(NAME abi_check COMMAND ${PROJECT_SOURCE_DIR}/tools/abi.sh check $<TARGET_FILE:nspa>)
  add_test(NAME abi_exports COMMAND ${PROJECT_SOURCE_DIR}/tools/abi.sh exports ${PROJECT_BINARY_DIR})
  set_tests_properties(abi_check abi_exports PROPERTIES TIMEOUT 60 LABELS "abi;packaging"
                       SKIP_RETURN_CODE 77)
endif()

# The Debian packages (make deb, docs/packaging.md) installed into a scratch root and
# used: skipped (77) until `make deb` has put them in <build>/deb.
if(NSPA_SANITIZE STREQUAL "")
  add_test(NAME deb_install COMMAND ${PROJECT_SOURCE_DIR}/tests/deb/deb_test.sh
           ${PROJECT_BINARY_DIR}/../deb ${PROJECT_SOURCE_DIR})
  set_tests_properties(deb_install PROPERTIES TIMEOUT 300 LABELS "deb;no-asan;no-tsan"
                       SKIP_RETURN_CODE 77 ENVIRONMENT "NSPA_NAMESPACE=ctest-deb_install")
endif()
