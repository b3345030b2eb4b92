#!/usr/bin/env bash
# Configures and builds Berth. BUILD_DIR (default build) and BERTH_SANITIZE=1 choose the build.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
sanitize=OFF
type=RelWithDebInfo
compilers=()
if [ "${BERTH_SANITIZE:-0}" = "1" ]; then
  sanitize=ON
  type=Debug
  # BERTH_SANITIZE_CLANG=1: the sanitizer build with Debian's clang, which compiles an
  # unoptimised, instrumented file in about two thirds of GCC's time (19.4 s -> 12.7 s for one
  # of projects' route files). Only for a folder configured anew.
  if [ "${BERTH_SANITIZE_CLANG:-0}" = "1" ] && [ ! -f "$build_dir/CMakeCache.txt" ]; then
    compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  fi
fi
# BERTH_WERROR=1 (CI): compiler warnings are errors.
werror=OFF
if [ "${BERTH_WERROR:-0}" = "1" ]; then werror=ON; fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=$type -DBERTH_SANITIZE=$sanitize \
  -DBERTH_WERROR=$werror "${compilers[@]}" >/dev/null
cmake --build "$build_dir" -j "${BUILD_JOBS:-$(nproc)}" "$@"
