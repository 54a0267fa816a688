#!/usr/bin/env bash
# The Debian packages, installed into a scratch root (dpkg -x, no root needed): a Win32
# program is built against them with pkg-config and with find_package(nspa) and run;
# nspa-rt-test from nspa-tools runs a smoke test; every man page renders from the root.
# Usage: tests/deb/deb_test.sh <folder with the .deb files> <source tree>
# Exit 77 (skipped) when the packages are not built (`make deb` builds them).
set -euo pipefail
debs=$1 src=$2
shopt -s nullglob
pkgs=("$debs"/libnspa0_*.deb "$debs"/libnspa-dev_*.deb "$debs"/nspa-tools_*.deb)
if [ ${#pkgs[@]} -ne 3 ]; then echo "deb: the three packages are not in $debs (make deb)"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
for p in "${pkgs[@]}"; do dpkg -x "$p" "$root"; done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
libdir=$root/usr/lib/$multiarch
test -e "$libdir/libnspa.so.0" && test -L "$libdir/libnspa.so"
# The .pc files find their prefix relative to themselves (${pcfiledir}), so pointing
# PKG_CONFIG_PATH into the root is enough; PKG_CONFIG_SYSROOT_DIR would prefix the root
# a second time.
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_LIBDIR=$libdir/pkgconfig
cflags=$(pkg-config --cflags nspa-win32) libs=$(pkg-config --libs nspa-win32)
inc=$(pkg-config --variable=includedir nspa)
[ "$(realpath "$inc")" = "$(realpath "$root/usr/include")" ] ||
  { echo "deb: pkg-config's includedir is not the root's: $inc"; exit 1; }
cc $cflags "$src/tests/install/hello_win32.c" -o "$tmp/hello" $libs
export LD_LIBRARY_PATH=$libdir XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$tmp}
# the program must run on the packaged library, not on a build tree's
ldd "$tmp/hello" | grep -q "$libdir/libnspa.so.0" || { echo "deb: hello does not load the packaged libnspa"; ldd "$tmp/hello"; exit 1; }
NSPA_NAMESPACE=deb-test-$$ "$tmp/hello"
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
ldd "$tmp/consumer/hello_cmake" | grep -q "$libdir/libnspa.so.0" || { echo "deb: hello_cmake does not load the packaged libnspa"; exit 1; }
NSPA_NAMESPACE=deb-test-$$ "$tmp/consumer/hello_cmake"
# nspa-tools: the suite program and the bench launcher
"$root/usr/bin/nspa-rt-test" list | grep -q '^zigzag'
NSPA_NAMESPACE=deb-test-$$ "$root/usr/bin/nspa-rt-test" zigzag --smoke | grep -q '  PASS'
"$root/usr/bin/nspa-bench" --list | grep -q '^nspa_sync_bench$'
# the man pages (libnspa-dev: section 3 and 7, nspa-tools: section 1), links included
n=0
for page in "$root"/usr/share/man/man*/*; do
  out=$(cd "$root/usr/share/man" && MANWIDTH=80 man --warnings -l "${page#"$root"/usr/share/man/}" 2>&1 >/dev/null) || { echo "deb: $page: $out"; exit 1; }
  [ -z "$out" ] || { echo "deb: $page: $out"; exit 1; }
  n=$((n + 1))
done
[ -f "$root/usr/share/man/man3/nspa_wait_any.3.gz" ] || { echo "deb: nspa_wait_any(3) missing"; exit 1; }
echo "deb: packages extracted into a scratch root; Win32 program built with pkg-config and find_package(nspa) and run; nspa-rt-test zigzag passed; $n man pages render"
