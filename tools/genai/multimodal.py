"""Writes ONNX Runtime GenAI-shaped multimodal folders for the importer's tests.

    /usr/bin/python3 tools/genai/multimodal.py OUT_DIR SHARED_DIR

OUT_DIR/gemma4: the shared gemma4 folder (SHARED_DIR/ortgenai/gemma4, hard-linked file by file, or copied) plus
the two files ORT GenAI's snapshot lacks, made from its genai_config.json's ports:
dummy_text.onnx (a no-node decoder returning fixed initializers, like the shared dummies:
logits [2, 2, 262144], presents [2, 4, 2, 256]) and a WordLevel tokenizer.json holding the ids the
config names (pad 0, eos 1, bos 2, unk 3, 106) and Gemma-4's media markers.

Graphs that compute, with the ports and dtypes of the shared dummies, at toy sizes:
  OUT_DIR/mm-gemma4: type gemma4; processor_config.json Gemma4ImageTransform (patch 4, 16 soft
    tokens, pooling 2); vision (pixel_values [num_patches, 48] float, pixel_position_ids int64
    [num_patches, 2] -> image_features [num_soft_tokens, 32]: a patch projection plus a position
    projection, averaged over groups of pooling^2 patches); embedding (input_ids int64 +
    image_features -> inputs_embeds: a table lookup with the image features scattered, in order,
    at the ids equal to IMAGE_ID); text decoder (inputs_embeds, attention_mask, position_ids, one
    KV layer of 2 heads x 8: presents are past ++ projections of the input, logits read the input
    and the masked mean of the values).
  OUT_DIR/mm-gemma4-audio: the same plus a speech session (audio_embeds [batch, frames, 128],
    input_features_mask, audio_sizes -> audio_features [num_audio_tokens, 32], see speech()) with
    the Gemma4LogMel audio_feature_extraction.json ORT GenAI's gemma4 folder has, and an embedding
    that also scatters audio features at AUDIO_ID (the k-th AUDIO_ID takes row k); its tokenizer
    has Gemma-4's audio markers (58 <|audio>, 59 <audio|>, 63 <|audio|>).
  OUT_DIR/mm-phi3v: type phi3v without a processor config; vision takes float16 pixel_values
    [num_images, max_num_crops, 3, height, width] and image_sizes, makes float16 image_features;
    the embedding takes them; its decoder has no position_ids.
  OUT_DIR/mm-phi3v-hd: type phi3v with the shared phi3-v folder's tokenizer and
    processor_config.json (Phi3ImageTransform, 4 crops, 144 tokens per crop); a vision graph whose
    image_features have Phi-3-V's soft-token count for the canvas image_sizes gives
    ((h/336)(w/336) + 1) * 144 + 1 + (h/336 + 1) * 12 rows (row k: k * WR + mean(pixels) * WP); an
    embedding that places feature row k at the k-th negative id (ids < 0, as Phi-3-V's prompt
    expansion writes -N for the N-th image) and looks the rest up in a 32064-row table.
  OUT_DIR/mm-qwen2_5_vl: type qwen2_5_vl with a Qwen2-VL processor config (smart resize, rescale,
    normalize, PatchImage, patch 14, merge 2) and Qwen's vision markers in its tokenizer
    (60 <|image_pad|>, 61 <|vision_start|>, 62 <|vision_end|>); vision (pixel_values [num_patches,
    1176], image_grid_thw -> image_features [num_patches / 4, 32]: each merge group of 4 patches
    projected, plus the grid's sum); the gemma embedding; a decoder taking 3-D mRoPE position_ids
    [3, batch, sequence] whose logits are a function of the positions only (see mrope_decoder()),
    so that a test can predict the generated ids from the positions ogai feeds.
Random weights from a fixed seed. Written by this project; no third-party file.
"""
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT, FLOAT16, INT64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64
HIDDEN, VOCAB, KV_HEADS, HEAD = 32, 64, 2, 8
IMAGE_ID, AUDIO_ID = 60, 63  # the placeholder ids of the stand-in tokenizers
RNG = np.random.default_rng(20261207)
MROPE_FREQS = [0.9, 0.37]  # the qwen stand-in decoder's angular frequencies (mrope_decoder)


