#!/usr/bin/env bash
# CTest's opt-in `fuzz` test (OGAI_LONG_TESTS=1): every fuzz target for OGAI_FUZZ_SECONDS
# (default 60) through scripts/fuzz.sh. Exits 77 (CTest: skipped) when not opted in.
#   tests/fuzz/run_fuzz_test.sh SOURCE_DIR SHARED_DIR
set -euo pipefail
if [ "${OGAI_LONG_TESTS:-0}" != 1 ]; then
  echo "long fuzzing is opt-in: set OGAI_LONG_TESTS=1 (scripts/test.sh runs a 5 s pass per target)"
  exit 77
fi
OGAI_SHARED_DIR="$2" exec "$1/scripts/fuzz.sh" --seconds "${OGAI_FUZZ_SECONDS:-60}"
