#!/bin/sh
# Start command of an n8n project: run as the project's user inside its sandbox, it turns the
# platform's environment into n8n's and execs n8n (so the platform's SIGTERM reaches n8n).
#
# Reads (set by the platform): PORT, BERTH_URL, BERTH_N8N_HOME, N8N_ENCRYPTION_KEY, HOME,
# PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; optional BERTH_N8N_RUNNER_PORT, TMPDIR,
# GENERIC_TIMEZONE, N8N_LOG_LEVEL. README.md lists what it sets and why.
set -eu

die() {
  echo "berth n8n start: $*" >&2
  exit 64
}

is_port() {
  case $1 in
    '' | *[!0-9]* | 0*) return 1 ;;
  esac
  [ "$1" -le 65535 ]
}

need() {
  eval "value=\${$1:-}"
  [ -n "$value" ] || die "$1 is not set"
}

for name in PORT BERTH_URL BERTH_N8N_HOME N8N_ENCRYPTION_KEY HOME \
  PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE; do
  need "$name"
done
is_port "$PORT" || die "PORT is not a port number: $PORT"
is_port "$PGPORT" || die "PGPORT is not a port number: $PGPORT"

node_dir=$BERTH_N8N_HOME/node
n8n_bin=$BERTH_N8N_HOME/app/node_modules/n8n/bin/n8n
[ -x "$node_dir/bin/node" ] || die "no node binary at $node_dir/bin/node"
[ -f "$n8n_bin" ] || die "no n8n at $n8n_bin"

# --- The public address: scheme://host[:port], nothing after it. --------------------------
url=${BERTH_URL%/}
case $url in
  http://*) protocol=http host_port=${url#http://} ;;
  https://*) protocol=https host_port=${url#https://} ;;
  *) die "BERTH_URL must be http(s)://host[:port]: $BERTH_URL" ;;
esac
case $host_port in
  '' | *[!]A-Za-z0-9.:[-]*) die "BERTH_URL must be scheme://host[:port] with no path: $BERTH_URL" ;;
esac
case $host_port in
  \[*\]) host=$host_port ;;       # [IPv6]
  \[*\]:*) host=${host_port%:*} ;; # [IPv6]:port
  *:*:*) die "BERTH_URL: an IPv6 host needs brackets: $BERTH_URL" ;;
  *:*) host=${host_port%:*} ;;
  *) host=$host_port ;;
esac
[ -n "$host" ] || die "BERTH_URL has no host: $BERTH_URL"
base_url=$protocol://$host_port/
secure_cookie=false
[ "$protocol" = https ] && secure_cookie=true

# --- The task runner's broker port. -------------------------------------------------------
# n8n's JS task runner is a child process that connects back to a broker on 127.0.0.1, and every
# project shares the machine's loopback, so the port must be free machine-wide. n8n hands the
# runner the configured number (not the bound one), so port 0 cannot be used. The platform's
# number wins; else the kernel names a free port now, the way the platform picks PORT. If
# another process takes it before n8n binds, n8n exits 1 ("Task Broker's port ... in use") and
# the next start picks again.
if [ -n "${BERTH_N8N_RUNNER_PORT:-}" ]; then
  runner_port=$BERTH_N8N_RUNNER_PORT
else
  runner_port=$("$node_dir/bin/node" -e '
    const s = require("net").createServer();
    s.listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); });')
fi
is_port "$runner_port" || die "no usable runner port: $runner_port"
[ "$runner_port" != "$PORT" ] || die "the runner port equals PORT ($PORT)"

# --- n8n's environment. ----------------------------------------------------------------------
# Node 24 first on PATH: n8n spawns its task runner as plain `node`.
PATH=$node_dir/bin:${PATH:-/usr/bin:/bin}
[ -z "${TMPDIR:-}" ] || mkdir -p "$TMPDIR"

export PATH NODE_ENV=production

# Where n8n listens and how it names itself (derived at every start: a domain change is one
# restart away).
export N8N_LISTEN_ADDRESS=127.0.0.1 N8N_PORT="$PORT" N8N_HOST="$host" N8N_PROTOCOL="$protocol"
export N8N_EDITOR_BASE_URL="$base_url" N8N_WEBHOOK_URL="$base_url"
export N8N_SECURE_COOKIE="$secure_cookie" N8N_PROXY_HOPS=1
export N8N_PATH=/ N8N_USER_FOLDER="$HOME"

# The project's own database and role.
export DB_TYPE=postgresdb DB_POSTGRESDB_HOST="$PGHOST" DB_POSTGRESDB_PORT="$PGPORT"
export DB_POSTGRESDB_DATABASE="$PGDATABASE" DB_POSTGRESDB_USER="$PGUSER"
export DB_POSTGRESDB_PASSWORD="$PGPASSWORD" DB_POSTGRESDB_SCHEMA=public

# The internal JS task runner (Python has no runtime in the shared tree).
export N8N_RUNNERS_MODE=internal N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1
export N8N_RUNNERS_BROKER_PORT="$runner_port" N8N_PYTHON_ENABLED=false
export N8N_RUNNERS_TASK_TIMEOUT=300 # today's default, set so n8n stops warning of its change

# Nothing phones home; nothing installs into the shared read-only tree.
export N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false
export N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED=false N8N_TEMPLATES_ENABLED=false
export N8N_DYNAMIC_BANNERS_ENABLED=false N8N_HIRING_BANNER_ENABLED=false
export N8N_PERSONALIZATION_ENABLED=false
export N8N_COMMUNITY_PACKAGES_ENABLED=false N8N_VERIFIED_PACKAGES_ENABLED=false
export N8N_UNVERIFIED_PACKAGES_ENABLED=false
export N8N_DISABLED_MODULES=mcp-registry

# Decompression limits: the defaults n8n announces for its next major version, set now (they
# guard a shared machine against zip bombs, and n8n stops warning about them).
export N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES=268435456
export N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES=1000

# Preferences a project may set as secrets.
export GENERIC_TIMEZONE="${GENERIC_TIMEZONE:-UTC}" N8N_LOG_LEVEL="${N8N_LOG_LEVEL:-info}"

echo "berth n8n start: $base_url on 127.0.0.1:$PORT, runner broker 127.0.0.1:$runner_port," \
  "database $PGUSER@$PGHOST:$PGPORT/$PGDATABASE, node $("$node_dir/bin/node" -v)" >&2
cd "$HOME"
exec "$node_dir/bin/node" "$n8n_bin" start
