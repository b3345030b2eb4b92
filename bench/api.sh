#!/usr/bin/env bash
# bench/api: wrk on loopback (2 threads, 64 connections) against GET /regions and an
# authenticated GET /projects (10 projects) through berthd's nginx edge, next to nginx serving
# a static file of the same size in the same run. Prints req/s, p50, p99 and the ratio to
# nginx, and berthd's memory idle with every plugin loaded.
# Usage: bench/api.sh [seconds per run, default 10]   (build first: scripts/build.sh)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-10}

bench_workdir api
port=$(freeport); nport=$(freeport)
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
trap stop_bench EXIT
start_berthd
sleep 2
rss_idle=$(awk '/VmRSS/ {print $2}' /proc/$bpid/status)
hwm_idle=$(awk '/VmHWM/ {print $2}' /proc/$bpid/status)
plugins=$(ls "$build"/lib/berth/*.so | wc -l)

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
start_plain_nginx "$nport" 2 application/json

run() { wrk_run "$@" | awk '{print $1, $3, $4, $5}'; }  # url [header] -> "req/s p50 p99 non2xx"

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
