#!/usr/bin/env bash
# Builds ogai (scripts/setup.sh) and its Python wheel into build/dist/, and prints the wheel's path:
#   scripts/build_wheel.sh && python3 -m venv v && v/bin/pip install --no-index build/dist/ogai-*.whl
# The wheel is for the interpreter the extension is built for (Debian's /usr/bin/python3; another:
# configure with -DOGAI_PYTHON=/path/to/python3, which needs pybind11 for it); docs/python.md.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh" >&2
build_dir="${OGAI_BUILD_DIR:-$here/build}"
/usr/bin/python3 "$here/tools/wheel/build_wheel.py" "$build_dir" "$build_dir/dist"
