# NSPA front door. CMake does the work underneath; these targets install what
# they need (Debian/Ubuntu packages, idempotently), configure, build and run.
#
#   make test     install deps, build release + ASan/UBSan + TSan trees, run every test
#   make bench    install deps and peers, build, run nspa-bench side by side
#   make install  install the library (PREFIX=/usr/local)
#   make suite    install deps (stock Wine 8, mingw-w64), build, run the real-time suite
#                 natively (baseline + RT) and under stock Wine; prints the report folder
#   make deb      install deps (debhelper, lintian ...), build the Debian packages libnspa0,
#                 libnspa-dev, nspa-tools into $(BUILD)/deb with dpkg-buildpackage, run
#                 lintian and the package install test (docs/packaging.md)
#   make abi-baseline  rewrite abi/libnspa.abi from the release build (a deliberate ABI
#                 change; docs/abi.md)
#
# make test includes the ABI check (abidiff against abi/libnspa.abi), the exported-names
# check and the man-page check (ctest -L packaging, seconds).

BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
GEN     := -G Ninja
CMAKE   := cmake
# Each test runs in a namespace of its own (NSPA_NAMESPACE=ctest-<name>); a run starts
# by removing those a previous run (or an older NSPA) left behind.
CTEST   := $(CURDIR)/tools/clean-namespaces.sh ctest- && ctest --output-on-failure --no-tests=error -j$(JOBS)

.PHONY: all deps test test-release test-asan test-tsan bench install clean suite deb abi-baseline

all: $(BUILD)/release/build.ninja
	$(CMAKE) --build $(BUILD)/release -j$(JOBS)

deps:
	@tools/deps.sh test

$(BUILD)/release/build.ninja:
	$(CMAKE) -S . -B $(BUILD)/release $(GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX)

$(BUILD)/asan/build.ninja:
	$(CMAKE) -S . -B $(BUILD)/asan $(GEN) -DCMAKE_BUILD_TYPE=Debug -DNSPA_SANITIZE=address

$(BUILD)/tsan/build.ninja:
	$(CMAKE) -S . -B $(BUILD)/tsan $(GEN) -DCMAKE_BUILD_TYPE=Debug -DNSPA_SANITIZE=thread

test: deps
	$(MAKE) test-release test-asan test-tsan
	@echo "make test: release, asan+ubsan and tsan suites all passed"

test-release: $(BUILD)/release/build.ninja
	$(CMAKE) --build $(BUILD)/release -j$(JOBS)
	cd $(BUILD)/release && $(CTEST)

# ASan+UBSan: every test except those labelled no-asan (e.g. ones that fill 1M objects
# where the shadow memory would only measure ASan itself).
test-asan: $(BUILD)/asan/build.ninja
	$(CMAKE) --build $(BUILD)/asan -j$(JOBS)
	cd $(BUILD)/asan && $(CTEST) -LE no-asan

# TSan: the threaded tests.
test-tsan: $(BUILD)/tsan/build.ninja
	$(CMAKE) --build $(BUILD)/tsan -j$(JOBS)
	cd $(BUILD)/tsan && $(CTEST) -L threaded -LE no-tsan

bench:
	@tools/deps.sh bench
	$(MAKE) all
	tools/bench.sh $(BUILD)/release $(BENCH)

# The real-time suite (docs/suite.md). SUITE_ARGS passes options to the runner, e.g.
# SUITE_ARGS="--only zigzag,rapidmutex" or SUITE_ARGS=--pi-off (the broken-PI experiment).
suite:
	@tools/deps.sh test wine64 gcc-mingw-w64-x86-64
	$(MAKE) all
	python3 tools/suite/run_suite.py --exe $(BUILD)/release/nspa-rt-test --peer wine $(SUITE_ARGS)

deb:
	@tools/deps.sh deb
	tools/deb.sh $(BUILD)

abi-baseline: all
	tools/abi.sh update $(BUILD)/release/libnspa.so

install: all
	$(CMAKE) --install $(BUILD)/release

clean:
	rm -rf $(BUILD)
