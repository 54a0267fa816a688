#!/usr/bin/env bash
# nspa-bench memory: guard-page fault round trips and 64 KiB VirtualAlloc/VirtualFree,
# NSPA against the Linux limits (a raw SIGSEGV + mprotect loop, mmap + munmap) and stock
# Wine 8 (the same Win32 source built with mingw-w64), interleaved ROUNDS times.
# Usage: bench/memory/run.sh <builddir> <outdir>
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
bench_paths "$0" "$@"
rounds=${ROUNDS:-5}
iters=${MEMORY_ITERS:-50000}
wine_iters=${MEMORY_WINE_ITERS:-5000}
bin=$build/bench/memory_bench
samples=$out/memory.samples.txt
notes=()
: > "$samples"

"$root"/tools/deps.sh bench wine64 gcc-mingw-w64-x86-64 || notes+=("Installing wine64/mingw-w64 failed: no Wine figures.")
[ -x "$bin" ] || { echo "memory bench: $bin not built"; exit 1; }
export NSPA_NAMESPACE=${NSPA_NAMESPACE:-nspa-bench-memory-$$}

wine=
exe=$out/memory_bench.exe
prefix=$out/wineprefix-memory
if command -v x86_64-w64-mingw32-gcc >/dev/null && [ -x /usr/lib/wine/wine64 ]; then
  if x86_64-w64-mingw32-gcc -O2 -o "$exe" "$root/bench/memory/memory_bench.c"; then
    rm -rf "$prefix"
    echo "memory bench: wineboot -i (first start of a prefix may take a minute)"
    if WINEPREFIX=$prefix WINEDEBUG=-all timeout 300 /usr/lib/wine/wine64 wineboot -i >/dev/null 2>&1; then
      wine=1
      notes+=("Wine peer: $(/usr/lib/wine/wine64 --version 2>/dev/null) (Debian wine64), WINEDEBUG=-all, fresh prefix, the same memory_bench.c built with x86_64-w64-mingw32-gcc -O2; $wine_iters iterations per run (NSPA and raw: $iters).")
    else
      notes+=("Wine could not start here (wineboot failed): no Wine figures, nothing substituted.")
    fi
  else
    notes+=("mingw-w64 build of the bench failed: no Wine figures.")
  fi
else
  notes+=("wine64 / mingw-w64 not available: no Wine figures.")
fi

for i in $(seq 1 "$rounds"); do
  echo "memory bench: round $i/$rounds"
  env -u NSPA_RT_PRIO "$bin" --impl nspa --iters "$iters" >> "$samples"
  "$bin" --impl raw --iters "$iters" >> "$samples"
  [ -n "$wine" ] && WINEPREFIX=$prefix WINEDEBUG=-all timeout 300 /usr/lib/wine/wine64 "$exe" --impl wine8 --iters "$wine_iters" | tr -d '\r' >> "$samples"
done
[ -n "$wine" ] && WINEPREFIX=$prefix /usr/lib/wine/wineserver -k 2>/dev/null

notes+=("guard_fault: one round trip = re-arm PAGE_GUARD with VirtualProtect, touch, the vectored handler returns EXCEPTION_CONTINUE_EXECUTION; raw = mprotect(PROT_NONE), touch, a SIGSEGV handler mprotects the page read-write and returns. Both make two mprotect calls and one signal per round trip.")
notes+=("alloc64k: VirtualAlloc(MEM_RESERVE|MEM_COMMIT, 64 KiB), write one byte in each of its 16 pages, VirtualFree(MEM_RELEASE); raw = mmap + the same writes + munmap. The page faults of the writes dominate both.")
ratios=()
for b in guard_fault alloc64k; do
  ratios+=(--ratio "$b:nspa:raw")
  [ -n "$wine" ] && ratios+=(--ratio "$b:nspa:wine8")
done
noteargs=()
for n in "${notes[@]}"; do noteargs+=(--note "$n"); done
python3 "$root/tools/benchfmt.py" --module memory --json "$out/memory.json" --md "$out/memory.md" \
  "$samples" "${ratios[@]}" "${noteargs[@]}"
