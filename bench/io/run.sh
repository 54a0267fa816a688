#!/usr/bin/env bash
# nspa-bench io: overlapped I/O, NSPA against the physical limits and the peers, in one
# run, interleaved round after round (ROUNDS, default 5); medians and ratios by
# tools/benchfmt.py. Usage: bench/io/run.sh <builddir> <outdir>   (`make bench BENCH=io`)
#
#   rtt_p50 / rtt_p99   TCP loopback 256-byte ping-pong round trip (us), PP_ITERS each:
#       blocking          blocking send/recv (limits.c)
#       liburing          raw liburing RECV/SEND, a ring per end (limits.c)
#       nspa_event        io_bench.c: overlapped WSARecv, wait on its event (io_uring engine)
#       nspa_iocp         the same through a completion port
#       nspa_epoll_event  nspa_event with NSPA_IO_ENGINE=epoll (its waits poll their socket)
#       nspa_epoll_iocp   nspa_iocp with NSPA_IO_ENGINE=epoll
#       nspa_epoll_event_nopoll   nspa_epoll_event with NSPA_IO_THREAD_RINGS=0 (every
#                         completion through the epoll engine thread: the design before)
#       nspa_event_noring, nspa_iocp_noring   with NSPA_IO_THREAD_RINGS=0 (every
#                         completion through the engine thread: the design before thread rings)
#       wine_event, wine_iocp   io_bench.c built with mingw-w64, stock Wine 8
#   rtt_1cpu_p50 / rtt_1cpu_p99   blocking, liburing, nspa_event, nspa_iocp,
#       nspa_epoll_event and Wine's two (its wineserver on that CPU too) again with the
#       process on one CPU (why: at pp1 below)
#   echo                messages/s of an echo server, 64 connections (limits.c echo_client):
#       nspa (completion port, 2 workers), liburing (one raw ring), asio (Boost.Asio,
#       2 threads; libasio-dev)
#   fileread_rand_4096 / fileread_seq_1048576   MiB/s, queue depth 32, a 256 MiB file in
#       the page cache: nspa (overlapped ReadFile on a port) and fio --ioengine=io_uring
# Knobs: ROUNDS=5 PP_ITERS=20000 ECHO_MS=2000 FILE_MS=2000 BENCH_IO_WINE=1
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
ROUNDS=${ROUNDS:-5}
PP_ITERS=${PP_ITERS:-20000}
ECHO_MS=${ECHO_MS:-2000}
FILE_MS=${FILE_MS:-2000}
bench_files io

"$root/tools/deps.sh" bench fio libasio-dev g++ wine64 gcc-mingw-w64-x86-64 >>"$log" 2>&1 ||
  say "warning: tools/deps.sh failed (see $log)"
NSPA=$build/bench/nspa_io_bench
LIM=$build/bench/nspa_io_limits
[ -x "$NSPA" ] && [ -x "$LIM" ] || { say "nspa_io_bench / nspa_io_limits not built"; exit 1; }
ASIO=$work/echo_asio
g++ -O2 -o "$ASIO" "$here/echo_asio.cpp" -pthread >>"$log" 2>&1 || { say "SKIP asio: build failed"; ASIO=; }
export NSPA_NAMESPACE=nspa-bench-io-$$

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
EXE=$work/io_bench.exe
if [ "${BENCH_IO_WINE:-1}" = 1 ] && x86_64-w64-mingw32-gcc -O2 -o "$EXE" "$here/io_bench.c" -lws2_32 >>"$log" 2>&1 &&
   [ -x "$WINE" ]; then
  export WINEPREFIX=$out/io-wineprefix WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
  unset DISPLAY WAYLAND_DISPLAY
  rm -rf "$WINEPREFIX"
  timeout 300 "$WINE" wineboot -i >>"$log" 2>&1
  "$WINESERVER" -p >>"$log" 2>&1
  trap '"$WINESERVER" -k >/dev/null 2>&1; "$WINESERVER" -w >/dev/null 2>&1; rm -rf "$WINEPREFIX"' EXIT
  say "wine: $("$WINE" --version 2>/dev/null)"
else
  say "SKIP wine: mingw-w64 build or $WINE missing"; EXE=
fi

