# nspa-bench msg (issue 17): bench/msg/run.sh drives it; docs/bench.md, docs/msg.md.
# The same Win32 source is built with mingw-w64 for stock Wine by run.sh.
nspa_add_bench(msg_bench SOURCES ${PROJECT_SOURCE_DIR}/bench/msg/msg_bench.c WIN32)
