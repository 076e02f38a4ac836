// DenseWeights: exp(y - max y) over the whole vocabulary in one dense array (y the processed
// logits: x / temperature, forbidden ids -inf), with a sum per block of 64 ids and per chunk of
// 1,024, so that a draw walks the chunk sums and then one chunk instead of the row. The sampler's
// chains without a rank filter draw from it directly; the top-p and typical-p chains find their
// cut over it (nucleus.h) and draw from it through a mask (draw_kept()).
//
// Two streaming passes over the row (a vectorized max, then the exponentials with their sums);
// nothing sorts. The walk is in id order (the canonical order of draws, as Candidates'). Sums,
// all in double: a block's 64 weights in 8 lanes (lane l takes ids l, l + 8, ...; the lanes then
// pairwise), blocks and chunks in id order: a fixed order, so draws are deterministic.
// Memory: reserve(V) allocates once; nothing else allocates. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling/allowed_tokens.h"

namespace ogai::sampling {

// Which ids a masked draw (DenseWeights::draw_kept) may pick: those ranked at or above the cut
// (w > cut_w, or w == cut_w and (y > cut_y, or y == cut_y and id <= cut_id)) whose weight is at
// least min_w, with y = row / temperature of the row the draw is given (the raw logits, so that
// the processed row need not be written; temperature 1 when the row is already processed). The
// default keeps every id with a weight.
struct KeptSet {
  bool rank_cut = false;  // false: no rank cut
  float temperature = 1.0f;
  float cut_w = 0.0f, cut_y = 0.0f;
  std::int64_t cut_id = 0;
  float min_w = 0.0f;  // HF min-p with min_tokens_to_keep 1: w < min_p (the top token's w is 1)
  bool score_cut = false;  // typical-p: keep score[id] <= max_score
  float max_score = 0.0f;
};

class DenseWeights {
 public:
  static constexpr std::size_t kBlock = 64;
  static constexpr std::size_t kChunk = 1024;

  void reserve(std::size_t vocab_size);
  // With `on`, compute() also keeps each 64-id block's largest weight (block_maxima()), so that a
  // pass looking for weights above a bound can pass over whole blocks (cut_test.h).
  void keep_block_maxima(bool on) { keep_maxima_ = on; }
  std::size_t capacity() const { return weights_.size(); }

  // One row's weights. y = x / temperature (temperature > 0; 1 leaves x), forbidden ids of
  // `allowed` (null: none) count as -inf; w = exp_nonpositive(y - max y), 0 for -inf; then, when
  // min_p > 0, w < min_p set to 0 (HF MinP with min_tokens_to_keep 1: w is p / p_max). When
  // write_processed, `logits` receives y (and -inf over forbidden ids); otherwise it is only read.
  // Throws ogai::Error on a NaN or +inf logit (an allowed one) or when every y is -inf.
  // With logit_moment (and write_processed), the same pass also sums w * (y - max y) over the
  // tokens with a weight (logit_moment()): typical-p's entropy without a pass of its own.
  void compute(std::span<float> logits, float temperature, double min_p, const AllowedTokens* allowed,
               bool write_processed, bool logit_moment = false);
  // The earlier forms: weights of `logits` as given; with `allowed`, forbidden ids -inf in the row.
  void compute(std::span<const float> logits);
  void compute(std::span<float> logits, const AllowedTokens& allowed);
  // HF MinPLogitsWarper with min_tokens_to_keep 1 on computed weights (then refreshes the sums).
  void apply_min_p(double min_p);

  // Sum of the weights (the chunk sums in id order).
  double total() const;
  // The id at which the cumulative weight first exceeds u * total(), for u in [0, 1).
  std::int64_t draw(double u) const;
  // The same over the ids `kept` keeps, given `total_kept` (their weight, as the caller summed
  // it); `y` the processed logits (for ties at the cut), `scores` the typical-p scores when
  // kept.score_cut. Walks 64-id blocks in id order (a masked sum each) until the target.
  // Whether `kept` keeps `id` (with a weight above 0). O(1).
  bool keeps(const KeptSet& kept, std::int64_t id, std::span<const float> y, std::span<const float> scores) const;
  // The weight of the ids `kept` keeps, summed as draw_kept() walks them.
  double kept_total(const KeptSet& kept, std::span<const float> y, std::span<const float> scores) const;
  std::int64_t draw_kept(double u, double total_kept, const KeptSet& kept, std::span<const float> y,
                         std::span<const float> scores) const;

  std::span<const float> weights() const { return {weights_.data(), size_}; }
  float max_logit() const { return max_; }  // max y
  // The largest weight of each 64-id block (ceil(V / 64)), when keep_block_maxima(true) was set
  // before the last compute(); empty otherwise.
  std::span<const float> block_maxima() const {
    return keep_maxima_ ? std::span<const float>(maxima_.data(), (size_ + kBlock - 1) / kBlock) : std::span<const float>();
  }
  // sum of w * (y - max y) over the ids with w > 0, when the last compute() was asked for it.
  bool has_logit_moment() const { return has_moment_; }
  double logit_moment() const { return moment_; }

 private:
  void sum_chunks();

  std::vector<float> weights_;  // [V] exp(y - max), 0 for -inf and filtered ids
  std::vector<double> chunks_;  // [ceil(V / kChunk)] weight per chunk
  std::size_t size_ = 0;
  float max_ = 0.0f;
  bool keep_maxima_ = false;
  std::vector<float> maxima_;   // [ceil(V / kBlock)] when keep_maxima_
  bool has_moment_ = false;
  double moment_ = 0.0;
};

// Sum of w[0, n) (n <= 64) in the blocks' order: 8 double lanes, then pairwise.
double block_sum(const float* w, std::size_t n);

}  // namespace ogai::sampling
