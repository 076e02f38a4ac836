"""`ogai quantize` against a NumPy reference of MatMulNBits' block quantization.

    /usr/bin/python3 quantize_reference_test.py OGAI RUN_GRAPH

For small weights (K not a multiple of the block, so the padding is exercised) the tensors the
tool writes (B codes, scales, zero points) must equal the NumPy quantization bit for bit, and the
graph run by ONNX Runtime (RUN_GRAPH) must equal the NumPy dequantized MatMul within float
tolerance. Also: GatherBlockQuantized embeddings, a tied lm-head (B = Transpose(embedding)),
float16 weights, external-data sources, --exclude, and the refusals (nothing eligible, DST
exists without --force, a write that fails part way) leaving no package or temporary directory.
"""
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OGAI, RUN_GRAPH = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="quantize_reference_", dir=os.environ.get("OGAI_BINARY_DIR"))
RNG = np.random.default_rng(27)
F32 = np.float32


def quantize_rows_reference(rows, block, symmetric, bits=4):
    """rows: [R, K] float32 -> (codes [R, nb, block*bits/8] uint8, scales [R, nb] float32, zp [R, nb])."""
    top, mid = (1 << bits) - 1, 1 << (bits - 1)
    r, k = rows.shape
    nb = -(-k // block)
    x = np.zeros((r, nb * block), F32)
    x[:, :k] = rows
    x = x.reshape(r, nb, block)
    if symmetric:
        idx = np.argmax(np.abs(x), axis=-1)[..., None]
        scale = (np.take_along_axis(x, idx, axis=-1)[..., 0] / F32(-mid)).astype(F32)
        zp = np.full((r, nb), mid, np.int32)
    else:
        lo = np.minimum(x.min(axis=-1), F32(0))
        hi = np.maximum(x.max(axis=-1), F32(0))
        scale = ((hi - lo) / F32(top)).astype(F32)
        with np.errstate(divide="ignore", invalid="ignore"):
            zp = np.where(scale == 0, mid, np.clip(np.rint(-lo / scale), 0, top)).astype(np.int32)
    with np.errstate(divide="ignore"):
        inv = np.where(scale == 0, F32(0), F32(1) / scale).astype(F32)
    q = np.clip(np.rint(x * inv[..., None]).astype(np.int32) + zp[..., None], 0, top).astype(np.uint8)
    if bits == 8:
        return q, scale, zp
    codes = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)
    return codes, scale, zp


def pack_zero_points(zp):
    r, nb = zp.shape
    padded = np.zeros((r, nb + nb % 2), np.uint8)
    padded[:, :nb] = zp
    return (padded[:, 0::2] | (padded[:, 1::2] << 4)).astype(np.uint8)


def dequantize(codes, scale, zp, k, bits=4):
    if bits == 8:
        q = codes.astype(np.float64)
    else:
        q = np.stack([codes & 0xF, codes >> 4], axis=-1).reshape(codes.shape[0], codes.shape[1], -1).astype(np.float64)
    w = (q - zp[..., None]) * scale.astype(np.float64)[..., None]
    return w.reshape(codes.shape[0], -1)[:, :k]


def save(model, folder, external=False):
    os.makedirs(folder, exist_ok=True)
    onnx.save_model(model, os.path.join(folder, "model.onnx"), save_as_external_data=external,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)


