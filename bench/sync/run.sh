#!/usr/bin/env bash
# nspa-bench sync: NT sync objects, NSPA against the limits and the peers, interleaved.
# Usage: bench/sync/run.sh <builddir> <outdir>      (tools/bench.sh calls it; `make bench`)
#
# Implementations, all in one run, round after round (ROUNDS, default 5):
#   nspa    bench/sync/sync_bench.c built natively against NSPA's <windows.h>
#           (<builddir>/bench/nspa_sync_bench, a CMake target once the Win32 sync layer exists)
#   wine    the same source built with x86_64-w64-mingw32-gcc, run by stock Wine 8
#           (/usr/lib/wine/wine64, WINEDEBUG=-all, a throw-away WINEPREFIX under <outdir>)
#   winpr   the same source built against FreeRDP's WinPR 2 headers (-DNSPA_BENCH_WINPR)
#   futex, pthread_pi, pthread, pthread_pair, pthread_pair_st, atomic_cas
#           the limits, bench/sync/limits.c (<builddir>/bench/nspa_sync_limits)
# Every run is bounded in time: the timed benches run for a fixed wall time (1 s, zigzag
# 2 s) and report per-operation figures; the fixed-count "contended_wait" gets a count
# per implementation (Wine's server round trips are ~100x slower) and is scaled to 10M.
# Then strace -f -c counts the system calls of N uncontended SetEvent + WaitForSingleObject(0)
# + ResetEvent triples (K+N minus K triples of the same binary) for nspa, winpr and wine,
# and of a ping-pong round trip; callgrind counts the instructions of a triple.
# Output: <outdir>/sync.json, <outdir>/sync.md (tools/benchfmt.py), <outdir>/sync-samples.txt,
# <outdir>/sync-run.log.
# Knobs (environment): ROUNDS=5  MS=1000 (timed runs)  ZIGZAG_MS=2000  HANDOFF_REPS=3  BENCH_SYNC_IMPLS="nspa wine winpr limits"
# Then the scale phase, bench/sync/scale.sh (K independent pairs, isolation of namespaces,
# RT mutex; <outdir>/sync_scale.json and .md): BENCH_SYNC_SCALE=0 leaves it out,
# BENCH_SYNC_ONLY=scale runs nothing else (e.g. BENCH_SYNC_ONLY=scale make bench BENCH=sync).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"

if [ "${BENCH_SYNC_ONLY:-}" = scale ]; then
  exec bash "$here/scale.sh" "$build" "$out"
fi

ROUNDS=${ROUNDS:-5}
MS=${MS:-1000}
ZIGZAG_MS=${ZIGZAG_MS:-2000}
IMPLS=${BENCH_SYNC_IMPLS:-nspa wine winpr limits}
# contended_wait counts per implementation: msync's full 10M natively (0.2-1 s on the
# reference VM when the threads rarely overlap, far more when they truly contend), 20K
# under Wine (~1 s); every run stops at CW_CAP_MS and is scaled to 10M from what it did
CW_NATIVE=${CW_NATIVE:-10000000}
CW_WINE=${CW_WINE:-20000}
CW_CAP_MS=${CW_CAP_MS:-3000}
# triples under strace -c
SC_NATIVE=${SC_NATIVE:-100000}
SC_WINPR=${SC_WINPR:-10000}     # 4 calls per triple: 40K traced calls already take seconds
SC_WINE=${SC_WINE:-5000}
RUN_TIMEOUT=${RUN_TIMEOUT:-60}

bench_files sync
t_start=$(date +%s)

# ---- peers -------------------------------------------------------------------------
"$root/tools/deps.sh" bench wine64 gcc-mingw-w64-x86-64 libwinpr2-dev pkg-config strace valgrind gcc \
  >>"$log" 2>&1 || say "warning: tools/deps.sh failed (see $log); running what is installed"

have() { [[ " $IMPLS " == *" $1 "* ]]; }
# NSPA's objects live in a per-user namespace; give the bench its own, away from any
# other program or test run sharing the machine
export NSPA_NAMESPACE=${NSPA_NAMESPACE:-nspa-bench-sync-$$}
src=$here/sync_bench.c

