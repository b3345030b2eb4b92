#!/usr/bin/env bash
# bench/storage_files: wrk on loopback (2 threads, 64 connections) against GET /_files/<path>
# on a project host through berthd's nginx edge, for a 1 KB and a 10 MB stored file, next to a
# plain nginx serving the same two files from a root folder in the same run. Prints req/s,
# throughput, p50/p99 and the ratio to nginx, and berthd's RSS before, during and after the
# 10 MB run (the bytes must travel by sendfile, never through berthd's memory). Each file is
# fetched once after its upload, so the runs measure what most requests are: hits in the
# storage plugin's edge tree, which nginx sends without asking berthd. For scale it also
# measures GET /regions, an answer that costs berthd nothing: the edge -> berthd -> edge hop
# that a miss (and every /_files request before the tree) makes before nginx sends the file.
# Usage: bench/storage_files.sh [seconds per run, default 5] [rounds, default 3]
#        (build first: scripts/build.sh)
# BUILD_DIR picks the build (default build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-5}
rounds=${2:-3}

bench_workdir files
port=$(freeport); nport=$(freeport)
cat > "$work/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:$port"
data_dir: "$work/data"
edge:
  backend_threads: ${BACKEND_THREADS:-4}
database:
  pool_size: ${POOL_SIZE:-8}
plugins:
  dir: "$PWD/$build/lib/berth"
  enabled: [projects, storage]
log:
  level: warn
  file: "$work/berthd.log"
YAML
cleanup() {
  [ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null || true
  stop_bench
}
trap cleanup EXIT
start_berthd

"$berthd" --config "$work/berth.yaml" account create --email bench@example.com --plan pro --slug benchacct >/dev/null
token=$("$berthd" --config "$work/berth.yaml" token create --email bench@example.com | tail -n1)
curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
     -d '{"name":"files"}' "http://127.0.0.1:$port/projects"
project=files-benchacct

# The same two files for both servers.
mkdir -p "$work/nginx/www"
head -c 1024 /dev/urandom > "$work/nginx/www/small.bin"
head -c $((10 * 1024 * 1024)) /dev/urandom > "$work/nginx/www/large.bin"
for f in small.bin large.bin; do
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/octet-stream' \
       --data-binary "@$work/nginx/www/$f" "http://127.0.0.1:$port/projects/$project/files/$f"
  cmp -s <(curl -sf -H "Host: $project.localhost" "http://127.0.0.1:$port/_files/$f") "$work/nginx/www/$f" \
    || { echo "berthd does not serve $f as uploaded"; exit 1; }
done

workers=$(edge_workers)
start_plain_nginx "$nport" "${workers:-2}"

run() { wrk_run "$1" ${2:+"Host: $2"}; }  # url [host] -> "req/s bytes/s p50 p99 non2xx"
rss() { awk '/VmRSS/ {print $2}' /proc/$bpid/status; }

berth_host="$project.localhost"
# The machine is shared, so load drifts between runs: each round measures every target once,
# back to back, and the table shows medians over the rounds (ratios too: per round, then the
# median), which a passing burst of load moves far less than one long run.
declare -A A
rss_before=$(rss)
for round in $(seq 1 "$rounds"); do
  read -r v1 v2 v3 v4 _ <<< "$(run "http://127.0.0.1:$nport/small.bin")"
  A[n_s]+=" $v1"; A[n_st]+=" $v2"; A[n_s50]+=" $v3"; A[n_s99]+=" $v4"
  read -r v1 v2 v3 v4 v5 <<< "$(run "http://127.0.0.1:$port/_files/small.bin" "$berth_host")"
  A[b_s]+=" $v1"; A[b_st]+=" $v2"; A[b_s50]+=" $v3"; A[b_s99]+=" $v4"; A[b_sbad]+=" $v5"
  A[r_s]+=" $(ratio "$v1" "$(echo "${A[n_s]}" | awk '{print $NF}')")"
  # The floor of any answer berthd decides: a route that does no work (edge -> berthd -> edge).
  read -r v1 _ v3 v4 _ <<< "$(run "http://127.0.0.1:$port/regions")"
  A[b_r]+=" $v1"; A[b_r50]+=" $v3"; A[b_r99]+=" $v4"
  A[r_r]+=" $(ratio "$v1" "$(echo "${A[n_s]}" | awk '{print $NF}')")"
  read -r v1 v2 v3 v4 _ <<< "$(run "http://127.0.0.1:$nport/large.bin")"
  A[n_l]+=" $v1"; A[n_lt]+=" $v2"; A[n_l50]+=" $v3"; A[n_l99]+=" $v4"
  ( peak=0; while kill -0 $bpid 2>/dev/null; do r=$(rss); [ "$r" -gt "$peak" ] && peak=$r && echo "$peak" >> "$work/rss_peak"; sleep 0.2; done ) &
  sampler=$!
  read -r v1 v2 v3 v4 v5 <<< "$(run "http://127.0.0.1:$port/_files/large.bin" "$berth_host")"
  kill "$sampler" 2>/dev/null || true; sampler=
  A[b_l]+=" $v1"; A[b_lt]+=" $v2"; A[b_l50]+=" $v3"; A[b_l99]+=" $v4"; A[b_lbad]+=" $v5"
  A[r_l]+=" $(ratio "$v2" "$(echo "${A[n_lt]}" | awk '{print $NF}')")"
done
rss_during=$(sort -g "$work/rss_peak" 2>/dev/null | tail -n1)
sleep 1
rss_after=$(rss)
m() { echo "${A[$1]}" | median; }
sum() { echo "${A[$1]}" | tr ' ' '\n' | awk '{s+=$1} END {print s+0}'; }

mbs() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1048576}'; }
printf '\nbench/storage_files: wrk -t2 -c64, %s rounds of %ss per target on loopback, %s cores, edge workers %s\n' \
  "$rounds" "$secs" "$(nproc)" "${workers:-2}"
