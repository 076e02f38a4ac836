#!/usr/bin/env bash
# Installs the npm peers of tests/peers/package.json into a cache outside the clone, keyed by the
# hash of package.json, and prints the node_modules folder. A second run downloads nothing.
# --ignore-scripts: onnxruntime-node's install script would try an unreachable host; the Linux
# x64 CPU library it needs is inside the tarball (../shared/peers.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
spec="$here/tests/peers/package.json"
key=$(sha256sum "$spec" | cut -c1-16)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/ogai/peers-$key"
if [ ! -f "$dir/.complete" ]; then
  echo "installing npm peers into $dir ..." >&2
  rm -rf "$dir"; mkdir -p "$dir"
  cp "$spec" "$dir/package.json"
  (cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  touch "$dir/.complete"
fi
echo "$dir/node_modules"
