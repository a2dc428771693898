#!/usr/bin/env bash
# What a container's seccomp filter does to process and thread creation, measured with forklab itself:
# `forklab fleet run --preset quick` (reproduce --quick) four ways, each as its own "machine" of a fleet report:
#   host          outside any container (this machine's own seccomp state)
#   podman        the image under podman's default profile (clone3 allowed)
#   enosys        the same profile with clone3 answered ENOSYS, as Docker's and containerd's defaults do
#                 without CAP_SYS_ADMIN (glibc then falls back to clone for posix_spawn and threads)
#   unconfined    the image with --security-opt seccomp=unconfined
# then strace in the enosys container shows the fallback, and fleet collect + fleet report compare them.
# Usage: scripts/image/measure-seccomp.sh OUT_DIR   (env: IMAGE, ORDER="host podman enosys unconfined")
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: measure-seccomp.sh OUT_DIR}
IMAGE=${IMAGE:-localhost/forklab:latest}
ORDER=${ORDER:-host podman enosys unconfined}
HOST_FORKLAB=${HOST_FORKLAB:-node $ROOT/bin/forklab.js}
# The host measurement should run the image's own forklab (same code, same probe): HOST_MEASURE=the command.
HOST_MEASURE=${HOST_MEASURE:-$HOST_FORKLAB}
PROFILE_SRC=${PROFILE_SRC:-/usr/share/containers/seccomp.json}
mkdir -p "$OUT/logs"
chmod 0777 "$OUT"

cat >"$OUT/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$OUT/containers.conf"

# podman's default profile less clone3 in its allow list: the default action answers it ENOSYS (errno 38).
node -e '
  const p = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  if (p.defaultAction !== "SCMP_ACT_ERRNO" || p.defaultErrnoRet !== 38) throw new Error("the profile does not answer unknown calls ENOSYS");
  for (const s of p.syscalls) s.names = s.names.filter((n) => n !== "clone3");
  p.syscalls = p.syscalls.filter((s) => s.names.length > 0);
  p.syscalls.push({ names: ["clone3"], action: "SCMP_ACT_ERRNO", errnoRet: 38 });
  require("fs").writeFileSync(process.argv[2], JSON.stringify(p, null, 1));
' "$PROFILE_SRC" "$OUT/seccomp-clone3-enosys.json"

run() {
  local name=$1
  echo "== $name ($(date +%T))"
  case $name in
    host) NODE_NAME=host $HOST_MEASURE fleet run --preset quick >"$OUT/logs/$name.log" 2>"$OUT/logs/$name.err" ;;
    podman) podman run --rm -e NODE_NAME=podman "$IMAGE" fleet run --preset quick >"$OUT/logs/$name.log" 2>"$OUT/logs/$name.err" ;;
    enosys) podman run --rm -e NODE_NAME=enosys --security-opt "seccomp=$OUT/seccomp-clone3-enosys.json" "$IMAGE" fleet run --preset quick >"$OUT/logs/$name.log" 2>"$OUT/logs/$name.err" ;;
    unconfined) podman run --rm -e NODE_NAME=unconfined --security-opt seccomp=unconfined "$IMAGE" fleet run --preset quick >"$OUT/logs/$name.log" 2>"$OUT/logs/$name.err" ;;
    *) echo "unknown configuration $name" >&2; exit 2 ;;
  esac
  tail -n 1 "$OUT/logs/$name.log"
}
for name in $ORDER; do run "$name"; done

echo "== the clone3 fallback under each profile (strace of node's spawnSync and a worker thread)"
probe='const { spawnSync } = require("child_process"); spawnSync("/bin/true"); new (require("worker_threads").Worker)("", { eval: true }).on("exit", () => {});'
for opt in "" "--security-opt seccomp=$OUT/seccomp-clone3-enosys.json" "--security-opt seccomp=unconfined"; do
  # shellcheck disable=SC2086
  podman run --rm $opt --entrypoint /usr/bin/strace "$IMAGE" -f -qq -e trace=clone,clone3,vfork /usr/local/bin/node -e "$probe" 2>&1 |
    sed -E 's/^\[pid +[0-9]+\] //' | awk -v o="${opt:-podman default}" '{ k = $1; sub(/\(.*/, "", k); r = ($0 ~ /ENOSYS/) ? "ENOSYS" : "ok"; n[k " " r]++ } END { for (x in n) printf "%s: %s %d\n", o, x, n[x] }' | sort
done | tee "$OUT/clone3.txt"

echo "== collect and report"
$HOST_FORKLAB fleet collect --dir "$OUT/logs" --out "$OUT/fleet" --no-import || true
$HOST_FORKLAB fleet report "$OUT/fleet" --reference host --markdown "$OUT/report.md" --html "$OUT/report.html" --json "$OUT/fleet.json"
echo "measure-seccomp: $OUT/report.md"
