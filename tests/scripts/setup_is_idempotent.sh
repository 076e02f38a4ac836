#!/usr/bin/env bash
# A second run of the set-up scripts installs and downloads nothing: with npm, apt-get, curl and
# wget replaced by programs that fail, every script must still succeed from its caches.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
fake=$(mktemp -d); trap 'rm -rf "$fake"' EXIT
for tool in npm apt-get apt curl wget; do
  printf '#!/bin/sh\necho "unexpected download: %s $*" >&2\nexit 97\n' "$tool" > "$fake/$tool"
  chmod +x "$fake/$tool"
done
export PATH="$fake:$PATH"
start=$(date +%s)
"$src/scripts/install_deps.sh"
root=$("$src/scripts/fetch_onnxruntime.sh")
[ -f "$root/include/onnxruntime_cxx_api.h" ] && [ -e "$root/lib/libonnxruntime.so" ]
peers=$("$src/scripts/install_peers.sh")
[ -d "$peers/@huggingface/jinja" ]
echo "set-up scripts reused their caches in $(( $(date +%s) - start )) s"