NSPA_BIN=$build/bench/nspa_sync_bench
if have nspa && [ ! -x "$NSPA_BIN" ]; then
  say "SKIP nspa: $NSPA_BIN not built (this tree has no NSPA Win32 sync layer yet: CreateEventA is declared in neither include/nspa/win32/winbase.h nor synchapi.h)"
  NSPA_BIN=
fi
have nspa || NSPA_BIN=

LIMITS_BIN=$build/bench/nspa_sync_limits
if have limits && [ ! -x "$LIMITS_BIN" ]; then
  LIMITS_BIN=$work/nspa_sync_limits
  gcc -O2 -o "$LIMITS_BIN" "$here/limits.c" -pthread >>"$log" 2>&1 ||
    { say "SKIP limits: build failed"; LIMITS_BIN=; }
fi
have limits || LIMITS_BIN=

WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver
EXE=$work/sync_bench.exe
if have wine; then
  if x86_64-w64-mingw32-gcc -O2 -Wall -o "$EXE" "$src" >>"$log" 2>&1 && [ -x "$WINE" ]; then
    export WINEPREFIX=$out/sync-wineprefix WINEDEBUG=-all WINEARCH=win64 WINEDLLOVERRIDES="mscoree,mshtml="
    unset DISPLAY WAYLAND_DISPLAY
    rm -rf "$WINEPREFIX"
    say "wine: $("$WINE" --version 2>/dev/null), preparing a throw-away prefix ($WINEPREFIX)"
    timeout 300 "$WINE" wineboot -i >>"$log" 2>&1 || say "warning: wineboot -i returned $?"
    # keep one wineserver up for the whole run: process start-up stays cheap and the
    # strace of a client counts the client only
    "$WINESERVER" -k >/dev/null 2>&1
    "$WINESERVER" -w >/dev/null 2>&1
    "$WINESERVER" -p >>"$log" 2>&1
    cleanup_wine() { "$WINESERVER" -k >/dev/null 2>&1; "$WINESERVER" -w >/dev/null 2>&1; rm -rf "$WINEPREFIX"; }
    trap cleanup_wine EXIT
  else
    say "SKIP wine: mingw-w64 build or $WINE missing"; EXE=
  fi
else
  EXE=
fi

WINPR_BIN=$work/sync_bench_winpr
if have winpr; then
  # shellcheck disable=SC2046
  gcc -O2 -Wall -DNSPA_BENCH_WINPR $(pkg-config --cflags winpr2) -o "$WINPR_BIN" "$src" \
      $(pkg-config --libs winpr2) -pthread >>"$log" 2>&1 || { say "SKIP winpr: build failed"; WINPR_BIN=; }
else
  WINPR_BIN=
fi

# ---- one run -----------------------------------------------------------------------
# run <label> <cmd...>: bounded in time; RESULT lines go to the samples file, everything
# to the log (WinPR's logger writes to stdout too, so only RESULT lines are kept).
run() {
  local label=$1; shift
  local o t0=$SECONDS
  o=$(timeout "$RUN_TIMEOUT" "$@" 2>>"$log" | tr -d '\r')
  local rc=$?
  echo "$o" >>"$log"
  echo "# $label: $((SECONDS - t0)) s" >>"$log"
  if [ $rc -ne 0 ] || ! grep -q '^RESULT ' <<<"$o"; then
    say "FAILED ($label, exit $rc): $*"
    return 0
  fi
  grep '^RESULT ' <<<"$o" >>"$samples"
}

win32() {  # win32 <bench> "<args for native>" ["<args for wine>"] (words split on spaces)
  local b=$1 a=$2 aw=${3:-$2}
  # shellcheck disable=SC2086
  [ -n "$NSPA_BIN" ] && run "nspa $b" "$NSPA_BIN" "$b" nspa $a
  # shellcheck disable=SC2086
  [ -n "$EXE" ] && run "wine $b" "$WINE" "$EXE" "$b" wine $aw
  # shellcheck disable=SC2086
  [ -n "$WINPR_BIN" ] && run "winpr $b" "$WINPR_BIN" "$b" winpr $a
  return 0
}
limits() { [ -n "$LIMITS_BIN" ] && run "limits $1" "$LIMITS_BIN" "$@"; return 0; }

