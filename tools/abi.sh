#!/usr/bin/env bash
# libnspa's ABI checks (docs/abi.md).
#
#   tools/abi.sh check   <libnspa.so> [baseline]  abidiff against the stored baseline: fails on
#                                                 a removed or changed exported symbol or type,
#                                                 passes on additions
#   tools/abi.sh exports <build dir>              every exported symbol is versioned (NSPA_*),
#                                                 named nspa_* or Win32/NT, and listed or
#                                                 matched by src/libnspa.map; SONAMEs;
#                                                 libnspa-malloc exports the allocator only
#   tools/abi.sh update  <libnspa.so>             rewrite the baseline (a deliberate change:
#                                                 say so in the commit and docs/abi.md)
# abidiff/abidw come from Debian's abigail-tools (tools/deps.sh test).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
baseline_default=$src/abi/libnspa.abi
map=$src/src/libnspa.map

# The baseline records the exported functions and variables with the types of their
# parameters (DWARF), the types limited to those of the public headers.
# --exported-interfaces-only: libabigail 2.2 then ties the DWARF of (nearly) every exported
# function to its symbol even with LTO; without it ~120 functions called from other files
# of the library were left as bare symbols whose type changes went unseen.
abidw_lib() { abidw --exported-interfaces-only --no-show-locs --no-corpus-path --headers-dir "$src/include/nspa" --out-file "$2" "$1"; }

need_debuginfo() {
  [ -f "$1" ] || { echo "abi: $1: no such file"; exit 1; }
  if ! readelf -S "$1" | grep -q '\.debug_info'; then
    echo "abi: $1 has no debug info (build with -g, e.g. RelWithDebInfo): types cannot be compared"
    exit 77
  fi
}

cmd=${1:-}; shift || true
case "$cmd" in
check)
  lib=$1 base=${2:-$baseline_default}
  command -v abidiff >/dev/null || { echo "abi: abidiff missing (tools/deps.sh test installs abigail-tools)"; exit 77; }
  need_debuginfo "$lib"
  # --no-added-syms: additions are compatible and are not reported. Anything left (a
  # removed symbol, a changed parameter or return type, a changed struct reachable from
  # an exported function, a symbol moved to another version node) fails.
  set +e
  out=$(abidiff --exported-interfaces-only --no-added-syms --headers-dir2 "$src/include/nspa" "$base" "$lib" 2>&1)
  rc=$?
  set -e
  if [ $rc -ne 0 ]; then
    echo "$out"
    echo
    echo "abi: libnspa's ABI changed incompatibly against $base (abidiff status $rc)."
    echo "abi: if this is deliberate, follow docs/abi.md (new SONAME, or before the first"
    echo "abi: release: tools/abi.sh update <libnspa.so>) and say so in the commit."
    exit 1
  fi
  # exports whose DWARF libabigail could not tie to the symbol: only their presence is
  # compared (docs/abi.md)
  bare=$(comm -23 <(grep -o "<elf-symbol name='[^']*'" "$base" | sed "s/.*name='//;s/'//" | sort -u) \
                  <(grep -o "elf-symbol-id='[^'@]*" "$base" | sed "s/.*='//" | sort -u) | tr '\n' ' ')
  echo "abi: no incompatible change against $(basename "$base")"
  [ -z "$bare" ] || echo "abi: compared by symbol only (no type information in the baseline): $bare"
  ;;
exports)
  build=$1
  lib=$build/libnspa.so
  fail=0
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$soname" = libnspa.so.0 ] || { echo "abi: SONAME is '$soname', expected libnspa.so.0 (docs/abi.md)"; fail=1; }
  # objdump -T: ... <flags> <section> <size> <version> <name>; defined = section not *UND*;
  # the version nodes themselves appear as symbols named after themselves
  syms=$(objdump -T "$lib" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ && $(NF-1) != $NF {print $(NF-1), $NF}')
  unversioned=$(echo "$syms" | awk '$1 !~ /^NSPA_[0-9]+\.[0-9]+$/ {print}')
  if [ -n "$unversioned" ]; then echo "abi: exported symbols outside an NSPA_x.y version node:"; echo "$unversioned"; fail=1; fi
  # only nspa_* and Win32/NT names (the multimedia timer calls are lowercase: time*)
  bad=$(echo "$syms" | awk '{print $2}' | grep -v -E '^nspa_[A-Za-z0-9_]+$' | grep -v -E '^[A-Z][A-Za-z0-9]+$' \
        | grep -v -E '^time[A-Z][A-Za-z]+$' || true)
  if [ -n "$bad" ]; then echo "abi: unexpected exported symbols:"; echo "$bad"; fail=1; fi
  # a name written in a node of the map is exported, from that node
  listed=$(sed -e 's,/\*.*\*/,,' "$map" | awk '
    /^[A-Z_0-9.]+ *\{/ { node=$1; next }
    /^[ \t]+[A-Za-z_][A-Za-z0-9_]*;/ { gsub(/[ \t;]/, ""); print node, $0 }')
  missing=$(comm -23 <(echo "$listed" | sort) <(echo "$syms" | sort))
  if [ -n "$missing" ]; then echo "abi: listed in src/libnspa.map but not exported from that node:"; echo "$missing"; fail=1; fi
  open=$(echo "$syms" | awk '$1 == "'"$(awk '/^NSPA_[0-9.]+ *\{/ {n=$1} END {print n}' "$map")"'" {print $2}' | tr '\n' ' ')
  [ -z "$open" ] || echo "abi: in the open node since the baseline: $open"
  # libnspa-malloc: the C allocator's names only (unversioned, so that it interposes the
  # C library's versioned malloc@GLIBC_* references; docs/abi.md)
  if [ -f "$build/libnspa-malloc.so" ]; then
    m=$(objdump -T "$build/libnspa-malloc.so" | awk '$0 ~ /^[0-9a-f]+ / && $0 !~ /\*UND\*/ {print $NF}' | sort | tr '\n' ' ')
    want="aligned_alloc calloc cfree free malloc malloc_trim malloc_usable_size memalign posix_memalign pvalloc realloc reallocarray valloc "
    [ "$m" = "$want" ] || { echo "abi: libnspa-malloc exports '$m', expected '$want'"; fail=1; }
    msoname=$(readelf -d "$build/libnspa-malloc.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$msoname" = libnspa-malloc.so.0 ] || { echo "abi: libnspa-malloc SONAME is '$msoname'"; fail=1; }
  fi
  [ $fail -eq 0 ] || exit 1
  echo "abi: $(echo "$syms" | wc -l) exported symbols, all versioned and named nspa_* or Win32/NT; SONAME $soname"
  ;;
update)
  lib=$1
  need_debuginfo "$lib"
  abidw_lib "$lib" "$baseline_default"
  echo "abi: wrote $baseline_default ($(grep -c '<elf-symbol' "$baseline_default") symbols)"
  ;;
*)
  echo "usage: tools/abi.sh check <libnspa.so> [baseline] | exports <build dir> | update <libnspa.so>" >&2
  exit 2
  ;;
esac
