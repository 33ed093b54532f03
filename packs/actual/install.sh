#!/usr/bin/env bash
# Installs Actual Budget into packs/actual/node_modules from the npm registry (the pack's own
# package-lock.json; the root lockfile is untouched) and builds better-sqlite3, the one
# native module without a prebuilt binary in its npm package (its prebuilds are downloaded
# from GitHub, which this machine cannot reach): node-gyp against the local node's headers
# (/usr/include/node, from the nodejs package) when they are there. argon2 and bcrypt ship
# prebuilt binaries in their npm packages. Idempotent and quiet: exits at once when installed.
set -uo pipefail
cd "$(dirname "$0")"
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
server=node_modules/@actual-app/sync-server/build/bin/actual-server.js
if [ -f "$addon" ] && [ -f "$server" ]; then exit 0; fi
command -v node >/dev/null && command -v npm >/dev/null || { echo "packs/actual: needs node and npm" >&2; exit 1; }
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null || { echo "packs/actual: npm ci failed" >&2; exit 1; }
gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$gyp" ] || { echo "packs/actual: node-gyp not found at $gyp" >&2; exit 1; }
nodedir=()
[ -f /usr/include/node/node.h ] && nodedir=(--nodedir=/usr)
(cd node_modules/better-sqlite3 && node "$gyp" rebuild --release "${nodedir[@]}" -j 2 >/dev/null 2>&1) \
  || { echo "packs/actual: building better-sqlite3 failed (needs make, g++, python3 and node's headers)" >&2; exit 1; }
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()" \
  || { echo "packs/actual: better-sqlite3 does not load" >&2; exit 1; }
