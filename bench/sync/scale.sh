#!/usr/bin/env bash
# nspa-bench sync, scale phase: how NSPA's sync objects scale with independent users.
# Usage: bench/sync/scale.sh <builddir> <outdir>
#   (bench/sync/run.sh calls it after its own benches; `BENCH_SYNC_ONLY=scale make bench
#    BENCH=sync` or this script alone runs only this phase)
#
# Benches (NSPA: <builddir>/bench/nspa_sync_scale, bench/sync/scale_bench.c; peers:
# <builddir>/bench/nspa_sync_limits, bench/sync/limits.c), interleaved round after round:
#   scale_k<K>          K = 1 2 4 8 16 independent pairs of threads, each bouncing its own two
#                       unnamed auto-reset events; total round trips/s; peer: the same shape
#                       on raw futexes (impl=futex)
#   scale_waitall_k<K>  the same with two events per direction taken by
#                       WaitForMultipleObjects(2, h, TRUE, INFINITE); peer: the futex pairs
#   scale_named_k<K>    the same as scale_k<K> with every event named; peer: the futex pairs
#                       (the futex run of each K in a round is the peer of all three)
#   isolation           two processes x 2 pairs of unnamed events, started together by a
#                       pipe: round trips/s of each process, in one shared namespace
#                       (impl=same_ns) and in two namespaces (impl=diff_ns)
#   isolation_named     the same with named events (distinct names)
#   rt_mutex_t<N>       N = 2 8 SCHED_FIFO threads (priority RT_PRIO) on one contended NT mutex
#                       (NSPA_RT_PRIO=RT_PRIO NSPA_RT_POLICY=FF, TIME_CRITICAL threads); peer:
#                       a PTHREAD_PRIO_INHERIT mutex under the same policy (impl=pthread_pi);
#                       skipped (one line says so) when SCHED_FIFO is not permitted
# Every process runs under `timeout`, in a namespace of its own (NSPA_NAMESPACE=
# nspa-bench-scale-<pid>-<n>) except the isolation pairs that share one on purpose.
# Output: <outdir>/sync_scale.json, sync_scale.md (tools/benchfmt.py),
# sync_scale-samples.txt, sync_scale-run.log.
# Knobs (environment): ROUNDS=5  SCALE_MS=1000  SCALE_KS="1 2 4 8 16"  ISO_MS=1000
#   ISO_PAIRS=2  RT_MS=500  RT_THREADS="2 8"  RT_PRIO=10  SCALE_TIMEOUT=30 (s per process)
#   SCALE_BENCHES="scale scale_waitall scale_named isolation rt_mutex"
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"

ROUNDS=${ROUNDS:-5}
SCALE_MS=${SCALE_MS:-1000}
SCALE_KS=${SCALE_KS:-1 2 4 8 16}
ISO_MS=${ISO_MS:-1000}
ISO_PAIRS=${ISO_PAIRS:-2}
RT_MS=${RT_MS:-500}
RT_THREADS=${RT_THREADS:-2 8}
RT_PRIO=${RT_PRIO:-10}
SCALE_TIMEOUT=${SCALE_TIMEOUT:-30}
BENCHES=${SCALE_BENCHES:-scale scale_waitall scale_named isolation rt_mutex}

work=$out/sync_scale-work
samples=$out/sync_scale-samples.txt
log=$out/sync_scale-run.log
rm -rf "$work"
mkdir -p "$work"
: >"$samples"
: >"$log"
t_start=$(date +%s)
say() { echo "sync scale: $*" | tee -a "$log"; }
want() { [[ " $BENCHES " == *" $1 "* ]]; }

BIN=$build/bench/nspa_sync_scale
if [ ! -x "$BIN" ]; then
  say "SKIP: $BIN not built (needs NSPA's Win32 sync layer; see bench/sync.cmake)"
  exit 1
fi
LIMITS=$build/bench/nspa_sync_limits
if [ ! -x "$LIMITS" ]; then
  LIMITS=$work/nspa_sync_limits
  gcc -O2 -o "$LIMITS" "$here/limits.c" -pthread >>"$log" 2>&1 || { say "limits build failed"; LIMITS=; }
fi

