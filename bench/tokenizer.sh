#!/usr/bin/env bash
# Runs the tokenizer benchmark (bench/tokenizer.cjs) after building its C++ side.
#   bench/tokenizer.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
cmake --build "$build" -j2 --target tokenizer_bench >/dev/null
OGAI_PEERS_NODE_MODULES=$("$here/scripts/install_peers.sh")
export OGAI_PEERS_NODE_MODULES
exec node "$here/bench/tokenizer.cjs" "$build/bench/tokenizer_bench" \
  "$here/../shared/tokenizers/gpt2/tokenizer.json" "$build/bench/tokenizer"