# The hand-off benches (pingpong, zigzag) are bound by how fast a sleeping CPU wakes. On a
# virtual machine that is the host's state, not the program's: the host polls a halted
# vCPU for a while or not, adapting to the recent wake-ups, and the rate of the same binary
# switches between regimes (16-22 us and 50-60 us per round trip here) that last from a
# fraction of a second to seconds, whatever the implementation. One run per impl and round
# then compares two regimes as often as two implementations. So they run HANDOFF_REPS
# times per round, A B A B, for the medians; and once more per round with the whole
# process on one CPU (pingpong_1cpu, zigzag_1cpu): there a hand-off is a context switch
# on that CPU and no vCPU ever halts, the repeatable measure of the hand-off's own cost.
HANDOFF_REPS=${HANDOFF_REPS:-3}
one_cpu=$(taskset -pc $$ 2>/dev/null | awk -F': ' '{ n = split($2, a, "[,-]"); print a[n] }')
pinned() {  # pinned <bench> <ms>: the process on one CPU; the bench name gets _1cpu
  local b=$1 ms=$2 o
  [ -n "$one_cpu" ] || return 0
  for impl in nspa futex; do
    if [ $impl = nspa ]; then [ -n "$NSPA_BIN" ] || continue; o=$(timeout "$RUN_TIMEOUT" taskset -c "$one_cpu" "$NSPA_BIN" "$b" nspa "$ms" 2>>"$log")
    else [ -n "$LIMITS_BIN" ] || continue; o=$(timeout "$RUN_TIMEOUT" taskset -c "$one_cpu" "$LIMITS_BIN" "$b" "$ms" 2>>"$log"); fi
    echo "$o" >>"$log"
    grep '^RESULT ' <<<"$o" | sed "s/ bench=$b / bench=${b}_1cpu /" >>"$samples"
  done
}

for r in $(seq 1 "$ROUNDS"); do
  say "round $r/$ROUNDS ($(( $(date +%s) - t_start )) s elapsed)"
  for _ in $(seq 1 "$HANDOFF_REPS"); do
    win32 pingpong "$MS";          limits pingpong "$MS"
    win32 zigzag "$ZIGZAG_MS";     limits zigzag "$ZIGZAG_MS"
  done
  pinned pingpong "$MS";           pinned zigzag "$ZIGZAG_MS"
  win32 mutex "$MS";               limits mutex "$MS"
  win32 contended_wait "$CW_NATIVE $CW_CAP_MS" "$CW_WINE $CW_CAP_MS"
  limits contended_wait "$CW_NATIVE" "$CW_CAP_MS"
  win32 waitall "$MS"
  win32 triple "$MS";              limits triple $((MS / 2))
done

