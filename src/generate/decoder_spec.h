// DecoderSpec: the flat view of one decoder graph the generation engine drives — which port
// carries what, and the KV pairs the state service manages. Built from the package's decoder ABI
// (metadata) and checked against the live ONNX Runtime session; never guessed from port names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kv/cache_spec.h"

namespace ogai::generate {

// The embedding graph in front of a decoder fed by inputs_embeds (a multimodal package,
// metadata/multimodal_abi.h): token ids [batch, seq] and media feature rows -> inputs_embeds.
struct EmbeddingSpec {
  std::filesystem::path artifact;
  std::string ids_input;                    // [batch, seq]
  std::string embeds_output;                // [batch, seq, hidden]
  std::vector<std::string> feature_inputs;  // ports fed encoder features, one per fed port, in encoder order
};

struct DecoderSpec {
  std::filesystem::path artifact;   // the decoder graph (.onnx or .onnx.textproto)
  std::string token_input;          // [batch, seq]; with `embedding`, the inputs_embeds port [batch, seq, hidden]
  // Set: the decoder takes inputs_embeds, made from the ids by this graph (embedding_stage.h);
  // token_dtype is then the embedding's ids dtype.
  std::optional<EmbeddingSpec> embedding;
  std::string mask_input;           // [batch, past + seq]; empty when absent
  std::string position_input;       // [batch, seq] ([3, batch, seq] when mrope); empty when absent
  // Qwen2-VL-style 3-D rotary positions (importer/mrope.h, generate/mrope_positions.h): the
  // position input is [3, batch, seq], fed from each row's MropePositions.
  bool mrope = false;
  // The element types of those three ports (int32 or int64), as the graph declares them; the
  // Decoder reads them from its session (index_feed.h writes the feeds in them).
  DataType token_dtype = DataType::kInt64, mask_dtype = DataType::kInt64, position_dtype = DataType::kInt64;
  std::string logits_output;        // float [batch, seq, vocab]
  std::string hidden_output;        // [batch, seq, hidden]; empty when absent
  // Static (indexed_scatter) caches: where the new positions are written, int64 [batch] = the
  // row's cache length before the step; and the valid lengths, int64 [batch] = the length after it.
  std::string write_indices_input;
  std::string cache_lengths_input;
  // Optimum's merged decoder (importer/cache_branch.h): bool [1], fed by every run as "the past
  // KV is non-empty"; empty when the graph has no such flag. Needs appended KV (kv::StorageMode::
  // kAppend): the past length is read from the past tensors' sequence axis.
  std::string cache_branch_input;
  kv::CacheSpec cache;              // KV pairs in ABI order and their storage mode
  // Encoder-decoder packages: per-row read-only inputs the encoder fills once per request (cross
  // KV [batch, heads, encoder_len, head_dim], encoder states), fed after the pasts on every step
  // from each row's CrossState (cross_state.h). Empty for decoder-only packages.
  std::vector<std::string> encoder_inputs;
  std::int64_t vocab_size = 0;      // logits' last dim
  std::int64_t max_length = 0;      // context limit in positions; 0 = unknown
  // Whether rows of a batch may be left-padded (attention reads the mask per position). False for
  // explicit-length attention (GroupQueryAttention), which treats the mask as a length.
  bool left_padding = true;
  // Whether the Decoder may rewrite the graph at load so that a run computes the logits of the
  // last K positions only (onnx/logits_cut.h; K per run, Decoder::step). The environment variable
  // OGAI_LOGITS_CUT=0 turns it off in the whole process (the benchmark's baseline, diagnostics).
  bool cut_logits = true;
};

}  // namespace ogai::generate
