// Binding a genai_config.json's names to the decoder graph's real interface, and cross-checking
// the config's attention facts against the graph (internal to the importer).
//
// bind_decoder_ports() classifies every graph input the caller must feed and every graph output:
// token ids, attention mask and position ids by the config's names, per-layer past/present key and
// value by its `%d` templates, logits; for a multimodal pipeline (the config has model.embedding)
// the inputs_embeds the embedding session makes, required, and token ids only when the graph
// also takes them. A runtime input that is none of these (explicit sequence
// lengths, paged-attention tables, embeddings, recurrent or convolution state, ...) is refused by
// name, since ogai would not feed it. Outputs the config does not name are listed as unused, except
// that one of rank >= 3 is refused (v1 wants a role for it; only a named hidden_states output has one).
//
// Combined caches (past_names / present_names, GPT-2) bind instead of separate key/value ports,
// and convolution states (past_conv_names / present_conv_names, LFM2) beside them, on the layers
// model.decoder.layer_types calls `conv`.
//
// check_kv_geometry() then requires, per KV layer: rank-4 [batch, kv_heads, sequence, head_size]
// ports with fixed kv_heads and head_size, equal past and present geometry and dtype, a sequence
// axis that is not fixed (a fixed one is a static cache), contiguous layers 0..N-1 with N equal to
// model.decoder.num_hidden_layers, and the config's num_key_value_heads / head_size equal to the
// graph's (on the sliding layers when a sliding window is declared, since ORT GenAI reads per-layer
// geometry from hybrid graphs such as Gemma's; then the full layers may differ but must agree among
// themselves). Combined layers: [2, batch, kv_heads, sequence, head_size], past and present alike.
// With layer_types, the KV (or combined) layers are exactly its full_attention layers and the
// conv states exactly its conv layers, every state [batch, fixed...] with past equal to present
// and its last dim model.decoder.conv_cache_size; num_hidden_layers counts all of them.
// Every mismatch names the config field, its value, the graph port and its shape.
//
// Throws ogai::Error(kUnsupported) naming the config file or the graph. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "importer/genai_config.h"
#include "onnx/graph_info.h"

namespace ogai::importer {

struct KvLayer {
  std::int64_t index = 0;  // the `%d` of the names (the exported KV entry, not always the logical layer)
  onnx::ValueInfo past_key, past_value, present_key, present_value;  // [batch, kv_heads, seq, head_size]
  bool sliding = false;  // listed in model.decoder.sliding_window.layers (or every layer when none is listed)
};

// GPT-2's combined cache of one layer: [2, batch, kv_heads, sequence, head_size] (key, value).
struct CombinedLayer {
  std::int64_t index = 0;
  onnx::ValueInfo past, present;
};

// LFM2's convolution state of one conv layer: [batch, fixed dims...], replaced each step.
struct StateLayer {
  std::int64_t index = 0;
  onnx::ValueInfo past, present;
};

struct DecoderPorts {
  std::string graph;  // the graph's file name, for messages
  onnx::ValueInfo input_ids;                     // int32 or int64 [batch, sequence] (when has_input_ids)
  bool has_input_ids = true;                     // false: a multimodal decoder fed inputs_embeds alone
  std::optional<onnx::ValueInfo> inputs_embeds;  // float [batch, sequence, hidden]: multimodal decoders only
  std::optional<onnx::ValueInfo> attention_mask;  // int32 or int64 [batch, total_sequence], when the graph has one
  std::optional<onnx::ValueInfo> position_ids;    // int32 or int64 [batch, sequence] ([3, batch, sequence] when mrope)
  bool mrope = false;  // Qwen2-VL-style 3-D positions (model.type qwen2_5_vl / qwen3_vl): importer/mrope.h
  std::optional<onnx::ValueInfo> cache_branch;    // bool [1]: Optimum's use_cache_branch (names.cache_branch)
  onnx::ValueInfo logits;                        // float [batch, sequence, vocab]
  std::optional<onnx::ValueInfo> hidden_states;  // [batch, sequence, hidden], model.decoder.outputs.hidden_states
  std::vector<KvLayer> layers;                   // by index (separate key and value)
  std::vector<CombinedLayer> combined;           // by index (model.decoder.inputs.past_names), else empty
  std::vector<StateLayer> conv;                  // by index (model.decoder.inputs.past_conv_names)
  std::vector<std::string> unused_outputs;       // graph outputs the config does not name
};

DecoderPorts bind_decoder_ports(const GenaiConfig& config, const onnx::GraphInfo& graph, const std::string& graph_name);

void check_kv_geometry(const GenaiConfig& config, const DecoderPorts& ports);

// check_attention_nodes() reads the graph's com.microsoft attention nodes (GroupQueryAttention,
// MultiHeadAttention) bound to a KV layer through their past-key input: `num_heads` must equal
// model.decoder.num_attention_heads; a GroupQueryAttention with `sliding_window_cache` (a
// window-sized cache the kernel evicts from) is refused; its `local_window_size` must be the
// config's window_size on the sliding layers and absent or -1 on the others (a window the config
// does not declare, or a declared one the graph does not apply, names both).
void check_attention_nodes(const GenaiConfig& config, const DecoderPorts& ports, const onnx::GraphInfo& graph);

// "[batch_size, 4, past_sequence_length, 8]" (a symbol, a size, or `?`).
std::string shape_text(const onnx::ValueInfo& value);

}  // namespace ogai::importer
