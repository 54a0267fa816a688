# nspa-bench sync (issue 2, item 8). bench/sync/run.sh drives it; see docs/bench.md.
#
# nspa_sync_limits: the physical limits (raw futex hand-off, pthread PI / plain mutex,
# uncontended lock+unlock pair), plain Linux C.
nspa_add_bench(nspa_sync_limits SOURCES ${PROJECT_SOURCE_DIR}/bench/sync/limits.c)

# nspa_sync_bench: the Win32 source built natively against NSPA's <windows.h>. The same
# file is built with mingw-w64 for stock Wine and against WinPR by run.sh (bench-only
# peers, not CMake targets). It needs NSPA's Win32 sync layer (CreateEventA and friends,
# declared in include/nspa/win32/winbase.h or synchapi.h); in a tree without it the target
# is left out and run.sh says so.
set(NSPA_BENCH_HAVE_WIN32_SYNC FALSE)
foreach(h synchapi.h winbase.h)
  if(EXISTS ${PROJECT_SOURCE_DIR}/include/nspa/win32/${h})
    file(STRINGS ${PROJECT_SOURCE_DIR}/include/nspa/win32/${h} _decl REGEX "HANDLE WINAPI CreateEventA")
    if(_decl)
      set(NSPA_BENCH_HAVE_WIN32_SYNC TRUE)
    endif()
  endif()
endforeach()
if(NSPA_BENCH_HAVE_WIN32_SYNC)
  nspa_add_bench(nspa_sync_bench SOURCES ${PROJECT_SOURCE_DIR}/bench/sync/sync_bench.c WIN32)
  # the scale phase (bench/sync/scale.sh): K independent pairs, two namespaces, RT mutex
  nspa_add_bench(nspa_sync_scale SOURCES ${PROJECT_SOURCE_DIR}/bench/sync/scale_bench.c WIN32)
  # uncontended SetEvent / ResetEvent / ReleaseMutex / ReleaseSemaphore, ns per call
  # (issue 19: the Win32 calls over the Nt* ones must not get slower)
  nspa_add_bench(nspa_sync_hotcalls SOURCES ${PROJECT_SOURCE_DIR}/bench/sync/hotcalls.c WIN32)
endif()
