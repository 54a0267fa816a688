#!/usr/bin/env bash
# nspa-bench time: waitable timers, multimedia timers and thread pools against the raw
# Linux peers (bench/time/limits.c) and stock Wine, interleaved, ratios in one run.
# Usage: bench/time/run.sh <builddir> <outdir>      (tools/bench.sh calls it; `make bench BENCH=time`)
#
#   nspa  bench/time/time_bench.c built natively against NSPA (<builddir>/bench/nspa_time_bench);
#         timer benches in RT mode (NSPA_RT_PRIO=80: the TIME_CRITICAL waiter is SCHED_FIFO 80)
#   raw   bench/time/limits.c: clock_nanosleep(TIMER_ABSTIME) loops at SCHED_FIFO 80 (the
#         same priority), a pthread condition-variable hand-off, a fixed pthread pool with a
#         mutex + condition-variable queue (one thread per CPU)
#   wine  the same Win32 source built with x86_64-w64-mingw32-gcc, run by stock Wine 8
# Knobs: ROUNDS=5 (oneshot, pools)  PERIODIC_ROUNDS=3  PERIODIC_S=10  ONESHOT_N=2000
#        ITEMS=1000000  BENCH_TIME_IMPLS="nspa raw wine"
#        TIME_BENCH_SERIES=<prefix>: every periodic run also writes its lateness series to
#        <prefix>.<bench>.<impl>.<pid> (where a stall begins, how it is caught up)
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
ROUNDS=${ROUNDS:-5}
PERIODIC_ROUNDS=${PERIODIC_ROUNDS:-3}
PERIODIC_S=${PERIODIC_S:-10}
ONESHOT_N=${ONESHOT_N:-2000}
ITEMS=${ITEMS:-1000000}
WINE_ITEMS=${WINE_ITEMS:-100000}
IMPLS=${BENCH_TIME_IMPLS:-nspa raw wine}
RUN_TIMEOUT=${RUN_TIMEOUT:-120}
work=$out/time-work
samples=$out/time-samples.txt
log=$out/time-run.log
rm -rf "$work"; mkdir -p "$work"
: >"$samples"; : >"$log"
t_start=$(date +%s)
say() { echo "time: $*" | tee -a "$log"; }
have() { [[ " $IMPLS " == *" $1 "* ]]; }
export NSPA_NAMESPACE=${NSPA_NAMESPACE:-nspa-bench-time-$$}

"$root/tools/deps.sh" bench wine64 gcc-mingw-w64-x86-64 >>"$log" 2>&1 ||
  say "warning: tools/deps.sh failed (see $log); running what is installed"

NSPA_BIN=$build/bench/nspa_time_bench
LIMITS_BIN=$build/bench/nspa_time_limits
have nspa && [ -x "$NSPA_BIN" ] || NSPA_BIN=
have raw && [ -x "$LIMITS_BIN" ] || LIMITS_BIN=
RT_OK=1
if ! chrt -f 1 true 2>/dev/null; then
  say "note: no permission for SCHED_FIFO: the timer benches run without RT mode on both sides"
  RT_OK=0
fi

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
EXE=$work/time_bench.exe
if have wine && x86_64-w64-mingw32-gcc -O2 -Wall -o "$EXE" "$here/time_bench.c" -lwinmm >>"$log" 2>&1 && [ -x "$WINE" ]; then
  export WINEPREFIX=$out/time-wineprefix WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
  unset DISPLAY WAYLAND_DISPLAY
  rm -rf "$WINEPREFIX"
  say "wine: $("$WINE" --version 2>/dev/null), preparing a throw-away prefix"
  timeout 300 "$WINE" wineboot -i >>"$log" 2>&1 || say "warning: wineboot -i returned $?"
  "$WINESERVER" -k >/dev/null 2>&1; "$WINESERVER" -w >/dev/null 2>&1
  "$WINESERVER" -p >>"$log" 2>&1
  cleanup_wine() { "$WINESERVER" -k >/dev/null 2>&1; "$WINESERVER" -w >/dev/null 2>&1; rm -rf "$WINEPREFIX"; }
  trap cleanup_wine EXIT
else
  have wine && say "SKIP wine: mingw-w64 build or $WINE missing"
  EXE=
fi

run() {  # run <label> <cmd...>: RESULT lines to the samples
  local label=$1; shift
  local o rc t0=$SECONDS
  o=$(timeout "$RUN_TIMEOUT" "$@" 2>>"$log" | tr -d '\r'); rc=$?
  echo "$o" >>"$log"; echo "# $label: $((SECONDS - t0)) s" >>"$log"
  if [ $rc -ne 0 ] || ! grep -q '^RESULT ' <<<"$o"; then say "FAILED ($label, exit $rc)"; return 0; fi
  grep '^RESULT ' <<<"$o" >>"$samples"
}
rtenv=()
rawrt=()
if [ $RT_OK = 1 ]; then rtenv=(env NSPA_RT_PRIO=80 NSPA_RT_POLICY=FF); rawrt=(env RAW_RT_PRIO=80); fi
nspa_rt() { [ -n "$NSPA_BIN" ] && run "nspa $1" "${rtenv[@]}" "$NSPA_BIN" "$1" nspa "${@:2}"; return 0; }
nspa_n() { [ -n "$NSPA_BIN" ] && run "nspa $1" "$NSPA_BIN" "$1" nspa "${@:2}"; return 0; }
raw_rt() { [ -n "$LIMITS_BIN" ] && run "raw $1" "${rawrt[@]}" "$LIMITS_BIN" "$@"; return 0; }
raw_n() { [ -n "$LIMITS_BIN" ] && run "raw $1" "$LIMITS_BIN" "$@"; return 0; }
wine_() { [ -n "$EXE" ] && run "wine $1" "$WINE" "$EXE" "$1" wine "${@:2}"; return 0; }

