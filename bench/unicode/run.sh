#!/usr/bin/env bash
# nspa-bench unicode: NSPA's conversions, compare and hash side by side with glibc iconv,
# ICU (libicu-dev) and NSPA's scalar reference, interleaved in one process (every round
# runs every implementation once per figure; 9 rounds). Writes <outdir>/unicode.{json,md}.
# Usage: bench/unicode/run.sh <builddir> <outdir> [rounds] [ms-per-sample]
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
rounds=${3:-9}
ms=${4:-40}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
"$root/tools/deps.sh" bench libicu-dev
# re-configure so that an ICU installed just now is found, then build the bench
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" --target unicode_bench >/dev/null
samples=$out/unicode-samples.txt
"$build/bench/unicode_bench" "$rounds" "$ms" > "$samples"
grep '^#' "$samples" || true
ratios=()
for b in utf8_to_utf16 utf16_to_utf8; do
  for d in ascii_1m mixed_1m cjk_1m emoji_1m names; do
    for p in iconv icu ref nspa_scalar; do ratios+=(--ratio "${b}_${d}:nspa:$p"); done
  done
  for isa in sse2 avx2 avx512; do ratios+=(--ratio "${b}_ascii_1m:nspa_$isa:ref"); done
done
for p in ref nspa_scalar icu; do ratios+=(--ratio "compare_ci_50:nspa:$p"); done
for p in ref nspa_scalar; do ratios+=(--ratio "hash_ci_50:nspa:$p"); done
for isa in sse2 avx2 avx512; do
  ratios+=(--ratio "compare_ci_50:nspa_$isa:ref" --ratio "hash_ci_50:nspa_$isa:ref")
done
python3 "$root/tools/benchfmt.py" --module unicode --json "$out/unicode.json" --md "$out/unicode.md" \
  "$samples" "${ratios[@]}" \
  --note "nspa = the Win32 entry points (MultiByteToWideChar/WideCharToMultiByte with a length query then the conversion; CompareStringOrdinal; RtlHashUnicodeString) on the path picked at start-up; nspa_<isa> = the same forced onto one path; ref = NSPA's scalar reference (src/unicode/ref), also length query + convert; icu = u_strFromUTF8/u_strToUTF8 preflight + convert, u_strCaseCompare (full case folding: not the same semantics); iconv = glibc iconv into a worst-case buffer (it has no length query). GB/s counts input bytes."
echo "results: $out/unicode.md"
