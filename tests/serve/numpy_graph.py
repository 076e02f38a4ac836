"""A small ONNX graph evaluator in numpy: the reference POST /v1/embeddings is compared against.

    /usr/bin/python3 numpy_graph.py MODEL.onnx OUTPUT [--pooling last|mean] < INPUTS.json

INPUTS.json is a JSON array of token-id arrays. For each, the decoder graph runs once as a prefill
from an empty state, batch 1: input_ids [1, S], attention_mask ones [1, S], position_ids 0..S-1
(when the graph has them), every past_key_values.* input [1, kv_heads, 0, head_dim]. OUTPUT
(e.g. hidden_states.9, [1, S, hidden]) is pooled over the S positions (the last one, or the mean),
L2-normalized, and printed: one JSON object {"vectors": [[...], ...]} on stdout.

Debian's python3-onnx (1.12) has no onnx.reference.ReferenceEvaluator, so the nodes are evaluated
here, in order (ONNX graphs are topologically sorted), each op written from the ONNX operator
specification: the standard ops the tiny test decoders use, and com.microsoft GroupQueryAttention
(no rotary, no softcap; causal; local_window_size W: a query sees W keys, its own included, the
sliding layers' rule of the fixtures' float64 reference, tools/fixtures/reference.py, which the
fixture tests hold ONNX Runtime to). Arithmetic is in the graph's own types (float32), as ONNX
Runtime computes; an op not listed raises, never approximated.
"""
import functools
import json
import sys

import numpy as np
import onnx
from onnx import mapping, numpy_helper


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def np_dtype(onnx_type):
    return mapping.TENSOR_TYPE_TO_NP_TYPE[onnx_type]


def binary(f):
    return lambda ins, at: [f(ins[0], ins[1])]


def div(ins, at):
    a, b = ins
    if np.issubdtype(a.dtype, np.integer):
        return [np.trunc(a / b).astype(a.dtype)]
    return [a / b]


def reduce(f):
    def run(ins, at):
        axes = at.get("axes")
        if len(ins) > 1 and ins[1] is not None and ins[1].size:
            axes = ins[1]
        if axes is None or len(axes) == 0:
            if at.get("noop_with_empty_axes", 0):
                return [ins[0]]
            axes = None
        else:
            axes = tuple(int(a) for a in axes)
        return [f(ins[0], axis=axes, keepdims=bool(at.get("keepdims", 1))).astype(ins[0].dtype)]
    return run


def reshape(ins, at):
    data, shape = ins
    shape = [int(s) for s in shape]
    if not at.get("allowzero", 0):
        shape = [data.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    return [data.reshape(shape)]


def split(ins, at):
    x, axis = ins[0], at.get("axis", 0)
    sizes = ins[1] if len(ins) > 1 and ins[1] is not None else at.get("split")
    if sizes is None:
        raise NotImplementedError("Split without sizes (outputs count)")
    bounds = np.cumsum([int(s) for s in sizes])[:-1]
    return np.split(x, bounds, axis=axis)


def unsqueeze(ins, at):
    x = ins[0]
    axes = [int(a) for a in (ins[1] if len(ins) > 1 else at["axes"])]
    rank = x.ndim + len(axes)
    for a in sorted(a % rank for a in axes):
        x = np.expand_dims(x, a)
    return [x]


def shape(ins, at):
    dims = np.array(ins[0].shape, dtype=np.int64)
    return [dims[at.get("start", 0):at.get("end", len(dims))]]


def cumsum(ins, at):
    x, axis = ins[0], int(np.asarray(ins[1]).reshape(-1)[0])
    if at.get("reverse", 0):
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if at.get("exclusive", 0):
        out = out - x
    if at.get("reverse", 0):
        out = np.flip(out, axis)
    return [out]


def slice_op(ins, at):
    x, starts, ends = ins[0], ins[1], ins[2]
    axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(starts))
    steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a)] = slice(int(s), int(e), int(st))
    return [x[tuple(index)]]


