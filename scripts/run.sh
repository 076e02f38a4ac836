#!/usr/bin/env bash
# Sets up ogai and runs its main job on the default model: stories260k from ../shared.
#   scripts/run.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh" >&2
ogai="${OGAI_BUILD_DIR:-$here/build}/src/cli/ogai"
model="$here/../shared/models/stories260k/model.onnx"
"$ogai" --version
"$ogai" inspect "$model"
