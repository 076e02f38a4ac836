"""Writes Whisper folders in ONNX Runtime GenAI's form for ogai's encoder-decoder tests.

    /usr/bin/python3 tools/genai/whisper_standin.py OUT_DIR SHARED_WHISPER_DIR

SHARED_WHISPER_DIR is ../shared/ortgenai/whisper (ORT GenAI's test folder: genai_config.json,
dummy_decoder.onnx with no nodes, the tokenizer and audio_processor_config.json; its
dummy_encoder.onnx is absent). Two folders are written under OUT_DIR:

- `whisper-dummy/`: the shared folder's files copied as they are, plus a dummy_encoder.onnx made
  here with the config's ports and, like the shared decoder, no nodes: its outputs are fixed
  initializers (encoder_hidden_states [2, 1500, 384], present_{key,value}_cross_0
  [2, 6, 1500, 64]) whatever it is fed. A runtime that checks returned shapes must refuse it.
- `whisper-standin/`: the same genai_config.json, tokenizer and audio processor config beside two
  graphs with the same ports that COMPUTE:
    encoder: audio_features [batch, 80, 3000] -> mean of frame pairs [batch, 1500, 80] ->
      encoder_hidden_states = x @ Wh [batch, 1500, 384]; present_key_cross_0 / value = x @ Wk / Wv
      as [batch, 6, 1500, 64] (heads split from 384);
    decoder: input_ids int32 [batch, seq] -> embeddings [batch, 6, seq, 64]; self KV grows by
      concatenation (past_*_self_0 ++ new on axis 2); attention over the self KV and over the
      cross KV (softmax(q k^T / 8) v each, unmasked: only the last position's logits are read, and
      it sees every earlier position anyway); logits = (self + 4 x cross context) @ W1 @ W2
      [batch, seq, 51865]; output_cross_qk_0 = the cross scores [batch, 6, seq, 1500].
  Random weights from a fixed seed (the same folders on every run).
Written by this project; the shared files are copied into the build tree at test time, never
into the repository.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HEADS, HEAD, HIDDEN, MELS, FRAMES, ENC = 6, 64, 384, 80, 3000, 1500
VOCAB, SMALL = 51865, 16
FLOAT, INT32 = TensorProto.FLOAT, TensorProto.INT32
SHARED_FILES = ["genai_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                "added_tokens.json", "vocab.json", "audio_processor_config.json"]


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []

    def weight(self, name, shape, scale):
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output + "/node", **attrs))
        return output

    def heads(self, x, name):
        """[batch, n, 384] -> [batch, 6, n, 64]."""
        shaped = self.node("Reshape", [x, self.const(name + "_shape", np.array([0, -1, HEADS, HEAD], np.int64))],
                           name + "_split")
        return self.node("Transpose", [shaped], name, perm=[0, 2, 1, 3])

    def attend(self, q, k, v, name):
        """softmax(q k^T / sqrt(64)) v; returns (context, scores)."""
        kt = self.node("Transpose", [k], name + "_kt", perm=[0, 1, 3, 2])
        raw = self.node("MatMul", [q, kt], name + "_raw")
        scores = self.node("Mul", [raw, self.const(name + "_scale", np.array(1.0 / 8.0, np.float32))], name + "_scores")
        probs = self.node("Softmax", [scores], name + "_probs", axis=-1)
        return self.node("MatMul", [probs, v], name + "_ctx"), scores


def value(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def save(graph, inputs, outputs, path, name):
    model = helper.make_model(helper.make_graph(graph.nodes, name, inputs, outputs, graph.inits),
                              opset_imports=[helper.make_opsetid("", 17)], producer_name="ogai-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def encoder_ports():
    inputs = [value("audio_features", FLOAT, ["batch_size", MELS, FRAMES])]
    outputs = [value("encoder_hidden_states", FLOAT, ["batch_size", ENC, HIDDEN]),
               value("present_key_cross_0", FLOAT, ["batch_size", HEADS, ENC, HEAD]),
               value("present_value_cross_0", FLOAT, ["batch_size", HEADS, ENC, HEAD])]
    return inputs, outputs


def decoder_ports():
    def kv(name, length):
        return value(name, FLOAT, ["batch_size", HEADS, length, HEAD])
    inputs = [value("input_ids", INT32, ["batch_size", "sequence_length"]),
              kv("past_key_self_0", "past_sequence_length"), kv("past_value_self_0", "past_sequence_length"),
              kv("past_key_cross_0", ENC), kv("past_value_cross_0", ENC)]
    outputs = [value("logits", FLOAT, ["batch_size", "sequence_length", VOCAB]),
               kv("present_key_self_0", "total_sequence_length"), kv("present_value_self_0", "total_sequence_length"),
               value("output_cross_qk_0", FLOAT, ["batch_size", HEADS, "sequence_length", ENC])]
    return inputs, outputs


def computing_encoder(path):
    g = Graph(20261207)
    x = g.node("Transpose", ["audio_features"], "frames", perm=[0, 2, 1])  # [B, 3000, 80]
    pairs = g.node("Reshape", [x, g.const("pairs_shape", np.array([0, ENC, 2, MELS], np.int64))], "pairs")
    pooled = g.node("ReduceMean", [pairs], "pooled", axes=[2], keepdims=0)
    g.node("MatMul", [pooled, g.weight("w_hidden", [MELS, HIDDEN], 0.2)], "encoder_hidden_states")
    for kind in ("key", "value"):
        flat = g.node("MatMul", [pooled, g.weight("w_" + kind, [MELS, HIDDEN], 0.3)], kind + "_flat")
        g.heads(flat, "present_%s_cross_0" % kind)
    save(g, *encoder_ports(), path, "whisper_standin_encoder")


def computing_decoder(path):
    g = Graph(20261208)
    small = g.node("Gather", [g.weight("embed", [VOCAB, SMALL], 1.0), "input_ids"], "embed_small")
    h = g.node("MatMul", [small, g.weight("up", [SMALL, HIDDEN], 0.5)], "embed_h")  # [B, S, 384]
    q = g.heads(h, "q")
    new_k = g.heads(g.node("MatMul", [h, g.weight("wk", [HIDDEN, HIDDEN], 0.05)], "k_flat"), "k_new")
    new_v = g.heads(g.node("MatMul", [h, g.weight("wv", [HIDDEN, HIDDEN], 0.05)], "v_flat"), "v_new")
    k = g.node("Concat", ["past_key_self_0", new_k], "present_key_self_0", axis=2)
    v = g.node("Concat", ["past_value_self_0", new_v], "present_value_self_0", axis=2)
    self_ctx, _ = g.attend(q, k, v, "self")
    cross_ctx, cross_scores = g.attend(q, "past_key_cross_0", "past_value_cross_0", "cross")
    g.node("Identity", [cross_scores], "output_cross_qk_0")
    gained = g.node("Mul", [cross_ctx, g.const("cross_gain", np.array(4.0, np.float32))], "cross_gained")
    both = g.node("Add", [self_ctx, gained], "context")
    merged = g.node("Reshape", [g.node("Transpose", [both], "context_t", perm=[0, 2, 1, 3]),
                                g.const("merge_shape", np.array([0, 0, HIDDEN], np.int64))], "context_flat")
    down = g.node("MatMul", [merged, g.weight("w_down", [HIDDEN, SMALL], 0.3)], "down")
    g.node("MatMul", [down, g.weight("lm_head", [SMALL, VOCAB], 1.0)], "logits")
    save(g, *decoder_ports(), path, "whisper_standin_decoder")


def fixed_encoder(path):
    """No nodes: the outputs are initializers of fixed shapes (as ORT GenAI's dummy graphs)."""
    g = Graph(0)
    g.const("encoder_hidden_states", np.zeros([2, ENC, HIDDEN], np.float32))
    g.const("present_key_cross_0", np.zeros([2, HEADS, ENC, HEAD], np.float32))
    g.const("present_value_cross_0", np.zeros([2, HEADS, ENC, HEAD], np.float32))
    save(g, *encoder_ports(), path, "whisper_dummy_encoder")


def copy_shared(shared, out, names):
    os.makedirs(out, exist_ok=True)
    for name in names:
        shutil.copyfile(os.path.join(shared, name), os.path.join(out, name))
        os.chmod(os.path.join(out, name), 0o644)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, shared = sys.argv[1], sys.argv[2]
    dummy = os.path.join(out, "whisper-dummy")
    copy_shared(shared, dummy, SHARED_FILES + ["dummy_decoder.onnx"])
    fixed_encoder(os.path.join(dummy, "dummy_encoder.onnx"))
    standin = os.path.join(out, "whisper-standin")
    copy_shared(shared, standin, SHARED_FILES)
    computing_encoder(os.path.join(standin, "dummy_encoder.onnx"))
    computing_decoder(os.path.join(standin, "dummy_decoder.onnx"))


if __name__ == "__main__":
    main()
