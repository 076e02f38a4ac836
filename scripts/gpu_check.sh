#!/usr/bin/env bash
# The prepared GPU check (docs/gpu.md): sets up a CUDA-enabled ONNX Runtime, says what is missing
# when its CUDA provider cannot load, builds the e2b-bench package in float16, and runs bench/gpu_bench
# (ogai's engine vs a bare IoBinding loop, tokens/s and their ratio at batch 1, 8 and 32).
#
#   scripts/gpu_check.sh [--ep cuda|cpu] [--build DIR] [--no-build] [--package DIR]
#                        [--batches LIST] [--tokens N] [--runs N]
#
# --ep cpu is the dry run this machine can do: the CPU library the build uses, the committed
# tiny-e2b-fp16 fixture instead of e2b-bench, batches 1,2, 4 tokens, 1 run (every step of the
# script except the CUDA set-up). --no-build skips building gpu_bench (ctest runs it that way).
# CUDA: ONNXRUNTIME_ROOT (an official onnxruntime-linux-x64-gpu release: include/ + lib/) is used
# when set; otherwise the npm tarball ../shared/onnxruntime.md names is fetched (sha256-checked)
# into ~/.cache/ogai/onnxruntime-gpu-0.4.9 (a machine without network needs it there already, or
# ONNXRUNTIME_ROOT). ogai is built against the CPU headers as usual and run with the GPU library
# first on LD_LIBRARY_PATH (the C API is the same; the build's RUNPATH yields to it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ep=cuda build="$here/build" do_build=1 package="" batches="" tokens="" runs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ep) ep=$2; shift ;;
    --build) build=$2; shift ;;
    --no-build) do_build=0 ;;
    --package) package=$2; shift ;;
    --batches) batches=$2; shift ;;
    --tokens) tokens=$2; shift ;;
    --runs) runs=$2; shift ;;
    *) echo "gpu_check: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
case "$ep" in cpu|cuda) ;; *) echo "gpu_check: --ep must be cpu or cuda, not '$ep'" >&2; exit 2 ;; esac
say() { echo "gpu_check: $*"; }

# 1. A CUDA-enabled ONNX Runtime, and why its provider would not load.
gpu_lib=""
fetch_gpu_runtime() {
  local pkg="com.github.asus4.onnxruntime.linux-x64-gpu@0.4.9"
  local sha="2b459e0c17f340c92970c10ed86de4f37a3009f93c14053e6ad4334cbb6be412"
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/ogai" dir
  dir="$cache/onnxruntime-gpu-0.4.9"
  if [ ! -f "$dir/.complete" ]; then
    local tgz="$cache/downloads/com.github.asus4.onnxruntime.linux-x64-gpu-0.4.9.tgz"
    mkdir -p "$cache/downloads"
    if [ ! -f "$tgz" ] || ! echo "$sha  $tgz" | sha256sum -c --status; then
      say "downloading $pkg (npm pack) ..." >&2
      (cd "$cache/downloads" && npm pack --silent "$pkg" >/dev/null) || {
        say "cannot download $pkg (no network?): set ONNXRUNTIME_ROOT to an onnxruntime-linux-x64-gpu release" >&2
        return 1; }
    fi
    echo "$sha  $tgz" | sha256sum -c --status || { say "sha256 mismatch for $tgz" >&2; return 1; }
    rm -rf "$dir"; mkdir -p "$dir/lib"
    tar -xzf "$tgz" -C "$dir" package/Plugins/Linux/x64
    mv "$dir"/package/Plugins/Linux/x64/* "$dir/lib/" && rm -rf "$dir/package"
    touch "$dir/.complete"
  fi
  echo "$dir/lib"
}
diagnose_cuda() {  # diagnose_cuda LIBDIR: prints what the CUDA provider lacks; non-zero if unusable
  local lib=$1 ok=0
  for f in libonnxruntime.so libonnxruntime_providers_shared.so libonnxruntime_providers_cuda.so; do
    ls "$lib"/$f* >/dev/null 2>&1 || { say "MISSING: $lib/$f"; ok=1; }
  done
  [ $ok -eq 0 ] || return 1
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
    || say "nvidia-smi not found: no NVIDIA driver visible"
  local missing
  missing=$(LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ldd "$lib/libonnxruntime_providers_cuda.so" | grep "not found" || true)
  if [ -n "$missing" ]; then
    say "the CUDA provider cannot load; missing libraries (CUDA 12 runtime/cuBLAS/cuFFT/cuRAND and cuDNN 9 for this build):"
    echo "$missing" | sed 's/^/    /'
    return 1
  fi
  say "CUDA provider libraries resolve: $(LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" ldd "$lib/libonnxruntime_providers_cuda.so" \
      | grep -oE 'lib(cudart|cublas|cudnn)\.so[.0-9]*' | sort -u | tr '\n' ' ')"
}
if [ "$ep" = cuda ]; then
  if [ -n "${ONNXRUNTIME_ROOT:-}" ]; then gpu_lib="$ONNXRUNTIME_ROOT/lib"; else gpu_lib=$(fetch_gpu_runtime); fi
  say "GPU ONNX Runtime: $gpu_lib"
  diagnose_cuda "$gpu_lib" || { say "FAILED: fix the above (docs/gpu.md), then rerun"; exit 1; }
fi

# 2. gpu_bench and the package.
if [ $do_build -eq 1 ]; then
  [ -f "$build/CMakeCache.txt" ] || { say "no build in $build: run scripts/setup.sh first"; exit 1; }
  cmake --build "$build" -j "${OGAI_JOBS:-$(nproc)}" --target gpu_bench >/dev/null
fi
bench="$build/bench/gpu_bench"
[ -x "$bench" ] || { say "$bench is not built"; exit 1; }
if [ -z "$package" ]; then
  if [ "$ep" = cpu ]; then
    package="$here/tests/data/packages/tiny-e2b-fp16"
  else
    package="$build/packages-fp16/e2b-bench"
    if [ ! -f "$package/model.onnx" ]; then
      say "generating e2b-bench in float16 into $build/packages-fp16 ..."
      /usr/bin/python3 "$here/tools/fixtures/generate.py" --bench "$build/packages-fp16" --bench-dtype float16
    fi
  fi
fi
if [ "$ep" = cpu ]; then : "${batches:=1,2}" "${tokens:=4}" "${runs:=1}"; else : "${batches:=1,8,32}" "${tokens:=64}" "${runs:=3}"; fi

# 3. ogai's engine vs the bare IoBinding loop.
say "running $bench --ep $ep on $package"
if [ "$ep" = cuda ]; then export LD_LIBRARY_PATH="$gpu_lib:${LD_LIBRARY_PATH:-}"; fi
set +e
out=$("$bench" --package "$package" --ep "$ep" --batches "$batches" --tokens "$tokens" --runs "$runs" 2>&1)
rc=$?
set -e
echo "$out"
if [ $rc -ne 0 ]; then
  say "FAILED (exit $rc)"
  echo "$out" | grep -qiE "cudnn|libcu|CUDA" && say "the error names CUDA: compare with the ldd output above and docs/gpu.md"
  exit $rc
fi
if echo "$out" | grep -q "DIFFER"; then
  [ "$ep" = cpu ] && { say "FAILED: ogai's ids differ from the bare loop's"; exit 1; }
  say "NOTE: ids differ from the bare loop's (float16 kernels over different buffer layouts may round differently)"
fi
say "OK"
