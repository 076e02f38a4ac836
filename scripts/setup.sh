#!/usr/bin/env bash
# Sets up everything ogai needs on a fresh Debian 12 machine and builds it. Idempotent: a second
# run installs and downloads nothing and only rebuilds what changed.
#   scripts/setup.sh [--runtime] [--debug] [--sanitize] [--build-dir DIR]
# --runtime (scripts/run.sh): only the Debian packages the runtime needs, and only the `ogai`
#   executable with the libraries it links. A build folder this creates is configured without tests
#   and benchmarks and as a unity build (OGAI_UNITY_BUILD: about half the compile time; a source
#   that does not compile in its batch is moved out of it, cmake/Unity.cmake); one that exists
#   already keeps its configuration. A later full set-up (no --runtime: scripts/test.sh) turns tests
#   and benchmarks on in the same folder, keeps the unity setting and reuses every object built.
# Prints one progress line per phase on stderr: "[m:ss] phase: ...", the time since the start.
# Environment: ONNXRUNTIME_ROOT (use an official ORT release instead of the pinned download),
#              OGAI_BUILD_DIR (default: build), OGAI_JOBS (default: nproc).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build_type=Release sanitize=OFF build_dir="${OGAI_BUILD_DIR:-$here/build}" runtime=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) runtime=1 ;;
    --debug) build_type=Debug ;;
    --sanitize) sanitize=ON; build_type=Debug ;;
    --build-dir) build_dir=$2; shift ;;
    *) echo "setup.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
. "$here/scripts/progress.sh"

progress deps "checking Debian packages"
if [ "$runtime" = 1 ]; then "$here/scripts/install_deps.sh" --runtime; else "$here/scripts/install_deps.sh"; fi
progress "ONNX Runtime" "the pinned CPU library and headers"
ort_root=$("$here/scripts/fetch_onnxruntime.sh")

cache="$build_dir/CMakeCache.txt"
options=(-DCMAKE_BUILD_TYPE="$build_type" -DOGAI_SANITIZE="$sanitize" -DONNXRUNTIME_ROOT="$ort_root")
if [ "$runtime" = 1 ]; then
  [ -f "$cache" ] || options+=(-DOGAI_BUILD_TESTS=OFF -DOGAI_BUILD_BENCH=OFF -DOGAI_UNITY_BUILD=ON)
else
  options+=(-DOGAI_BUILD_TESTS=ON -DOGAI_BUILD_BENCH=ON)
fi
configured=1
[ -f "$cache" ] || configured=0
for option in "${options[@]}"; do  # -DNAME=VALUE must already read NAME:TYPE=VALUE in the cache
  name=${option#-D}; name=${name%%=*}
  [ "$configured" = 1 ] && [ "$(sed -n "s/^$name:[A-Z]*=//p" "$cache")" = "${option#*=}" ] || configured=0
done
if [ "$configured" = 0 ]; then
  progress configure "$build_dir"
  cmake -S "$here" -B "$build_dir" "${options[@]}" >/dev/null
fi
targets=()
[ "$runtime" = 1 ] && targets=(--target ogai)
unity=$(sed -n 's/^OGAI_UNITY_BUILD:[A-Z]*=//p' "$cache")
build() {  # build [LOG]: the build, its compiler messages on stderr or into LOG
  cmake --build "$build_dir" -j "${OGAI_JOBS:-$(nproc)}" "${targets[@]}" 2>&1 | build_progress "${1:-}"
}
progress build "${targets[*]:-all} in $build_dir, ${OGAI_JOBS:-$(nproc)} jobs${unity:+, unity $unity}"
if [ "$unity" = ON ] && [ "$runtime" = 1 ]; then
  # A unity batch that does not compile (two files' helpers clash): the file the first error names
  # leaves the batches (OGAI_UNITY_ALONE) and the build goes on; after 5 rounds, file by file.
  log="$build_dir/unity-build.log"
  for round in 1 2 3 4 5; do
    rm -f "$log"
    build "$log" && exit 0
    file=$(sed -n "s#^$here/\(src/[^:]*\.cc\):[0-9]*:[0-9]*: error: .*#\1#p" "$log" | head -1)
    alone=$(sed -n 's/^OGAI_UNITY_ALONE:[A-Z]*=//p' "$cache")
    if ! grep -q ': error: ' "$log"; then  # not a compile error (make killed, disk full, ...)
      cat "$log" >&2; exit 1
    fi
    [ -n "$file" ] && [[ ";$alone;" != *";$file;"* ]] || break
    progress build "$file does not compile in its unity batch ($log): compiling it on its own"
    cmake -B "$build_dir" "-DOGAI_UNITY_ALONE=${alone:+$alone;}$file" >/dev/null
  done
  progress build "the unity build failed ($log); building file by file"
  cmake -B "$build_dir" -DOGAI_UNITY_BUILD=OFF >/dev/null
fi
build