def matmul_model(w, dtype=TensorProto.FLOAT):
    k, n = w.shape
    g = helper.make_graph([helper.make_node("MatMul", ["a", "w"], ["y"], name="proj")], "g",
                          [helper.make_tensor_value_info("a", dtype, ["m", k])],
                          [helper.make_tensor_value_info("y", dtype, ["m", n])], [numpy_helper.from_array(w, "w")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def quantize(src, dst, *flags, expect=0):
    p = subprocess.run([OGAI, "quantize", src, dst, *flags], capture_output=True, text=True)
    assert p.returncode == expect, f"exit {p.returncode} (expected {expect}):\n{p.stdout}\n{p.stderr}"
    return p


def run_graph(model, x, dtype="float32"):
    inp, out = os.path.join(WORK, "in.raw"), os.path.join(WORK, "out.raw")
    x.tofile(inp)
    subprocess.run([RUN_GRAPH, model, inp, dtype, *map(str, x.shape), "--", out], check=True)
    return np.fromfile(out, np.float16 if dtype == "float16" else F32)


def tensors(model_path):
    m = onnx.load(model_path)
    return m, {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}


def attr(node, name):
    return next(helper.get_attribute_value(a) for a in node.attribute if a.name == name)


def check_matmul(k, n, block, symmetric, level, external):
    w = (RNG.standard_normal((k, n)) * 0.1).astype(F32)
    w[3, 1] = 2.5  # an outlier: its block's scale, not the others'
    name = f"mm_{k}x{n}_b{block}_{'sym' if symmetric else 'asym'}_l{level}_{'ext' if external else 'emb'}"
    src, dst = os.path.join(WORK, name), os.path.join(WORK, name + "_q4")
    save(matmul_model(w), src, external)
    flags = ["--block-size", str(block), "--accuracy-level", str(level)] + ([] if symmetric else ["--asymmetric"])
    out = quantize(src, dst, *flags)
    assert "1 of 1 MatMuls quantized" in out.stdout, out.stdout
    assert not os.path.exists(os.path.join(dst, "weights.bin")), "the source's external data was copied"
    m, t = tensors(os.path.join(dst, "model.onnx"))
    (node,) = m.graph.node
    assert (node.op_type, node.domain, node.name) == ("MatMulNBits", "com.microsoft", "proj"), node
    assert (attr(node, "K"), attr(node, "N"), attr(node, "bits"), attr(node, "block_size"),
            attr(node, "accuracy_level")) == (k, n, 4, block, level)
    codes, scale, zp = quantize_rows_reference(w.T.copy(), block, symmetric)
    nb = codes.shape[1]
    b, s = t[node.input[1]], t[node.input[2]]
    assert b.dtype == np.uint8 and b.shape == (n, nb, block // 2), b.shape
    assert np.array_equal(b, codes), "B codes differ from the NumPy reference"
    assert s.dtype == np.float32 and s.shape == (n * nb,) and np.array_equal(s, scale.reshape(-1)), "scales differ"
    if symmetric:
        assert len(node.input) == 3, "symmetric: no zero_points input (the default 8)"
    else:
        z = t[node.input[3]]
        assert z.shape == (n * ((nb + 1) // 2),) and np.array_equal(z, pack_zero_points(zp).reshape(-1)), "zp differ"
    assert "w" not in t, "the fp32 weight is still in the graph"
    x = RNG.standard_normal((5, k)).astype(F32)
    got = run_graph(os.path.join(dst, "model.onnx"), x).reshape(5, n)
    want = x.astype(np.float64) @ dequantize(codes, scale, zp, k).T
    tol = 1e-4 if level in (0, 1) else 3e-2  # level 4 quantizes activations to int8 in the kernel
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < tol, f"{name}: kernel vs NumPy dequantized MatMul, relative error {err}"
    exact = np.abs(got - x @ w).max() / np.abs(x @ w).max()
    assert 0 < exact < 0.6, f"{name}: 4-bit vs fp32 relative error {exact}"
    print(f"ok {name}: kernel vs reference {err:.2e}, vs fp32 {exact:.3f}")


def check_float16():
    w = (RNG.standard_normal((64, 24)) * 0.1).astype(np.float16)
    src, dst = os.path.join(WORK, "fp16"), os.path.join(WORK, "fp16_q4")
    save(matmul_model(w, TensorProto.FLOAT16), src)
    quantize(src, dst, "--block-size", "32", "--accuracy-level", "0")
    m, t = tensors(os.path.join(dst, "model.onnx"))
    (node,) = m.graph.node
    codes, scale, zp = quantize_rows_reference(w.astype(F32).T.copy(), 32, True)
    assert np.array_equal(t[node.input[1]], codes)
    s = t[node.input[2]]
    assert s.dtype == np.float16 and np.array_equal(s, scale.reshape(-1).astype(np.float16)), "fp16 scales"
    x = RNG.standard_normal((3, 64)).astype(np.float16)
    got = run_graph(os.path.join(dst, "model.onnx"), x, "float16").reshape(3, 24).astype(np.float64)
    want = x.astype(np.float64) @ dequantize(codes, s.reshape(24, -1).astype(F32), zp, 64).T
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err < 5e-3, f"fp16 kernel vs reference {err}"
    print(f"ok float16 source: kernel vs reference {err:.2e}")


def tied_model(vocab, hidden):
    e = (RNG.standard_normal((vocab, hidden)) * 0.5).astype(F32)
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["h"], name="embed"),
             helper.make_node("Transpose", ["emb"], ["emb_t"], name="tie", perm=[1, 0]),
             helper.make_node("MatMul", ["h", "emb_t"], ["logits"], name="lm_head")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["b", "s", vocab])],
                          [numpy_helper.from_array(e, "emb")])
    return e, helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def check_tied_lm_head_and_embeddings():
    e, model = tied_model(96, 64)
    src = os.path.join(WORK, "tied")
    save(model, src)
    ids = np.array([[0, 5, 95, 17]], np.int64)
    # With --no-lm-head the lm-head and the embedding are the only candidates: nothing to do.
    p = quantize(src, os.path.join(WORK, "tied_none"), "--no-lm-head", expect=1)
    assert "no graph has an eligible MatMul" in p.stderr and "the lm-head (--no-lm-head)" in p.stderr, p.stderr
    assert not os.path.exists(os.path.join(WORK, "tied_none"))
    # Without flags: the default package's lm-head is 8-bit at block 32, the Gather keeps emb.
    dst = os.path.join(WORK, "tied_default")
    out = quantize(src, dst)
    assert "(lm-head)" in out.stdout and "lm-head 8-bit" in out.stderr, (out.stdout, out.stderr)
    m, t = tensors(os.path.join(dst, "model.onnx"))
    mm = m.graph.node[1]
    assert [n.op_type for n in m.graph.node] == ["Gather", "MatMulNBits"] and "emb" in t
    assert (attr(mm, "bits"), attr(mm, "block_size"), attr(mm, "accuracy_level")) == (8, 32, 4), "the defaults"
    codes, scale, zp = quantize_rows_reference(e, 32, True, 8)
    assert np.array_equal(t[mm.input[1]], codes) and np.array_equal(t[mm.input[2]], scale.reshape(-1))
    # --lm-head: B = Transpose(emb) quantized along the table's rows; the Gather keeps emb.
    dst = os.path.join(WORK, "tied_lm")
    out = quantize(src, dst, "--lm-head", "--block-size", "16", "--accuracy-level", "0")
    assert "(lm-head)" in out.stdout and "skipped Gather embed: the token embedding (pass --embeddings)" in out.stdout
    m, t = tensors(os.path.join(dst, "model.onnx"))
    assert [n.op_type for n in m.graph.node] == ["Gather", "MatMulNBits"], "the Transpose is dropped"
    codes, scale, zp = quantize_rows_reference(e, 16, True)
    mm = m.graph.node[1]
    assert np.array_equal(t[mm.input[1]], codes) and np.array_equal(t[mm.input[2]], scale.reshape(-1))
    assert "emb" in t
    got = run_graph(os.path.join(dst, "model.onnx"), ids, "int64").reshape(4, 96)
    want = e[ids[0]].astype(np.float64) @ dequantize(codes, scale, zp, 64).T
    assert np.abs(got - want).max() / np.abs(want).max() < 1e-4
    # --lm-head --embeddings --asymmetric: GatherBlockQuantized over uint8 [vocab, hidden / 2].
    dst = os.path.join(WORK, "tied_both")
    quantize(src, dst, "--lm-head", "--embeddings", "--asymmetric", "--block-size", "32", "--accuracy-level", "0")
    m, t = tensors(os.path.join(dst, "model.onnx"))
    g = m.graph.node[0]
    assert (g.op_type, g.domain) == ("GatherBlockQuantized", "com.microsoft")
    assert (attr(g, "gather_axis"), attr(g, "quantize_axis"), attr(g, "block_size"), attr(g, "bits")) == (0, 1, 32, 4)
    codes, scale, zp = quantize_rows_reference(e, 32, False)
    assert np.array_equal(t[g.input[0]], codes.reshape(96, 32)), "gather codes"
    assert np.array_equal(t[g.input[2]], scale) and np.array_equal(t[g.input[3]], pack_zero_points(zp))
    assert "emb" not in t, "nothing reads the fp32 table any more"
    got = run_graph(os.path.join(dst, "model.onnx"), ids, "int64").reshape(4, 96)
    table = dequantize(codes, scale, zp, 64)
    want = table[ids[0]] @ table.T
    assert np.abs(got - want).max() / np.abs(want).max() < 1e-4, "gather + lm-head vs reference"
    print("ok tied lm-head (Transpose of the embedding) and GatherBlockQuantized embeddings")


def check_eight_bits():
    """--bits 8 for every MatMul, and --lm-head-bits 8 / --embeddings-bits 8 beside 4-bit MatMuls:
    codes one per byte (B [N, blocks, block]), zero point 128 by default, one zero point byte per
    block when asymmetric; the kernels agree with the NumPy dequantization, and 8 bits sit much
    closer to fp32 than 4."""
    k, n, block = 172, 40, 32
    w = (RNG.standard_normal((k, n)) * 0.1).astype(F32)
    x = RNG.standard_normal((5, k)).astype(F32)
    src = os.path.join(WORK, "mm8")
    save(matmul_model(w), src)
    errors = {}
    for bits, sym in [(8, True), (8, False), (4, True)]:
        dst = os.path.join(WORK, f"mm8_{bits}_{sym}")
        out = quantize(src, dst, "--bits", str(bits), "--block-size", str(block), "--accuracy-level", "0",
                       *([] if sym else ["--asymmetric"]))
        assert f"to {bits}-bit" in out.stderr, out.stderr
        m, t = tensors(os.path.join(dst, "model.onnx"))
        (node,) = m.graph.node
        assert attr(node, "bits") == bits
        codes, scale, zp = quantize_rows_reference(w.T.copy(), block, sym, bits)
        nb = codes.shape[1]
        assert t[node.input[1]].shape == (n, nb, block * bits // 8) and np.array_equal(t[node.input[1]], codes)
        assert np.array_equal(t[node.input[2]], scale.reshape(-1)), "scales"
        if not sym and bits == 8:
            assert np.array_equal(t[node.input[3]], zp.reshape(-1).astype(np.uint8)), "8-bit zero points, one per block"
        if sym:
            assert len(node.input) == 3, "symmetric: the default zero point"
        got = run_graph(os.path.join(dst, "model.onnx"), x).reshape(5, n)
        want = x.astype(np.float64) @ dequantize(codes, scale, zp, k, bits).T
        err = np.abs(got - want).max() / np.abs(want).max()
        assert err < 1e-4, f"{bits}-bit kernel vs reference {err}"
        errors[(bits, sym)] = np.abs(got - x @ w).max() / np.abs(x @ w).max()
    assert errors[(8, True)] < errors[(4, True)] / 8, errors
    e, model = tied_model(96, 64)
    src = os.path.join(WORK, "tied8")
    save(model, src)
    dst = os.path.join(WORK, "tied8_q")
    out = quantize(src, dst, "--lm-head-bits", "8", "--embeddings-bits", "8", "--asymmetric", "--block-size", "32",
                   "--accuracy-level", "0")
    assert "lm-head 8-bit" in out.stderr and "embedding 8-bit" in out.stderr, out.stderr
    m, t = tensors(os.path.join(dst, "model.onnx"))
    g, mm = m.graph.node
    assert (g.op_type, attr(g, "bits"), mm.op_type, attr(mm, "bits")) == ("GatherBlockQuantized", 8, "MatMulNBits", 8)
    codes, scale, zp = quantize_rows_reference(e, 32, False, 8)
    assert np.array_equal(t[g.input[0]], codes.reshape(96, 64)), "8-bit gather codes"
    assert np.array_equal(t[g.input[3]], zp.astype(np.uint8)), "8-bit gather zero points"
    ids = np.array([[0, 5, 95, 17]], np.int64)
    got = run_graph(os.path.join(dst, "model.onnx"), ids, "int64").reshape(4, 96)
    table = dequantize(codes, scale, zp, 64, 8)
    want = table[ids[0]] @ table.T
    assert np.abs(got - want).max() / np.abs(want).max() < 1e-4, "8-bit gather + lm-head vs reference"
    print(f"ok 8 bits: MatMul sym/asym, lm-head + embeddings; vs fp32 {errors[(8, True)]:.4f} (4-bit {errors[(4, True)]:.4f})")


def check_refusals():
    w = (RNG.standard_normal((64, 64)) * 0.1).astype(F32)
    src = os.path.join(WORK, "refuse")
    save(matmul_model(w), src)
    with open(os.path.join(src, "notes.txt"), "w") as f:
        f.write("copied\n")
    dst = os.path.join(WORK, "refuse_q4")
    quantize(src, dst)
    assert open(os.path.join(dst, "notes.txt")).read() == "copied\n"
    m, _ = tensors(os.path.join(dst, "model.onnx"))
    assert (attr(m.graph.node[0], "block_size"), attr(m.graph.node[0], "accuracy_level"), attr(m.graph.node[0], "bits")) \
        == (32, 4, 4), "the defaults"
    p = quantize(src, dst, expect=1)
    assert "exists (pass --force to replace it)" in p.stderr, p.stderr
    quantize(src, dst, "--force", "--block-size", "64")
    m, _ = tensors(os.path.join(dst, "model.onnx"))
    assert attr(m.graph.node[0], "block_size") == 64, "--force replaced DST"
    p = quantize(src, os.path.join(WORK, "excluded"), "--exclude", "pro*", expect=1)
    assert "excluded by --exclude pro*" in p.stderr, p.stderr
    p = quantize(os.path.join(WORK, "missing"), os.path.join(WORK, "x"), expect=2)
    assert "not a package directory" in p.stderr
    # A write that fails part way (the file-size limit stands in for a full disk): no DST, no temp.
    big = (RNG.standard_normal((1024, 512)) * 0.1).astype(F32)
    src = os.path.join(WORK, "big")
    save(matmul_model(big), src, external=True)
    parent = os.path.join(WORK, "full")
    os.makedirs(parent)

    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    p = subprocess.run([OGAI, "quantize", src, os.path.join(parent, "big_q4")], capture_output=True, text=True,
                       preexec_fn=limit)
    assert p.returncode == 1 and "ogai quantize:" in p.stderr, (p.returncode, p.stderr)
    assert os.listdir(parent) == [], f"left behind: {os.listdir(parent)}"
    print("ok refusals: DST exists, --force, --exclude, missing SRC, failed write:", p.stderr.strip().splitlines()[-1])


def check_peak_memory():
    """Weights stream: quantizing one 64 MiB weight adds well under 1.5x its size to the peak RSS."""
    small, big = os.path.join(WORK, "mem_small"), os.path.join(WORK, "mem_big")
    save(matmul_model(np.ones((64, 64), F32)), small, external=True)
    w = np.lib.format.open_memmap(os.path.join(WORK, "w.npy"), mode="w+", dtype=F32, shape=(4096, 4096))
    w[:] = 0.01
    save(matmul_model(np.asarray(w)), big, external=True)
    del w
    peak_of = lambda p: float(re.search(r"peak memory ([0-9.]+) MiB", p.stderr).group(1)) * 2**20
    base = peak_of(quantize(small, small + "_q4"))
    peak = peak_of(quantize(big, big + "_q4"))
    tensor, output = 4096 * 4096 * 4, 4096 * 4096 // 2 + 4096 * 128 * 4
    assert 0 < base < peak, (base, peak)
    assert peak - base < 1.5 * tensor + output, f"peak RSS grew {(peak - base) / 2**20:.0f} MiB for a 64 MiB weight"
    print(f"ok peak memory: +{(peak - base) / 2**20:.0f} MiB over a tiny model's for one 64 MiB weight")
    for d in (big, big + "_q4"):
        shutil.rmtree(d)


def main():
    for k, n, block, sym, level, ext in [(172, 40, 16, True, 0, False), (172, 40, 32, False, 0, True),
                                         (64, 48, 64, True, 0, True), (200, 33, 128, False, 1, False),
                                         (256, 64, 32, True, 4, False)]:
        check_matmul(k, n, block, sym, level, ext)
    check_float16()
    check_tied_lm_head_and_embeddings()
    check_eight_bits()
    check_refusals()
    check_peak_memory()
    shutil.rmtree(WORK)


if __name__ == "__main__":
    main()
