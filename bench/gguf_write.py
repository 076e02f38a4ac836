"""A GGUF (version 3) file of the bench's Llama-style ONNX model, for llama.cpp (bench/llama_cpp_peer.py).

    /usr/bin/python3 bench/gguf_write.py MODEL_DIR OUT.gguf

Reads MODEL_DIR/model.onnx as tools/genai/builder_llama.py writes it (fp32 MatMul weights [in, out],
RMS norms, rotary with interleaved=0, grouped-query attention, an untied lm_head) and writes the same
weights as llama.cpp's `llama` architecture, all tensors F32: what llama.cpp's own quantizer
(llama_model_quantize) then turns into Q4_0 / Q4_K_M, as it would a converted Hugging Face checkpoint.

The GGUF layout (from the format's published description): magic "GGUF", version, tensor count and
metadata count (u64), the metadata (key string, value type, value), one info record per tensor (name,
dimensions fastest first, type, offset into the data section), padding to the alignment, the data.
A linear weight is stored as rows of its input width (numpy [out, in]); the query and key rows of
each head are reordered from the halves layout (rotate_half, ONNX's interleaved=0) to llama.cpp's
pairs layout (its `llama` rope rotates adjacent pairs), the same reordering Hugging Face's converter
does: attention scores are unchanged because queries and keys get the same permutation.

The vocabulary written is a placeholder SentencePiece-style one (<unk>, <s>, </s>, the 256 byte tokens,
then "t<N>" pieces) of the model's width: the benches feed token ids and read logits, never text.
Written by this project; numpy and onnx from Debian's python3.
"""
import struct
import sys

import numpy as np
import onnx
from onnx import numpy_helper

ALIGN = 32
T_UINT32, T_INT32, T_FLOAT32, T_STRING, T_ARRAY = 4, 5, 6, 8, 9
GGML_F32 = 0


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _value(vtype, v):
    if vtype == T_UINT32:
        return struct.pack("<I", v)
    if vtype == T_INT32:
        return struct.pack("<i", v)
    if vtype == T_FLOAT32:
        return struct.pack("<f", v)
    if vtype == T_STRING:
        return _str(v)
    raise ValueError(vtype)


def _kv(key, vtype, v):
    return _str(key) + struct.pack("<I", vtype) + _value(vtype, v)


def _kv_array(key, vtype, values):
    head = _str(key) + struct.pack("<I", T_ARRAY) + struct.pack("<IQ", vtype, len(values))
    if vtype == T_FLOAT32:
        return head + np.asarray(values, dtype="<f4").tobytes()
    if vtype == T_INT32:
        return head + np.asarray(values, dtype="<i4").tobytes()
    return head + b"".join(_value(vtype, v) for v in values)


