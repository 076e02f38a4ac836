#!/usr/bin/env bash
# Opt-in fuzzing of the metadata reader (OGAI_LONG_TESTS=1): builds the libFuzzer target with
# clang + ASan/UBSan in build-fuzz/ and runs it for OGAI_FUZZ_SECONDS (default 60) from a seed
# corpus of the conformance documents. Exits 77 (CTest: skipped) when not opted in.
#   tests/fuzz/run_metadata_fuzz.sh SOURCE_DIR SHARED_DIR
set -euo pipefail
source_dir=$1 shared_dir=$2
if [ "${OGAI_LONG_TESTS:-0}" != 1 ]; then
  echo "metadata fuzzing is opt-in: set OGAI_LONG_TESTS=1"
  exit 77
fi
command -v clang++ >/dev/null || { echo "clang++ is required for libFuzzer"; exit 1; }
build_dir="${OGAI_FUZZ_BUILD_DIR:-$source_dir/build-fuzz}"
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  CXX=clang++ cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOGAI_FUZZ=ON \
    -DOGAI_BUILD_TESTS=OFF -DOGAI_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build_dir" --target metadata_fuzz -j "${OGAI_JOBS:-2}" >/dev/null
corpus="$build_dir/fuzz_corpus"
mkdir -p "$corpus"
for f in "$shared_dir"/conformance/metadata/catalogue/*.yaml "$shared_dir"/conformance/metadata/fixtures/*/inference_metadata.yaml; do
  cp "$f" "$corpus/$(basename "$(dirname "$f")")_$(basename "$f")"
done
"$build_dir/tests/fuzz/metadata_fuzz" "$corpus" -max_total_time="${OGAI_FUZZ_SECONDS:-60}" -max_len=65536 \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
