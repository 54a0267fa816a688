# Header layout as in the Windows SDK (issue 19): one small program per header, each
# including only that header and using what the SDK's header declares. -Werror: a
# missing or different declaration fails the build (hence the test); running checks
# that the symbols link and behave.
foreach(h winbase synchapi processthreadsapi heapapi winnt winternl windows wine_sync)
  nspa_add_test(win32_header_${h} SOURCES tests/win32_header_${h}.c WIN32)
  target_compile_options(win32_header_${h} PRIVATE -Wall -Werror -Wno-unused-variable
                         -Werror=implicit-function-declaration -Werror=incompatible-pointer-types)
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    # MemoryBarrier's fence draws gcc's -Wtsan in the TSan tree: a TSan limitation
    target_compile_options(win32_header_${h} PRIVATE -Wno-tsan)
  endif()
endforeach()
