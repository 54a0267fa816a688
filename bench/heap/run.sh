#!/usr/bin/env bash
# nspa-bench heap, at 1 and 2 threads (2 = every core of this machine), interleaved, 5
# rounds, NSPA (HeapAlloc directly, and malloc through libnspa-malloc.so) against glibc,
# mimalloc, jemalloc and tcmalloc (LD_PRELOAD of Debian's packages):
#  1. the rpmalloc-benchmark random workload shape (bench/heap/heap_random.c);
#  2. the field's workload shapes (bench/heap/heap_shapes.c, our own code): larson,
#     xmalloc, mstress, rptest, cache-scratch (docs/heap.md, "Benchmark").
# Usage: bench/heap/run.sh <builddir> <outdir>
#   HEAP_BENCH_ROUNDS (5), HEAP_BENCH_LOOPS (20000, the random shape),
#   HEAP_BENCH_PARTS ("random shapes"), HEAP_BENCH_SHAPES ("larson xmalloc mstress rptest
#   cscratch"), HEAP_BENCH_SCALE (1: the shapes' amount of work)
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tools/deps.sh" bench
lib=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
mi=$lib/libmimalloc.so.2
je=$lib/libjemalloc.so.2
tc=$lib/libtcmalloc_minimal.so.4
shim=$build/libnspa-malloc.so
B=$build/bench
ROUNDS=${HEAP_BENCH_ROUNDS:-5}
LOOPS=${HEAP_BENCH_LOOPS:-20000}   # the spec's count; 5 rounds take about 3 minutes
PARTS=${HEAP_BENCH_PARTS:-random shapes}
SHAPES=${HEAP_BENCH_SHAPES:-larson xmalloc mstress rptest cscratch}
SCALE=${HEAP_BENCH_SCALE:-1}
samples=$out/heap-samples.txt
: > "$samples"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/heap-load.txt"
for r in $(seq "$ROUNDS"); do
  for t in 1 2; do
    if [[ " $PARTS " == *" random "* ]]; then
      "$B/heap_random_nspa" nspa "$t" "$LOOPS" >> "$samples"
      "$B/heap_random_malloc" glibc "$t" "$LOOPS" >> "$samples"
      LD_PRELOAD=$mi "$B/heap_random_malloc" mimalloc "$t" "$LOOPS" >> "$samples"
      LD_PRELOAD=$je "$B/heap_random_malloc" jemalloc "$t" "$LOOPS" >> "$samples"
      LD_PRELOAD=$tc "$B/heap_random_malloc" tcmalloc "$t" "$LOOPS" >> "$samples"
      LD_PRELOAD=$shim "$B/heap_random_malloc" nspa-malloc "$t" "$LOOPS" >> "$samples"
    fi
    if [[ " $PARTS " == *" shapes "* ]]; then
      for s in $SHAPES; do
        "$B/heap_shapes_nspa" nspa "$s" "$t" "$SCALE" >> "$samples"
        LD_PRELOAD=$shim "$B/heap_shapes_malloc" nspa-malloc "$s" "$t" "$SCALE" >> "$samples"
        "$B/heap_shapes_malloc" glibc "$s" "$t" "$SCALE" >> "$samples"
        LD_PRELOAD=$mi "$B/heap_shapes_malloc" mimalloc "$s" "$t" "$SCALE" >> "$samples"
        LD_PRELOAD=$je "$B/heap_shapes_malloc" jemalloc "$s" "$t" "$SCALE" >> "$samples"
        LD_PRELOAD=$tc "$B/heap_shapes_malloc" tcmalloc "$s" "$t" "$SCALE" >> "$samples"
      done
    fi
  done
  echo "round $r done (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/heap-load.txt"
done
ratios=()
for t in 1t 2t; do
  if [[ " $PARTS " == *" random "* ]]; then
    for peer in glibc mimalloc jemalloc tcmalloc; do
      ratios+=(--ratio "random_$t:nspa:$peer" --ratio "rss_$t:nspa:$peer")
    done
    ratios+=(--ratio "random_$t:nspa-malloc:glibc" --ratio "random_$t:nspa-malloc:nspa")
  fi
  if [[ " $PARTS " == *" shapes "* ]]; then
    for s in $SHAPES; do
      for peer in glibc mimalloc jemalloc tcmalloc; do
        ratios+=(--ratio "${s}_$t:nspa-malloc:$peer")
      done
      ratios+=(--ratio "${s}_$t:nspa:glibc" --ratio "${s}_rss_$t:nspa-malloc:glibc"
               --ratio "${s}_rss_$t:nspa:glibc")
    done
  fi
done
python3 "$root/tools/benchfmt.py" --module heap --json "$out/heap.json" --md "$out/heap.md" \
  "${ratios[@]}" \
  --note "Random: <threads> 0 0 2 ${LOOPS} 50000 5000 16 1000 in rpmalloc-benchmark terms (random sizes 16..1000, cross-thread free of a quarter of the allocations every 2nd loop, 50,000 slots per thread, 30-99% of 5,000 allocations per loop, 0.8x that in frees); a worker that finishes early keeps freeing what the others hand it, outside its measured time; ops = allocations + frees per CPU second of the worker threads. Shapes (heap_shapes.c, scale ${SCALE}): larson, xmalloc (N producers + N consumers), mstress, rptest, cscratch; ops per CPU second of the whole process, user + system (cscratch: object writes). RSS = peak resident set of the whole process; xmalloc_depth = the deepest its 100-batch queue got (its peak RSS follows it: docs/heap.md). nspa = HeapAlloc/HeapFree directly, nspa-malloc = malloc through libnspa-malloc.so. 2 threads is the most this 2-core machine allows. Load: $(tr '\n' ';' < "$out/heap-load.txt")" \
  "$samples"
