#!/usr/bin/env bash
# Installs the Debian 12 packages Berth needs to build, run and test. Safe to run again: it asks
# apt only for what is missing. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format clang libclang-rt-14-dev
  libpistache-dev rapidjson-dev libpq-dev libboost-dev libyaml-cpp-dev libspdlog-dev
  nlohmann-json3-dev libssl-dev libcurl4-openssl-dev libarchive-dev libpg-query-dev
  libjemalloc-dev libreadline-dev
  libgtest-dev libgmock-dev googletest
  postgresql-15 postgresql-client-15 nginx-light curl ca-certificates
  wrk dnsmasq-base python3 bubblewrap
  media-types
  python3-croniter
  mariadb-server zlib1g-dev
  php-cgi php-pgsql php-mbstring php-xml php-mysql phpunit
  wordpress wordpress-theme-twentytwentythree
  python3-jsonschema
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

install_packages() {
  echo "install-deps: installing $*"
  # Installing a server package must not start the system's own services.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$@"
}

# npm only installs the pinned tools below; they bring their own Node from the registry.
if ! command -v npm >/dev/null; then missing+=(nodejs npm); fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: every Debian package is installed"
else
  install_packages "${missing[@]}"
fi

# The API reference's tools (docs/package.json, pinned by its lockfile): installed again only
# when the lockfile changed.
root=$(cd "$(dirname "$0")/.." && pwd)
stamp="$root/docs/node_modules/.berth-lock"
if ! cmp -s "$root/docs/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: installing docs/package-lock.json"
  npm ci --prefix "$root/docs" --no-audit --no-fund --loglevel=error
  cp "$root/docs/package-lock.json" "$stamp"
fi

# The console's browser tests drive Debian's chromium through playwright-core
# (tests/browser/package.json, pinned by its lockfile), which must never fetch a browser itself.
stamp="$root/tests/browser/node_modules/.berth-lock"
if ! cmp -s "$root/tests/browser/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: installing tests/browser/package-lock.json"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$root/tests/browser" --no-audit --no-fund \
    --loglevel=error
  cp "$root/tests/browser/package-lock.json" "$stamp"
fi

# The storage plugin's S3 backend tests start s3rver, an S3-compatible server
# (tests/support/s3rver/package.json, pinned by its lockfile).
stamp="$root/tests/support/s3rver/node_modules/.berth-lock"
if ! cmp -s "$root/tests/support/s3rver/package-lock.json" "$stamp" 2>/dev/null; then
  echo "install-deps: installing tests/support/s3rver/package-lock.json"
  npm ci --prefix "$root/tests/support/s3rver" --no-audit --no-fund --loglevel=error
  cp "$root/tests/support/s3rver/package-lock.json" "$stamp"
fi
