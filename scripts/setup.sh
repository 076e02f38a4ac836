#!/usr/bin/env bash
# Sets up everything ogai needs on a fresh Debian 12 machine and builds it. Idempotent: a second
# run installs and downloads nothing and only rebuilds what changed.
#   scripts/setup.sh [--debug] [--sanitize] [--build-dir DIR]
# Environment: ONNXRUNTIME_ROOT (use an official ORT release instead of the pinned download),
#              OGAI_BUILD_DIR (default: build), OGAI_JOBS (default: nproc).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_type=Release sanitize=OFF build_dir="${OGAI_BUILD_DIR:-$here/build}"
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) build_type=Debug ;;
    --sanitize) sanitize=ON; build_type=Debug ;;
    --build-dir) build_dir=$2; shift ;;
    *) echo "setup.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

"$here/scripts/install_deps.sh"
ort_root=$("$here/scripts/fetch_onnxruntime.sh")

if [ ! -f "$build_dir/CMakeCache.txt" ] || ! grep -q "CMAKE_BUILD_TYPE:STRING=$build_type" "$build_dir/CMakeCache.txt" \
   || ! grep -q "OGAI_SANITIZE:BOOL=$sanitize" "$build_dir/CMakeCache.txt"; then
  cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DOGAI_SANITIZE="$sanitize" \
        -DONNXRUNTIME_ROOT="$ort_root" >/dev/null
fi
cmake --build "$build_dir" -j "${OGAI_JOBS:-$(nproc)}" 2>&1 | grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)' || true
test "${PIPESTATUS[0]}" -eq 0
