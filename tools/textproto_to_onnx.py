"""Converts every `*.onnx.textproto` under SRC into a binary `.onnx` under DST (same relative
path, `.textproto` dropped), for peers that load binary models only (the workflow oracle).
Uses Debian's python3-onnx; fields newer than its schema (NodeProto.metadata_props) are skipped.
Usage: /usr/bin/python3 tools/textproto_to_onnx.py SRC DST
"""
import os
import sys

import onnx
from google.protobuf import text_format


def convert(src, dst):
    model = onnx.ModelProto()
    with open(src, encoding="utf-8") as f:
        text_format.Parse(f.read(), model, allow_unknown_field=True)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as f:
        f.write(model.SerializeToString())


def main(src_root, dst_root):
    for folder, _, files in os.walk(src_root):
        for name in files:
            if name.endswith(".onnx.textproto"):
                src = os.path.join(folder, name)
                rel = os.path.relpath(src, src_root)[: -len(".textproto")]
                convert(src, os.path.join(dst_root, rel))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
