#!/usr/bin/env bash
# nspa-bench process: CreateProcess + WaitForSingleObject of a small C child (NSPA),
# posix_spawn + waitid of the same child (raw Linux), and the mingw build of the same
# Win32 source under stock Wine 8 (with the child built for Windows); then the wake of a
# wait on a process handle against a poll() on a pidfd (from the child's last clock
# reading). Rounds are interleaved; medians of the rounds are reported.
# Usage: bench/process/run.sh <builddir> <outdir>     Knobs: ROUNDS=5 N=200 NWINE=30 NWAKE=100
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
ROUNDS=${ROUNDS:-5}
N=${N:-200}
NWINE=${NWINE:-30}
NWAKE=${NWAKE:-100}
log=$out/process-run.log
: >"$log"
export NSPA_NAMESPACE=${NSPA_NAMESPACE:-nspa-bench-process-$$}
B=$build/bench
CHILD=$B/nspa_process_child
stamp=$out/process-stamp
"$root/tools/deps.sh" bench wine64 gcc-mingw-w64-x86-64 >>"$log" 2>&1 || echo "process: deps.sh failed (see $log)"

WINE=
work=$out/process-work
mkdir -p "$work"
if command -v x86_64-w64-mingw32-gcc >/dev/null && [ -x /usr/lib/wine/wine64 ]; then
  if x86_64-w64-mingw32-gcc -O2 -o "$work/process_bench.exe" "$here/process_bench.c" >>"$log" 2>&1 &&
     x86_64-w64-mingw32-gcc -O2 -o "$work/child.exe" "$here/child.c" >>"$log" 2>&1; then
    export WINEPREFIX=$work/wineprefix WINEDEBUG=-all
    /usr/lib/wine/wine64 wineboot -i >>"$log" 2>&1
    WINE=/usr/lib/wine/wine64
  fi
fi
[ -n "$WINE" ] || echo "process: no Wine column (mingw-w64 or wine64 missing)" | tee -a "$log"

res=$out/process-raw.txt
: >"$res"
for r in $(seq 1 "$ROUNDS"); do
  echo "nspa_spawn $("$B/nspa_process_bench" spawn "$CHILD" "$N")" >>"$res"
  echo "raw_spawn $("$B/nspa_process_limits" spawn "$CHILD" "$N")" >>"$res"
  if [ -n "$WINE" ]; then
    echo "wine_spawn $(cd "$work" && timeout 300 $WINE process_bench.exe spawn 'child.exe' "$NWINE" | tr -d '\r')" >>"$res"
  fi
  echo "nspa_wake $("$B/nspa_process_bench" wake "$CHILD" "$NWAKE" "$stamp")" >>"$res"
  echo "raw_wake $("$B/nspa_process_limits" wake "$CHILD" "$NWAKE" "$stamp")" >>"$res"
done
python3 - "$res" "$out" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 5:
        rows.setdefault(f[0], []).append([float(x) for x in f[2:5]])
med = {k: [statistics.median(c) for c in zip(*v)] for k, v in rows.items()}
def ratio(a, b, i):
    return med[a][i] / med[b][i] if a in med and b in med and med[b][i] else None
out = {"medians_us": {k: dict(zip(["avg", "p50", "p99"], v)) for k, v in med.items()}, "rounds": len(rows.get("nspa_spawn", [])),
       "ratios": {"spawn_avg_nspa_over_raw": ratio("nspa_spawn", "raw_spawn", 0),
                  "spawn_p99_nspa_over_raw": ratio("nspa_spawn", "raw_spawn", 2),
                  "spawn_avg_wine_over_nspa": ratio("wine_spawn", "nspa_spawn", 0),
                  "spawn_p99_wine_over_nspa": ratio("wine_spawn", "nspa_spawn", 2),
                  "wake_avg_nspa_over_pidfd": ratio("nspa_wake", "raw_wake", 0),
                  "wake_p50_nspa_over_pidfd": ratio("nspa_wake", "raw_wake", 1)}}
json.dump(out, open(sys.argv[2] + "/process.json", "w"), indent=1)
with open(sys.argv[2] + "/process.md", "w") as md:
    md.write("| what | avg us | p50 us | p99 us |\n|---|---|---|---|\n")
    for k, v in med.items():
        md.write(f"| {k} | {v[0]:.1f} | {v[1]:.1f} | {v[2]:.1f} |\n")
    md.write("\n")
    for k, v in out["ratios"].items():
        md.write(f"- {k}: {v:.2f}\n" if v is not None else f"- {k}: n/a\n")
print(open(sys.argv[2] + "/process.md").read())
PY
rm -f "$stamp"