# ---- system calls and instructions (repeatable where the times are not) -------------
# triple_syscalls: strace -f -c of (K + N) triples minus K triples, per triple: the
# one-off costs (first use of a thread, object creation) cancel out.
# pingpong_syscalls: strace -f -c of a short ping-pong run, all calls / round trips
# (start-up included, ~100 calls against thousands of round trips).
# triple_instructions: callgrind instruction counts of (K + N) minus K triples.
total_calls() { awk '$NF == "total" { print $4 }' "$1"; }
emit() { echo "RESULT $*" | tee -a "$log" >>"$samples"; }
triple_syscalls() {  # <impl> <k> <n> <cmd...>
  local impl=$1 k=$2 n=$3; shift 3
  local fa=$work/strace-triple-$impl-k.txt fb=$work/strace-triple-$impl-kn.txt
  if timeout 120 strace -f -c -o "$fa" "$@" triple_n "$impl" "$k" >>"$log" 2>&1 &&
     timeout 120 strace -f -c -o "$fb" "$@" triple_n "$impl" $((k + n)) >>"$log" 2>&1; then
    local ca cb
    ca=$(total_calls "$fa"); cb=$(total_calls "$fb")
    if [ -n "$ca" ] && [ -n "$cb" ]; then
      emit "bench=triple_syscalls impl=$impl unit=syscalls_per_triple value=$(python3 -c "print(max(0.0, ($cb - $ca) / $n))") better=lower calls_k=$ca calls_k_plus_n=$cb k=$k n=$n"
      return 0
    fi
  fi
  say "FAILED (triple syscall count for $impl; see $work/strace-triple-$impl-*.txt)"
}
pingpong_syscalls() {  # <impl> <cmd...> (the command prints a RESULT line with iters=)
  local impl=$1; shift
  local f=$work/strace-pingpong-$impl.txt o it c
  o=$(timeout 120 strace -f -c -o "$f" "$@" 2>>"$log" | tr -d '\r')
  echo "$o" >>"$log"
  it=$(grep -o 'iters=[0-9]*' <<<"$o" | head -1 | cut -d= -f2)
  c=$(total_calls "$f" 2>/dev/null)
  if [ -n "$it" ] && [ -n "$c" ] && [ "$it" -gt 0 ]; then
    emit "bench=pingpong_syscalls impl=$impl unit=syscalls_per_round_trip value=$(python3 -c "print($c / $it)") better=lower calls=$c round_trips=$it"
  else
    say "FAILED (ping-pong syscall count for $impl; see $f)"
  fi
}
triple_instructions() {  # <impl> <k> <n> <cmd...>   (cmd takes: triple_n <impl> <count>)
  local impl=$1 k=$2 n=$3; shift 3
  local a b
  a=$(timeout 300 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" triple_n "$impl" "$k" 2>&1 |
      awk '/Collected :/ { print $NF }')
  b=$(timeout 300 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" triple_n "$impl" $((k + n)) 2>&1 |
      awk '/Collected :/ { print $NF }')
  if [ -n "$a" ] && [ -n "$b" ]; then
    emit "bench=triple_instructions impl=$impl unit=instructions_per_op value=$(python3 -c "print(($b - $a) / $n)") better=lower ir_k=$a ir_k_plus_n=$b k=$k n=$n"
  else
    say "FAILED (callgrind count for $impl)"
  fi
}
say "counting system calls and instructions ($(( $(date +%s) - t_start )) s elapsed)"
if command -v strace >/dev/null; then
  [ -n "$NSPA_BIN" ] && triple_syscalls nspa 1000 "$SC_NATIVE" "$NSPA_BIN"
  [ -n "$WINPR_BIN" ] && triple_syscalls winpr 1000 "$SC_WINPR" "$WINPR_BIN"
  [ -n "$EXE" ] && triple_syscalls wine 100 "$SC_WINE" "$WINE" "$EXE"
  [ -n "$NSPA_BIN" ] && pingpong_syscalls nspa "$NSPA_BIN" pingpong nspa 500
  [ -n "$WINPR_BIN" ] && pingpong_syscalls winpr "$WINPR_BIN" pingpong winpr 500
  [ -n "$EXE" ] && pingpong_syscalls wine "$WINE" "$EXE" pingpong wine 500
  [ -n "$LIMITS_BIN" ] && pingpong_syscalls futex "$LIMITS_BIN" pingpong 500
else
  say "SKIP syscall counts: strace missing"
fi
if command -v valgrind >/dev/null; then
  [ -n "$NSPA_BIN" ] && triple_instructions nspa 1000 10000 "$NSPA_BIN"
  [ -n "$WINPR_BIN" ] && triple_instructions winpr 1000 10000 "$WINPR_BIN"
  [ -n "$LIMITS_BIN" ] && triple_instructions pthread_pair 1000 10000 "$LIMITS_BIN"
else
  say "SKIP instruction counts: valgrind missing"
fi

# ---- report ------------------------------------------------------------------------
ratios=(
  pingpong:nspa:futex zigzag:nspa:futex pingpong_1cpu:nspa:futex zigzag_1cpu:nspa:futex triple:nspa:pthread_pair triple:nspa:pthread_pair_st mutex:nspa:pthread_pi
  contended_wait:nspa:pthread_pi triple_instructions:nspa:pthread_pair pingpong_syscalls:nspa:futex
)
for b in pingpong zigzag mutex contended_wait waitall triple triple_syscalls pingpong_syscalls; do
  ratios+=("$b:nspa:wine")