def value(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def weight(name, shape, dtype=np.float32):
    return numpy_helper.from_array((RNG.standard_normal(shape) * 0.5).astype(dtype), name)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(nodes, inputs, outputs, inits, path):
    graph = helper.make_graph(nodes, os.path.basename(path), inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="ogai-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, path)


def node(op, inputs, outputs, **attrs):
    return helper.make_node(op, inputs, outputs, name=outputs[0] + "/" + op, **attrs)


def dummy_text(path, hidden, vocab, kv_heads, head):
    """A no-node decoder: its outputs are initializers, whatever it is fed (like the shared dummies)."""
    batch, seq, past, total = "batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"
    inputs = [value("inputs_embeds", FLOAT, [batch, seq, hidden]), value("attention_mask", INT64, [batch, total]),
              value("position_ids", INT64, [batch, seq]),
              value("past_key_values.0.key", FLOAT, [batch, kv_heads, past, head]),
              value("past_key_values.0.value", FLOAT, [batch, kv_heads, past, head])]
    outputs = [value("logits", FLOAT, [batch, seq, vocab]),
               value("present.0.key", FLOAT, [batch, kv_heads, total, head]),
               value("present.0.value", FLOAT, [batch, kv_heads, total, head])]
    inits = [const("logits", np.zeros([2, 2, vocab], np.float32)),
             const("present.0.key", np.zeros([2, kv_heads, 2, head], np.float32)),
             const("present.0.value", np.zeros([2, kv_heads, 2, head], np.float32))]
    save([], inputs, outputs, inits, path)


def text_decoder(path, positions_rank=2, with_positions=True, vocab=VOCAB):
    """inputs_embeds [b, s, H] -> logits [b, s, V] and one KV layer [b, 2, t, 8]."""
    b, s, p, t = "batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"
    nodes, inits = [], [weight("wk", [HIDDEN, KV_HEADS * HEAD]), weight("wv", [HIDDEN, KV_HEADS * HEAD]),
                        weight("wo", [HIDDEN, vocab]), weight("wm", [KV_HEADS * HEAD, vocab]),
                        const("split_heads", np.array([0, 0, KV_HEADS, HEAD], np.int64)),
                        const("flat_heads", np.array([0, KV_HEADS * HEAD], np.int64)),
                        const("mask_shape", np.array([0, 1, -1, 1], np.int64)), const("axis2", np.array([2], np.int64)),
                        const("axis1", np.array([1], np.int64))]
    inputs = [value("inputs_embeds", FLOAT, [b, s, HIDDEN]), value("attention_mask", INT64, [b, t])]
    x = "inputs_embeds"
    if with_positions:
        shape = [b, s] if positions_rank == 2 else [3, b, s]
        inputs.append(value("position_ids", INT64, shape))
        inits.append(weight("wpos", [HIDDEN]))
        pos = "position_ids"
        if positions_rank == 3:
            nodes.append(node("ReduceMean", ["position_ids"], ["pos_mean"], axes=[0], keepdims=0))
            pos = "pos_mean"
        nodes += [node("Cast", [pos], ["pos_f"], to=FLOAT), node("Unsqueeze", ["pos_f", "axis2"], ["pos_u"]),
                  node("Mul", ["pos_u", "wpos"], ["pos_emb"]), node("Add", ["inputs_embeds", "pos_emb"], ["x"])]
        x = "x"
    inputs += [value("past_key_values.0.key", FLOAT, [b, KV_HEADS, p, HEAD]),
               value("past_key_values.0.value", FLOAT, [b, KV_HEADS, p, HEAD])]
    for kind in ("key", "value"):
        w = "wk" if kind == "key" else "wv"
        nodes += [node("MatMul", [x, w], [kind + "_proj"]),
                  node("Reshape", [kind + "_proj", "split_heads"], [kind + "_heads"]),
                  node("Transpose", [kind + "_heads"], [kind + "_bnsh"], perm=[0, 2, 1, 3]),
                  node("Concat", ["past_key_values.0." + kind, kind + "_bnsh"], ["present.0." + kind], axis=2)]
    # The mean of the values over the positions the mask keeps: [b, 2, 8] -> [b, 16] -> [b, 1, V].
    nodes += [node("Cast", ["attention_mask"], ["mask_f"], to=FLOAT),
              node("Reshape", ["mask_f", "mask_shape"], ["mask_b"]),
              node("Mul", ["present.0.value", "mask_b"], ["kept"]),
              node("ReduceSum", ["kept", "axis2"], ["kept_sum"], keepdims=0),
              node("ReduceSum", ["mask_b", "axis2"], ["mask_sum"], keepdims=0),
              node("Div", ["kept_sum", "mask_sum"], ["value_mean"]),
              node("Reshape", ["value_mean", "flat_heads"], ["value_flat"]),
              node("MatMul", ["value_flat", "wm"], ["memory"]),
              node("Unsqueeze", ["memory", "axis1"], ["memory_u"]),
              node("MatMul", [x, "wo"], ["direct"]),
              node("Add", ["direct", "memory_u"], ["logits"])]
    outputs = [value("logits", FLOAT, [b, s, vocab]), value("present.0.key", FLOAT, [b, KV_HEADS, t, HEAD]),
               value("present.0.value", FLOAT, [b, KV_HEADS, t, HEAD])]
    save(nodes, inputs, outputs, inits, path)


def embedding(path, features_dtype=FLOAT, audio=False):
    """input_ids [b, s] + image_features [n, H] (+ audio_features [m, H]) -> inputs_embeds [b, s, H]:
    a table lookup where the k-th id equal to IMAGE_ID (AUDIO_ID), counting along each row, takes
    feature row k."""
    b, s = "batch_size", "sequence_length"
    nodes = [node("Gather", ["table", "input_ids"], ["text"], axis=0)]
    inits = [weight("table", [VOCAB, HIDDEN]), const("zero", np.array(0, np.int64)),
             const("zero_row", np.zeros([1, HIDDEN], np.float32)), const("axis1", np.array(1, np.int64)),
             const("axis2", np.array([2], np.int64))]
    inputs = [value("input_ids", INT64, [b, s])]
    merged = "text"
    kinds = [("image", IMAGE_ID, features_dtype, "num_image_tokens")]
    if audio:
        kinds.append(("audio", AUDIO_ID, FLOAT, "num_audio_tokens"))
    for kind, token, dtype, rows in kinds:
        f = kind + "_features"
        inputs.append(value(f, dtype, [rows, HIDDEN]))
        inits.append(const(kind + "_id", np.array(token, np.int64)))
        nodes += [node("Equal", ["input_ids", kind + "_id"], ["is_" + kind]),
                  node("Cast", ["is_" + kind], [kind + "_i"], to=INT64),
                  node("CumSum", [kind + "_i", "axis1"], [kind + "_rank"]),
                  node("Where", ["is_" + kind, kind + "_rank", "zero"], [kind + "_row"]),
                  node("Cast", [f], [f + "_f"], to=FLOAT),
                  node("Concat", ["zero_row", f + "_f"], [f + "_0"], axis=0),
                  node("Gather", [f + "_0", kind + "_row"], [kind + "_placed"], axis=0),
                  node("Unsqueeze", ["is_" + kind, "axis2"], ["is_" + kind + "_u"]),
                  node("Where", ["is_" + kind + "_u", kind + "_placed", merged], [kind + "_merged"])]
        merged = kind + "_merged"
    nodes.append(node("Identity", [merged], ["inputs_embeds"]))
    save(nodes, inputs, [value("inputs_embeds", FLOAT, [b, s, HIDDEN])], inits, path)


def speech(path, mask=True):
    """Gemma-4's speech ports: audio_embeds [b, frames, 128] float, input_features_mask [b, frames]
    bool, audio_sizes [b] int64 -> audio_features [num_audio_tokens, H]: a projection of each frame,
    zeroed where the mask is false, through two depthwise 1-D convolutions (kernel 3, stride 2,
    padding 1: Gemma-4's frame-to-token arithmetic), the first audio_sizes rows (the soft tokens of
    the valid frames; batch 1) plus audio_sizes times a learned row. Without `mask` the graph has
    the shared gemma4 dummy's two inputs (the features of invalid frames are zero anyway)."""
    conv = dict(group=HIDDEN, kernel_shape=[3], strides=[2], pads=[1, 1])
    nodes = [node("MatMul", ["audio_embeds", "wa"], ["proj"])]
    if mask:
        nodes += [node("Cast", ["input_features_mask"], ["mask_f"], to=FLOAT),
                  node("Unsqueeze", ["mask_f", "axis2"], ["mask_u"]),
                  node("Mul", ["proj", "mask_u"], ["masked"])]
    nodes += [node("Transpose", ["masked" if mask else "proj"], ["channels"], perm=[0, 2, 1]),
             node("Conv", ["channels", "k1"], ["conv1"], **conv),
             node("Conv", ["conv1", "k2"], ["conv2"], **conv),
             node("Transpose", ["conv2"], ["tokens"], perm=[0, 2, 1]),
             node("Reshape", ["tokens", "rows"], ["all_rows"]),
             node("Slice", ["all_rows", "zero1", "audio_sizes", "zero1"], ["token_rows"]),
             node("Cast", ["audio_sizes"], ["sizes_f"], to=FLOAT),
             node("ReduceSum", ["sizes_f"], ["size_sum"], keepdims=0),
             node("Mul", ["size_sum", "wsize"], ["size_row"]),
             node("Add", ["token_rows", "size_row"], ["audio_features"])]
    inits = [weight("wa", [128, HIDDEN]), weight("k1", [HIDDEN, 1, 3]), weight("k2", [HIDDEN, 1, 3]),
             weight("wsize", [HIDDEN]), const("axis2", np.array([2], np.int64)),
             const("rows", np.array([-1, HIDDEN], np.int64)), const("zero1", np.array([0], np.int64))]
    inputs = [value("audio_embeds", FLOAT, ["batch_size", "num_frames", 128])]
    if mask:
        inputs.append(value("input_features_mask", TensorProto.BOOL, ["batch_size", "num_frames"]))
    inputs.append(value("audio_sizes", INT64, ["batch_size"]))
    save(nodes, inputs, [value("audio_features", FLOAT, ["num_audio_tokens", HIDDEN])], inits, path)


def gemma4_vision(path, patch, pooling):
    feature = patch * patch * 3
    nodes = [node("MatMul", ["pixel_values", "wp"], ["patch_proj"]),
             node("Cast", ["pixel_position_ids"], ["pos_f"], to=FLOAT),
             node("MatMul", ["pos_f", "wxy"], ["pos_proj"]),
             node("Add", ["patch_proj", "pos_proj"], ["per_patch"]),
             node("Reshape", ["per_patch", "groups"], ["grouped"]),
             node("ReduceMean", ["grouped"], ["image_features"], axes=[1], keepdims=0)]
    inits = [weight("wp", [feature, HIDDEN]), weight("wxy", [2, HIDDEN]),
             const("groups", np.array([-1, pooling * pooling, HIDDEN], np.int64))]
    save(nodes, [value("pixel_values", FLOAT, ["num_patches", feature]),
                 value("pixel_position_ids", INT64, ["num_patches", 2])],
         [value("image_features", FLOAT, ["num_soft_tokens", HIDDEN])], inits, path)


def phi3v_vision(path):
    """float16 [num_images, max_num_crops, 3, h, w] -> float16 [num_images * max_num_crops, H]."""
    nodes = [node("ReduceMean", ["pixel_values"], ["crop_mean"], axes=[3, 4], keepdims=0),
             node("Cast", ["crop_mean"], ["crop_f"], to=FLOAT),
             node("Reshape", ["crop_f", "flat"], ["crops"]),
             node("MatMul", ["crops", "wc"], ["proj"]),
             node("Cast", ["image_sizes"], ["sizes_f"], to=FLOAT),
             node("ReduceSum", ["sizes_f"], ["size_sum"], keepdims=1),
             node("Mul", ["proj", "size_scale"], ["scaled"]),
             node("Add", ["scaled", "size_sum"], ["features_f"]),
             node("Cast", ["features_f"], ["image_features"], to=FLOAT16)]
    inits = [weight("wc", [3, HIDDEN]), const("flat", np.array([-1, 3], np.int64)),
             const("size_scale", np.array(0.5, np.float32))]
    save(nodes, [value("pixel_values", FLOAT16, ["num_images", "max_num_crops", 3, "height", "width"]),
                 value("image_sizes", INT64, ["num_images", 2])],
         [value("image_features", FLOAT16, ["num_image_tokens", HIDDEN])], inits, path)


def phi3v_hd_vision(path):
    """float16 pixel_values [1, crops, 3, h, w] + image_sizes [1, 2] -> float16 [n, H], n Phi-3-V's
    soft-token count of the canvas: row k = k * wr + mean(pixel_values) * wp."""
    nodes = [node("Gather", ["image_sizes", "zero"], ["hw"], axis=0),
             node("Div", ["hw", "tile"], ["rc"]),
             node("Gather", ["rc", "zero"], ["r"], axis=0),
             node("Gather", ["rc", "one"], ["c"], axis=0),
             node("Mul", ["r", "c"], ["rxc"]), node("Add", ["rxc", "one"], ["crops1"]),
             node("Mul", ["crops1", "per_tile"], ["crop_tokens"]),
             node("Add", ["r", "one"], ["r1"]), node("Mul", ["r1", "per_row"], ["newlines"]),
             node("Add", ["crop_tokens", "newlines"], ["n0"]), node("Add", ["n0", "one"], ["n"]),
             node("Range", ["zero", "n", "one"], ["k"]),
             node("Cast", ["k"], ["k_f"], to=FLOAT), node("Unsqueeze", ["k_f", "axis1"], ["k_u"]),
             node("Mul", ["k_u", "wr"], ["rows"]),
             node("Cast", ["pixel_values"], ["pv_f"], to=FLOAT),
             node("ReduceMean", ["pv_f"], ["pv_mean"], keepdims=0),
             node("Mul", ["pv_mean", "wp"], ["content"]),
             node("Add", ["rows", "content"], ["features_f"]),
             node("Cast", ["features_f"], ["image_features"], to=FLOAT16)]
    inits = [const("zero", np.array(0, np.int64)), const("one", np.array(1, np.int64)),
             const("tile", np.array(336, np.int64)), const("per_tile", np.array(144, np.int64)),
             const("per_row", np.array(12, np.int64)), const("axis1", np.array([1], np.int64)),
             const("wr", (RNG.standard_normal(HIDDEN) * 0.01).astype(np.float32)), weight("wp", [HIDDEN])]
    save(nodes, [value("pixel_values", FLOAT16, ["num_images", "max_num_crops", 3, "height", "width"]),
                 value("image_sizes", INT64, ["num_images", 2])],
         [value("image_features", FLOAT16, ["num_image_tokens", HIDDEN])], inits, path)


def phi3v_embedding(path, vocab):
    """input_ids [b, s] + float16 image_features [n, H] -> inputs_embeds [b, s, H]: the k-th negative
    id along a row takes feature row k; other ids index a [vocab, H] table."""
    nodes = [node("Max", ["input_ids", "zero"], ["text_ids"]),
             node("Gather", ["table", "text_ids"], ["text"], axis=0),
             node("Less", ["input_ids", "zero"], ["is_image"]),
             node("Cast", ["is_image"], ["image_i"], to=INT64),
             node("CumSum", ["image_i", "axis1"], ["image_rank"]),
             node("Where", ["is_image", "image_rank", "zero"], ["image_row"]),
             node("Cast", ["image_features"], ["features_f"], to=FLOAT),
             node("Concat", ["zero_row", "features_f"], ["features_0"], axis=0),
             node("Gather", ["features_0", "image_row"], ["placed"], axis=0),
             node("Unsqueeze", ["is_image", "axis2"], ["is_image_u"]),
             node("Where", ["is_image_u", "placed", "text"], ["inputs_embeds"])]
    inits = [weight("table", [vocab, HIDDEN]), const("zero", np.array(0, np.int64)),
             const("zero_row", np.zeros([1, HIDDEN], np.float32)), const("axis1", np.array(1, np.int64)),
             const("axis2", np.array([2], np.int64))]
    save(nodes, [value("input_ids", INT64, ["batch_size", "sequence_length"]),
                 value("image_features", FLOAT16, ["num_image_tokens", HIDDEN])],
         [value("inputs_embeds", FLOAT, ["batch_size", "sequence_length", HIDDEN])], inits, path)


def mrope_decoder(path):
    """inputs_embeds (read by nothing), attention_mask, position_ids [3, b, s] -> logits [b, s, V] and one
    KV layer [b, 2, t, 8]. With P [b, s, 3] the positions as float (temporal, height, width) and
    F [b, s, 12] = (sin(P * f), cos(P * f)) for f in MROPE_FREQS, per axis (rotary-like, so that
    far positions do not saturate): key = F @ wk, value = F @ wv (2 heads of 8); logits = F @ wo +
    (masked mean of the values over every position so far, [b, 16]) @ wm. Weights from the fixed seed."""
    b, s, p, t = "batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"
    feats = 3 * 2 * len(MROPE_FREQS)
    inits = [weight("wk", [feats, KV_HEADS * HEAD]), weight("wv", [feats, KV_HEADS * HEAD]), weight("wo", [feats, VOCAB]),
             weight("wm", [KV_HEADS * HEAD, VOCAB]), const("split_heads", np.array([0, 0, KV_HEADS, HEAD], np.int64)),
             const("flat_heads", np.array([0, KV_HEADS * HEAD], np.int64)),
             const("mask_shape", np.array([0, 1, -1, 1], np.int64)), const("axis2", np.array([2], np.int64)),
             const("axis1", np.array([1], np.int64)), const("axis3", np.array([3], np.int64)),
             const("freqs", np.array(MROPE_FREQS, np.float32)),
             const("flat_feats", np.array([0, 0, feats], np.int64))]
    nodes = [node("Cast", ["position_ids"], ["pos_f"], to=FLOAT), node("Transpose", ["pos_f"], ["pos"], perm=[1, 2, 0]),
             node("Unsqueeze", ["pos", "axis3"], ["pos_u"]), node("Mul", ["pos_u", "freqs"], ["angles"]),
             node("Sin", ["angles"], ["sines"]), node("Cos", ["angles"], ["cosines"]),
             node("Concat", ["sines", "cosines"], ["waves"], axis=3),
             node("Reshape", ["waves", "flat_feats"], ["feat"])]
    for kind in ("key", "value"):
        nodes += [node("MatMul", ["feat", "wk" if kind == "key" else "wv"], [kind + "_proj"]),
                  node("Reshape", [kind + "_proj", "split_heads"], [kind + "_heads"]),
                  node("Transpose", [kind + "_heads"], [kind + "_bnsh"], perm=[0, 2, 1, 3]),
                  node("Concat", ["past_key_values.0." + kind, kind + "_bnsh"], ["present.0." + kind], axis=2)]
    nodes += [node("Cast", ["attention_mask"], ["mask_f"], to=FLOAT),
              node("Reshape", ["mask_f", "mask_shape"], ["mask_b"]),
              node("Mul", ["present.0.value", "mask_b"], ["kept"]),
              node("ReduceSum", ["kept", "axis2"], ["kept_sum"], keepdims=0),
              node("ReduceSum", ["mask_b", "axis2"], ["mask_sum"], keepdims=0),
              node("Div", ["kept_sum", "mask_sum"], ["value_mean"]),
              node("Reshape", ["value_mean", "flat_heads"], ["value_flat"]),
              node("MatMul", ["value_flat", "wm"], ["memory"]),
              node("Unsqueeze", ["memory", "axis1"], ["memory_u"]),
              node("MatMul", ["feat", "wo"], ["direct"]),
              node("Add", ["direct", "memory_u"], ["logits"])]
    inputs = [value("inputs_embeds", FLOAT, [b, s, HIDDEN]), value("attention_mask", INT64, [b, t]),
              value("position_ids", INT64, [3, b, s]),
              value("past_key_values.0.key", FLOAT, [b, KV_HEADS, p, HEAD]),
              value("past_key_values.0.value", FLOAT, [b, KV_HEADS, p, HEAD])]
    outputs = [value("logits", FLOAT, [b, s, VOCAB]), value("present.0.key", FLOAT, [b, KV_HEADS, t, HEAD]),
               value("present.0.value", FLOAT, [b, KV_HEADS, t, HEAD])]
    save(nodes, inputs, outputs, inits, path)


def qwen_vision(path, feature):
    """pixel_values [num_patches, feature] (merge groups of 4 consecutive patches, as PatchImage
    writes them) -> image_features [num_patches / 4, H]: each group projected, plus the grid's sum."""
    nodes = [node("Reshape", ["pixel_values", "groups"], ["grouped"]),
             node("MatMul", ["grouped", "wq"], ["proj"]),
             node("Cast", ["image_grid_thw"], ["grid_f"], to=FLOAT),
             node("ReduceSum", ["grid_f"], ["grid_sum"], keepdims=0),
             node("Add", ["proj", "grid_sum"], ["image_features"])]
    save(nodes, [value("pixel_values", FLOAT, ["num_patches", feature]), value("image_grid_thw", INT64, ["num_images", 3])],
         [value("image_features", FLOAT, ["num_image_tokens", HIDDEN])],
         [weight("wq", [4 * feature, HIDDEN]), const("groups", np.array([-1, 4 * feature], np.int64))], path)


def tokenizer(path, specials):
    """A WordLevel tokenizer.json: `specials` (id -> content, added tokens) and words for the rest."""
    size = max(VOCAB, max(specials) + 1)
    vocab = {specials.get(i, "w%d" % i): i for i in range(size)}
    added = [{"id": i, "content": c, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
              "special": True} for i, c in sorted(specials.items())]
    data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": specials.get(3, "w3")}}
    with open(path, "w") as f:
        json.dump(data, f)


def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


def session(filename, inputs, outputs, **extra):
    return dict(filename=filename, inputs=inputs, outputs=outputs, **extra)


def decoder_section(filename, inputs):
    names = dict(inputs)
    names.update({"past_key_names": "past_key_values.%d.key", "past_value_names": "past_key_values.%d.value"})
    return {"filename": filename, "head_size": HEAD, "hidden_size": HIDDEN, "num_attention_heads": KV_HEADS,
            "num_key_value_heads": KV_HEADS, "num_hidden_layers": 1, "inputs": names,
            "outputs": {"logits": "logits", "present_key_names": "present.%d.key",
                        "present_value_names": "present.%d.value"}}


def config(kind, decoder, vision, extra=None):
    model = {"type": kind, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0, "vocab_size": VOCAB,
             "context_length": 128, "decoder": decoder, "vision": vision,
             "embedding": session("embedding.onnx", {"input_ids": "input_ids", "image_features": "image_features"},
                                  {"inputs_embeds": "inputs_embeds"})}
    model.update(extra or {})
    return {"model": model, "search": {"do_sample": False, "max_length": 128, "past_present_share_buffer": False}}


def operation(name, kind, **attrs):
    op = {"name": name, "type": kind}
    if attrs:
        op["attrs"] = attrs
    return {"operation": op}


SPECIALS = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", IMAGE_ID: "<|image|>", 61: "<|image>", 62: "<image|>"}


def mm_gemma4(out):
    os.makedirs(out, exist_ok=True)
    gemma4_vision(os.path.join(out, "vision.onnx"), 4, 2)
    embedding(os.path.join(out, "embedding.onnx"))
    text_decoder(os.path.join(out, "text.onnx"))
    tokenizer(os.path.join(out, "tokenizer.json"), SPECIALS)
    write_json(os.path.join(out, "processor_config.json"), {"processor": {"name": "gemma4_image_processor", "transforms": [
        operation("decode_image", "DecodeImage", color_space="RGB"),
        operation("gemma4_image_transform", "Gemma4ImageTransform", patch_size=4, max_soft_tokens=16,
                  pooling_kernel_size=2)]}})
    decoder = decoder_section("text.onnx", {"inputs_embeds": "inputs_embeds", "attention_mask": "attention_mask",
                                            "position_ids": "position_ids"})
    vision = session("vision.onnx", {"pixel_values": "pixel_values", "pixel_position_ids": "pixel_position_ids"},
                     {"image_features": "image_features"}, config_filename="processor_config.json")
    write_json(os.path.join(out, "genai_config.json"), config("gemma4", decoder, vision))


def mm_phi3v(out):
    os.makedirs(out, exist_ok=True)
    phi3v_vision(os.path.join(out, "vision.onnx"))
    embedding(os.path.join(out, "embedding.onnx"), FLOAT16)
    text_decoder(os.path.join(out, "text.onnx"), with_positions=False)
    tokenizer(os.path.join(out, "tokenizer.json"), SPECIALS)
    decoder = decoder_section("text.onnx", {"inputs_embeds": "inputs_embeds", "attention_mask": "attention_mask"})
    vision = session("vision.onnx", {"pixel_values": "pixel_values", "image_sizes": "image_sizes"},
                     {"image_features": "image_features"})
    write_json(os.path.join(out, "genai_config.json"), config("phi3v", decoder, vision))


def mm_phi3v_hd(out, shared):
    os.makedirs(out, exist_ok=True)
    source = os.path.join(shared, "ortgenai", "phi3-v")
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "processor_config.json"):
        link = os.path.join(out, name)
        if os.path.lexists(link):
            os.remove(link)
        try:
            os.link(os.path.join(source, name), link)
        except OSError:
            shutil.copyfile(os.path.join(source, name), link)
    phi3v_hd_vision(os.path.join(out, "vision.onnx"))
    phi3v_embedding(os.path.join(out, "embedding.onnx"), 32064)
    text_decoder(os.path.join(out, "text.onnx"), with_positions=False, vocab=32064)
    decoder = decoder_section("text.onnx", {"inputs_embeds": "inputs_embeds", "attention_mask": "attention_mask"})
    vision = session("vision.onnx", {"pixel_values": "pixel_values", "image_sizes": "image_sizes"},
                     {"image_features": "image_features"}, config_filename="processor_config.json")
    data = config("phi3v", decoder, vision)
    data["model"].update({"bos_token_id": 1, "eos_token_id": 32007, "pad_token_id": 32000, "context_length": 4096,
                          "vocab_size": 32064})
    data["search"]["max_length"] = 4096
    write_json(os.path.join(out, "genai_config.json"), data)


def mm_qwen(out):
    os.makedirs(out, exist_ok=True)
    qwen_vision(os.path.join(out, "vision.onnx"), 3 * 2 * 14 * 14)
    embedding(os.path.join(out, "embedding.onnx"))
    mrope_decoder(os.path.join(out, "text.onnx"))
    tokenizer(os.path.join(out, "tokenizer.json"), {0: "<pad>", 1: "<|endoftext|>", 2: "<bos>", 3: "<unk>",
                                                    IMAGE_ID: "<|image_pad|>", 61: "<|vision_start|>",
                                                    62: "<|vision_end|>"})
    # A chat template writing each image part as Qwen's marked placeholder (for the served chat route).
    template = ("{%- for m in messages -%}{%- if m.content is string -%}{{ m.content }} {% else -%}"
                "{%- for c in m.content -%}{%- if c.type == 'image' -%}<|vision_start|><|image_pad|><|vision_end|> "
                "{% elif c.type == 'text' -%}{{ c.text }} {% endif -%}{%- endfor -%}{%- endif -%}{%- endfor -%}")
    write_json(os.path.join(out, "tokenizer_config.json"), {"chat_template": template, "eos_token": "<|endoftext|>"})
    write_json(os.path.join(out, "processor_config.json"), {"processor": {"name": "qwen2_5_image_processor", "transforms": [
        operation("decode_image", "DecodeImage", color_space="RGB"),
        operation("resize", "Resize", smart_resize=1, min_pixels=3136, max_pixels=12845056, patch_size=14,
                  merge_size=2),
        operation("rescale", "Rescale", rescale_factor=1.0 / 255.0),
        operation("normalize", "Normalize", mean=[0.48145466, 0.4578275, 0.40821073],
                  std=[0.26862954, 0.26130258, 0.27577711]),
        operation("patch_image", "PatchImage", patch_size=14, temporal_patch_size=2, merge_size=2)]}})
    decoder = decoder_section("text.onnx", {"inputs_embeds": "inputs_embeds", "attention_mask": "attention_mask",
                                            "position_ids": "position_ids"})
    vision = session("vision.onnx", {"pixel_values": "pixel_values", "image_grid_thw": "image_grid_thw"},
                     {"image_features": "image_features"}, spatial_merge_size=2, patch_size=14)
    write_json(os.path.join(out, "genai_config.json"),
               config("qwen2_5_vl", decoder, vision, {"image_token_id": IMAGE_ID, "vision_start_token_id": 61}))


def mm_gemma4_audio(out):
    """mm-gemma4 plus a speech session (audio_feature_extraction.json: Gemma4LogMel, as in the
    shared gemma4 folder) and an embedding that takes audio_features too."""
    mm_gemma4(out)
    tokenizer(os.path.join(out, "tokenizer.json"), {**SPECIALS, 58: "<|audio>", 59: "<audio|>", AUDIO_ID: "<|audio|>"})
    embedding(os.path.join(out, "embedding.onnx"), audio=True)
    speech(os.path.join(out, "speech.onnx"))
    speech(os.path.join(out, "speech_nomask.onnx"), mask=False)  # the shared dummy's two inputs
    write_json(os.path.join(out, "audio_feature_extraction.json"), {"feature_extraction": {"sequence": [
        operation("audio_decoder", "AudioDecoder"),
        operation("gemma4_log_mel", "Gemma4LogMel", feature_size=128, sampling_rate=16000, frame_length_ms=20.0,
                  hop_length_ms=10.0, min_frequency=0.0, max_frequency=8000.0, preemphasis=0.0,
                  preemphasis_htk_flavor=1, fft_overdrive=0, mel_floor=0.001)]}})
    with open(os.path.join(out, "genai_config.json")) as f:
        data = json.load(f)
    data["model"]["embedding"]["inputs"]["audio_features"] = "audio_features"
    data["model"]["speech"] = session("speech.onnx", {"audio_embeds": "audio_embeds", "audio_sizes": "audio_sizes",
                                                      "attention_mask": "input_features_mask"},
                                      {"audio_features": "audio_features"},
                                      config_filename="audio_feature_extraction.json")
    write_json(os.path.join(out, "genai_config.json"), data)


def gemma4_shared(out, shared):
    source = os.path.join(shared, "ortgenai", "gemma4")
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(source):
        link = os.path.join(out, name)
        if os.path.lexists(link):
            os.remove(link)
        try:  # a hard link (the importer refuses files that resolve outside the folder); else a copy
            os.link(os.path.join(source, name), link)
        except OSError:
            shutil.copyfile(os.path.join(source, name), link)
    with open(os.path.join(source, "genai_config.json")) as f:
        d = json.load(f)["model"]["decoder"]
    dummy_text(os.path.join(out, d["filename"]), d["hidden_size"], 262144, d["num_key_value_heads"], d["head_size"])
    specials = {0: "<pad>", 1: "<eos>", 2: "<bos>", 3: "<unk>", 106: "<turn|>", 107: "<|image>", 108: "<|image|>",
                109: "<image|>", 110: "<|audio>", 111: "<|audio|>", 112: "<audio|>"}
    tokenizer(os.path.join(out, "tokenizer.json"), specials)


def main(out_dir, shared_dir):
    gemma4_shared(os.path.join(out_dir, "gemma4"), shared_dir)
    mm_gemma4(os.path.join(out_dir, "mm-gemma4"))
    mm_gemma4_audio(os.path.join(out_dir, "mm-gemma4-audio"))
    mm_phi3v(os.path.join(out_dir, "mm-phi3v"))
    mm_phi3v_hd(os.path.join(out_dir, "mm-phi3v-hd"), shared_dir)
    mm_qwen(os.path.join(out_dir, "mm-qwen2_5_vl"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
