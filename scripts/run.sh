#!/usr/bin/env bash
# Sets up ogai and runs its main job: text generation on the default model, the stories260k
# package (its ONNX graph and tokenizer from ../shared, its metadata from tests/data/stories260k,
# assembled into build/packages/). Without ../shared it falls back to the committed tiny-e2b
# fixture package (random weights: the text is noise, but every stage runs).
#   scripts/run.sh [PROMPT]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build="${OGAI_BUILD_DIR:-$here/build}"
"$here/scripts/setup.sh" >&2
ogai="$build/src/cli/ogai"
prompt="${1:-Once upon a time}"
package="$build/packages/stories260k"
if [ ! -f "$package/model.onnx" ]; then
  echo "run.sh: $package is missing (no ../shared?); using the tiny-e2b fixture package" >&2
  package="$here/tests/data/packages/tiny-e2b"
fi
"$ogai" --version
echo "\$ ogai generate $package --prompt \"$prompt\" --max-new-tokens 120 --stream"
"$ogai" generate "$package" --prompt "$prompt" --max-new-tokens 120 --stream
echo
