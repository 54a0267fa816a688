#!/usr/bin/env bash
# nspa-bench heap: the rpmalloc-benchmark random workload shape (our own code,
# bench/heap/heap_random.c) at 1 and 2 threads (2 = every core of this machine), NSPA's
# HeapAlloc/HeapFree against glibc, mimalloc, jemalloc and tcmalloc (LD_PRELOAD of
# Debian's packages), plus malloc through libnspa-malloc.so. Interleaved, 5 rounds.
# Usage: bench/heap/run.sh <builddir> <outdir>
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tools/deps.sh" bench libmimalloc-dev libjemalloc-dev libgoogle-perftools-dev
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
mi=$lib/libmimalloc.so.2
je=$lib/libjemalloc.so.2
tc=$lib/libtcmalloc_minimal.so.4
shim=$build/libnspa-malloc.so
B=$build/bench
ROUNDS=${HEAP_BENCH_ROUNDS:-5}
LOOPS=${HEAP_BENCH_LOOPS:-20000}   # the spec's count; 5 rounds take about 3 minutes
samples=$out/heap-samples.txt
: > "$samples"
for r in $(seq "$ROUNDS"); do
  for t in 1 2; do
    "$B/heap_random_nspa" nspa "$t" "$LOOPS" >> "$samples"
    "$B/heap_random_malloc" glibc "$t" "$LOOPS" >> "$samples"
    LD_PRELOAD=$mi "$B/heap_random_malloc" mimalloc "$t" "$LOOPS" >> "$samples"
    LD_PRELOAD=$je "$B/heap_random_malloc" jemalloc "$t" "$LOOPS" >> "$samples"
    LD_PRELOAD=$tc "$B/heap_random_malloc" tcmalloc "$t" "$LOOPS" >> "$samples"
    LD_PRELOAD=$shim "$B/heap_random_malloc" nspa-malloc "$t" "$LOOPS" >> "$samples"
  done
  echo "round $r done"
done
ratios=()
for t in 1t 2t; do
  for peer in glibc mimalloc jemalloc tcmalloc; do
    ratios+=(--ratio "random_$t:nspa:$peer" --ratio "rss_$t:nspa:$peer")
  done
  ratios+=(--ratio "random_$t:nspa-malloc:glibc")
done
python3 "$root/tools/benchfmt.py" --module heap --json "$out/heap.json" --md "$out/heap.md" \
  "${ratios[@]}" \
  --note "Workload: <threads> 0 0 2 ${LOOPS} 50000 5000 16 1000 in rpmalloc-benchmark terms (random sizes 16..1000, cross-thread free of a quarter of the allocations every 2nd loop, 50,000 slots per thread, 30-99% of 5,000 allocations per loop, 0.8x that in frees). A worker that finishes early keeps freeing what the others hand it, outside its measured time. Ops = allocations + frees per CPU second of the worker threads; RSS = peak resident set of the whole process. 2 threads is the most this 2-core machine allows." \
  "$samples"