fifo_ok=1
python3 -c "import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param($RT_PRIO))" 2>/dev/null || fifo_ok=0
if want rt_mutex && [ $fifo_ok = 0 ]; then
  say "SKIP rt_mutex: SCHED_FIFO $RT_PRIO not permitted here (needs root / CAP_SYS_NICE / RLIMIT_RTPRIO)"
fi

# a namespace of its own for every NSPA process (the last process out unlinks it)
nrun=0
ns_new() { nrun=$((nrun + 1)); NS=nspa-bench-scale-$$-$nrun; }

# run <label> <cmd...>: bounded in time; RESULT lines (sorted by proc= for the isolation
# pairs, so that benchfmt pairs process 1 with process 1) go to the samples file
run() {
  local label=$1; shift
  local o rc t0=$SECONDS
  o=$(timeout "$SCALE_TIMEOUT" "$@" 2>>"$log")
  rc=$?
  echo "$o" >>"$log"
  echo "# $label: $((SECONDS - t0)) s, exit $rc" >>"$log"
  if grep -q '^SKIP ' <<<"$o"; then
    say "$(grep '^SKIP ' <<<"$o" | head -1)"
    return 0
  fi
  if [ $rc -ne 0 ] || ! grep -q '^RESULT ' <<<"$o"; then
    say "FAILED ($label, exit $rc): $*"
    return 1
  fi
  grep '^RESULT ' <<<"$o" |
    awk '{ p = 0; for (i = 1; i <= NF; i++) if ($i ~ /^proc=/) p = substr($i, 6); print p "\t" $0 }' |
    sort -n -k1,1 | cut -f2- >>"$samples"
  LAST=$o
}

nspa() { ns_new; run "nspa $*" env NSPA_NAMESPACE="$NS" "$BIN" "$@"; }

# the futex pairs of one K, recorded as the peer of scale, scale_waitall and scale_named
futex_pairs() {
  local k=$1 line
  [ -n "$LIMITS" ] || return 0
  LAST=
  run "futex scale $k" "$LIMITS" scale "$k" "$SCALE_MS" || return 0
  line=$(grep "^RESULT bench=scale_k$k impl=futex" <<<"$LAST" | head -1)
  [ -n "$line" ] || return 0
  for b in scale_waitall scale_named; do
    want "$b" && sed "s/bench=scale_k$k /bench=${b}_k$k /; s/\$/ peer_run=scale_k$k/" <<<"$line" >>"$samples"
  done
  want scale || sed -i "/^RESULT bench=scale_k$k impl=futex/d" "$samples"
}

iso() {  # iso <named 0|1>
  local named=$1 s
  s=$$-$r-$named
  run "isolation named=$named same" "$BIN" isolation "$ISO_PAIRS" "$ISO_MS" "$named" same_ns \
      "bench-iso-same-$s" "bench-iso-same-$s"
  run "isolation named=$named diff" "$BIN" isolation "$ISO_PAIRS" "$ISO_MS" "$named" diff_ns \
      "bench-iso-a-$s" "bench-iso-b-$s"
}

say "binaries: $BIN, ${LIMITS:-no limits}; benches: $BENCHES; $ROUNDS rounds"
for r in $(seq 1 "$ROUNDS"); do
  say "round $r/$ROUNDS ($(( $(date +%s) - t_start )) s elapsed)"
  for k in $SCALE_KS; do
    if want scale || want scale_waitall || want scale_named; then futex_pairs "$k"; fi
    want scale && nspa scale "$k" "$SCALE_MS"
    want scale_waitall && nspa scale_waitall "$k" "$SCALE_MS"
    want scale_named && nspa scale_named "$k" "$SCALE_MS"
  done
  if want isolation; then
    iso 0
    iso 1
  fi
  if want rt_mutex && [ $fifo_ok = 1 ]; then
    for n in $RT_THREADS; do
      ns_new
      run "nspa rt_mutex $n" env NSPA_NAMESPACE="$NS" NSPA_RT_PRIO="$RT_PRIO" NSPA_RT_POLICY=FF \
          "$BIN" rt_mutex "$n" "$RT_MS"
      [ -n "$LIMITS" ] && run "pthread_pi rt_mutex $n" env RT_PRIO="$RT_PRIO" "$LIMITS" rt_mutex "$n" "$RT_MS"
    done
  fi
