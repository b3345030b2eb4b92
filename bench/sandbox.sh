#!/usr/bin/env bash
# bench/sandbox: what the app sandbox (bubblewrap, the project's own uid) costs, measured on
# two berthd side by side in the same run, one with runtime.sandbox on (the default) and one
# with it off (runtime.unsafe_run_without_sandbox):
#  - wake: a request to a stopped Node app until its first byte;
#  - a Node hello app through the gateway, uncached (the edge proxies its host straight to it).
# Rounds alternate between the two so that the machine's drift hits both alike; medians.
# Usage: bench/sandbox.sh [seconds per wrk run, default 5] [rounds, default 3]
#        BUILD_DIR picks the build (default build). Run as root.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-5}
rounds=${2:-3}
command -v node >/dev/null || { echo "node is missing"; exit 1; }

bench_workdir sandbox
mkdir -p "$work/app"
cat > "$work/app/server.js" <<'JS'
const http = require('http');
http.createServer((req, res) => { res.end('hello\n'); })
  .listen(Number(process.env.PORT), '127.0.0.1');
JS
echo '{"name":"hello","main":"server.js"}' > "$work/app/package.json"

declare -A port pid token
cleanup() {
  for mode in on off; do
    [ -n "${pid[$mode]:-}" ] && kill -TERM "${pid[$mode]}" 2>/dev/null && wait "${pid[$mode]}" 2>/dev/null || true
  done
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT

# mode -> a berthd of its own, an account, a project "hello" with the app live.
start_mode() {
  local mode=$1 dir="$work/$1" sandbox_keys
  mkdir -p "$dir"; chmod 755 "$dir"
  port[$mode]=$(freeport)
  if [ "$mode" = on ]; then
    sandbox_keys="  sandbox: true"
  else
    sandbox_keys=$'  sandbox: false\n  unsafe_run_without_sandbox: true'
  fi
  cat > "$dir/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:${port[$mode]}"
data_dir: "$dir/data"
plugins:
  dir: "$(cd "$build" && pwd)/lib/berth"
  enabled: [projects, storage, runtime]
runtime:
  idle_stop_seconds: 1
  stop_grace_seconds: 1
$sandbox_keys
log:
  level: warn
  file: "$dir/berthd.log"
YAML
  chmod 600 "$dir/berth.yaml"
  "$berthd" --config "$dir/berth.yaml" serve > "$dir/out.log" 2>&1 &
  pid[$mode]=$!
  for _ in $(seq 1 300); do grep -q "berthd ready" "$dir/out.log" && break; sleep 0.1; done
  grep -q "berthd ready" "$dir/out.log" || { cat "$dir/out.log"; exit 1; }
  local cfg=(--config "$dir/berth.yaml")
  "$berthd" "${cfg[@]}" account create --email bench@example.com --plan pro --slug benchacct >/dev/null
  token[$mode]=$("$berthd" "${cfg[@]}" token create --email bench@example.com | tail -n1)
  api "$mode" -o /dev/null -H 'Content-Type: application/json' -d '{"name":"hello"}' /projects
  local id status
  id=$(tar -czf - -C "$work/app" . | api "$mode" -H 'Content-Type: application/gzip' \
       --data-binary @- /projects/hello-benchacct/deploys | json_field id)
  for _ in $(seq 1 300); do
    status=$(api "$mode" "/projects/hello-benchacct/deploys/$id" | json_field status)
    [ "$status" != building ] && break; sleep 0.1
  done
  [ "$status" = live ] || { echo "release ($mode) is $status"; cat "$dir/out.log"; exit 1; }
  [ "$(curl -sf -H "Host: $host" "http://127.0.0.1:${port[$mode]}/")" = hello ] \
    || { echo "the gateway ($mode) does not reach the app"; cat "$dir/out.log"; exit 1; }
}
api() { local mode=$1; shift; local path=${*: -1}; curl -sf -H "Authorization: Bearer ${token[$mode]}" "${@:1:$#-1}" "http://127.0.0.1:${port[$mode]}$path"; }
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)[\"$1\"])"; }
state() { api "$1" /projects/hello-benchacct | json_field state; }
host=hello-benchacct.localhost

start_mode on
start_mode off

declare -A A
for round in $(seq 1 "$rounds"); do
  for mode in on off; do
    # Wake: wait until the idle stop, then time the first byte, a few times.
    for _ in 1 2 3; do
      for _ in $(seq 1 100); do [ "$(state "$mode")" = stopped ] && break; sleep 0.1; done
      [ "$(state "$mode")" = stopped ] || { echo "the app ($mode) was not stopped when idle"; exit 1; }
      t=$(curl -s -o /dev/null -w '%{time_starttransfer}' -H "Cookie: nocache=1" -H "Host: $host" \
          "http://127.0.0.1:${port[$mode]}/")
      A[w_$mode]+=" $(awk -v t="$t" 'BEGIN {printf "%.0f", t * 1000}')"
    done
    # Requests: keep the app up for the edge to load its rule, then wrk through the gateway.
    for _ in $(seq 1 20); do
      curl -s -o /dev/null -H "Cookie: nocache=1" -H "Host: $host" "http://127.0.0.1:${port[$mode]}/"
      sleep 0.1
    done
    read -r v1 v2 v3 <<< "$(wrk_run "http://127.0.0.1:${port[$mode]}/" "Host: $host" "Cookie: nocache=1" | awk '{print $1, $3, $5}')"
    A[r_$mode]+=" $v1"; A[p_$mode]+=" $v2"; A[bad_$mode]+=" ${v3:-0}"
  done
  A[rr]+=" $(ratio "$(last "${A[r_on]}")" "$(last "${A[r_off]}")")"
  A[wr]+=" $(ratio "$(echo "${A[w_on]}" | awk '{print $(NF-2)+$(NF-1)+$NF}')" \
                   "$(echo "${A[w_off]}" | awk '{print $(NF-2)+$(NF-1)+$NF}')")"
done
m() { echo "${A[$1]}" | median; }
sum() { echo "${A[$1]}" | tr ' ' '\n' | awk '{s+=$1} END {print s+0}'; }

printf '\nbench/sandbox: two berthd side by side, %s rounds, wrk -t2 -c64 %ss, %s cores\n' \
  "$rounds" "$secs" "$(nproc)"
printf '%-48s %12s %12s %8s\n' "" "sandboxed" "unsandboxed" "ratio"
printf '%-48s %12s %12s %8s\n' "wake of a stopped Node app, first byte (ms)" "$(m w_on)" "$(m w_off)" \
  "$(ratio "$(m w_on)" "$(m w_off)")"
printf '%-48s %12.0f %12.0f %8s\n' "Node hello through the gateway (req/s)" "$(m r_on)" "$(m r_off)" \
  "$(m rr)"
printf '%-48s %12s %12s\n' "  p50 (ms)" "$(m p_on)" "$(m p_off)"
printf 'per-round ratios: req/s%s; wake%s\n' "${A[rr]}" "${A[wr]}"
printf 'wake samples (ms): sandboxed%s; unsandboxed%s\n' "${A[w_on]}" "${A[w_off]}"
printf 'non-2xx answers: sandboxed %s, unsandboxed %s\n' "$(sum bad_on)" "$(sum bad_off)"
