#!/usr/bin/env bash
# Copies the console's two libraries, Preact and htm, from the npm registry into console/vendor/
# as plain ES modules, and records their versions and sha512 checksums in console/vendor/VERSIONS.
# Run by hand when a version changes (edit the two below), then commit console/vendor/. The build
# never runs it: berthd builds without Node or the network.
#
# The file names carry the version, so the edge may let browsers keep them for a year; the one
# module that imports them (console/src/ui.js) and index.html are rewritten to the new names.
set -euo pipefail

PREACT=10.29.8
HTM=3.1.1

root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/console/vendor"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
# npm pack fetches the published tarball and checks it against the registry's integrity.
npm pack --silent "preact@$PREACT" "htm@$HTM" --json >pack.json
for tgz in "preact-$PREACT.tgz" "htm-$HTM.tgz"; do
  mkdir -p "${tgz%.tgz}"
  tar xzf "$tgz" -C "${tgz%.tgz}"
done

rm -rf "$vendor"
mkdir -p "$vendor"
cp "preact-$PREACT/package/dist/preact.module.js" "$vendor/preact-$PREACT.js"
# hooks imports "preact" by its bare name, which a browser cannot resolve without an import map
# (an inline script, which the console's CSP forbids): point it at the vendored file.
sed "s#from\"preact\"#from\"./preact-$PREACT.js\"#; s#from \"preact\"#from \"./preact-$PREACT.js\"#" \
  "preact-$PREACT/package/hooks/dist/hooks.module.js" >"$vendor/preact-hooks-$PREACT.js"
if grep -q '"preact"' "$vendor/preact-hooks-$PREACT.js"; then
  echo "vendor-console: preact/hooks still imports \"preact\"; adjust the rewrite" >&2
  exit 1
fi
cp "htm-$HTM/package/dist/htm.module.js" "$vendor/htm-$HTM.js"
cp "preact-$PREACT/package/LICENSE" "$vendor/LICENSE.preact"
cp "htm-$HTM/package/LICENSE" "$vendor/LICENSE.htm"
# Source map comments would make the browser ask for files that are not there.
sed -i '/^\/\/# sourceMappingURL=/d' "$vendor"/*.js

{
  echo "# Written by scripts/vendor-console.sh; do not edit by hand."
  echo "# package version tarball-integrity"
  node -e '
    for (const p of JSON.parse(require("fs").readFileSync("pack.json", "utf8")))
      console.log(`${p.name} ${p.version} ${p.integrity}`);'
  echo "# file sha512 (base64)"
  for f in "$vendor"/*.js; do
    echo "$(basename "$f") sha512-$(openssl dgst -sha512 -binary "$f" | base64 -w0)"
  done
} >"$vendor/VERSIONS"

# The one importer of the vendored modules, and the page that preloads them, follow the new names.
for ui in "$root/console/src/ui.js" "$root/console/index.html"; do
  [ -f "$ui" ] || continue
  sed -i -E "s#vendor/preact-[0-9.]+\.js#vendor/preact-$PREACT.js#; \
             s#vendor/preact-hooks-[0-9.]+\.js#vendor/preact-hooks-$PREACT.js#; \
             s#vendor/htm-[0-9.]+\.js#vendor/htm-$HTM.js#" "$ui"
done
cat "$vendor/VERSIONS"
