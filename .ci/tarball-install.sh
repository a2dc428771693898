#!/usr/bin/env bash
# CI: the root `forklab` tarball (npm pack, @forklab/spawn bundled) installed on its own into a new project, as a
# registry user would, on every Node found (the machine's, and node-<v>/bin/node under RUNTIMES), with a PATH that
# holds Node and basic tools but no C compiler, make or python3: the prebuilt probe and addon must serve, nothing
# may stop the install, and a short measurement must run. Prints one line per Node with the install's time.
# Usage: .ci/tarball-install.sh [RUNTIMES_DIR]     (needs npm; about 1 minute to pack, then ~20-40 s per Node)
set -euo pipefail
cd "$(dirname "$0")/.."
runtimes=${1:-${FORKLAB_TEST_RUNTIMES:-}}
npm_cli=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/bin/npm-cli.js
[ -f "$npm_cli" ] || { echo "ci: npm-cli.js not found beside $(command -v npm)" >&2; exit 1; }
# npm run by another Node reads no global npmrc of this one: what this npm trusts is passed on (a TLS proxy's CA).
cafile=$(npm config get cafile 2>/dev/null || true)
ca_env=()
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then ca_env=(npm_config_cafile="$cafile" NODE_EXTRA_CA_CERTS="$cafile"); fi
work=$(mktemp -d "${TMPDIR:-/tmp}/forklab-tarball.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A PATH without compilers: only these tools, each linked into one directory.
mkdir -p "$work/tools"
for t in sh bash env ls cat rm mkdir cp mv tar gzip uname sed grep id chmod ln dirname basename readlink head tail tr sort mktemp touch true false expr printf test which; do
  p=$(command -v "$t" || true)
  [ -n "$p" ] && ln -s "$p" "$work/tools/$t"
done
for t in gcc cc make python3; do
  if PATH="$work/tools" command -v "$t" >/dev/null 2>&1; then echo "ci: $t is on the compiler-free PATH" >&2; exit 1; fi
done

started=$(date +%s)
# npm pack runs the package's prepare script (npm run build: three tsc runs) unless told not to: a build that holds
# the current sources (npm ci made it; node scripts/built.mjs checks that every source is older than its output) is
# packed as it is, and a stale one is built by prepare as before.
pack_flags=()
node scripts/built.mjs && pack_flags=(--ignore-scripts)
npm pack --silent "${pack_flags[@]}" --pack-destination "$work" >/dev/null
tgz=$(ls "$work"/forklab-*.tgz)
echo "ci: packed $(basename "$tgz") ($(du -k "$tgz" | cut -f1) KiB) in $(($(date +%s) - started)) s${pack_flags[*]:+ (the current build, as it is: prepare not run)}"

nodes=("$(command -v node)")
if [ -n "$runtimes" ]; then
  for d in "$runtimes"/node-*/bin/node; do [ -x "$d" ] && nodes+=("$d"); done
fi
failed=0
for node in "${nodes[@]}"; do
  v=$("$node" -p process.version)
  proj="$work/project-$v"
  mkdir -p "$proj" "$work/home-$v" "$work/node-$v"
  ln -s "$node" "$work/node-$v/node" # only node from its directory (/usr/bin would bring gcc)
  echo '{ "name": "consumer", "private": true }' >"$proj/package.json"
  run() { (cd "$proj" && env "${ca_env[@]}" HOME="$work/home-$v" PATH="$work/node-$v:$work/tools" npm_config_cache="$work/npm-cache" npm_config_update_notifier=false "$@"); }
  t0=$(date +%s)
  if ! run "$node" "$npm_cli" install --no-audit --no-fund --loglevel=error "$tgz" >"$work/install-$v.log" 2>&1; then
    echo "ci: Node $v: npm install of the tarball FAILED" >&2
    cat "$work/install-$v.log" >&2
    failed=1
    continue
  fi
  t1=$(date +%s)
  fl="$proj/node_modules/.bin/forklab"
  doctor=$(run "$fl" doctor --json)
  origin=$(printf '%s' "$doctor" | "$node" -e 'const d=JSON.parse(require("fs").readFileSync(0,"utf8")); console.log(d.checks.find((c)=>c.id==="probe").found)')
  # @forklab/spawn, bundled in forklab's tarball, imported through forklab's subpath forklab/spawn (lib/spawn.js re-exports it).
  served=$(run "$node" --input-type=module -e "import { run, unavailableReason } from 'forklab/spawn'; const r = await run('sh', ['-c', 'echo served']); console.log(unavailableReason() ?? 'addon loaded', r.stdout.trim())")
  store=--no-store
  "$node" -e 'process.exit(process.getBuiltinModule?.("node:sqlite") ? 0 : 1)' 2>/dev/null && store=
  if ! run "$fl" spawn --methods posix-spawn --rss 0 --thp on --iterations 5 --warmup 1 --repeats 1 $store >"$work/spawn-$v.log" 2>&1; then
    echo "ci: Node $v: forklab spawn after the install FAILED" >&2
    cat "$work/spawn-$v.log" >&2
    failed=1
  fi
  [[ $origin == prebuilt* ]] || { echo "ci: Node $v: the probe is not the prebuilt one: $origin" >&2; failed=1; }
  [[ $served == "addon loaded served" ]] || { echo "ci: Node $v: @forklab/spawn: $served" >&2; failed=1; }
  echo "ci: Node $v: tarball installed without a compiler in $((t1 - t0)) s; probe: $origin; @forklab/spawn: $served; spawn ran${store:+ (--no-store: no node:sqlite, no better-sqlite3)}"
done
exit $failed
