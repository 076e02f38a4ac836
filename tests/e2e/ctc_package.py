"""Writes the tiny CTC transcription packages the CTC tests run (ctc_run_cli_test.py,
ctc_serve_test.py): one ONNX encoder whose per-frame logits have a known argmax path, and two
inference_metadata.yaml documents over it.

The encoder (opset 13): input_values float32 [batch, samples], attention_mask int64 [batch, samples]
-> logits float32 [batch, samples, 5] = -(4 * x - c)^2 for classes c = 0..4 (one frame per sample:
the argmax of a frame is round(4 x), clamped to 0..4), frame_lengths int64 [batch] = the mask's row
sums. `encoder_logits` computes the same in NumPy (the test's oracle input).

Packages:
- "raw": the catalogue-05 shape: float32 samples and an application attention mask in, the
  profile decodes with blank 0, collapse_repeats, frame_lengths, an inline vocabulary
  [<pad>, A, B, |, <s>], word delimiter '|', ignored <s>.
- "audio": the same encoder behind an onnx-genai.audio-preprocess@1 adapter (decode a WAV,
  emit_validity_mask), so an encoded audio file (a uint8 [bytes] media input) is transcribed.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

TOKENS = ["<pad>", "A", "B", "|", "<s>"]


def encoder_logits(x):
    """The encoder's logits for float32 samples x [batch, samples], in NumPy."""
    x = np.asarray(x, dtype=np.float32)
    c = np.arange(5, dtype=np.float32)
    d = (x * np.float32(4))[..., None] - c
    return -(d * d)


def write_encoder(path):
    nodes = [
        helper.make_node("Mul", ["input_values", "four"], ["scaled"]),
        helper.make_node("Unsqueeze", ["scaled", "last_axis"], ["column"]),
        helper.make_node("Sub", ["column", "classes"], ["diff"]),
        helper.make_node("Mul", ["diff", "diff"], ["square"]),
        helper.make_node("Neg", ["square"], ["logits"]),
        helper.make_node("ReduceSum", ["attention_mask", "time_axis"], ["frame_lengths"], keepdims=0),
    ]
    inits = [
        numpy_helper.from_array(np.array(4.0, dtype=np.float32), "four"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "last_axis"),
        numpy_helper.from_array(np.arange(5, dtype=np.float32), "classes"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "time_axis"),
    ]
    graph = helper.make_graph(
        nodes, "ctc_encoder",
        [helper.make_tensor_value_info("input_values", TensorProto.FLOAT, ["batch", "samples"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "samples"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "samples", 5]),
         helper.make_tensor_value_info("frame_lengths", TensorProto.INT64, ["batch"])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


TENSOR_OUTPUTS = """    outputs:
      logits:
        contract: {dtype: float32, rank: 3, shape: [batch, frames, 5], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
      frame_lengths:
        contract: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
        role: tensor
        stage: pre_adapter
"""

ENCODER = """      encoder:
        implementation: {kind: onnx, artifact: encoder.onnx}
        ports:
          inputs:
            input_values: {dtype: float32, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
            attention_mask: {dtype: int64, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
          outputs:
            logits: {dtype: float32, rank: 3, shape: [batch, frames, 5], batch_layout: {kind: request_aligned, axis: 0}}
            frame_lengths: {dtype: int64, rank: 1, shape: [batch], batch_layout: {kind: request_aligned, axis: 0}}
"""

EMITS = """      - {kind: emit, value: ctc.logits, output: logits, mode: replace}
      - {kind: emit, value: ctc.lengths, output: frame_lengths, mode: replace}
"""

PROFILE = """profiles:
  transcription:
    kind: transcription
    version: '1.0'
    outputs: {logits: logits, frame_lengths: frame_lengths}
    batch_invariance: padding_sensitive
    decoding:
      kind: ctc
      blank_id: 0
      collapse_repeats: true
      time_axis: 1
      class_axis: 2
      lengths: frame_lengths
      vocabulary:
        source: inline
        size: 5
        tokens: ['<pad>', A, B, '|', '<s>']
        word_delimiter: '|'
        ignored_tokens: ['<s>']
"""

RAW = """schema_version: v1
pipeline:
  workflow:
    manifest:
      capabilities: [workflow_ssa, typed_emit]
    inputs:
      request.input_values:
        contract: {dtype: float32, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: runtime, version: '1.0', role: media}
        source: {kind: request}
        required: true
      request.attention_mask:
        contract: {dtype: int64, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
        role: {kind: opaque}
        source: {kind: application, name: request.attention_mask}
        required: true
""" + TENSOR_OUTPUTS + """    components:
""" + ENCODER + """    state: {}
    steps:
      - kind: invoke
        component: encoder
        inputs: {input_values: request.input_values, attention_mask: request.attention_mask}
        outputs: {logits: ctc.logits, frame_lengths: ctc.lengths}
""" + EMITS + PROFILE

AUDIO = """schema_version: v1
preprocessing:
  audio:
    transforms:
      - {op: decode, outputs: [samples]}
      - {op: downmix, inputs: [samples], outputs: [mono], channels: 1}
      - {op: emit_validity_mask, inputs: [mono], outputs: [mask]}
    outputs:
      - {source: mono, name: audio.input_values, content: waveform, dtype: float32,
         contract: {dtype: float32, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}}
      - {source: mask, name: audio.attention_mask, content: validity_mask, dtype: int64,
         contract: {dtype: int64, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}}
pipeline:
  workflow:
    manifest:
      adapter_abis: {onnx-genai.audio-preprocess: '1'}
      capabilities: [workflow_ssa, typed_emit]
    inputs:
      request.audio:
        contract: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
        role: {kind: runtime, version: '1.0', role: media}
        source: {kind: request}
""" + TENSOR_OUTPUTS + """    components:
      audio_preprocess:
        implementation: {kind: adapter, abi: onnx-genai.audio-preprocess, version: '1'}
        ports:
          inputs:
            encoded: {dtype: uint8, rank: 1, shape: [encoded_bytes]}
          outputs:
            input_values: {dtype: float32, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
            attention_mask: {dtype: int64, rank: 2, shape: [batch, samples], batch_layout: {kind: request_aligned, axis: 0}}
""" + ENCODER + """    steps:
      - kind: invoke
        component: audio_preprocess
        inputs: {encoded: request.audio}
        outputs: {input_values: audio.input_values, attention_mask: audio.attention_mask}
      - kind: invoke
        component: encoder
        inputs: {input_values: audio.input_values, attention_mask: audio.attention_mask}
        outputs: {logits: ctc.logits, frame_lengths: ctc.lengths}
""" + EMITS + PROFILE


def write_package(folder, kind="raw", document=None):
    """Writes package `kind` ("raw" or "audio") into `folder` (created); `document` replaces the
    metadata text (for broken variants). Returns the folder."""
    os.makedirs(folder, exist_ok=True)
    write_encoder(os.path.join(folder, "encoder.onnx"))
    with open(os.path.join(folder, "inference_metadata.yaml"), "w") as f:
        f.write(document if document is not None else (RAW if kind == "raw" else AUDIO))
    return folder


def write_wav(path, classes, rate=16000):
    """A mono 16-bit WAV whose samples are class / 4 (class 4 -> the largest sample)."""
    from wav_file import write_pcm16
    write_pcm16(path, np.minimum(np.asarray(classes, dtype=np.int64) * 8192, 32767), rate)
