#!/usr/bin/env bash
# bench/runtime_gateway: the project gateway of the runtime plugin, measured next to what it
# stands in front of, in the same run:
#  - a static release's 1 KB page through the gateway (after berthd's first answer, the edge
#    sends it from the edge file tree) vs a plain nginx serving the same file from a folder
#    (goal >= 0.3x);
#  - a Node hello app through the gateway (once running, the edge proxies its host straight to
#    it) vs wrk straight to the app's own port (goal >= 0.5x);
#  - wake: a request to a stopped project until its first byte, next to the same app's own
#    start-to-listening time measured here by starting it by hand (goal <= that + 100 ms).
# wrk on loopback, 2 threads, 64 connections; rounds back to back, medians (the machine is
# shared and its load drifts). For the Node runs it also prints the CPU each process spent per
# request (nginx's workers, berthd, the app; from /proc), which drifts far less than req/s.
# Usage: bench/runtime_gateway.sh [seconds per run, default 5] [rounds, default 3]
#        BUILD_DIR picks the build (default build). Run as root (apps run as their projects' own uids).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init
secs=${1:-5}
rounds=${2:-3}
command -v node >/dev/null || { echo "node is missing"; exit 1; }

bench_workdir gateway
port=$(freeport); nport=$(freeport)
cat > "$work/berth.yaml" <<YAML
server:
  listen: "127.0.0.1:$port"
data_dir: "$work/data"
edge:
  backend_threads: ${BACKEND_THREADS:-4}
plugins:
  dir: "$(cd "$build" && pwd)/lib/berth"
  enabled: [projects, storage, runtime]
runtime:
  idle_stop_seconds: 1
  stop_grace_seconds: 1
log:
  level: warn
  file: "$work/berthd.log"
YAML
cleanup() {
  [ -n "${apid:-}" ] && kill "$apid" 2>/dev/null || true
  stop_bench
}
trap cleanup EXIT
start_berthd

cfg=(--config "$work/berth.yaml")
"$berthd" "${cfg[@]}" account create --email bench@example.com --plan pro --slug benchacct >/dev/null
token=$("$berthd" "${cfg[@]}" token create --email bench@example.com | tail -n1)
api() { curl -sf -H "Authorization: Bearer $token" "$@"; }
for p in pages hello; do
  api -o /dev/null -H 'Content-Type: application/json' -d "{\"name\":\"$p\"}" "http://127.0.0.1:$port/projects"
done

# The releases: a static site with a 1 KB page, and a Node hello app.
mkdir -p "$work/site" "$work/app" "$work/nginx/www"
head -c 1024 /dev/urandom | base64 -w0 | head -c 1024 > "$work/site/page.html"
cp "$work/site/page.html" "$work/nginx/www/page.html"
echo '<p>home</p>' > "$work/site/index.html"
cat > "$work/app/server.js" <<'JS'
const http = require('http');
http.createServer((req, res) => { res.end('hello\n'); })
  .listen(Number(process.env.PORT), '127.0.0.1', () => {
    // Its own start-to-listening: ms since the process began (node's clock starts at exec).
    if (process.env.READY_FILE)
      require('fs').writeFileSync(process.env.READY_FILE, String(Math.round(performance.now())));
  });
