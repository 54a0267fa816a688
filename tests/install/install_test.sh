#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds a Win32 C program against it
# twice: with pkg-config nspa-win32 and with CMake's find_package(nspa); runs both; and
# builds and runs the README tour's example (examples/producer_consumer.c).
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH=$libdir
pkg-config --exists nspa nspa-win32
test -f "$tmp/prefix/include/nspa/sync.h"
test -f "$tmp/prefix/include/nspa/win32/windows.h"
cc $(pkg-config --cflags nspa-win32) "$src/tests/install/hello_win32.c" -o "$tmp/hello" \
   $(pkg-config --libs nspa-win32) -Wl,-rpath,"$(pkg-config --variable=libdir nspa)"
NSPA_NAMESPACE=install-test-$$ "$tmp/hello"
# the README's tour: the producer/consumer example, built the same way, run in the
# baseline and in RT mode (without real-time permission RT mode falls back; the program
# must pass either way)
cc $(pkg-config --cflags nspa-win32) "$src/examples/producer_consumer.c" -o "$tmp/pc" \
   $(pkg-config --libs nspa-win32) -Wl,-rpath,"$(pkg-config --variable=libdir nspa)"
NSPA_NAMESPACE=install-test-$$ "$tmp/pc"
NSPA_NAMESPACE=install-test-$$ NSPA_RT_PRIO=80 "$tmp/pc"
cmake -S "$src/tests/install" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_BUILD_RPATH="$(pkg-config --variable=libdir nspa)" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
NSPA_NAMESPACE=install-test-$$ "$tmp/consumer/hello_cmake"
# the exported names are checked by the abi_exports test (tools/abi.sh exports)
echo "install: pkg-config and find_package consumers built and ran"
