"""Quantize -> validate -> generate on real packages, and `ogai compare`.

    /usr/bin/python3 quantize_package_test.py OGAI STORIES_PACKAGE BUILDER_LLAMA_FOLDER

stories260k (the pretrained package: 35 eligible MatMuls, K = 172 padded to the block, an lm-head
stored as its own initializer) and the model-builder-style Llama folder written at test time
(com.microsoft ops, external data, genai_config.json instead of inference_metadata.yaml): each
is quantized, passes `ogai validate`, keeps every graph input and output, and generates text.
`ogai compare` on a package against itself gives agreement 1 and KL 0; against its 4-bit copy
the KL is positive and the agreement a share in [0, 1].
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import onnx

OGAI, STORIES, BUILDER = sys.argv[1:4]
WORK = tempfile.mkdtemp(prefix="quantize_package_", dir=os.environ.get("OGAI_BINARY_DIR"))


def ogai(*args, expect=0):
    p = subprocess.run([OGAI, *args], capture_output=True, text=True)
    assert p.returncode == expect, f"ogai {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p


def interface(model):
    g = onnx.load(model, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    return ([(v.name, v.type.tensor_type.elem_type) for v in g.input if v.name not in inits],
            [(v.name, v.type.tensor_type.elem_type) for v in g.output])


def ops(model):
    return [n.op_type for n in onnx.load(model, load_external_data=False).graph.node]


def generate(pkg, tokens=16):
    out = ogai("generate", pkg, "--prompt", "Once upon a time", "--max-new-tokens", str(tokens), "--json",
               "--temperature", "0")
    return json.loads(out.stdout)


def check_package(src, name, *flags, expect_matmuls):
    dst = os.path.join(WORK, name)
    out = ogai("quantize", src, dst, *flags)
    assert f"{expect_matmuls} MatMuls quantized" in out.stdout.splitlines()[0], out.stdout
    assert "wrote " in out.stderr, out.stderr
    ogai("validate", dst)
    model_src, model_dst = os.path.join(src, "model.onnx"), os.path.join(dst, "model.onnx")
    assert interface(model_src) == interface(model_dst), "the graph's interface changed"
    assert ops(model_dst).count("MatMulNBits") == int(expect_matmuls.split()[0])
    assert os.path.getsize(model_dst) < 200_000, "weights are external"
    result = generate(dst)
    assert len(result["ids"]) == 16 and result["text"], result
    print(f"ok {name}: {out.stdout.splitlines()[0]}; generated {result['text']!r}")
    return dst


def compare(a, b):
    return json.loads(ogai("compare", a, b, "--tokens", "12", "--json").stdout)


def main():
    q = check_package(STORIES, "stories_q4", expect_matmuls="36 of 46")  # the default: an 8-bit lm-head
    head = [n for n in onnx.load(os.path.join(q, "model.onnx"), load_external_data=False).graph.node
            if n.op_type == "MatMulNBits" and "logits" in (n.name, n.output[0])]
    assert [onnx.helper.get_attribute_value(a) for a in head[0].attribute if a.name == "bits"] == [8], head
    check_package(STORIES, "stories_q4_fp_head", "--no-lm-head", expect_matmuls="35 of 46")
    lm = check_package(STORIES, "stories_q4_lm", "--lm-head", "--block-size", "16", "--asymmetric",
                       "--accuracy-level", "0", expect_matmuls="36 of 46")
    out = ogai("quantize", STORIES, os.path.join(WORK, "listing"), "--exclude", "w2*", "--no-lm-head")
    assert out.stdout.count("excluded by --exclude w2*") == 5, out.stdout
    assert out.stdout.count("skipped MatMul logits: the lm-head (--no-lm-head)") == 1, out.stdout

    same = compare(STORIES, STORIES)
    assert same["greedy_agreement"] == 1.0 and same["kl_mean"] == 0.0 and same["kl_max"] == 0.0, same
    assert same["first_divergence"] == [-1] * 4 and same["positions"] == 4 * 12, same
    diff = compare(STORIES, lm)
    assert diff["kl_mean"] > 0 and diff["kl_max"] >= diff["kl_mean"] and 0 <= diff["greedy_agreement"] <= 1, diff
    print(f"ok compare: self {same['greedy_agreement']} / {same['kl_mean']}; 4-bit with lm-head {diff}")

    builder = os.path.join(WORK, "builder_src")
    shutil.copytree(BUILDER, builder)
    check_package(builder, "builder_q4", "--lm-head", "--embeddings", "--block-size", "32",
                  expect_matmuls="22 of 22")
    shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
