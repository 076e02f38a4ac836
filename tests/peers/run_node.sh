#!/usr/bin/env bash
# Runs a Node.js test script with the npm peers available (see peers.cjs). Used by ctest.
#   tests/peers/run_node.sh SCRIPT [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${OGAI_PEERS_NODE_MODULES:-}" ]; then
  OGAI_PEERS_NODE_MODULES=$("$here/scripts/install_peers.sh")
  export OGAI_PEERS_NODE_MODULES
fi
# Tests that open many sockets (1,000 reconnecting clients) need more descriptors than a soft
# limit of 1024: raise it to the hard limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec node "$@"