JS
echo '{"name":"hello","main":"server.js"}' > "$work/app/package.json"
deploy() {  # project folder
  local id status
  id=$(tar -czf - -C "$2" . | api -H 'Content-Type: application/gzip' --data-binary @- \
       "http://127.0.0.1:$port/projects/$1-benchacct/deploys" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  for _ in $(seq 1 300); do
    status=$(api "http://127.0.0.1:$port/projects/$1-benchacct/deploys/$id" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
    [ "$status" != building ] && break; sleep 0.1
  done
  [ "$status" = live ] || { echo "release of $1 is $status"; exit 1; }
  echo "$id"
}
deploy pages "$work/site" > /dev/null
app_release=$(deploy hello "$work/app")
site_host=pages-benchacct.localhost
app_host=hello-benchacct.localhost
cmp -s <(curl -sf -H "Host: $site_host" "http://127.0.0.1:$port/page.html") "$work/nginx/www/page.html" \
  || { echo "the gateway does not serve page.html as uploaded"; exit 1; }
[ "$(curl -sf -H "Host: $app_host" "http://127.0.0.1:$port/")" = hello ] \
  || { echo "the gateway does not reach the app"; exit 1; }

# The same app started by hand on its own port, for wrk straight to it (and through a plain
# nginx reverse proxy: the floor of any edge in front of it) and for its own
# start-to-listening time.
aport=$(freeport)
workers=$(edge_workers)
start_plain_nginx "$nport" "${workers:-2}" text/html "$aport"

start_app() {  # sets started_ms: from exec to listening, as the app measures it
  rm -f "$work/ready"
  local t0 t1
  t0=$(date +%s%N)
  ( cd "$work/app" && PORT=$aport READY_FILE="$work/ready" exec node server.js ) &
  apid=$!
  while [ ! -s "$work/ready" ]; do sleep 0.002; done
  t1=$(date +%s%N)
  started_ms=$(cat "$work/ready")  # the app's own clock; (t1 - t0) adds this script's polling
  wall_ms=$(( (t1 - t0) / 1000000 ))
}
stop_app() { kill "$apid" 2>/dev/null; wait "$apid" 2>/dev/null || true; apid=; }

# Keeps the gateway's app running for 2 s of requests, so that the edge has loaded its rule
# (idle_stop_seconds is 1 here: a pause would stop it again).
warm_app() {
  for _ in $(seq 1 20); do
    curl -s -o /dev/null -H "Cookie: nocache=1" -H "Host: $app_host" "http://127.0.0.1:$port/"
    sleep 0.1
  done
}

# url [host] [extra header] -> "req/s p50_ms non2xx"
run() { wrk_run "$1" ${2:+"Host: $2"} "${3:-}" | awk '{print $1, $3, $5}'; }
stops_file="$work/data/releases"
# The gateway's app runs as its project's own uid; the one started by hand here runs as root.
gateway_app_pids() { pgrep -f "node server.js" | xargs -r ps -o pid=,uid= -p | awk '$2 != 0 {print $1}'; }
app_running() { [ -n "$(gateway_app_pids)" ]; }

declare -A A
for round in $(seq 1 "$rounds"); do
  read -r v1 v2 _ <<< "$(run "http://127.0.0.1:$nport/page.html")"
  A[n_s]+=" $v1"; A[n_s50]+=" $v2"
  read -r v1 v2 v3 <<< "$(run "http://127.0.0.1:$port/page.html" "$site_host")"
  A[g_s]+=" $v1"; A[g_s50]+=" $v2"; A[g_sbad]+=" ${v3:-0}"
  A[r_s]+=" $(ratio "$v1" "$(last "${A[n_s]}")")"
  # The floor of any answer berthd decides: a route that does no work (edge -> berthd -> edge).
  read -r v1 v2 _ <<< "$(run "http://127.0.0.1:$port/regions")"
  A[g_r]+=" $v1"; A[g_r50]+=" $v2"; A[r_r]+=" $(ratio "$v1" "$(last "${A[n_s]}")")"
  # Edge cache HITs of the app's answer (GET without credentials): nginx alone.
  warm_app
  curl -s -o /dev/null -H "Host: $app_host" "http://127.0.0.1:$port/"
  read -r v1 v2 v3 <<< "$(run "http://127.0.0.1:$port/" "$app_host")"
  A[g_h]+=" $v1"; A[g_h50]+=" $v2"; A[r_h]+=" $(ratio "$v1" "$(last "${A[n_s]}")")"

  start_app
  read -r v1 v2 _ <<< "$(run "http://127.0.0.1:$aport/")"
  A[d_a]+=" $v1"; A[d_a50]+=" $v2"
  # CPU per request of each process, steadier than req/s on a shared machine.
  pn=$(nginx_workers "$work/nginx/nginx.pid"); n0=$(cpu_ticks $pn); a0=$(cpu_ticks "$apid")
  read -r v1 v2 _ <<< "$(run "http://127.0.0.1:$nport/app/")"
  A[c_pn]+=" $(us_per_request $(( $(cpu_ticks $pn) - n0 )) "$v1" "$secs")"
  A[c_pa]+=" $(us_per_request $(( $(cpu_ticks "$apid") - a0 )) "$v1" "$secs")"
  stop_app
  A[p_a]+=" $v1"; A[p_a50]+=" $v2"; A[r_p]+=" $(ratio "$v1" "$(last "${A[d_a]}")")"
  warm_app
  en=$(nginx_workers "$work/data/edge/nginx.pid"); ga=$(gateway_app_pids | head -1)
  n0=$(cpu_ticks $en); b0=$(cpu_ticks "$bpid"); a0=$(cpu_ticks "$ga")
  read -r v1 v2 v3 <<< "$(run "http://127.0.0.1:$port/" "$app_host" "Cookie: nocache=1")"
  A[c_gn]+=" $(us_per_request $(( $(cpu_ticks $en) - n0 )) "$v1" "$secs")"
  A[c_gb]+=" $(us_per_request $(( $(cpu_ticks "$bpid") - b0 )) "$v1" "$secs")"
  A[c_ga]+=" $(us_per_request $(( $(cpu_ticks "$ga") - a0 )) "$v1" "$secs")"
  A[g_a]+=" $v1"; A[g_a50]+=" $v2"; A[g_abad]+=" ${v3:-0}"
  A[r_a]+=" $(ratio "$v1" "$(last "${A[d_a]}")")"

  # Wake, a few times: wait until the gateway's app is stopped (idle 1 s), then time the
  # first byte; and the app's own start-to-listening by hand, right after.
  for _ in 1 2 3; do
    # (idle 1 s, then the edge is given 1.5 s to stop sending it requests)
    for _ in $(seq 1 100); do app_running || break; sleep 0.1; done
    app_running && { echo "the app was not stopped when idle"; exit 1; }
    t=$(curl -s -o /dev/null -w '%{time_starttransfer}' -H "Cookie: nocache=1" -H "Host: $app_host" "http://127.0.0.1:$port/")
    A[w_g]+=" $(awk -v t="$t" 'BEGIN {printf "%.0f", t * 1000}')"
    start_app
    A[w_a]+=" $started_ms"
    stop_app
  done
done
m() { echo "${A[$1]}" | median; }
sum() { echo "${A[$1]}" | tr ' ' '\n' | awk '{s+=$1} END {print s+0}'; }

printf '\nbench/runtime_gateway: wrk -t2 -c64, %s rounds of %ss per target on loopback, %s cores, edge workers %s\n' \
  "$rounds" "$secs" "$(nproc)" "${workers:-2}"
printf 'medians over the rounds; ratio = median of the per-round ratios\n'
printf '%-52s %10s %9s %7s\n' "target" "req/s" "p50 ms" "ratio"
printf '%-52s %10.0f %9s %7s\n' "nginx 1 KB file" "$(m n_s)" "$(m n_s50)" "1.00"
printf '%-52s %10.0f %9s %7s\n' "gateway static 1 KB page (goal >= 0.30)" "$(m g_s)" "$(m g_s50)" "$(m r_s)"
printf '%-52s %10.0f %9s %7s\n' "berthd GET /regions (the decision hop alone)" "$(m g_r)" "$(m g_r50)" "$(m r_r)"
printf '%-52s %10.0f %9s %7s\n' "edge cache HIT of the app (goal >= 0.50)" "$(m g_h)" "$(m g_h50)" "$(m r_h)"
printf '%-52s %10.0f %9s %7s\n' "Node hello, wrk straight to its port" "$(m d_a)" "$(m d_a50)" "1.00"
printf '%-52s %10.0f %9s %7s\n' "Node hello through a plain nginx proxy (any edge)" "$(m p_a)" "$(m p_a50)" "$(m r_p)"
printf '%-52s %10.0f %9s %7s\n' "Node hello through the gateway, uncached (>= 0.50)" "$(m g_a)" "$(m g_a50)" "$(m r_a)"
printf 'per-round ratios: static%s; node%s; plain nginx proxy%s\n' "${A[r_s]}" "${A[r_a]}" "${A[r_p]}"
printf 'non-2xx answers through the gateway: static %s, node %s\n' "$(sum g_sbad)" "$(sum g_abad)"
printf 'CPU per Node request, us (medians): gateway: nginx %s, berthd %s, app %s; plain nginx proxy: nginx %s, app %s\n' \
  "$(m c_gn)" "$(m c_gb)" "$(m c_ga)" "$(m c_pn)" "$(m c_pa)"
printf 'wake of a stopped Node app (%s samples): first byte through the gateway median %s ms (all:%s)\n' \
  "$(echo "${A[w_g]}" | wc -w)" "$(m w_g)" "${A[w_g]}"
printf '  the app'"'"'s own start-to-listening (its performance.now() when listening), started by hand: median %s ms (all:%s); goal: wake <= that + 100 ms -> %s\n' \
  "$(m w_a)" "${A[w_a]}" "$(awk -v w="$(m w_g)" -v a="$(m w_a)" 'BEGIN {print (w <= a + 100) ? "met" : "not met"}')"
