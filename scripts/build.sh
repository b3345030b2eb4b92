#!/usr/bin/env bash
# Configures and builds Berth. BUILD_DIR (default build) and BERTH_SANITIZE=1 choose the build.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
sanitize=OFF
type=RelWithDebInfo
if [ "${BERTH_SANITIZE:-0}" = "1" ]; then sanitize=ON; type=Debug; fi
# BERTH_WERROR=1 (CI): compiler warnings are errors.
werror=OFF
if [ "${BERTH_WERROR:-0}" = "1" ]; then werror=ON; fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=$type -DBERTH_SANITIZE=$sanitize \
  -DBERTH_WERROR=$werror >/dev/null
cmake --build "$build_dir" -j "${BUILD_JOBS:-$(nproc)}" "$@"
