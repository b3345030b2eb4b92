#!/usr/bin/env bash
# Installs the Debian 12 packages Berth needs to build, run and test. Safe to run again: it asks
# apt only for what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libpistache-dev rapidjson-dev libpq-dev libboost-dev libyaml-cpp-dev libspdlog-dev
  nlohmann-json3-dev libssl-dev libcurl4-openssl-dev libarchive-dev libpg-query-dev
  libjemalloc-dev
  libgtest-dev libgmock-dev googletest
  postgresql-15 postgresql-client-15 nginx-light curl ca-certificates
  wrk dnsmasq-base python3 bubblewrap
  media-types
  python3-croniter
  mariadb-server zlib1g-dev
  php-cgi php-pgsql
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
# Installing a server package must not start the system's own services.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
