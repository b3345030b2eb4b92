#!/usr/bin/env bash
# The second command: installs what is missing, builds everything and runs every test.
# BERTH_SANITIZE=1 builds and tests with AddressSanitizer + UBSan in build-asan.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ "${BERTH_SANITIZE:-0}" = "1" ]; then export BUILD_DIR=${BUILD_DIR:-build-asan}; fi
build_dir=${BUILD_DIR:-build}
scripts/build.sh
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build_dir"
ctest --output-on-failure -j "${TEST_JOBS:-2}" "$@"
