#!/usr/bin/env bash
# Runs every nspa-bench module (bench/<module>/run.sh), or the one named.
# Usage: tools/bench.sh <build-dir> [module]
# Each module writes <build-dir>/bench-results/<module>.json and <module>.md.
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
only=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$build/bench-results
mkdir -p "$out"
status=0
for run in "$root"/bench/*/run.sh; do
  mod=$(basename "$(dirname "$run")")
  [ -n "$only" ] && [ "$only" != "$mod" ] && continue
  echo "=== nspa-bench $mod"
  bash "$run" "$build" "$out" || { echo "bench $mod failed"; status=1; }
done
echo "results: $out"
ls "$out"
exit $status
