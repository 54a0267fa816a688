#!/usr/bin/env bash
# Install the Debian/Ubuntu packages a target needs, only those that are missing.
# Usage: tools/deps.sh test|bench|deb [extra packages...]
set -euo pipefail
set_name=${1:-test}; shift || true
# libc6-dev: gcc only recommends it, and recommends are not installed here
pkgs=(cmake ninja-build gcc libc6-dev make pkg-config python3 strace liburing-dev)
case "$set_name" in
  # the ABI check (abidiff against abi/libnspa.abi) and the man pages (scdoc -> roff,
  # checked with man -l --warnings)
  # (netbase: /etc/services, which getservbyname's test reads)
  test)  pkgs+=(abigail-tools scdoc man-db groff-base netbase) ;;
  # bench/heap runs glibc's malloc against these allocators (LD_PRELOAD); bench/io runs
  # fio and a Boost.Asio echo server (C++)
  bench) pkgs+=(python3 strace libmimalloc-dev libjemalloc-dev libgoogle-perftools-dev fio libasio-dev g++) ;;
  # make deb: dpkg-buildpackage with debhelper 13, lintian, and what the build needs
  # (dpkg-checkbuilddeps insists on build-essential, which a fresh Debian lacks)
  deb)   pkgs+=(build-essential abigail-tools scdoc man-db groff-base debhelper dpkg-dev devscripts fakeroot lintian) ;;
  *)     ;;
esac
pkgs+=("$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# apt lists are refreshed once per machine (and again if an install fails on stale lists)
if [ ! -f /var/lib/apt/lists/lock ] || [ -z "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v -e lock -e partial)" ]; then
  $SUDO apt-get update -qq -o DPkg::Lock::Timeout=600
fi
$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}" ||
  { $SUDO apt-get update -qq -o DPkg::Lock::Timeout=600 && $SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${missing[@]}"; }