def group_query_attention(ins, at):
    q, k, v, past_k, past_v, seqlens_k, total = ins[:7]
    heads, kv_heads = at["num_heads"], at["kv_num_heads"]
    window = at.get("local_window_size", -1)
    if at.get("do_rotary", 0) or at.get("softcap", 0.0):
        raise NotImplementedError("GroupQueryAttention with rotary or softcap")
    b, s, _ = q.shape
    d = q.shape[2] // heads
    if past_k.shape[2] != 0 or b != 1 or int(seqlens_k[0]) + 1 != s or int(total) != s:
        raise NotImplementedError("GroupQueryAttention beyond one unpadded prefill from an empty past")
    qh = q.reshape(b, s, heads, d).transpose(0, 2, 1, 3)
    kh = k.reshape(b, s, kv_heads, d).transpose(0, 2, 1, 3)
    vh = v.reshape(b, s, kv_heads, d).transpose(0, 2, 1, 3)
    group = heads // kv_heads
    kx, vx = np.repeat(kh, group, axis=1), np.repeat(vh, group, axis=1)
    scale = at.get("scale", 0.0) or 1.0 / np.sqrt(d)
    scores = (qh @ kx.transpose(0, 1, 3, 2)) * np.float32(scale)
    i, j = np.arange(s)[:, None], np.arange(s)[None, :]
    allowed = j <= i
    if window is not None and window >= 0:
        allowed &= j > i - window
    scores = np.where(allowed, scores, -np.inf).astype(np.float32)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = (p / p.sum(axis=-1, keepdims=True)).astype(np.float32)
    out = (p @ vx).transpose(0, 2, 1, 3).reshape(b, s, heads * d)
    return [out, kh, vh]


OPS = {
    ("", "Add"): binary(np.add), ("", "Sub"): binary(np.subtract), ("", "Mul"): binary(np.multiply),
    ("", "Div"): div, ("", "MatMul"): binary(np.matmul),
    ("", "Max"): lambda ins, at: [functools.reduce(np.maximum, ins)],
    ("", "Sqrt"): lambda ins, at: [np.sqrt(ins[0])], ("", "Tanh"): lambda ins, at: [np.tanh(ins[0])],
    ("", "Cos"): lambda ins, at: [np.cos(ins[0])], ("", "Sin"): lambda ins, at: [np.sin(ins[0])],
    ("", "Neg"): lambda ins, at: [np.negative(ins[0])], ("", "Identity"): lambda ins, at: [ins[0]],
    ("", "Transpose"): lambda ins, at: [np.transpose(ins[0], at.get("perm"))],
    ("", "ReduceMean"): reduce(np.mean), ("", "ReduceSum"): reduce(np.sum),
    ("", "Reshape"): reshape, ("", "Split"): split, ("", "Unsqueeze"): unsqueeze, ("", "Shape"): shape,
    ("", "Concat"): lambda ins, at: [np.concatenate(ins, axis=at["axis"])],
    ("", "Gather"): lambda ins, at: [np.take(ins[0], ins[1].astype(np.int64), axis=at.get("axis", 0))],
    ("", "Cast"): lambda ins, at: [ins[0].astype(np_dtype(at["to"]))],
    ("", "CumSum"): cumsum, ("", "Slice"): slice_op,
    ("com.microsoft", "GroupQueryAttention"): group_query_attention,
}


def run_graph(model, feeds, wanted):
    """The graph's value named `wanted` given `feeds` (name -> array)."""
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(feeds)
    for node in model.graph.node:
        op = OPS.get((node.domain, node.op_type))
        if op is None:
            raise NotImplementedError(f"op {node.domain or 'ai.onnx'}:{node.op_type} ({node.name})")
        ins = [values[name] if name else None for name in node.input]
        for name, value in zip(node.output, op(ins, attrs(node))):
            if name:
                values[name] = value
        if wanted in node.output:
            return values[wanted]
    raise KeyError(wanted)


def feeds_for(model, ids):
    s = len(ids)
    feeds = {}
    for port in model.graph.input:
        dims = port.type.tensor_type.shape.dim
        dtype = np_dtype(port.type.tensor_type.elem_type)
        if port.name == "input_ids":
            feeds[port.name] = np.array([ids], dtype=dtype)
        elif port.name == "attention_mask":
            feeds[port.name] = np.ones((1, s), dtype=dtype)
        elif port.name == "position_ids":
            feeds[port.name] = np.arange(s, dtype=dtype)[None, :]
        elif port.name.startswith("past_key_values."):
            feeds[port.name] = np.zeros((1, dims[1].dim_value, 0, dims[3].dim_value), dtype=dtype)
        else:
            raise NotImplementedError(f"graph input {port.name} has no feed here")
    return feeds


def embed(model, output, ids, pooling):
    hidden = run_graph(model, feeds_for(model, ids), output)[0].astype(np.float64)  # [S, hidden]
    v = hidden[-1] if pooling == "last" else hidden.mean(axis=0)
    return v / np.linalg.norm(v)


def main():
    model = onnx.load(sys.argv[1])
    output = sys.argv[2]
    pooling = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--pooling" else "last"
    inputs = json.load(sys.stdin)
    print(json.dumps({"vectors": [embed(model, output, ids, pooling).tolist() for ids in inputs]}))


if __name__ == "__main__":
    main()
