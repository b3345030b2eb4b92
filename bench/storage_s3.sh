#!/usr/bin/env bash
# bench/storage_s3: GET /_files/<path> on a project host through berthd's nginx edge with the
# local blob backend next to the S3 backend (s3rver on loopback) whose local copies the edge
# sends, wrk on loopback (2 threads, 64 connections), a 1 KB and a 10 MB file, both berthds up
# side by side and measured in alternation so that load on the shared machine falls on both.
# Prints req/s, MB/s, p50/p99 and the ratio S3-cached / local. It also times the one request
# that is not cached: the first GET after the local copy is gone (a fresh node), which
# downloads the object from the store, verifies it and links it for the edge; and a cache miss
# after an eviction: the S3 berthd keeps at most 15 MB of copies (storage.s3_cache_mb), two
# 10 MB files are read in turn, so each first GET finds its copy evicted (and its edge link
# swept) and fetches it again; the second GET of it is an edge hit.
# Usage: bench/storage_s3.sh [seconds per run, default 5] [rounds, default 3]
#        (build first: scripts/build.sh; s3rver: scripts/install-deps.sh)
# BUILD_DIR picks the build (default build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-5}
rounds=${2:-3}
s3rver=tests/support/s3rver/node_modules/s3rver/bin/s3rver.js
[ -f "$s3rver" ] || { echo "s3rver is missing: scripts/install-deps.sh"; exit 1; }

bench_workdir s3
top=$work
sport=$(freeport)
node "$s3rver" -d "$top/s3data" -a 127.0.0.1 -p "$sport" -s --configure-bucket berth-bench \
  > "$top/s3rver.log" 2>&1 &
spid=$!
printf '[default]\naws_access_key_id = S3RVER\naws_secret_access_key = S3RVER\n' > "$top/credentials"
chmod 600 "$top/credentials"
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$sport/" && break; sleep 0.1; done

# One berthd per backend, each in its own folder under $top: sets port_<b>, pid_<b>.
declare -A port pid tok
start_one() {  # backend
  local b=$1
  work=$top/$b; mkdir -p "$work"; chmod 755 "$work"
  port[$b]=$(freeport)
  local storage="storage:\n  backend: local"
  if [ "$b" = s3 ]; then
    storage="storage:\n  backend: s3\n  s3_endpoint: http://127.0.0.1:$sport\n  s3_bucket: berth-bench\n  s3_credentials_file: $top/credentials\n  s3_cache_mb: 15"
  fi
  cat > "$work/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:${port[$b]}"
data_dir: "$work/data"
plugins:
  dir: "$PWD/$build/lib/berth"
  enabled: [projects, storage]
log:
  level: warn
  file: "$work/berthd.log"
$(printf "$storage")
YAML
  start_berthd
  pid[$b]=$bpid
  "$berthd" --config "$work/berth.yaml" account create --email bench@example.com --plan pro --slug benchacct >/dev/null
  local token
  token=$("$berthd" --config "$work/berth.yaml" token create --email bench@example.com | tail -n1)
  curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
       -d '{"name":"files"}' "http://127.0.0.1:${port[$b]}/projects"
  tok[$b]=$token
  for f in small.bin large.bin; do
    curl -sf -o /dev/null -H "Authorization: Bearer $token" -H 'Content-Type: application/octet-stream' \
         --data-binary "@$top/$f" "http://127.0.0.1:${port[$b]}/projects/files-benchacct/files/$f"
    cmp -s <(curl -sf -H "Host: files-benchacct.localhost" "http://127.0.0.1:${port[$b]}/_files/$f") "$top/$f" \
      || { echo "berthd ($b) does not serve $f as uploaded"; exit 1; }
  done
}
cleanup() {
  for b in local s3; do
    [ -n "${pid[$b]:-}" ] && kill -TERM "${pid[$b]}" 2>/dev/null && wait "${pid[$b]}" 2>/dev/null || true
  done
  kill "$spid" 2>/dev/null || true
  sleep 0.5; rm -rf "$top"
}
trap cleanup EXIT

head -c 1024 /dev/urandom > "$top/small.bin"
head -c $((10 * 1024 * 1024)) /dev/urandom > "$top/large.bin"
head -c $((10 * 1024 * 1024)) /dev/urandom > "$top/other.bin"
start_one local
start_one s3

run() { wrk_run "http://127.0.0.1:${port[$1]}/_files/$2" "Host: files-benchacct.localhost"; }
declare -A A
for round in $(seq 1 "$rounds"); do
  for size in small large; do
    read -r l1 l2 l3 l4 l5 <<< "$(run local $size.bin)"
    read -r s1 s2 s3 s4 s5 <<< "$(run s3 $size.bin)"
    A[l_${size}]+=" $l1"; A[l_${size}_t]+=" $l2"; A[l_${size}_50]+=" $l3"; A[l_${size}_99]+=" $l4"
    A[s_${size}]+=" $s1"; A[s_${size}_t]+=" $s2"; A[s_${size}_50]+=" $s3"; A[s_${size}_99]+=" $s4"
    A[bad]+=" $l5 $s5"
    A[r_${size}]+=" $(ratio "$s1" "$l1")"
  done