# one ping-pong run: its RESULT line becomes rtt_p50 and rtt_p99 lines for <impl>
# (PP_SUFFIX=_1cpu: rtt_1cpu_p50 / rtt_1cpu_p99, the run pinned by the caller)
pp() {
  local impl=$1 sfx=${PP_SUFFIX:-}; shift
  local o
  o=$(timeout 120 "$@" 2>>"$log" | tr -d '\r')
  echo "$o" >>"$log"
  local p50 p99
  p50=$(grep -o ' p50=[0-9.]*' <<<"$o" | cut -d= -f2)
  p99=$(grep -o ' p99=[0-9.]*' <<<"$o" | cut -d= -f2)
  if [ -z "$p50" ]; then say "FAILED $impl: $*"; return; fi
  echo "RESULT bench=rtt${sfx}_p50 impl=$impl unit=us value=$p50 better=lower" >>"$samples"
  echo "RESULT bench=rtt${sfx}_p99 impl=$impl unit=us value=$p99 better=lower" >>"$samples"
}
# The same ping-pong with the whole process on one CPU (the last one this shell may use).
# Why: on a virtual machine a thread woken on an idle vCPU waits for the host to bring
# that vCPU out of its halt; a blocking recv() is woken by a sync wake-up and stays on
# the sender's CPU, an io_uring waiter (raw liburing as much as NSPA) is woken by task
# work and sent to the idle vCPU. Unpinned on a quiet VM the io_uring figures measure
# the host's vCPU wake-up (docs/io.md, "Two regimes"); pinned, a round trip is two
# context switches on one CPU and the figure is the software's own cost.
one_cpu=$(taskset -pc $$ 2>/dev/null | awk -F': ' '{ n = split($2, a, "[,-]"); print a[n] }')
pp1() { PP_SUFFIX=_1cpu pp "$1" taskset -c "$one_cpu" "${@:2}"; }

port=5700
echo_run() {  # <impl> <server cmd...>: the server on a fresh port, the load against it
  local impl=$1; shift
  port=$((port + 1))
  "$@" "$port" $((ECHO_MS + 1500)) >"$work/srv.out" 2>>"$log" &
  local pid=$!
  sleep 0.5
  local o
  o=$(timeout 60 "$LIM" echo_client "$port" 64 "$ECHO_MS" "$impl" 2>>"$log")
  wait "$pid"
  echo "$o" >>"$log"
  grep '^RESULT ' <<<"$o" >>"$samples" || say "FAILED echo $impl"
}

FILE=$work/io-bench-file
dd if=/dev/urandom of="$FILE" bs=1M count=256 status=none
file_run() {  # <rand|seq> <bs>
  local mode=$1 bs=$2 o
  cat "$FILE" >/dev/null                      # in the page cache
  o=$(timeout 60 "$NSPA" fileread nspa "$FILE" "$bs" 32 "$mode" "$FILE_MS" 2>>"$log")
  echo "$o" >>"$log"
  grep '^RESULT ' <<<"$o" >>"$samples" || say "FAILED fileread nspa"
  local rw=randread; [ "$mode" = seq ] && rw=read
  o=$(timeout 60 fio --name=r --filename="$FILE" --invalidate=0 --ioengine=io_uring --iodepth=32 --rw=$rw \
        --bs="$bs" --time_based --runtime=$((FILE_MS / 1000)) --output-format=terse --terse-version=3 2>>"$log")
  echo "$o" >>"$log"
  local kbs
  kbs=$(awk -F';' '{print $7}' <<<"$o")
  [ -n "$kbs" ] && echo "RESULT bench=fileread_${mode}_$bs impl=fio unit=MiB/s value=$(python3 -c "print($kbs/1024)") better=higher" >>"$samples"
}

