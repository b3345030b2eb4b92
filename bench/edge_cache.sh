#!/usr/bin/env bash
# bench/edge_cache: wrk on loopback (2 threads, 64 connections) against a 1 KB app answer that
# berthd's edge serves from its cache (HIT: nginx answers before asking berthd), next to a
# plain nginx serving the same 1 KB file directly, in the same run. For scale it also measures
# the same answer without the cache (edge -> berthd decides -> edge proxies to the app).
# The "app" is the plain nginx itself; the decision comes from the edgecheck test plugin
# (project-host route answering proxyCached / proxy), whose rules route sets the cache rule.
# Prints req/s, p50/p99 and the ratio to nginx (goal for the HIT: >= 0.5x).
# Usage: bench/edge_cache.sh [seconds per run, default 5] [rounds, default 3]
#        (build first: scripts/build.sh, which builds the test plugins too)
# BUILD_DIR picks the build (default build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-5}
rounds=${2:-3}
[ -f "$build/test-plugins/libberth_edgecheck.so" ] || { echo "build the edgecheck test plugin first"; exit 1; }

bench_workdir cache
port=$(freeport); nport=$(freeport)
mkdir -p "$work/plugins"
ln -s "$(cd "$build" && pwd)/test-plugins/libberth_edgecheck.so" "$work/plugins/"
cat > "$work/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:$port"
data_dir: "$work/data"
edge:
  backend_threads: ${BACKEND_THREADS:-4}
plugins:
  dir: "$work/plugins"
  enabled: [edgecheck]
log:
  level: warn
  file: "$work/berthd.log"
YAML
trap stop_bench EXIT
start_berthd

workers=$(edge_workers)
start_plain_nginx "$nport" "${workers:-2}"
head -c 1024 /dev/urandom > "$work/nginx/www/small.bin"

host=bench-cache.localhost
cached="/small.bin?cached_to=$nport&ttl=600"
uncached="/small.bin?proxy_to=$nport"
curl -sf -o /dev/null -H 'Content-Type: application/json' \
  -d "{\"rules\":[{\"host\":\"$host\",\"key\":\"bench1\",\"ttl_seconds\":600}]}" \
  "http://127.0.0.1:$port/edgecheck/edge_cache"
hit=""
for _ in $(seq 1 200); do
  hit=$(curl -sf -D - -o "$work/got.bin" -H "Host: $host" "http://127.0.0.1:$port$cached" | tr -d '\r' |
        awk -F': ' 'tolower($1)=="x-berth-cache" {print $2}')
  [ "$hit" = "HIT" ] && break; sleep 0.05
done
[ "$hit" = "HIT" ] || { echo "the edge cache never answered HIT"; cat "$work/out.log"; exit 1; }
cmp -s "$work/got.bin" "$work/nginx/www/small.bin" || { echo "the cached answer differs from the file"; exit 1; }
calls_before=$(curl -sf "http://127.0.0.1:$port/edgecheck/project_calls")

run() { wrk_run "$1" ${2:+"Host: $2"}; }  # url [host] -> "req/s bytes/s p50 p99 non2xx"
# The machine is shared: each round measures every target once, back to back; the table shows
# medians over the rounds (ratios: per round, then the median).
declare -A A
for round in $(seq 1 "$rounds"); do
  read -r v1 _ v2 v3 _ <<< "$(run "http://127.0.0.1:$nport/small.bin")"
  A[n]+=" $v1"; A[n50]+=" $v2"; A[n99]+=" $v3"; last_n=$v1
  read -r v1 _ v2 v3 v4 <<< "$(run "http://127.0.0.1:$port$cached" "$host")"
  A[h]+=" $v1"; A[h50]+=" $v2"; A[h99]+=" $v3"; A[hbad]+=" $v4"; A[rh]+=" $(ratio "$v1" "$last_n")"
  calls_after_hits=$(curl -sf "http://127.0.0.1:$port/edgecheck/project_calls")
  read -r v1 _ v2 v3 v4 <<< "$(run "http://127.0.0.1:$port$uncached" "$host")"
  A[u]+=" $v1"; A[u50]+=" $v2"; A[u99]+=" $v3"; A[ubad]+=" $v4"; A[ru]+=" $(ratio "$v1" "$last_n")"
  # The HIT runs must not have reached berthd: its count moves only with the uncached runs.
  [ "$calls_after_hits" = "$calls_before" ] || { echo "HITs reached berthd: $calls_before -> $calls_after_hits"; exit 1; }
  calls_before=$(curl -sf "http://127.0.0.1:$port/edgecheck/project_calls")
done
m() { echo "${A[$1]}" | median; }
sum() { echo "${A[$1]}" | tr ' ' '\n' | awk '{s+=$1} END {print s+0}'; }

printf '\nbench/edge_cache: wrk -t2 -c64, %s rounds of %ss per target on loopback, %s cores, edge workers %s\n' \
  "$rounds" "$secs" "$(nproc)" "${workers:-2}"
printf 'medians over the rounds; ratio = median of the per-round ratios to nginx\n'
printf '%-46s %10s %9s %9s %7s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
printf '%-46s %10.0f %9s %9s %7s\n' "nginx 1 KB file" "$(m n)" "$(m n50)" "$(m n99)" "1.00"
printf '%-46s %10.0f %9s %9s %7s\n' "edge cache HIT, 1 KB (goal >=0.50)" "$(m h)" "$(m h50)" "$(m h99)" "$(m rh)"
printf '%-46s %10.0f %9s %9s %7s\n' "uncached: berthd decides, edge proxies" "$(m u)" "$(m u50)" "$(m u99)" "$(m ru)"
printf 'per-round HIT ratios:%s\n' "${A[rh]}"
printf 'non-2xx answers: HIT runs %s, uncached runs %s; HIT runs reached berthd: never\n' "$(sum hbad)" "$(sum ubad)"