done

# The first GET on a node without the copy: the local copy and the edge's link removed, then
# one GET (berthd fetches, verifies, links; nginx sends), then a second (an edge hit).
first_get() {  # file -> "first_ms second_ms"
  local data=$top/s3/data/blobs
  rm -rf "$data/cache" "$data/edge/projects"
  local url="http://127.0.0.1:${port[s3]}/_files/$1"
  local a b
  a=$(curl -sf -o /dev/null -w '%{time_total}' -H "Host: files-benchacct.localhost" "$url")
  b=$(curl -sf -o /dev/null -w '%{time_total}' -H "Host: files-benchacct.localhost" "$url")
  awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f %.1f", a * 1000, b * 1000}'
}
# Cache misses after an eviction: large.bin and other.bin (10 MB each) do not both fit in 15 MB.
# A copy used in the last second is never evicted, hence the pause before each pair.
# other.bin stored now, a second after the others were last used: its upload is kept as its copy
# and passes the bound, so large.bin's copy is evicted (and its edge link swept).
sleep 1.2
curl -sf -o /dev/null -H "Authorization: Bearer ${tok[s3]}" -H 'Content-Type: application/octet-stream' \
     --data-binary "@$top/other.bin" "http://127.0.0.1:${port[s3]}/projects/files-benchacct/files/other.bin"
evict_rounds=5
for i in $(seq 1 "$evict_rounds"); do
  for f in large.bin other.bin; do
    sleep 1.2
    url="http://127.0.0.1:${port[s3]}/_files/$f"
    a=$(curl -sf -o "$top/got" -w '%{time_total}' -H "Host: files-benchacct.localhost" "$url")
    cmp -s "$top/got" "$top/$f" || { echo "the S3 berthd served $f wrong after an eviction"; exit 1; }
    b=$(curl -sf -o /dev/null -w '%{time_total}' -H "Host: files-benchacct.localhost" "$url")
    A[e_miss]+=" $(awk -v a="$a" 'BEGIN {printf "%.1f", a * 1000}')"
    A[e_hit]+=" $(awk -v b="$b" 'BEGIN {printf "%.1f", b * 1000}')"
    A[e_r]+=" $(ratio "$a" "$b")"
  done
done
cache_files=$(find "$top/s3/data/blobs/cache" -type f | wc -l)
cache_mb=$(du -sm "$top/s3/data/blobs/cache" | cut -f1)

read -r fs1 fs2 <<< "$(first_get small.bin)"
read -r fl1 fl2 <<< "$(first_get large.bin)"

m() { echo "${A[$1]}" | median; }
mbs() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1048576}'; }
bad=$(echo "${A[bad]}" | tr ' ' '\n' | awk '{s+=$1} END {print s+0}')
printf '\nbench/storage_s3: wrk -t2 -c64, %s rounds of %ss per target on loopback, %s cores\n' \
  "$rounds" "$secs" "$(nproc)"
printf 'medians over the rounds; ratio = median of the per-round ratios S3-cached / local\n'
printf '%-36s %10s %8s %8s %8s %7s\n' "GET /_files/ (edge hits)" "req/s" "MB/s" "p50 ms" "p99 ms" "ratio"
for size in small large; do
  label=$([ $size = small ] && echo "1 KB" || echo "10 MB")
  printf '%-36s %10.0f %8s %8s %8s %7s\n' "local backend, $label" "$(m l_$size)" "$(mbs "$(m l_${size}_t)")" "$(m l_${size}_50)" "$(m l_${size}_99)" "1.00"
  printf '%-36s %10.0f %8s %8s %8s %7s\n' "S3 backend (local copy), $label" "$(m s_$size)" "$(mbs "$(m s_${size}_t)")" "$(m s_${size}_50)" "$(m s_${size}_99)" "$(m r_$size)"
done
printf 'per-round ratios: 1 KB%s; 10 MB%s\n' "${A[r_small]}" "${A[r_large]}"
printf 'non-2xx answers: %s\n' "$bad"
printf 'after an eviction (s3_cache_mb 15, two 10 MB files in turn, %s pairs): first GET (miss) median %s ms, second GET (hit) median %s ms, miss/hit %s; cache left: %s files, %s MB\n' \
  "$evict_rounds" "$(m e_miss)" "$(m e_hit)" "$(m e_r)" "$cache_files" "$cache_mb"
printf 'per-pair misses ms:%s; hits ms:%s\n' "${A[e_miss]}" "${A[e_hit]}"
printf 'first GET without a local copy (fetch from s3rver, verify, link): 1 KB %s ms (next GET %s ms), 10 MB %s ms (next GET %s ms)\n' \
  "$fs1" "$fs2" "$fl1" "$fl2"
