"""Writes a tiny Llama folder in the form ONNX Runtime GenAI's model builder exports for CPU.

    /usr/bin/python3 tools/genai/builder_llama.py OUT_DIR TOKENIZER_JSON [--mha] [--bench] [--vocab N] [--context N]

The graph uses the builder's com.microsoft operators: SimplifiedLayerNormalization for the first
norm, SkipSimplifiedLayerNormalization for the residual adds and later norms, RotaryEmbedding on
queries and keys (fed by position_ids), GroupQueryAttention with seqlens_k and
total_sequence_length derived from attention_mask, a SiLU-gated MLP and an untied lm_head. Inputs
input_ids, attention_mask, position_ids, past_key_values.N.{key,value}; outputs logits and
present.N.{key,value}; weights in model.onnx.data. Random weights from a fixed seed (the same
folder on every run), so greedy output is only compared against another runtime on this graph.
With --mha, attention is MultiHeadAttention instead (unidirectional, the mask as int32
key_padding_mask, as many KV heads as query heads), the form the builder uses where GroupQueryAttention
is not available.
With --bench, the same graph at ~100M parameters (hidden 768, 12 heads, 4 KV heads, 16 layers,
FFN 2048; bench/quantize_bench.py). --vocab N widens the embedding and the lm-head to N ids (ids
beyond the tokenizer's have no text: for benches that read ids, not text). --context N sets the
context (default 256 positions; the rotary tables' length), e.g. for bench/logits_cut_bench's long prompts.
Beside it: genai_config.json as the builder writes it, and TOKENIZER_JSON copied as
tokenizer.json (its vocabulary must cover VOCAB ids). Written by this project; no third-party file.
"""
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB, HIDDEN, HEADS, HEAD, LAYERS, FFN, CONTEXT = 512, 64, 4, 16, 3, 128, 256
KV_HEADS = 2  # 4 (= HEADS) with --mha
MHA = False
EPS = 1e-5
FLOAT = TensorProto.FLOAT


class Builder:
    def __init__(self):
        self.rng = np.random.default_rng(20261201)
        self.nodes, self.inits = [], []

    def weight(self, name, shape, scale=None):
        scale = scale if scale is not None else 1.0 / np.sqrt(shape[0])
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=outputs[0] + "/node", domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs


def rotary_caches(b):
    inv = 1.0 / (10000.0 ** (np.arange(0, HEAD, 2, dtype=np.float64) / HEAD))
    angles = np.outer(np.arange(CONTEXT, dtype=np.float64), inv)
    return (b.const("cos_cache", np.cos(angles).astype(np.float32)),
            b.const("sin_cache", np.sin(angles).astype(np.float32)))


def attention(b, i, x, cos, sin, seqlens, total):
    p = f"/model/layers.{i}/attn"
    q = b.node("MatMul", [x, b.weight(f"model.layers.{i}.attn.q_proj.weight", [HIDDEN, HEADS * HEAD])], [p + "/q"])
    k = b.node("MatMul", [x, b.weight(f"model.layers.{i}.attn.k_proj.weight", [HIDDEN, KV_HEADS * HEAD])], [p + "/k"])
    v = b.node("MatMul", [x, b.weight(f"model.layers.{i}.attn.v_proj.weight", [HIDDEN, KV_HEADS * HEAD])], [p + "/v"])
    q = b.node("RotaryEmbedding", [q, "position_ids", cos, sin], [p + "/q_rotary"], domain="com.microsoft",
               interleaved=0, num_heads=HEADS)
    k = b.node("RotaryEmbedding", [k, "position_ids", cos, sin], [p + "/k_rotary"], domain="com.microsoft",
               interleaved=0, num_heads=KV_HEADS)
    past = [f"past_key_values.{i}.key", f"past_key_values.{i}.value"]
    present = [f"present.{i}.key", f"present.{i}.value"]
    if MHA:
        out = b.node("MultiHeadAttention", [q, k, v, "", seqlens, "", *past], [p + "/mha", *present],
                     domain="com.microsoft", num_heads=HEADS, unidirectional=1, scale=float(HEAD ** -0.5))[0]
    else:
        out = b.node("GroupQueryAttention", [q, k, v, *past, seqlens, total], [p + "/gqa", *present],
                     domain="com.microsoft", num_heads=HEADS, kv_num_heads=KV_HEADS, scale=float(HEAD ** -0.5))[0]
    return b.node("MatMul", [out, b.weight(f"model.layers.{i}.attn.o_proj.weight", [HEADS * HEAD, HIDDEN])], [p + "/o"])


