#!/usr/bin/env bash
# Stops the berthd that scripts/start.sh started (SIGTERM: drain, then stop nginx and PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
pidfile=var/berthd.pid
[ -f "$pidfile" ] || { echo "berthd is not running"; exit 0; }
pid=$(cat "$pidfile")
if kill -TERM "$pid" 2>/dev/null; then
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  echo "berthd stopped"
fi
rm -f "$pidfile"
