# Manual pages: man/<name>.<section>.scd through scdoc (Debian's scdoc; tools/deps.sh
# installs it) into <build>/man/man<section>/, with a link page for every other name on
# a page, installed under share/man. tools/man.py does the work; the man_pages test
# checks that every exported nspa_* symbol has a page and that each renders cleanly.
find_program(NSPA_SCDOC scdoc)
find_package(Python3 COMPONENTS Interpreter)
file(GLOB NSPA_MAN_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/man/*.scd)
if(NSPA_SCDOC AND Python3_FOUND)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/man/.stamp
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${PROJECT_BINARY_DIR}/man
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/man.py build ${PROJECT_SOURCE_DIR}/man
            ${PROJECT_BINARY_DIR}/man $<TARGET_FILE:nspa> ${PROJECT_SOURCE_DIR}/include/nspa/win32
    COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/man/.stamp
    DEPENDS ${NSPA_MAN_SOURCES} ${PROJECT_SOURCE_DIR}/tools/man.py nspa
    COMMENT "Manual pages (scdoc)" VERBATIM)
  add_custom_target(nspa-man ALL DEPENDS ${PROJECT_BINARY_DIR}/man/.stamp)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}
          PATTERN .stamp EXCLUDE)
  if(NSPA_SANITIZE STREQUAL "")
    add_test(NAME man_pages COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/man.py check
             ${PROJECT_BINARY_DIR}/man $<TARGET_FILE:nspa>)
    set_tests_properties(man_pages PROPERTIES TIMEOUT 120 LABELS "man;packaging")
  endif()
else()
  message(WARNING "scdoc or python3 not found: no manual pages (tools/deps.sh test installs scdoc)")
endif()
