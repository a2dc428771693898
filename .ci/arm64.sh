#!/usr/bin/env bash
# CI, inside `unshare -Urm` (a user and mount namespace of its own): arm64 under qemu-user, for behaviour only.
# qemu-aarch64 is registered in this namespace's own binfmt_misc (Linux 6.7 or later; the machine's registrations
# are never touched), so the arm64 children of an emulated arm64 Node (the probe, the targets, node itself) run
# too; x86-64 children (sh) run natively. Then: forklab picks the arm64 prebuilt set, the probe and targets run
# and measure (and the run says that its timings are meaningless under emulation), and @forklab/spawn's
# behaviour tests run on the arm64 Node with the arm64 prebuilt addon.
# Usage: unshare -Urm bash .ci/arm64.sh ARM64_NODE
set -euo pipefail
cd "$(dirname "$0")/.."
node_arm64=${1:?usage: .ci/arm64.sh ARM64_NODE}
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
# The interpreter: qemu-aarch64 with the arm64 libraries' prefix given on its command line, since a child may get
# an empty environment (forklab exec starts its targets so) and would lose QEMU_LD_PREFIX.
work=$(mktemp -d "${TMPDIR:-/tmp}/forklab-arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nexec /usr/bin/qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"\n' >"$work/qemu-aarch64"
chmod 0755 "$work/qemu-aarch64"
# The escapes are binfmt_misc's to decode: written as text (printf %s), never as bytes (a NUL would end the line).
printf '%s' ':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:'"$work/qemu-aarch64:F" >/proc/sys/fs/binfmt_misc/register
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
arch=$("$node_arm64" -p process.arch) || { echo "ci: $node_arm64 does not start under qemu-user (above: what it lacks; the arm64 libraries come from libc6-arm64-cross and libstdc++6-arm64-cross)" >&2; exit 1; }
[ "$arch" = arm64 ] || { echo "ci: $node_arm64 is not an arm64 node (process.arch is $arch)" >&2; exit 1; }
t0=$(date +%s)

# 1. The arm64 set is the one forklab picks on arm64 (a root holding only the prebuilt sets: no build/Release).
root="$work/root"
mkdir "$root"
ln -s "$PWD/prebuilds" "$root/prebuilds"
picked=$("$node_arm64" --input-type=module -e "const m = await import('$PWD/dist/runner/paths.js'); console.log(m.describeOrigin(m.locateNative('$root').origin))")
echo "ci: arm64: forklab picks the probe: $picked"
[[ $picked == "prebuilt linux-arm64, build id linux-arm64-"* ]] || { echo "ci: arm64: not the arm64 prebuilt set" >&2; exit 1; }

# 2. forklab itself on the arm64 Node, measuring with the arm64 probe and targets (a functional check).
out=$(FORKLAB_NATIVE_DIR="$PWD/prebuilds/linux-arm64" "$node_arm64" bin/forklab.js spawn --methods fork-exec,vfork-exec,posix-spawn --rss 0 --thp on --iterations 5 --warmup 1 --repeats 1 --no-store --no-color 2>&1) || { echo "$out" >&2; exit 1; }
grep -q 'forklab runs under CPU emulation (arm64 process on an x86 CPU' <<<"$out" || { echo "$out" >&2; echo "ci: arm64: the run did not say it was emulated" >&2; exit 1; }
out=$(FORKLAB_NATIVE_DIR="$PWD/prebuilds/linux-arm64" "$node_arm64" bin/forklab.js exec --iterations 5 --warmup 1 --repeats 1 --no-store --no-color 2>&1) || { echo "$out" >&2; exit 1; }
echo "ci: arm64: forklab spawn and exec ran on the arm64 probe and targets under qemu-user, and said their timings mean nothing ($(($(date +%s) - t0)) s)"

# 3. @forklab/spawn's behaviour tests on the arm64 Node (tsx's esbuild: the x86-64 binary, a native child).
# Under qemu-user glibc's posix_spawn runs as a plain fork, whose child cannot report an exec failure: the addon's
# load-time probe finds that and refuses (child_process serves; prebuilds.test.ts checks it), so the tests run
# with FORKLAB_SPAWN_SILENT_EXEC_FAILURES=serve, which serves all the same, to test the rest of the addon. Skipped,
# each for its reason: the exec failures themselves (ENOENT, ENOEXEC, ENOTDIR become exit 127: three tests), and
# detached, where qemu-user's children do not get the session and group child_process's own get.
t1=$(date +%s)
ESBUILD_BINARY_PATH="$PWD/node_modules/@esbuild/linux-x64/bin/esbuild" \
  FORKLAB_SPAWN_ADDON="$PWD/packages/spawn/prebuilds/linux-arm64-glibc/forklab_spawn.node" \
  FORKLAB_SPAWN_SILENT_EXEC_FAILURES=serve \
  FORKLAB_TEST_ARM64_NODE="$node_arm64" \
  "$node_arm64" --import tsx --test --test-concurrency=1 --test-reporter=./scripts/test-reporter.mjs \
  --test-skip-pattern='a script without #!' --test-skip-pattern='failures to start' --test-skip-pattern='errors thrown at the call' \
  --test-skip-pattern='^detached' \
  packages/spawn/test/behaviour.test.ts packages/spawn/test/prebuilds.test.ts
echo "ci: arm64: @forklab/spawn's behaviour tests on arm64 Node $("$node_arm64" -p process.version) under qemu-user: $(($(date +%s) - t1)) s"
