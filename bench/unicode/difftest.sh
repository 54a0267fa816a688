#!/usr/bin/env bash
# The long differential run: every path against the scalar reference for N inputs
# (default 10^8), split over DIFFTEST_JOBS processes (default: the cores) with distinct seeds.
# Usage: bench/unicode/difftest.sh <builddir> [inputs] [outfile]
set -euo pipefail
build=$(cd "${1:-build/release}" && pwd)
total=${2:-100000000}
out=${3:-$build/bench-results/unicode-difftest.txt}
mkdir -p "$(dirname "$out")"
jobs=${DIFFTEST_JOBS:-$(nproc)}; per=$(( (total + jobs - 1) / jobs ))
pids=()
for j in $(seq 1 "$jobs"); do
  "$build/unicode_difftest" --inputs "$per" --seed $((0x5eed0000 + j)) > "$out.$j" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
{
  echo "# unicode differential run, $(date -u +%FT%TZ), git $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')"
  cat "$out".*
  awk '/^difftest:/ { n += $2; d += $6 } END { printf "TOTAL inputs=%d differences=%d\n", n, d }' "$out".*
} > "$out"
rm -f "$out".*
cat "$out"
exit $status