def mlp(b, i, x):
    p = f"/model/layers.{i}/mlp"
    gate = b.node("MatMul", [x, b.weight(f"model.layers.{i}.mlp.gate_proj.weight", [HIDDEN, FFN])], [p + "/gate"])
    up = b.node("MatMul", [x, b.weight(f"model.layers.{i}.mlp.up_proj.weight", [HIDDEN, FFN])], [p + "/up"])
    act = b.node("Mul", [gate, b.node("Sigmoid", [gate], [p + "/sigmoid"])], [p + "/silu"])
    return b.node("MatMul", [b.node("Mul", [act, up], [p + "/gated"]),
                             b.weight(f"model.layers.{i}.mlp.down_proj.weight", [FFN, HIDDEN])], [p + "/down"])


def skip_norm(b, name, x, residual, weight):
    """SkipSimplifiedLayerNormalization: (normalized x + residual, the sum for the next residual)."""
    out = b.node("SkipSimplifiedLayerNormalization", [x, residual, weight],
                 [name + "/output_0", name + "/mean", name + "/inv_std_var", name + "/output_3"],
                 domain="com.microsoft", epsilon=EPS)
    return out[0], out[3]


def mask_inputs(b):
    """What the attention node takes from attention_mask: (seqlens_k, total_sequence_length) for
    GroupQueryAttention, (key_padding_mask, "") for MultiHeadAttention."""
    if MHA:  # the mask itself, as int32 key_padding_mask [batch, total]
        return b.node("Cast", ["attention_mask"], ["/model/attn_mask_reformat/key_padding_mask"], to=TensorProto.INT32), ""
    # attention_mask -> seqlens_k (valid length - 1) and total_sequence_length, as the builder does.
    reduced = b.node("ReduceSum", ["attention_mask", b.const("one_axis", np.array([1], dtype=np.int64))],
                     ["/model/attn_mask_reformat/reduce_sum"], keepdims=0)
    minus = b.node("Sub", [reduced, b.const("one_i64", np.array(1, dtype=np.int64))], ["/model/attn_mask_reformat/sub"])
    seqlens = b.node("Cast", [minus], ["/model/attn_mask_reformat/seqlens_k"], to=TensorProto.INT32)
    shape = b.node("Shape", ["attention_mask"], ["/model/attn_mask_reformat/shape"])
    total = b.node("Gather", [shape, b.const("index_1", np.array(1, dtype=np.int64))], ["/model/attn_mask_reformat/total"])
    return seqlens, b.node("Cast", [total], ["/model/attn_mask_reformat/total_seq_len"], to=TensorProto.INT32)


