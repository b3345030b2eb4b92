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
  # The sanitizer build is compiled with Debian's clang: an unoptimised, instrumented file
  # takes about two thirds of GCC's time (19.4 s -> 12.7 s for one of projects' route files);
  # the whole sanitizer build took 1,100 CPU-seconds, the plain -O2 one 1,600.
  # BERTH_SANITIZE_CLANG=0 keeps the default compiler. Only for a folder configured anew (a
  # configured folder keeps its compiler).
  if [ "${BERTH_SANITIZE_CLANG:-1}" = "1" ] && [ ! -f "$build_dir/CMakeCache.txt" ] &&
    command -v clang++ >/dev/null; then
    compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  fi
fi
# BERTH_WERROR=1 (CI): compiler warnings are errors.
werror=OFF
if [ "${BERTH_WERROR:-0}" = "1" ]; then werror=ON; fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=$type -DBERTH_SANITIZE=$sanitize \
  -DBERTH_WERROR=$werror "${compilers[@]}" >/dev/null
cmake --build "$build_dir" -j "${BUILD_JOBS:-$(nproc)}" "$@"
