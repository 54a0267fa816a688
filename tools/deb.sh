#!/usr/bin/env bash
# make deb: NSPA's Debian packages (docs/packaging.md). Copies the tree (tracked and new
# files, not the build folders) to <build>/deb/nspa-<version>, runs dpkg-buildpackage
# -us -uc -b there (the .deb files land in <build>/deb), lintian, then the install test
# tests/deb/deb_test.sh.
# Usage: tools/deb.sh [build folder, default build]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-build}" && cd "${1:-build}" && pwd)
version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
out=$build/deb
rm -rf "$out"
mkdir -p "$out/nspa-$version"
(cd "$root" && git ls-files -co --exclude-standard -z | grep -zv -e '^build/' -e '^build-' \
   | tar --null -T - -cf -) | tar -xf - -C "$out/nspa-$version"
cd "$out/nspa-$version"
# parallel build on the machine's cores; the package's own test step runs the packaging
# checks only (debian/rules)
DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -us -uc -b
cd "$out"
changes=$(ls "$out"/nspa_*.changes)
echo "=== lintian"
lintian --fail-on error "$changes" 2>&1 | tee "$out/lintian.txt"
echo "=== packages"
ls -l "$out"/*.deb
"$root/tests/deb/deb_test.sh" "$out" "$root"
