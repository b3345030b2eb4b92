#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cpp) with Debian's clang, ASan and UBSan in
# build-fuzz, and runs each for a bounded time:
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build-only] [target ...]
# --seconds: per target (default 60); --jobs: targets run at once (default 1); --build-only:
# build them and stop. No target names: every target. Each target's working corpus is var/fuzz/<target>/corpus, started from
# tests/fuzz/corpus/<target> and tests/fuzz/regressions/<target> and kept between runs; a
# finding is written to var/fuzz/<target>/ (copy it to tests/fuzz/regressions/<target>/ once
# fixed, where the replay test keeps running it). Prints executions and findings per target;
# exits non-zero when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=60
jobs=1
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done

build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
werror=OFF
if [ "${BERTH_WERROR:-0}" = "1" ]; then werror=ON; fi  # as scripts/build.sh
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBERTH_FUZZ=ON -DBERTH_TESTS=OFF -DBERTH_WERROR=$werror >/dev/null
cmake --build "$build_dir" -j "${BUILD_JOBS:-$(nproc)}" --target berth_fuzzers
[ "$build_only" = 1 ] && exit 0

if [ ${#targets[@]} -eq 0 ]; then
  for source in tests/fuzz/*_fuzz.cpp; do
    name=$(basename "$source" _fuzz.cpp)
    targets+=("$name")
  done
fi

run_target() {
  local name=$1 seconds=$2 root=$3 build_dir=$4
  local work="$root/var/fuzz/$name"
  mkdir -p "$work/corpus"
  for seeds in "$root/tests/fuzz/corpus/$name" "$root/tests/fuzz/regressions/$name"; do
    [ -d "$seeds" ] && cp -rn "$seeds"/. "$work/corpus/" 2>/dev/null || true
  done
  local dict=()
  [ -f "$root/tests/fuzz/$name.dict" ] && dict=(-dict="$root/tests/fuzz/$name.dict")
  local log="$work/last-run.log"
  local status=0
  # -timeout: an input that takes over 10 s is a finding (a hang), as is a leak.
  "$root/$build_dir/fuzz/fuzz_$name" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$work/" "${dict[@]}" "$work/corpus" \
    >"$log" 2>&1 || status=$?
  local execs
  execs=$(grep -a -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  local found
  found=$(grep -a -c -E '^(==[0-9]+==ERROR|fuzz finding:|SUMMARY: (Address|Undefined)|ERROR: libFuzzer)' "$log" || true)
  local corpus_size
  corpus_size=$(find "$work/corpus" -type f | wc -l)
  if [ "$status" -ne 0 ]; then
    printf 'fuzz %-18s %6ss %12s execs  corpus %6s  FINDING (exit %s), see %s\n' \
      "$name" "$seconds" "${execs:-?}" "$corpus_size" "$status" "$log"
    grep -a -E 'fuzz finding:|ERROR:|SUMMARY:|Test unit written to' "$log" | head -5 | sed 's/^/    /'
    # The input itself, so that a finding on a machine that is gone can be replayed.
    local unit
    unit=$(grep -a -o 'Test unit written to [^ ]*' "$log" | tail -1 | awk '{print $5}')
    if [ -n "$unit" ] && [ -f "$unit" ]; then
      echo "    input (base64): $(head -c 4096 "$unit" | base64 -w0)"
    fi
    return 1
  fi
  printf 'fuzz %-18s %6ss %12s execs  corpus %6s  findings %s\n' \
    "$name" "$seconds" "${execs:-?}" "$corpus_size" "$found"
}
export -f run_target

# xargs exits non-zero when any target did.
printf '%s\n' "${targets[@]}" |
  xargs -P "$jobs" -I{} bash -c 'run_target "$@"' _ {} "$seconds" "$root" "$build_dir"
