# nspa-bench unicode (bench/unicode/run.sh). ICU is a peer when libicu-dev is installed
# (run.sh installs it); without it the bench still builds, without the ICU column.
find_package(ICU COMPONENTS uc QUIET)
nspa_add_bench(unicode_bench WIN32 SOURCES bench/unicode/unicode_bench.c
               ${PROJECT_SOURCE_DIR}/src/unicode/ref/unicode_ref.c)
target_compile_definitions(unicode_bench PRIVATE NSPA_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
if(ICU_FOUND)
  target_compile_definitions(unicode_bench PRIVATE NSPA_HAVE_ICU=1)
  target_link_libraries(unicode_bench PRIVATE ICU::uc)
endif()
