#!/usr/bin/env bash
# Builds ogai's libFuzzer targets with clang + ASan + UBSan in build-fuzz/ and runs each one.
#   scripts/fuzz.sh [--seconds N | --minutes N] [TARGET...]
# Default: 5 seconds per target (the short run scripts/test.sh does); --minutes N is the long,
# opt-in run. Targets: tokenizer_fuzz (tokenizer.json load, encode, decode, streaming),
# jinja_fuzz (template parse and render), chat_json_fuzz (bounded chat JSON, its rendering and
# tokenizer_config.json), metadata_fuzz (YAML/JSON metadata, document rules, decoder ABI),
# request_json_fuzz (chat, completions, Responses and Messages request bodies), multipart_fuzz
# (the audio routes' multipart/form-data bodies), http_fuzz (raw bytes on a connection
# to the HTTP transport), image_decode_fuzz (image files through the codecs, EXIF and resize),
# reply_fuzz (a model reply through every built-in response template, as
# `ogai parse-reply` reads it), import_fuzz (genai_config.json and tokenizer.json as `ogai import`
# reads them), responses_store_fuzz (the Responses store's id lookup with any ids and owners,
# checked against a shadow of what was put). reply_fuzz, import_fuzz, request_json_fuzz (the
# Messages and Responses translators), multipart_fuzz and responses_store_fuzz take inputs up to
# 16 MB (-max_len) so shapes nested past the depth budgets and bodies near the size limit are
# reachable; the others 64 KB. The long opt-in run: `scripts/fuzz.sh --seconds 600` (or
# OGAI_LONG_TESTS=1 OGAI_FUZZ_SECONDS=600 ctest -R '^fuzz$').
# Seeds come from ../shared and tests/data (tests/fuzz/make_seeds.py); each target's corpus grows
# in build-fuzz/corpus/TARGET across runs. Prints one line per target (executions, crashes) and
# writes them to build-fuzz/fuzz_summary.txt; exits 1 when any target found a crash (its input is
# kept in build-fuzz/crashes/TARGET/).
# Environment: OGAI_FUZZ_BUILD_DIR (default build-fuzz), OGAI_SHARED_DIR (default ../shared),
#              OGAI_JOBS (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=5
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift ;;
    --minutes) seconds=$(( $2 * 60 )); shift ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=(tokenizer_fuzz jinja_fuzz chat_json_fuzz metadata_fuzz request_json_fuzz multipart_fuzz http_fuzz
                                     image_decode_fuzz reply_fuzz import_fuzz responses_store_fuzz)
shared="${OGAI_SHARED_DIR:-$here/../shared}"
build_dir="${OGAI_FUZZ_BUILD_DIR:-$here/build-fuzz}"
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is required (Debian: clang, libclang-rt-dev)" >&2; exit 1; }

"$here/scripts/install_deps.sh"
ort_root=$("$here/scripts/fetch_onnxruntime.sh")
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOGAI_FUZZ=ON \
    -DOGAI_BUILD_TESTS=OFF -DOGAI_BUILD_BENCH=OFF -DONNXRUNTIME_ROOT="$ort_root" -DOGAI_SHARED_DIR="$shared" >/dev/null
fi
cmake --build "$build_dir" --target "${targets[@]}" -j "${OGAI_JOBS:-2}" 2>&1 \
  | grep -vE '^\[ *[0-9]+%\] (Building|Linking|Built)' || true
test "${PIPESTATUS[0]}" -eq 0

seeds="$build_dir/seeds"
rm -rf "$seeds"
/usr/bin/python3 "$here/tests/fuzz/make_seeds.py" "$here" "$shared" "$seeds"
summary="$build_dir/fuzz_summary.txt"
: >"$summary"
failed=0
for t in "${targets[@]}"; do
  corpus="$build_dir/corpus/$t" crashes="$build_dir/crashes/$t" log="$build_dir/$t.log"
  mkdir -p "$corpus" "$crashes"
  rc=0
  case "$t" in reply_fuzz|import_fuzz|request_json_fuzz|multipart_fuzz|responses_store_fuzz) max_len=16777216 ;;
    *) max_len=65536 ;; esac
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
    "$build_dir/tests/fuzz/$t" "$corpus" "$seeds/$t" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" >"$log" 2>&1 || rc=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
  found=$(find "$crashes" -type f | wc -l)
  line="$t: ${seconds} s, ${runs} executions, corpus $(find "$corpus" -type f | wc -l) inputs, crashes: ${found}"
  echo "$line" | tee -a "$summary"
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    grep -E 'ERROR|SUMMARY|==[0-9]+==|Test unit written' "$log" | head -20 >&2 || true
  fi
done
exit "$failed"
