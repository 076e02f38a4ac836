#!/usr/bin/env bash
# Sets up ogai (deps, ONNX Runtime, npm peers, build) and runs the whole test suite.
#   scripts/test.sh [--sanitize] [ctest args...]
# Long checks are opt-in: OGAI_LONG_TESTS=1 (fuzzing, larger benchmarks-as-tests). After the
# suite, every libFuzzer target runs for OGAI_FUZZ_SECONDS (default 5; 0 skips) through
# scripts/fuzz.sh (a clang + ASan/UBSan build in build-fuzz/).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
setup_args=()
if [ "${1:-}" = "--sanitize" ]; then
  setup_args+=(--sanitize); shift
  export OGAI_BUILD_DIR="${OGAI_BUILD_DIR:-$here/build-sanitize}"
  export LSAN_OPTIONS="suppressions=$here/tests/sanitizers/lsan.supp:print_suppressions=0"
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
fi
"$here/scripts/setup.sh" "${setup_args[@]}"
OGAI_PEERS_NODE_MODULES=$("$here/scripts/install_peers.sh")
export OGAI_PEERS_NODE_MODULES
build_dir="${OGAI_BUILD_DIR:-$here/build}"
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" "$@"
if [ "${OGAI_FUZZ_SECONDS:-5}" != 0 ]; then
  "$here/scripts/fuzz.sh" --seconds "${OGAI_FUZZ_SECONDS:-5}"
fi
