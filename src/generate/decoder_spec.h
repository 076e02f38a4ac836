// DecoderSpec: the flat view of one decoder graph the generation engine drives — which port
// carries what, and the KV pairs the state service manages. Built from the package's decoder ABI
// (metadata) and checked against the live ONNX Runtime session; never guessed from port names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kv/cache_spec.h"

namespace ogai::generate {

struct DecoderSpec {
  std::filesystem::path artifact;   // the decoder graph (.onnx or .onnx.textproto)
  std::string token_input;          // [batch, seq]; empty when the graph takes embeddings only
  std::string mask_input;           // [batch, past + seq]; empty when absent
  std::string position_input;       // [batch, seq]; empty when absent
  // The element types of those three ports (int32 or int64), as the graph declares them; the
  // Decoder reads them from its session (index_feed.h writes the feeds in them).
  DataType token_dtype = DataType::kInt64, mask_dtype = DataType::kInt64, position_dtype = DataType::kInt64;
  std::string logits_output;        // float [batch, seq, vocab]
  std::string hidden_output;        // [batch, seq, hidden]; empty when absent
  // Static (indexed_scatter) caches: where the new positions are written, int64 [batch] = the
  // row's cache length before the step; and the valid lengths, int64 [batch] = the length after it.
  std::string write_indices_input;
  std::string cache_lengths_input;
  kv::CacheSpec cache;              // KV pairs in ABI order and their storage mode
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