done
say "done measuring after $(( $(date +%s) - t_start )) s"

# ---- report ------------------------------------------------------------------------
args=()
for k in $SCALE_KS; do
  for b in scale scale_waitall scale_named; do
    want $b && args+=(--ratio "${b}_k$k:nspa:futex")
  done
done
if want isolation; then
  args+=(--ratio isolation:same_ns:diff_ns --ratio isolation_named:same_ns:diff_ns)
fi
if want rt_mutex && [ $fifo_ok = 1 ]; then
  for n in $RT_THREADS; do args+=(--ratio "rt_mutex_t$n:nspa:pthread_pi"); done
fi
notes=(
  "Method: $ROUNDS interleaved rounds; in each, for every K the futex pairs run first, then NSPA's scale, scale_waitall and scale_named; then the isolation runs (same namespace, then two namespaces, unnamed then named); then rt_mutex (nspa, pthread_pi) per thread count. Timed runs: ${SCALE_MS} ms (scale*), ${ISO_MS} ms (isolation), ${RT_MS} ms (rt_mutex). Each NSPA process runs in a fresh namespace of its own, except the isolation pairs."
)
if want scale || want scale_waitall || want scale_named; then
  notes+=("scale_k<K>: K independent pairs of threads in one process, each pair bouncing its own two unnamed auto-reset events (SetEvent + WaitForSingleObject each way), nothing shared between pairs; the pairs are released together by one event; after ${SCALE_MS} ms the main thread reads every pair's count and the clock at the same moment, then stops them; figure = total round trips/s over that window (start_late_ms= on each line: how late the last pinger started after the release). scale_waitall: each direction is two auto-reset events, the setter sets both and the waiter takes both with WaitForMultipleObjects(2, h, TRUE, INFINITE). scale_named: as scale with every event named (bench-scale-<pid>-<k>-a|b). The peer of all three is the same shape on raw futexes (one word per direction on its own cache line, FUTEX_WAKE on every hand-off, no spinning); one futex run per K and round serves as the peer of the three (its lines carry peer_run=). Targets: nspa/futex >= 0.8 (scale), >= 0.6 (scale_waitall), >= 0.7 (scale_named) at every K.")
fi
if want isolation; then
  notes+=("isolation: two processes, each with ${ISO_PAIRS} pairs on unnamed events, set up, then released together through a pipe and run ${ISO_MS} ms; one sample per process (the samples of a run are ordered process 1, process 2). same_ns: both with one NSPA_NAMESPACE; diff_ns: NSPA_NAMESPACE=bench-iso-a-* and bench-iso-b-*. isolation_named: the same with named events (distinct names). Targets: same/diff >= 0.85 (unnamed), >= 0.7 (named).")
fi
if want rt_mutex && [ $fifo_ok = 0 ]; then
  notes+=("rt_mutex not measured: SCHED_FIFO ${RT_PRIO} is not permitted here (root, CAP_SYS_NICE or RLIMIT_RTPRIO needed).")
elif want rt_mutex; then
  notes+=("rt_mutex_t<N>: N SCHED_FIFO threads at priority ${RT_PRIO} take and release one mutex around a counter increment (checked afterwards), started by an event/futex (spinning SCHED_FIFO threads would starve the creator); each worker stops itself ${RT_MS} ms after the first worker's start (a SCHED_OTHER main thread could not get the CPU to stop them), figure = acquisitions / (first start .. last stop); nspa: CreateMutex + WaitForSingleObject + ReleaseMutex with NSPA_RT_PRIO=${RT_PRIO} NSPA_RT_POLICY=FF, REALTIME class, TIME_CRITICAL workers (checked SCHED_FIFO ${RT_PRIO} with sched_getparam); pthread_pi: a PTHREAD_PRIO_INHERIT mutex, threads created SCHED_FIFO ${RT_PRIO}. Target nspa/pthread_pi >= 1.0.")
fi
nargs=()
for x in "${notes[@]}"; do nargs+=(--note "$x"); done
if ! grep -q '^RESULT ' "$samples"; then
  say "no samples collected"; exit 1
fi
python3 "$root/tools/benchfmt.py" --module sync_scale --json "$out/sync_scale.json" \
  --md "$out/sync_scale.md" "$samples" "${args[@]}" "${nargs[@]}"
