#!/usr/bin/env bash
# Obtains ONNX Runtime (CPU library + C/C++ headers) as ../shared/onnxruntime.md describes:
# pinned npm tarballs, sha256-verified, extracted into a cache outside the clone.
# Prints the resulting root (include/ + lib/ layout) on stdout.
# ONNXRUNTIME_ROOT, when set, is used as-is (official release layout) and nothing is downloaded.
set -euo pipefail

if [ -n "${ONNXRUNTIME_ROOT:-}" ]; then
  [ -f "$ONNXRUNTIME_ROOT/include/onnxruntime_cxx_api.h" ] || {
    echo "ONNXRUNTIME_ROOT=$ONNXRUNTIME_ROOT has no include/onnxruntime_cxx_api.h" >&2; exit 1; }
  echo "$ONNXRUNTIME_ROOT"; exit 0
fi

# The headers: no package these machines can reach carries ONNX Runtime 1.30's C/C++ headers (npm's
# onnxruntime-node, -web, -react-native and the Unity packages were checked; Debian 12 has no ONNX
# Runtime). The smallest that carries any is the Unity package below, with 1.29's headers
# (ORT_API_VERSION 29). The C API is versioned and backward compatible: a library serves every API
# version up to its own, so the check after extraction requires ORT_API_VERSION <= LIB_API.
LIB_API=30
LIB_PKG="onnxruntime-node@1.30.0"
LIB_SHA="6e3390d6b783e7be946fad629292799da28d0b42f84856e50d2c1b0383291e75"
LIB_PATH="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
HDR_PKG="com.github.asus4.onnxruntime@0.4.9"
HDR_SHA="e59788788818fdde1b2e522e766a21ba0f7d8391de55737abf81e32cc801785d"
HDR_PATH="package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64_x86_64-simulator/onnxruntime.framework/Headers"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/ogai"
root="$cache/onnxruntime-1.30.0"
if [ -f "$root/.complete" ]; then echo "$root"; exit 0; fi

mkdir -p "$cache/downloads"
fetch() {  # fetch PKG SHA -> prints tarball path
  local pkg=$1 sha=$2 name tgz
  name=$(echo "$pkg" | sed -e 's/@\([0-9]\)/-\1/' -e 's/^@//' -e 's#/#-#')
  tgz="$cache/downloads/$name.tgz"
  if [ ! -f "$tgz" ] || ! echo "$sha  $tgz" | sha256sum -c --status; then
    echo "downloading $pkg ..." >&2
    (cd "$cache/downloads" && npm pack --silent "$pkg" >/dev/null)
  fi
  echo "$sha  $tgz" | sha256sum -c --status || { echo "sha256 mismatch for $tgz (expected $sha)" >&2; exit 1; }
  echo "$tgz"
}
lib_tgz=$(fetch "$LIB_PKG" "$LIB_SHA")
hdr_tgz=$(fetch "$HDR_PKG" "$HDR_SHA")

tmp=$(mktemp -d "$cache/extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$lib_tgz" -C "$tmp" "$LIB_PATH"
tar -xzf "$hdr_tgz" -C "$tmp" "$HDR_PATH"
api=$(sed -n 's/^#define ORT_API_VERSION \([0-9]*\).*/\1/p' "$tmp/$HDR_PATH/onnxruntime_c_api.h")
[ -n "$api" ] && [ "$api" -le "$LIB_API" ] || {
  echo "ONNX Runtime headers declare ORT_API_VERSION '${api}', the library serves up to $LIB_API" >&2; exit 1; }
rm -rf "$root"; mkdir -p "$root/include" "$root/lib"
cp "$tmp/$HDR_PATH"/*.h "$root/include/"
cp "$tmp/$LIB_PATH" "$root/lib/libonnxruntime.so.1"
ln -sf libonnxruntime.so.1 "$root/lib/libonnxruntime.so"
touch "$root/.complete"
echo "$root"
