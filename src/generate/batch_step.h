// One decode step over the rows of a BatchCache: every row feeds one token. Builds the feeds the
// decoder's ports take by role, per row (the row's own length):
//   attention_mask [rows, longest + 1]: left-padded rows (zeros, then len + 1 ones) for
//     kAppend-storage caches, which concatenate the new position at the end; right-padded rows
//     (len + 1 ones, then zeros) for shared buffers, whose attention reads each row's length
//     from the mask (GroupQueryAttention);
//   position_ids [rows, 1] = len (real tokens before the new one);
//   write_indices [rows] = len, cache_lengths [rows] = len + 1 (static caches).
// Multi-token steps (speculative verification) feed [rows, seq] tokens, row r's first real[r]
// real and the rest padding: mask [rows, width + seq] = zeros for the row's left padding, ones
// for its len + real[r] positions, zeros for its padded new ones; position_ids len + s for real
// tokens (1, as Hugging Face, for padding). Left-padded append caches only
// (kv::BatchCache::takes_multi_token_steps); the caller rolls each row back afterwards
// (kv::BatchCache::keep_prefixes).
// Each in the dtype its port declares (int32 or int64). Runs the graph, commits the presents (every row one position
// longer) and returns the logits. A failure leaves the cache as it was before the step. Cost per step: O(rows x
// longest) to write the mask when rows > 1 (a single row appends one column); nothing else grows with the context. The
// run goes through ONNX Runtime's IoBinding (Feed::kBound, the default): the pasts are bound where the cache keeps them
// and the presents are produced there (shared buffers written in place), logits on the host. Feed::kPlain runs without
// binding, host outputs: the reference the bound step is compared against (tests), never faster. Not thread-safe; one
// BatchStep (its scratch buffers and binding) per engine.
#pragma once

#include <span>
#include <vector>

#include "generate/decoder.h"
#include "kv/batch_cache.h"

namespace ogai::generate {

class BatchStep {
 public:
  enum class Feed { kBound, kPlain };
  explicit BatchStep(const Decoder& decoder, Feed feed = Feed::kBound)
      : decoder_(decoder), feed_(feed), binding_(decoder.session()) {}

  // Encoder-decoder packages: each row's encoder outputs, in row order, for the next run (kept
  // until set again; batched by CrossBatch only when the rows change).
  void set_cross(std::span<const CrossStatePtr> rows) { cross_rows_.assign(rows.begin(), rows.end()); }

  // 3-D positions (DecoderSpec::mrope): each row's rope delta (AttentionState::position_offset),
  // in row order, added to its positions from the next run on (kept until set again).
  void set_position_offsets(std::span<const std::int64_t> rows) { offsets_.assign(rows.begin(), rows.end()); }

  // `tokens` holds one token per row of `cache`, in row order.
  StepOutput run(std::span<const TokenId> tokens, kv::BatchCache& cache);
  // A multi-token step: `tokens` is [rows, seq] row-major, row r's first real[r] (1..seq) real.
  // Every row grows by seq positions (padding included); logits are [rows, seq, vocab].
  StepOutput run(std::span<const TokenId> tokens, std::span<const std::int64_t> real, std::int64_t seq,
                 kv::BatchCache& cache);

 private:
  void build_mask(const kv::BatchCache& cache);
  std::int64_t offset(std::int64_t row) const;  // the row's rope delta (3-D positions), else 0
  void build_multi_feeds(const kv::BatchCache& cache, std::span<const std::int64_t> real, std::int64_t seq);
  StepOutput execute(std::span<const TokenId> tokens, std::int64_t seq, std::int64_t mask_width, kv::BatchCache& cache);

  const Decoder& decoder_;
  Feed feed_;
  ort::Binding binding_;
  std::vector<std::int64_t> mask_;                     // [rows, longest + 1]
  std::uint64_t mask_membership_ = ~std::uint64_t{0};  // the cache's membership() mask_ was built for
  std::vector<std::int64_t> positions_;                // [rows]
  std::vector<std::int64_t> lengths_;                  // [2, rows]: write indices, then cache lengths
  std::vector<std::int64_t> wide_ids_;                 // [rows, seq]: the ids for int64 ports (index_feed.h)
  std::vector<std::int32_t> narrow_[2];                // mask, positions for int32 ports (index_feed.h)
  std::vector<const ort::Tensor*> inputs_;
  std::vector<CrossStatePtr> cross_rows_;
  std::vector<std::int64_t> offsets_;                  // [rows]: 3-D positions' rope deltas
  std::vector<std::int64_t> positions3_;               // [3, rows, seq]: the positions on every axis
  CrossBatch cross_;
  std::vector<ort::Tensor> outputs_;
};

}  // namespace ogai::generate