for r in $(seq 1 "$ROUNDS"); do
  say "round $r/$ROUNDS ($(( $(date +%s) - t_start )) s elapsed)"
  nspa_rt oneshot "$ONESHOT_N"; raw_rt oneshot "$ONESHOT_N"; wine_ oneshot "$ONESHOT_N"
  nspa_n tp_latency 2000; raw_n handoff 2000; wine_ tp_latency 2000
  nspa_n tp_latency 500 2000; raw_n handoff 500 2000; wine_ tp_latency 500 2000
  nspa_n tp_throughput "$ITEMS"; raw_n pool "$ITEMS"; wine_ tp_throughput "$WINE_ITEMS"
done
for r in $(seq 1 "$PERIODIC_ROUNDS"); do
  say "periodic round $r/$PERIODIC_ROUNDS ($(( $(date +%s) - t_start )) s elapsed)"
  nspa_rt periodic "$PERIODIC_S"; raw_rt periodic "$PERIODIC_S"; nspa_rt mmperiodic "$PERIODIC_S"
  wine_ periodic "$PERIODIC_S"; wine_ mmperiodic "$PERIODIC_S"
done
"$root/tools/clean-namespaces.sh" "$NSPA_NAMESPACE" >/dev/null 2>&1 || true

ratios=(oneshot_p50:nspa:raw oneshot_p99:nspa:raw oneshot_p99:nspa:wine
        periodic_expiries:nspa:raw periodic_p50:nspa:raw periodic_p99:nspa:raw periodic_p99:nspa:wine
        mmperiodic_expiries:nspa:raw mmperiodic_p99:nspa:wine
        tp_submit_p50:nspa:raw tp_submit_idle_p50:nspa:raw tp_submit_p50:nspa:wine
        tp_throughput:nspa:raw tp_throughput:nspa:wine)
args=()
for x in "${ratios[@]}"; do args+=(--ratio "$x"); done
# the multimedia timer's lateness against the raw periodic loop (the same schedule)
python3 - "$samples" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
same = ("bench=periodic_p5", "bench=periodic_p9", "bench=periodic_max", "bench=periodic_stalls")
extra = [l.replace("bench=periodic_", "bench=mmperiodic_") for l in lines if "impl=raw" in l and any(x in l for x in same)]
open(sys.argv[1], "a").write("".join(x + "\n" for x in extra))
PY
args+=(--ratio mmperiodic_p50:nspa:raw --ratio mmperiodic_p99:nspa:raw)
notes=(
  "Method: $ROUNDS interleaved rounds of oneshot (${ONESHOT_N} waits) and the pool benches, $PERIODIC_ROUNDS of the ${PERIODIC_S} s periodic ones; in each round every implementation runs once. Same Win32 source (bench/time/time_bench.c) natively against NSPA and under stock Wine 8 (mingw-w64); raw = bench/time/limits.c."
  "Timer benches: NSPA in RT mode (NSPA_RT_PRIO=80, the TIME_CRITICAL waiter is SCHED_FIFO 80, the timer service 79), raw at SCHED_FIFO 80; Wine has no RT mode. oneshot: SetWaitableTimer(-1 ms) then WaitForSingleObject, lateness = wake - (set + 1 ms); raw: clock_nanosleep(TIMER_ABSTIME, now + 1 ms). periodic: a 1 ms periodic waitable timer for ${PERIODIC_S} s, lateness of expiry i against start + i ms; raw: a clock_nanosleep TIMER_ABSTIME loop with the same schedule. mmperiodic: timeSetEvent(1 ms, TIME_PERIODIC), lateness measured in the callback, against the raw loop's figures of the same round. Every side replays missed periods, so one stall of D ms makes about D late expiries: max is the worst lateness, stalls the number of episodes of expiries >= 2 ms late (TIME_BENCH_SERIES=<prefix> writes each series)."
  "Pool benches at NORMAL / SCHED_OTHER on both sides. tp_submit: SubmitThreadpoolWork to the callback's first instruction, one at a time right after the previous (the worker may still be spinning); tp_submit_idle: after a 2 ms pause (the worker sleeps); raw: a pthread condition-variable hand-off to a waiting thread. tp_throughput: ${ITEMS} SubmitThreadpoolWork of a one-atomic-increment callback until all ran (Wine: ${WINE_ITEMS}, its rate is what is compared); raw: a pthread pool of one thread per CPU taking preallocated items from a mutex + condition-variable queue."
  "Must-show targets (issue 16): oneshot p50 and p99 nspa/raw <= 1.5, p99 nspa/wine <= 0.1; periodic and mmperiodic expiries nspa/raw within 0.995-1.005 with none doubled, p99 nspa/raw <= 1.5; tp_submit p50 nspa/raw <= 1.5; tp_throughput nspa/raw >= 0.8 and nspa/wine >= 10."
)
nargs=()
for x in "${notes[@]}"; do nargs+=(--note "$x"); done
say "done after $(( $(date +%s) - t_start )) s"
grep -q '^RESULT ' "$samples" || { say "no samples"; exit 1; }
python3 "$root/tools/benchfmt.py" --module time --json "$out/time.json" --md "$out/time.md" "$samples" "${args[@]}" "${nargs[@]}"