def graph():
    b = Builder()
    ones = lambda name: b.const(name, np.ones(HIDDEN, dtype=np.float32))
    seqlens, total = mask_inputs(b)
    cos, sin = rotary_caches(b)
    embeds = b.node("Gather", [b.weight("model.embed_tokens.weight", [VOCAB, HIDDEN], 0.5), "input_ids"],
                    ["/model/embed_tokens/output_0"])
    x = b.node("SimplifiedLayerNormalization", [embeds, ones("model.layers.0.input_layernorm.weight")],
               ["/model/layers.0/input_layernorm/output_0"], axis=-1, epsilon=EPS)
    residual = embeds
    for i in range(LAYERS):
        attn = attention(b, i, x, cos, sin, seqlens, total)
        x, residual = skip_norm(b, f"/model/layers.{i}/post_attention_layernorm", attn, residual,
                                ones(f"model.layers.{i}.post_attention_layernorm.weight"))
        down = mlp(b, i, x)
        norm = "model.norm.weight" if i == LAYERS - 1 else f"model.layers.{i + 1}.input_layernorm.weight"
        x, residual = skip_norm(b, f"/model/layers.{i + 1}/input_layernorm", down, residual, ones(norm))
    b.node("MatMul", [x, b.weight("lm_head.weight", [HIDDEN, VOCAB])], ["logits"])
    kv = lambda seq: ["batch_size", KV_HEADS, seq, HEAD]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"])]
    outputs = [helper.make_tensor_value_info("logits", FLOAT, ["batch_size", "sequence_length", VOCAB])]
    for i in range(LAYERS):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", FLOAT, kv("past_sequence_length")))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", FLOAT, kv("total_sequence_length")))
    g = helper.make_graph(b.nodes, "main_graph", inputs, outputs, b.inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="onnxruntime-genai", ir_version=8)
    return model


def genai_config():
    names = {"past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value"}
    return {
        "model": {
            "bos_token_id": 1, "context_length": CONTEXT, "eos_token_id": 2, "pad_token_id": 2, "type": "llama",
            "vocab_size": VOCAB,
            "decoder": {
                "session_options": {"log_id": "onnxruntime-genai", "provider_options": []},
                "filename": "model.onnx", "head_size": HEAD, "hidden_size": HIDDEN,
                "inputs": {"input_ids": "input_ids", "attention_mask": "attention_mask", "position_ids": "position_ids",
                           **names},
                "outputs": {"logits": "logits", "present_key_names": "present.%d.key",
                            "present_value_names": "present.%d.value"},
                "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "num_key_value_heads": KV_HEADS,
            },
        },
        "search": {"diversity_penalty": 0.0, "do_sample": False, "early_stopping": True, "length_penalty": 1.0,
                   "max_length": CONTEXT, "min_length": 0, "no_repeat_ngram_size": 0, "num_beams": 1,
                   "num_return_sequences": 1, "past_present_share_buffer": False, "repetition_penalty": 1.0,
                   "temperature": 1.0, "top_k": 50, "top_p": 1.0},
    }


def main(out_dir, tokenizer, mha=False, bench=False, vocab=None, context=None):
    global MHA, KV_HEADS, HIDDEN, HEADS, HEAD, LAYERS, FFN, VOCAB, CONTEXT
    if vocab:
        VOCAB = vocab
    if context:
        CONTEXT = context
    if bench:
        HIDDEN, HEADS, HEAD, LAYERS, FFN = 768, 12, 64, 16, 2048
    MHA, KV_HEADS = mha, HEADS if mha else (4 if bench else 2)
    os.makedirs(out_dir, exist_ok=True)
    for name in ("model.onnx", "model.onnx.data"):
        if os.path.exists(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    onnx.save_model(graph(), os.path.join(out_dir, "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=1024)
    with open(os.path.join(out_dir, "genai_config.json"), "w", encoding="utf-8") as f:
        json.dump(genai_config(), f, indent=4)
    shutil.copyfile(tokenizer, os.path.join(out_dir, "tokenizer.json"))


if __name__ == "__main__":
    flags = sys.argv[3:]
    numbers = {}
    for name in ("--vocab", "--context"):
        if name in flags:
            i = flags.index(name)
            if i + 1 >= len(flags) or not flags[i + 1].isdigit():
                sys.exit(f"{name} needs a number")
            numbers[name] = int(flags[i + 1])
            del flags[i:i + 2]
    if len(sys.argv) < 3 or any(f not in ("--mha", "--bench") for f in flags):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], "--mha" in flags, "--bench" in flags, numbers.get("--vocab"), numbers.get("--context"))