printf 'medians over the rounds; ratio = median of the per-round ratios to nginx\n'
printf '%-40s %10s %10s %9s %9s %7s\n' "target" "req/s" "MB/s" "p50 ms" "p99 ms" "ratio"
printf '%-40s %10.0f %10s %9s %9s %7s\n' "nginx 1 KB file" "$(m n_s)" "$(mbs "$(m n_st)")" "$(m n_s50)" "$(m n_s99)" "1.00"
printf '%-40s %10.0f %10s %9s %9s %7s\n' "berthd /_files 1 KB (goal req/s >=0.50)" "$(m b_s)" "$(mbs "$(m b_st)")" "$(m b_s50)" "$(m b_s99)" "$(m r_s)"
printf '%-40s %10.0f %10s %9s %9s %7s\n' "berthd GET /regions (the hop alone)" "$(m b_r)" "-" "$(m b_r50)" "$(m b_r99)" "$(m r_r)"
printf '%-40s %10.0f %10s %9s %9s %7s\n' "nginx 10 MB file" "$(m n_l)" "$(mbs "$(m n_lt)")" "$(m n_l50)" "$(m n_l99)" "1.00"
printf '%-40s %10.0f %10s %9s %9s %7s\n' "berthd /_files 10 MB (goal MB/s >=0.80)" "$(m b_l)" "$(mbs "$(m b_lt)")" "$(m b_l50)" "$(m b_l99)" "$(m r_l)"
printf 'per-round ratios: 1 KB req/s%s; 10 MB MB/s%s\n' "${A[r_s]}" "${A[r_l]}"
printf 'non-2xx answers from berthd: 1 KB %s, 10 MB %s\n' "$(sum b_sbad)" "$(sum b_lbad)"
printf 'berthd RSS around the 10 MB runs (64 connections): before %s kB, peak during %s kB, after %s kB (goal: flat)\n' \
  "$rss_before" "$rss_during" "$rss_after"
