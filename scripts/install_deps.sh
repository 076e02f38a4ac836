#!/usr/bin/env bash
# Installs the Debian packages ogai needs; skips those already present.
#   scripts/install_deps.sh            everything: the build, the tests, benchmarks, fuzzers, the
#                                      Python package and the fixture generator (scripts/test.sh)
#   scripts/install_deps.sh --runtime  only what building and running the `ogai` executable and
#                                      libogai needs (scripts/run.sh)
# Two lists: `pkgs` (build + run; a library the runtime links goes here) and `test_pkgs` (only the
# tests, benchmarks, fuzzers and the Python package need it). Node.js + npm are in both: npm
# fetches the pinned ONNX Runtime (scripts/fetch_onnxruntime.sh).
set -euo pipefail
runtime_only=0
case "${1:-}" in
  --runtime) runtime_only=1 ;;
  "") ;;
  *) echo "install_deps.sh: unknown option '$1' (expected --runtime or nothing)" >&2; exit 2 ;;
esac
pkgs=(build-essential cmake pkg-config git ca-certificates ccache
      libyaml-cpp-dev nlohmann-json3-dev libsimdjson-dev libfmt-dev
      libprotobuf-dev libonnx-dev
      libsndfile1-dev libvorbis-dev libsoxr-dev libkissfft-dev  # src/media/audio: decoding (WAV, FLAC, Ogg, MP3), resampling, FFT
      libpng-dev libjpeg62-turbo-dev libwebp-dev libgif-dev libexif-dev libstb-dev  # src/media/image codecs
      libcli11-dev libboost-dev libpcre2-dev libutf8proc-dev libicu-dev libedit-dev)
test_pkgs=(libgtest-dev libgmock-dev libbenchmark-dev protobuf-compiler
      python3-onnx python3-numpy python3-yaml python3-jinja2 python3-jsonschema
      json-schema-test-suite  # the structured-output differential (tests/grammar/schema_suite_diff.cc)
      pybind11-dev python3-dev python3-pytest python3-venv  # the Python package (python/), its tests, its wheel
      clang libclang-rt-dev   # clang + its libFuzzer/sanitizer runtimes: scripts/fuzz.sh
      haproxy nginx           # the load balancers of tests/deploy (run unprivileged by the tests)
      python3-pil             # the resize oracle (tests/media) and the chat page's screenshot check
      sox                     # the resampling reference of tests/media/audio_hf_features.cjs (SoX's rate effect)
      zsh fish                # syntax checks of `ogai completion zsh|fish` (tests/e2e/cli_habits_test.py)
      chromium)               # headless browser: the cross-origin check (serve_auth_cors_e2e), the chat page (serve_webui_browser_e2e)
pkgs+=(libcurl4-openssl-dev)  # src/serve: fetching http(s) media URLs (ogai serve --allow-media-urls)
[ "$runtime_only" = 1 ] || pkgs+=("${test_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js + npm may come from another Debian source; check the commands.
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
  || { "${sudo_cmd[@]}" apt-get update >/dev/null && "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