done
for b in pingpong zigzag mutex contended_wait waitall triple; do
  ratios+=("$b:nspa:winpr")
done
args=()
for x in "${ratios[@]}"; do args+=(--ratio "$x"); done
notes=(
  "Method: $ROUNDS interleaved rounds; in each, every implementation of every bench runs once (nspa, wine, winpr, then the limits), pingpong and zigzag $HANDOFF_REPS times (A B A B), then once more each with the process on one CPU (pingpong_1cpu, zigzag_1cpu; nspa and futex only). Why: a hand-off between CPUs costs what waking a halted vCPU costs, which on a virtual machine is the host's adaptive state; the same binary's rate switches between regimes about 3x apart that last from a fraction of a second to seconds. On one CPU no vCPU halts and the figure is repeatable: it is the hand-off's own cost. Timed benches run ${MS} ms (zigzag ${ZIGZAG_MS} ms) each and report per-operation figures. Same Win32 source (bench/sync/sync_bench.c) for nspa, wine (mingw-w64 .exe under stock Wine 8, wineserver sync) and winpr."
  "Must-show targets (issue 2): pingpong nspa/futex <= 1.3; zigzag nspa/futex >= 0.8; triple nspa/pthread_pair <= 4 (pthread_pair = one uncontended pthread_mutex_lock+unlock pair in a process with a second thread alive; pthread_pair_st is the same pair in a one-thread process, where glibc drops the lock prefix: not a lock, shown for information) and triple_syscalls nspa = 0; mutex nspa/pthread_pi >= 0.3; every nspa/wine ratio 10x better (<= 0.1 for time, >= 10 for throughput)."
  "contended_wait is msync's 'contended wait' (10M acquisitions over 2 threads, wall time): native implementations run ${CW_NATIVE} acquisitions; under Wine only ${CW_WINE} (its ~40-100 us server round trips would need 10-30 minutes for 10M); any run still going after ${CW_CAP_MS} ms is stopped there. Fewer than 10M acquisitions are scaled to 10M; each sample line carries iters=, scaled_to= and capped=."
  "waitall: one round = a releaser thread posts 4 semaphores (max count 1), the main thread's WaitForMultipleObjects(bWaitAll=TRUE) takes them and acks with an auto-reset event; us per round."
  "winpr: WinPR 2.x has no auto-reset events (it logs 'auto-reset events not yet implemented' and returns a manual-reset one), so its build resets by hand after each wait of the strictly alternating hand-offs; its semaphores also ignore the maximum count. Its contended mutex is a plain pthread mutex."
  "triple_syscalls: strace -f -c total calls of K+N triples minus K triples of the same binary, divided by N (N=${SC_NATIVE} nspa, ${SC_WINPR} WinPR, ${SC_WINE} under Wine with one persistent wineserver, so Wine's figure counts the client only); one-off calls (a thread's first use, object creation) cancel out. pingpong_syscalls: all calls of a 500 ms ping-pong run under strace -f -c divided by its round trips (start-up included). triple_instructions: valgrind callgrind instructions of K+N minus K operations (N=10000), repeatable whatever the load; for pthread_pair one op is one lock+unlock pair; callgrind counts user-space instructions only, so the kernel side of WinPR's 4 calls per triple is not in its figure."
)
nargs=()
for x in "${notes[@]}"; do nargs+=(--note "$x"); done
say "done measuring after $(( $(date +%s) - t_start )) s"
status=0
if ! grep -q '^RESULT ' "$samples"; then
  say "no samples collected"; status=1
else
  python3 "$root/tools/benchfmt.py" --module sync --json "$out/sync.json" --md "$out/sync.md" \
    "$samples" "${args[@]}" "${nargs[@]}" || status=1
fi

# ---- the scale phase (bench/sync/scale.sh, its own report sync_scale.json/.md) ---------
if [ "${BENCH_SYNC_SCALE:-1}" != 0 ]; then
  # the persistent wineserver is not needed any more: stop it before measuring
  declare -F cleanup_wine >/dev/null && cleanup_wine
  say "scale phase: bench/sync/scale.sh ($(( $(date +%s) - t_start )) s elapsed)"
  bash "$here/scale.sh" "$build" "$out" || status=1
fi
exit $status
