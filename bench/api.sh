#!/usr/bin/env bash
# bench/api: wrk on loopback (2 threads, 64 connections) against GET /regions and an
# authenticated GET /projects (10 projects) through berthd's nginx edge, next to nginx serving
# a static file of the same size in the same run. Prints req/s, p50, p99 and the ratio to
# nginx, and berthd's memory idle with every plugin loaded.
# Usage: bench/api.sh [seconds per run, default 10]   (build first: scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
berthd=build/bin/berthd
[ -x "$berthd" ] || { echo "build first: scripts/build.sh"; exit 1; }
command -v wrk >/dev/null || { echo "wrk is missing: scripts/install-deps.sh"; exit 1; }

work=$(mktemp -d /tmp/berth-bench.XXXXXX); chmod 755 "$work"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
nport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:$port"
data_dir: "$work/data"
edge:
  backend_threads: ${BACKEND_THREADS:-4}
database:
  pool_size: ${POOL_SIZE:-8}
log:
  level: warn
  file: "$work/berthd.log"
projects:
  creation_burst: 100
YAML
cleanup() {
  [ -n "${bpid:-}" ] && kill -TERM "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null || true
  [ -f "$work/nginx/nginx.pid" ] && kill -QUIT "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT

: > "$work/out.log"
"$berthd" --config "$work/berth.yaml" serve > "$work/out.log" 2>&1 &
bpid=$!
for _ in $(seq 1 300); do grep -q "berthd ready" "$work/out.log" && break; sleep 0.1; done
grep -q "berthd ready" "$work/out.log" || { cat "$work/out.log"; exit 1; }
sleep 2
rss_idle=$(awk '/VmRSS/ {print $2}' /proc/$bpid/status)
hwm_idle=$(awk '/VmHWM/ {print $2}' /proc/$bpid/status)
plugins=$(ls build/lib/berth/*.so | wc -l)

"$berthd" --config "$work/berth.yaml" account create --email bench@example.com --plan pro >/dev/null
token=$("$berthd" --config "$work/berth.yaml" token create --email bench@example.com)
for i in $(seq 1 10); do
  curl -s -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
       -d "{\"name\":\"bench$i\"}" "http://127.0.0.1:$port/projects"
done

# nginx serving files of exactly the same sizes as the two answers.
mkdir -p "$work/nginx/www"
curl -s "http://127.0.0.1:$port/regions" > "$work/nginx/www/regions"
curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/projects" > "$work/nginx/www/projects"
cat > "$work/nginx/nginx.conf" <<NGINX
daemon on; worker_processes 2; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_timeout 65;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$nport; root $work/nginx/www; default_type application/json; }
}
NGINX
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx/"

run() {  # url [header] -> "reqs p50_ms p99_ms"
  local out
  if [ -n "${2:-}" ]; then out=$(wrk -t2 -c64 -d"${secs}s" --latency -H "$2" "$1")
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

size_r=$(stat -c %s "$work/nginx/www/regions"); size_p=$(stat -c %s "$work/nginx/www/projects")
read -r n_r n_r50 n_r99 _ <<< "$(run "http://127.0.0.1:$nport/regions")"
read -r b_r b_r50 b_r99 b_rbad <<< "$(run "http://127.0.0.1:$port/regions")"
read -r n_p n_p50 n_p99 _ <<< "$(run "http://127.0.0.1:$nport/projects")"
read -r b_p b_p50 b_p99 b_pbad <<< "$(run "http://127.0.0.1:$port/projects" "Authorization: Bearer $token")"
hwm_after=$(awk '/VmHWM/ {print $2}' /proc/$bpid/status)

printf '\nbench/api: wrk -t2 -c64 -d%ss on loopback, %s cores\n' "$secs" "$(nproc)"
printf '%-34s %10s %9s %9s %8s\n' "target" "req/s" "p50 ms" "p99 ms" "ratio"
printf '%-34s %10.0f %9s %9s %8s\n' "nginx static ($size_r bytes)" "$n_r" "$n_r50" "$n_r99" "1.00"
printf '%-34s %10.0f %9s %9s %8.2f\n' "berthd GET /regions (goal >=0.30)" "$b_r" "$b_r50" "$b_r99" "$(awk -v a="$b_r" -v b="$n_r" 'BEGIN {print a / b}')"
printf '%-34s %10.0f %9s %9s %8s\n' "nginx static ($size_p bytes)" "$n_p" "$n_p50" "$n_p99" "1.00"
printf '%-34s %10.0f %9s %9s %8.2f\n' "berthd GET /projects (goal >=0.15)" "$b_p" "$b_p50" "$b_p99" "$(awk -v a="$b_p" -v b="$n_p" 'BEGIN {print a / b}')"
printf 'non-2xx answers: /regions %s, /projects %s\n' "$b_rbad" "$b_pbad"
printf 'berthd memory idle with %s plugins: RSS %s kB (peak %s kB); peak after the runs %s kB (goal < 50 MB idle)\n' \
  "$plugins" "$rss_idle" "$hwm_idle" "$hwm_after"
