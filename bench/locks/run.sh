#!/usr/bin/env bash
# nspa-bench locks: NSPA's Win32 layer vs glibc pthreads vs stock Wine 8 (the same Win32
# source built with mingw-w64 and run under wine64), interleaved 5 times.
# Usage: bench/locks/run.sh <builddir> <outdir>
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
runs=${LOCKS_BENCH_RUNS:-5}
bin=$build/bench/locks_bench
samples=$out/locks.samples.txt
notes=()
: > "$samples"

"$root"/tools/deps.sh bench wine64 gcc-mingw-w64-x86-64 || notes+=("Installing wine64/mingw-w64 failed: no Wine figures.")
[ -x "$bin" ] || { echo "locks bench: $bin not built"; exit 1; }

# the Wine peer: the same source as a PE executable, a throw-away prefix under $out
wine=
exe=$out/locks_bench.exe
prefix=$out/wineprefix-locks
if command -v x86_64-w64-mingw32-gcc >/dev/null && [ -x /usr/lib/wine/wine64 ]; then
  if x86_64-w64-mingw32-gcc -O2 -o "$exe" "$root/bench/locks/locks_bench.c"; then
    rm -rf "$prefix"
    echo "locks bench: wineboot -i (first start of a prefix may take a minute)"
    if WINEPREFIX=$prefix WINEDEBUG=-all timeout 300 /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1 &&
       WINEPREFIX=$prefix WINEDEBUG=-all timeout 120 /usr/lib/wine/wine64 "$exe" --impl wine8 --only uncontended_1thread >/dev/null 2>&1; then
      wine=1
      wine_version=$(/usr/lib/wine/wine64 --version 2>/dev/null)
      notes+=("Wine peer: $wine_version (Debian wine64), WINEDEBUG=-all, fresh prefix, the same locks_bench.c built with x86_64-w64-mingw32-gcc -O2.")
    else
      notes+=("Wine could not run here (wineboot or the test program failed): no Wine figures, nothing substituted.")
    fi
  else
    notes+=("mingw-w64 build of the bench failed: no Wine figures.")
  fi
else
  notes+=("wine64 / mingw-w64 not available: no Wine figures.")
fi

wine_run() { WINEPREFIX=$prefix WINEDEBUG=-all timeout 300 /usr/lib/wine/wine64 "$exe" "$@"; }

fifo_ok=1
python3 -c "import os; os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))" 2>/dev/null || fifo_ok=0
[ $fifo_ok = 1 ] || notes+=("SCHED_FIFO not permitted: rapidmutex_rt not measured.")

for i in $(seq 1 "$runs"); do
  echo "locks bench: round $i/$runs"
  env -u NSPA_RT_PRIO -u NSPA_PI "$bin" --impl nspa >> "$samples"
  "$bin" --impl pthread >> "$samples"
  [ -n "$wine" ] && wine_run --impl wine8 | tr -d '\r' >> "$samples"
  if [ $fifo_ok = 1 ]; then
    NSPA_RT_PRIO=80 NSPA_RT_POLICY=FF "$bin" --impl nspa --rt >> "$samples"
    "$bin" --impl pthread_pi --rt >> "$samples"
    [ -n "$wine" ] && wine_run --impl wine8 --rt | tr -d '\r' >> "$samples"
  fi
done
[ -n "$wine" ] && WINEPREFIX=$prefix /usr/lib/wine/wineserver -k 2>/dev/null

notes+=("uncontended: thread CPU time per Enter+Leave pair with a second thread alive (as in any program that needs a lock); uncontended_1thread: the same in a single-threaded process, where glibc drops the lock prefix of its mutex atomics.")
notes+=("rapidmutex_rt: NSPA in RT mode (NSPA_RT_PRIO=80: the section is a PI futex), threads SCHED_FIFO 80/73/73/73, 4 x 500K, started by a manual-reset event (not a spin on a flag: spinning SCHED_FIFO threads starved the creator and ran into the kernel's RT throttling, a pause of up to 50 ms inside the measurement), median of 3 trials per sample; pthread_pi is a PTHREAD_PRIO_INHERIT mutex under the same threads. Stock Wine has no RT mode: its 'rt' run asks for TIME_CRITICAL but stays SCHED_OTHER without PI, so that ratio compares unlike things (NSPA pays for PI and FIFO there).")

ratios=()
for b in uncontended uncontended_1thread rapidmutex srw_excl srw_shared cv_handoff; do
  ratios+=(--ratio "$b:nspa:pthread")
  [ -n "$wine" ] && ratios+=(--ratio "$b:nspa:wine8")
done
ratios+=(--ratio rapidmutex_rt:nspa:pthread_pi)
[ -n "$wine" ] && ratios+=(--ratio rapidmutex_rt:nspa:wine8)
noteargs=()
for n in "${notes[@]}"; do noteargs+=(--note "$n"); done
python3 "$root/tools/benchfmt.py" --module locks --json "$out/locks.json" --md "$out/locks.md" \
  "$samples" "${ratios[@]}" "${noteargs[@]}"
