#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL: its own folder under /tmp, a free loopback
# port, superuser "berth" (trust, loopback only), one empty database "test". The command gets
# DATABASE_URL (postgresql://berth@127.0.0.1:PORT/test) and PGHOST/PGPORT/PGUSER/PGDATABASE;
# the cluster is stopped and removed when it ends, whatever its exit. Run as root, the cluster
# belongs to "postgres" or "nobody" (PostgreSQL refuses root), as in berthd's embedded cluster.
#   tests/support/with_postgres.sh php tests/wordpress/x.php
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "with_postgres: no PostgreSQL server binaries under /usr/lib/postgresql" >&2; exit 2; }
dir=$(mktemp -d /tmp/berth-pg.XXXXXX)
chmod 755 "$dir"
as=()
if [ "$(id -u)" = 0 ]; then
  user=postgres; id "$user" >/dev/null 2>&1 || user=nobody
  chown "$user" "$dir"
  as=(runuser -u "$user" --)
fi
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cleanup() {
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
"${as[@]}" "$bin/initdb" -D "$dir/data" -U berth --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; exit 2; }
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off -c full_page_writes=off" \
  start >/dev/null || { cat "$dir/server.log" >&2; exit 2; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U berth test
export DATABASE_URL="postgresql://berth@127.0.0.1:$port/test"
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=berth PGDATABASE=test
status=0
"$@" || status=$?
exit "$status"