for r in $(seq 1 "$ROUNDS"); do
  say "round $r/$ROUNDS"
  pp blocking "$LIM" pingpong_blocking "$PP_ITERS"
  pp liburing "$LIM" pingpong_uring "$PP_ITERS"
  pp nspa_event "$NSPA" pingpong_event nspa "$PP_ITERS"
  pp nspa_iocp "$NSPA" pingpong_iocp nspa "$PP_ITERS"
  pp nspa_epoll_event env NSPA_IO_ENGINE=epoll "$NSPA" pingpong_event nspa "$PP_ITERS"
  pp nspa_epoll_iocp env NSPA_IO_ENGINE=epoll "$NSPA" pingpong_iocp nspa "$PP_ITERS"
  pp nspa_epoll_event_nopoll env NSPA_IO_ENGINE=epoll NSPA_IO_THREAD_RINGS=0 "$NSPA" pingpong_event nspa "$PP_ITERS"
  pp nspa_event_noring env NSPA_IO_THREAD_RINGS=0 "$NSPA" pingpong_event nspa "$PP_ITERS"
  pp nspa_iocp_noring env NSPA_IO_THREAD_RINGS=0 "$NSPA" pingpong_iocp nspa "$PP_ITERS"
  if [ -n "$one_cpu" ]; then
    pp1 blocking "$LIM" pingpong_blocking "$PP_ITERS"
    pp1 liburing "$LIM" pingpong_uring "$PP_ITERS"
    pp1 nspa_event "$NSPA" pingpong_event nspa "$PP_ITERS"
    pp1 nspa_iocp "$NSPA" pingpong_iocp nspa "$PP_ITERS"
    pp1 nspa_epoll_event env NSPA_IO_ENGINE=epoll "$NSPA" pingpong_event nspa "$PP_ITERS"
    if [ -n "$EXE" ]; then
      # stock Wine on the same CPU, its wineserver too (every socket call is a round trip
      # to it), then the wineserver back on every CPU
      ws=$(pgrep -x wineserver | head -1)
      [ -n "$ws" ] && taskset -apc "$one_cpu" "$ws" >/dev/null 2>&1
      pp1 wine_event "$WINE" "$EXE" pingpong_event wine $((PP_ITERS / 10))
      pp1 wine_iocp "$WINE" "$EXE" pingpong_iocp wine $((PP_ITERS / 10))
      [ -n "$ws" ] && taskset -apc "0-$(($(nproc --all) - 1))" "$ws" >/dev/null 2>&1
    fi
  fi
  if [ -n "$EXE" ]; then
    pp wine_event "$WINE" "$EXE" pingpong_event wine $((PP_ITERS / 10))
    pp wine_iocp "$WINE" "$EXE" pingpong_iocp wine $((PP_ITERS / 10))
  fi
  echo_run nspa "$NSPA" echo_iocp nspa
  echo_run liburing "$LIM" echo_uring
  [ -n "$ASIO" ] && echo_run asio "$ASIO"
  file_run rand 4096
  file_run seq 1048576
done
rm -f "$FILE"

python3 "$root/tools/benchfmt.py" --module io --json "$out/io.json" --md "$out/io.md" "$samples" \
  --ratio rtt_p50:nspa_event:blocking --ratio rtt_p99:nspa_event:blocking \
  --ratio rtt_p50:nspa_event:liburing --ratio rtt_p99:nspa_event:liburing \
  --ratio rtt_p50:nspa_iocp:blocking --ratio rtt_p99:nspa_iocp:blocking \
  --ratio rtt_p50:nspa_iocp:liburing --ratio rtt_p99:nspa_iocp:liburing \
  --ratio rtt_1cpu_p50:nspa_event:blocking --ratio rtt_1cpu_p99:nspa_event:blocking \
  --ratio rtt_1cpu_p50:nspa_event:liburing --ratio rtt_1cpu_p99:nspa_event:liburing \
  --ratio rtt_1cpu_p50:nspa_iocp:blocking --ratio rtt_1cpu_p99:nspa_iocp:blocking \
  --ratio rtt_1cpu_p50:liburing:blocking --ratio rtt_1cpu_p50:nspa_epoll_event:nspa_event \
  --ratio rtt_1cpu_p50:wine_event:nspa_event --ratio rtt_1cpu_p99:wine_event:nspa_event \
  --ratio rtt_1cpu_p50:wine_iocp:nspa_iocp --ratio rtt_1cpu_p99:wine_iocp:nspa_iocp \
  --ratio rtt_p50:nspa_event_noring:nspa_event --ratio rtt_p50:nspa_iocp_noring:nspa_iocp \
  --ratio rtt_p50:nspa_epoll_event:nspa_event --ratio rtt_p99:nspa_epoll_event:nspa_event \
  --ratio rtt_p50:nspa_epoll_iocp:nspa_iocp --ratio rtt_p50:nspa_epoll_event_nopoll:nspa_epoll_event \
  --ratio rtt_p50:wine_event:nspa_event --ratio rtt_p99:wine_event:nspa_event \
  --ratio rtt_p50:wine_iocp:nspa_iocp --ratio rtt_p99:wine_iocp:nspa_iocp \
  --ratio echo:nspa:liburing --ratio echo:nspa:asio \
  --ratio fileread_rand_4096:nspa:fio --ratio fileread_seq_1048576:nspa:fio
say "results: $out/io.md"
