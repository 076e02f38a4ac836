#!/usr/bin/env bash
# Runs the decode benchmark (bench/decode.cjs: ogai vs. a bare ONNX Runtime loop vs. transformers.js
# on stories260k) after building its C++ side.
#   bench/decode.sh [BUILD_DIR] [--steps N] [--rounds N] [--runs N]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$(cd "$1" && pwd); shift; fi
cmake --build "$build" -j2 --target decode_bench >/dev/null
OGAI_PEERS_NODE_MODULES=$("$here/scripts/install_peers.sh")
export OGAI_PEERS_NODE_MODULES
exec node "$here/bench/decode.cjs" "$build/bench/decode_bench" "$build/packages/stories260k" "$build/bench" "$@"
