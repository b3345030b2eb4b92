#!/usr/bin/env bash
# The fault-injection suite (tests/faults/) for long runs outside CI: every case with
# BERTH_FAULT_ROUNDS kill points per mode (the first argument, default 20) and one seed (the
# second argument, else BERTH_FAULT_SEED, else a random one), then the sum of the cases'
# "fault-summary:" lines. Extra arguments go to ctest (-R '^faults/import' for one case).
#   scripts/faults.sh            # 20 rounds, a random seed
#   scripts/faults.sh 50 12345   # 50 rounds, seed 12345 (a failing run, repeated)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
seed=${2:-${BERTH_FAULT_SEED:-$(( (RANDOM << 30 | RANDOM << 15 | RANDOM) + 1 ))}}
shift $(( $# > 2 ? 2 : $# ))
build_dir=${BUILD_DIR:-build}
targets=$(ls tests/faults/*_test.cpp | sed -E 's#tests/faults/(.*)\.cpp#faults_\1#')
# One build at a time on a shared machine (a concurrent ninja corrupts the tree).
flock /tmp/berth-build.lock scripts/build.sh --target $targets
log=$(mktemp /tmp/berth-faults.XXXXXX.log)
echo "fault suite: rounds=$rounds seed=$seed log=$log"
status=0
( cd "$build_dir" && BERTH_FAULT_ROUNDS=$rounds BERTH_FAULT_SEED=$seed \
    ctest -R '^faults/' --output-on-failure -V --timeout 36000 "$@" ) >"$log" 2>&1 || status=$?
grep -E 'fault-summary:|fault point INCONSISTENT' "$log" | sed -E 's/^[0-9]+: //' || true
awk '/fault-summary:/ {
       for (i = 1; i <= NF; i++) {
         if ($i ~ /^tried=/) { split($i, a, "="); tried += a[2] }
         if ($i ~ /^inconsistent=/) { split($i, b, "="); bad += b[2] }
       }
     }
     END { printf "fault total: tried=%d inconsistent=%d seed='"$seed"'\n", tried, bad }' "$log"
[ "$status" = 0 ] || echo "ctest failed ($status); see $log"
exit "$status"
