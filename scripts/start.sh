#!/usr/bin/env bash
# The first command of a new user: installs what is missing, builds, starts berthd on
# 127.0.0.1:8080 with its embedded PostgreSQL, makes a first account and prints its token and a
# one-time console sign-in link.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh --target berthd berth_plugins

config=${BERTH_CONFIG:-etc/berth.yaml}
# Its owner's alone: it names the database and may hold secrets (berthd warns otherwise).
chmod 600 "$config"
mkdir -p var
# A new install seals project secrets from its first minute: berthd makes a key file once
# (0600, under data_dir unless projects.secrets_key_file names one) and prints its path. It
# makes none when the config sets projects.secrets_key itself (an operator's own key, or ""
# to keep secrets off). Only the file's path is ever on a command line.
key_args=()
keyfile=$(build/bin/berthd --config "$config" secrets-key)
if [ -n "$keyfile" ]; then key_args=(--set "projects.secrets_key_file=$keyfile"); fi
pidfile=var/berthd.pid
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  echo "berthd is already running (pid $(cat "$pidfile"))"
else
  : > var/berthd.log
  nohup build/bin/berthd --config "$config" ${key_args[@]+"${key_args[@]}"} serve >> var/berthd.log 2>&1 &
  echo $! > "$pidfile"
  for _ in $(seq 1 300); do
    if grep -q "berthd ready on" var/berthd.log; then break; fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "berthd stopped during start:"; cat var/berthd.log; exit 1
    fi
    sleep 0.2
  done
  grep -q "berthd ready on" var/berthd.log || { echo "berthd did not start:"; tail -50 var/berthd.log; exit 1; }
fi

email=${BERTH_EMAIL:-admin@localhost}
build/bin/berthd --config "$config" account create --email "$email" >/dev/null 2>&1 || true
token=$(build/bin/berthd --config "$config" token create --email "$email" --name "start-$(date +%s)")
link=$(build/bin/berthd --config "$config" account login-link --email "$email")
listen=$(grep -m1 -E '^\s*listen:' "$config" | grep -oE '[0-9.]+:[0-9]+' || true)
listen=${listen:-127.0.0.1:8080}
cat <<MSG

berthd is running on http://$listen (pid $(cat "$pidfile"), log var/berthd.log; stop: scripts/stop.sh)
Account: $email
Token:   $token
Sign in: $link  (console; works once, for 15 minutes)

Try:
  curl -s http://$listen/regions
  curl -s -H "Authorization: Bearer $token" http://$listen/projects
MSG