def halves_to_pairs(w, heads):
    """Rows [heads * head_dim, in] in rotate_half order -> llama.cpp's adjacent-pair order."""
    rows, cols = w.shape
    return w.reshape(heads, 2, rows // heads // 2, cols).swapaxes(1, 2).reshape(rows, cols)


def vocabulary(n):
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [2, 3, 3] + [6] * 256  # unknown, control, control, byte
    tokens += [f"\u2581t{i}" for i in range(len(tokens), n)]
    types += [1] * (n - len(types))  # normal
    if n < 259:
        raise SystemExit(f"vocabulary {n} is narrower than the 259 reserved pieces")
    return tokens, [0.0] * n, types


def read_model(model_dir):
    model = onnx.load(f"{model_dir}/model.onnx", load_external_data=True)
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    attrs = {}
    for node in model.graph.node:
        if node.op_type == "GroupQueryAttention":
            attrs.update({a.name: onnx.helper.get_attribute_value(a) for a in node.attribute})
        if node.op_type == "SimplifiedLayerNormalization":
            attrs["epsilon"] = next(onnx.helper.get_attribute_value(a) for a in node.attribute if a.name == "epsilon")
    return weights, attrs


def tensors(weights, heads, kv_heads):
    layers = sum(1 for k in weights if k.endswith(".attn.q_proj.weight"))
    out = [("token_embd.weight", weights["model.embed_tokens.weight"])]
    for i in range(layers):
        p = f"model.layers.{i}."
        t = lambda name: weights[p + name].T  # [in, out] -> [out, in]
        out += [(f"blk.{i}.attn_norm.weight", weights[p + "input_layernorm.weight"]),
                (f"blk.{i}.attn_q.weight", halves_to_pairs(t("attn.q_proj.weight"), heads)),
                (f"blk.{i}.attn_k.weight", halves_to_pairs(t("attn.k_proj.weight"), kv_heads)),
                (f"blk.{i}.attn_v.weight", t("attn.v_proj.weight")),
                (f"blk.{i}.attn_output.weight", t("attn.o_proj.weight")),
                (f"blk.{i}.ffn_norm.weight", weights[p + "post_attention_layernorm.weight"]),
                (f"blk.{i}.ffn_gate.weight", t("mlp.gate_proj.weight")),
                (f"blk.{i}.ffn_up.weight", t("mlp.up_proj.weight")),
                (f"blk.{i}.ffn_down.weight", t("mlp.down_proj.weight"))]
    out += [("output_norm.weight", weights["model.norm.weight"]), ("output.weight", weights["lm_head.weight"].T)]
    return layers, [(name, np.ascontiguousarray(a, dtype="<f4")) for name, a in out]


def write_gguf(model_dir, path):
    weights, attrs = read_model(model_dir)
    heads, kv_heads = attrs["num_heads"], attrs["kv_num_heads"]
    vocab, hidden = weights["model.embed_tokens.weight"].shape
    head_dim = weights["model.layers.0.attn.q_proj.weight"].shape[1] // heads
    context = weights["cos_cache"].shape[0]
    layers, ts = tensors(weights, heads, kv_heads)
    tokens, scores, types = vocabulary(vocab)
    meta = [_kv("general.architecture", T_STRING, "llama"), _kv("general.name", T_STRING, "ogai-bench-llama"),
            _kv("general.file_type", T_UINT32, 0), _kv("general.alignment", T_UINT32, ALIGN),
            _kv("llama.context_length", T_UINT32, context), _kv("llama.embedding_length", T_UINT32, hidden),
            _kv("llama.block_count", T_UINT32, layers),
            _kv("llama.feed_forward_length", T_UINT32, weights["model.layers.0.mlp.gate_proj.weight"].shape[1]),
            _kv("llama.attention.head_count", T_UINT32, heads), _kv("llama.attention.head_count_kv", T_UINT32, kv_heads),
            _kv("llama.attention.layer_norm_rms_epsilon", T_FLOAT32, float(attrs.get("epsilon", 1e-5))),
            _kv("llama.rope.dimension_count", T_UINT32, head_dim), _kv("llama.rope.freq_base", T_FLOAT32, 10000.0),
            _kv("llama.vocab_size", T_UINT32, vocab),
            _kv("tokenizer.ggml.model", T_STRING, "llama"), _kv_array("tokenizer.ggml.tokens", T_STRING, tokens),
            _kv_array("tokenizer.ggml.scores", T_FLOAT32, scores), _kv_array("tokenizer.ggml.token_type", T_INT32, types),
            _kv("tokenizer.ggml.unknown_token_id", T_UINT32, 0), _kv("tokenizer.ggml.bos_token_id", T_UINT32, 1),
            _kv("tokenizer.ggml.eos_token_id", T_UINT32, 2)]
    infos, offset = [], 0
    for name, a in ts:
        offset = (offset + ALIGN - 1) // ALIGN * ALIGN
        dims = list(reversed(a.shape))  # fastest first
        infos.append(_str(name) + struct.pack("<I", len(dims)) + struct.pack(f"<{len(dims)}Q", *dims) +
                     struct.pack("<IQ", GGML_F32, offset))
        offset += a.nbytes
    with open(path, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, len(ts), len(meta)))
        for m in meta + infos:
            f.write(m)
        f.write(b"\0" * (-f.tell() % ALIGN))
        start = f.tell()
        for _, a in ts:
            f.write(b"\0" * (-(f.tell() - start) % ALIGN))
            f.write(a.tobytes())
    return vocab


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    write_gguf(sys.argv[1], sys.argv[2])
