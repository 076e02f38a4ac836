#!/usr/bin/env bash
# Installs the Debian packages ogai's build, tests and fixture generator need; skips when present.
set -euo pipefail
pkgs=(build-essential cmake pkg-config git ca-certificates ccache
      libgtest-dev libgmock-dev libbenchmark-dev
      libyaml-cpp-dev nlohmann-json3-dev libsimdjson-dev libfmt-dev
      libprotobuf-dev protobuf-compiler libonnx-dev
      libsndfile1-dev libvorbis-dev libsoxr-dev libkissfft-dev  # src/media/audio: decoding (WAV, FLAC, Ogg, MP3), resampling, FFT
      libcli11-dev libboost-dev libpcre2-dev libutf8proc-dev libicu-dev libedit-dev
      python3-onnx python3-numpy python3-yaml python3-jinja2 python3-jsonschema
      libpng-dev libjpeg62-turbo-dev libwebp-dev libgif-dev libexif-dev libstb-dev python3-pil  # src/media codecs; Pillow: the resize oracle
      json-schema-test-suite  # the structured-output differential (tests/grammar/schema_suite_diff.cc)
      pybind11-dev python3-dev python3-pytest python3-venv  # the Python package (python/), its tests, its wheel
      clang libclang-rt-dev   # clang + its libFuzzer/sanitizer runtimes: scripts/fuzz.sh
      haproxy nginx           # the load balancers of tests/deploy (run unprivileged by the tests)
      python3-pil             # the chat page's screenshot check (serve_webui_browser_e2e)
      chromium)               # headless browser: the cross-origin check (serve_auth_cors_e2e), the chat page (serve_webui_browser_e2e)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js + npm (for the differential-test peers) may come from another Debian source; check the commands.
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing Debian packages: ${missing[*]}" >&2
sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
  || { "${sudo_cmd[@]}" apt-get update >/dev/null && "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
