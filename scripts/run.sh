#!/usr/bin/env bash
# Sets up ogai's runtime and runs its main job: text generation on the default model, the
# stories260k package (its ONNX graph and tokenizer from ../shared, its metadata from
# tests/data/stories260k, assembled into build/packages/). Without ../shared it falls back to the
# committed tiny-e2b fixture package (random weights: the text is noise, but every stage runs).
#   scripts/run.sh [PROMPT]
# It installs only the Debian packages the runtime needs and builds only the `ogai` executable and
# the libraries it links (scripts/setup.sh --runtime); scripts/test.sh adds the rest in the same
# build folder. One progress line per phase on stderr with the time since the start.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="${OGAI_BUILD_DIR:-$here/build}"
. "$here/scripts/progress.sh"
"$here/scripts/setup.sh" --runtime --build-dir "$build" >&2
ogai="$build/src/cli/ogai"
prompt="${1:-Once upon a time}"
package="$build/packages/stories260k"
progress "model prep" "$package"
if [ ! -f "$package/model.onnx" ]; then
  echo "run.sh: $package is missing (no ../shared?); using the tiny-e2b fixture package" >&2
  package="$here/tests/data/packages/tiny-e2b"
fi
"$ogai" --version
progress generate "120 new tokens"
echo "\$ ogai generate $package --prompt \"$prompt\" --max-new-tokens 120 --stream"
"$ogai" generate "$package" --prompt "$prompt" --max-new-tokens 120 --stream
echo
progress done "total"
