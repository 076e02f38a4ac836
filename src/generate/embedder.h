// Embedder: vectors from a decoder graph's hidden-state output (Model::embed, POST /v1/embeddings).
//
// Each input (token ids) runs through the decoder once, as a prefill from an empty state: nothing
// is generated and no state is kept. The output with metadata role hidden_states, [batch, seq,
// hidden], is pooled over the input's own positions: the last one (Pooling::kLast) or their mean
// (Pooling::kMean, in double), then optionally L2-normalized (a zero vector stays zero).
//
// Batching: inputs run several to a graph run when the graph's batch dimension is not fixed to 1.
// They are sorted by length and grouped while a run holds at most kBatchTokens padded positions
// and kMaxRows rows (an input longer than kBatchTokens runs alone). Rows are right-padded: real
// tokens first (mask 1, positions 0..n-1), then padding (mask 0), the layout every decoder ogai
// runs accepts from an empty state (GroupQueryAttention reads each row's length from the mask).
// A row's vector equals the one it gets alone up to float rounding (a run's matrix shapes differ).
// An input is never split: it runs whole in one graph run (no chunked prefill), so its cost in
// activation memory is the graph's for a prefill of its length (at most the context).
//
// Thread-safe: embed() is const and keeps its buffers per call (the ORT session is thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "generate/decoder.h"
#include "ogai/model.h"

namespace ogai::generate {

class Embedder {
 public:
  static constexpr std::int64_t kBatchTokens = 4096;  // padded positions per run
  static constexpr std::int64_t kMaxRows = 64;        // inputs per run

  // Checks that `hidden_output` is a float32/float16/bfloat16 output of rank 3 of the decoder's
  // session; ogai::Error (kInvalidPackage) naming the port otherwise. `decoder` must outlive it.
  Embedder(const Decoder& decoder, std::string hidden_output);

  // The vectors' width from the graph's declared shape; 0 when the graph leaves it symbolic.
  std::int64_t width() const { return width_; }
  // Whether inputs share runs (the graph's batch dimension is not fixed to 1).
  bool batches() const { return batches_; }

  // One vector per input, in input order. ogai::Error kInvalidArgument naming "input[i]" for an
  // empty input, a token id outside [0, vocab) or an input longer than the decoder's context.
  // `cancelled` (may be empty) is polled before each graph run; true throws kCancelled.
  std::vector<std::vector<float>> embed(std::span<const std::vector<TokenId>> inputs, Pooling pooling,
                                        bool normalize, const std::function<bool()>& cancelled = {}) const;

 private:
  void check(std::span<const std::vector<TokenId>> inputs) const;
  // Runs `rows` (indexes into inputs, one graph run) and writes their vectors into `out`.
  void run(std::span<const std::vector<TokenId>> inputs, std::span<const std::size_t> rows, Pooling pooling,
           std::vector<std::vector<float>>& out) const;

  const Decoder& decoder_;
  std::string hidden_output_;
  std::int64_t width_ = 0;
  bool batches_ = true;
};

}  // namespace ogai::generate
