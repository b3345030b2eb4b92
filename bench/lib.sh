# Shared parts of the wrk benchmarks (bench/*.sh): the build and tool checks, a scratch folder,
# berthd and a plain nginx to compare with, wrk's numbers, medians and ratios. Sourced, not run.
# Each script sets `secs` before measuring.

# Checks the build and wrk; sets `build` (BUILD_DIR, default build) and `berthd`.
bench_init() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  build=${BUILD_DIR:-build}
  berthd=$build/bin/berthd
  [ -x "$berthd" ] || { echo "build first: scripts/build.sh"; exit 1; }
  command -v wrk >/dev/null || { echo "wrk is missing: scripts/install-deps.sh"; exit 1; }
}

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# A scratch folder the nginx workers (nobody) can enter: sets `work`.
bench_workdir() { work=$(mktemp -d "/tmp/berth-bench-$1.XXXXXX"); chmod 755 "$work"; }

# berthd serving $work/berth.yaml; sets `bpid`; exits with its output when it never gets ready.
start_berthd() {
  "$berthd" --config "$work/berth.yaml" serve > "$work/out.log" 2>&1 &
  bpid=$!
  for _ in $(seq 1 300); do grep -q "berthd ready" "$work/out.log" && break; sleep 0.1; done
  grep -q "berthd ready" "$work/out.log" || { cat "$work/out.log"; exit 1; }
}

# The nginx to compare with: port, worker count, default type; serves $work/nginx/www.
# port [workers] [default type] [app port]
start_plain_nginx() {
  mkdir -p "$work/nginx/www"
  cat > "$work/nginx/nginx.conf" <<NGINX
daemon on; worker_processes ${2:-2}; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; tcp_nopush on; keepalive_timeout 65; etag on;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;
  upstream app { server 127.0.0.1:${4:-9}; keepalive 128; }  # as berthd's edge keeps
  server {
    listen 127.0.0.1:$1; root $work/nginx/www; default_type ${3:-application/octet-stream};
    # With a 4th argument: /app/ is a plain reverse proxy to that port, kept alive.
    location /app/ { proxy_pass http://app/; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
NGINX
  nginx -c "$work/nginx/nginx.conf" -p "$work/nginx/"
}

# The worker count of berthd's own edge, so that the plain nginx gets the same.
edge_workers() { awk '/^worker_processes/ {gsub(";",""); print $2}' "$work/data/edge/nginx.conf"; }

# Stops berthd and the plain nginx, removes the scratch folder (scripts call it from their trap).
stop_bench() {
  [ -n "${bpid:-}" ] && kill -TERM "$bpid" 2>/dev/null && wait "$bpid" 2>/dev/null || true
  [ -f "$work/nginx/nginx.pid" ] && kill -QUIT "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
  sleep 0.5; rm -rf "$work"
}

# wrk -t2 -c64 for $secs on url with optional headers -> "req/s bytes/s p50_ms p99_ms non2xx".
wrk_run() {
  local url=$1 out rps tput p50 p99 non2xx
  shift
  local args=()
  for header in "$@"; do [ -n "$header" ] && args+=(-H "$header"); done
  out=$(wrk -t2 -c64 -d"${secs}s" --latency "${args[@]}" "$url")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  tput=$(echo "$out" | awk '/Transfer\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  echo "$rps $(bytes "$tput") $(ms "$p50") $(ms "$p99") ${non2xx:-0}"
}
ms() {  # wrk latency (us/ms/s) -> ms
  echo "$1" | awk '/us$/ {sub("us",""); printf "%.2f", $1/1000; next}
                   /ms$/ {sub("ms",""); printf "%.2f", $1; next}
                   /s$/  {sub("s","");  printf "%.2f", $1*1000}'
}
bytes() {  # wrk transfer rate (B/KB/MB/GB) -> bytes per second
  echo "$1" | awk '/GB$/ {sub("GB",""); printf "%.0f", $1*1073741824; next}
                   /MB$/ {sub("MB",""); printf "%.0f", $1*1048576; next}
                   /KB$/ {sub("KB",""); printf "%.0f", $1*1024; next}
                   /B$/  {sub("B","");  printf "%.0f", $1}'
}
# CPU time (clock ticks, user + system) the given processes have used so far; gone ones count 0.
cpu_ticks() {
  local t=0 p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
# The worker processes of the nginx whose pid file is $1.
nginx_workers() { pgrep -P "$(cat "$1")" | tr '\n' ' '; }
# Microseconds of CPU per request: ticks used, requests per second, seconds.
us_per_request() {
  awk -v t="$1" -v r="$2" -v s="$3" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f", (r * s > 0) ? t * 1e6 / hz / (r * s) : 0}'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
last() { echo "$1" | awk '{print $NF}'; }
