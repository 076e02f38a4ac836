#!/usr/bin/env bash
# Runs a Node.js test script with the npm peers available (see peers.cjs). Used by ctest.
#   tests/peers/run_node.sh SCRIPT [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${OGAI_PEERS_NODE_MODULES:-}" ]; then
  OGAI_PEERS_NODE_MODULES=$("$here/scripts/install_peers.sh")
  export OGAI_PEERS_NODE_MODULES
fi
exec node "$@"
