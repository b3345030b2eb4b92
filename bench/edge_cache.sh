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
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-3}
build=${BUILD_DIR:-build}
berthd=$build/bin/berthd
[ -x "$berthd" ] || { echo "build first: scripts/build.sh"; exit 1; }
[ -f "$build/test-plugins/libberth_edgecheck.so" ] || { echo "build the edgecheck test plugin first"; exit 1; }
command -v wrk >/dev/null || { echo "wrk is missing: scripts/install-deps.sh"; exit 1; }

work=$(mktemp -d /tmp/berth-bench-cache.XXXXXX); chmod 755 "$work"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
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
cleanup() {
  [ -n "${bpid:-}" ] && kill -TERM "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null || true
  [ -f "$work/nginx/nginx.pid" ] && kill -QUIT "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT

"$berthd" --config "$work/berth.yaml" serve > "$work/out.log" 2>&1 &
bpid=$!
for _ in $(seq 1 300); do grep -q "berthd ready" "$work/out.log" && break; sleep 0.1; done
grep -q "berthd ready" "$work/out.log" || { cat "$work/out.log"; exit 1; }

workers=$(awk '/^worker_processes/ {gsub(";",""); print $2}' "$work/data/edge/nginx.conf")
mkdir -p "$work/nginx/www"
head -c 1024 /dev/urandom > "$work/nginx/www/small.bin"
cat > "$work/nginx/nginx.conf" <<NGINX
daemon on; worker_processes ${workers:-2}; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_timeout 65; etag on;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$nport; root $work/nginx/www; default_type application/octet-stream; }
}
NGINX
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx/"

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

run() {  # url [host] -> "reqs p50_ms p99_ms non2xx"
  local out
  if [ -n "${2:-}" ]; then out=$(wrk -t2 -c64 -d"${secs}s" --latency -H "Host: $2" "$1")
  else out=$(wrk -t2 -c64 -d"${secs}s" --latency "$1"); fi
  local rps p50 p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  echo "$rps $(ms "$p50") $(ms "$p99") ${non2xx:-0}"
}
ms() {  # wrk latency (us/ms/s) -> ms
  echo "$1" | awk '/us$/ {sub("us",""); printf "%.2f", $1/1000; next}
                   /ms$/ {sub("ms",""); printf "%.2f", $1; next}
                   /s$/  {sub("s","");  printf "%.2f", $1*1000}'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
# The machine is shared: each round measures every target once, back to back; the table shows
# medians over the rounds (ratios: per round, then the median).
declare -A A
for round in $(seq 1 "$rounds"); do
  read -r v1 v2 v3 _ <<< "$(run "http://127.0.0.1:$nport/small.bin")"
  A[n]+=" $v1"; A[n50]+=" $v2"; A[n99]+=" $v3"; last_n=$v1
  read -r v1 v2 v3 v4 <<< "$(run "http://127.0.0.1:$port$cached" "$host")"
  A[h]+=" $v1"; A[h50]+=" $v2"; A[h99]+=" $v3"; A[hbad]+=" $v4"; A[rh]+=" $(ratio "$v1" "$last_n")"
  calls_after_hits=$(curl -sf "http://127.0.0.1:$port/edgecheck/project_calls")
  read -r v1 v2 v3 v4 <<< "$(run "http://127.0.0.1:$port$uncached" "$host")"
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
